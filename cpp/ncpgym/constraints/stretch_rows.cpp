#include "ncpgym/constraints/stretch_rows.hpp"

#include "ncpgym/constraints/jacobian_rows.hpp"

namespace ncpgym {

void stretch_rows(const Model& m, const VecX& x, Rows& rows) {
  int r = rows.J.rows();
  for (int k = 0; k < m.nstretch; ++k, ++r) {
    const int p1 = m.stretch_p[k][0], p2 = m.stretch_p[k][1];
    const Vec3 d = x.segment<3>(3 * p1) - x.segment<3>(3 * p2);
    const double len = d.norm();
    const Vec3 n = len > 1e-12 ? Vec3(d / len) : Vec3::UnitZ();
    rows.C[r] = len - m.stretch_rest[k];
    rows.E[r] = m.stretch_compliance[k];
    add_particle_row(m, p1, n, 1.0, rows.J);
    add_particle_row(m, p2, n, -1.0, rows.J);
    rows.J.end_row();
  }
}

}  // namespace ncpgym
