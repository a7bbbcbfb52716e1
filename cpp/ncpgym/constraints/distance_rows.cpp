#include "ncpgym/constraints/jacobian_rows.hpp"
#include "ncpgym/constraints/particle_rows.hpp"

namespace ncpgym {

void distance_rows(const Model& m, const VecX& x, Rows& rows) {
  int r = rows.J.rows();
  for (int k = 0; k < m.ndistance; ++k, ++r) {
    // gradient +n at particle 1 and -n at particle 2
    const int p1 = m.dist_p1[k], p2 = m.dist_p2[k];
    const Vec3 d = x.segment<3>(3 * p1) - x.segment<3>(3 * p2);
    const double len = d.norm();
    const Vec3 n = len > 1e-12 ? Vec3(d / len) : Vec3::UnitZ();
    rows.C[r] = len - m.dist_rest[k];
    rows.E[r] = m.dist_compliance[k];
    add_particle_row(m, p1, n, 1.0, rows.J);
    add_particle_row(m, p2, n, -1.0, rows.J);
    rows.J.end_row();
  }
}

}  // namespace ncpgym
