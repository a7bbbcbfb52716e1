#include "ncpgym/constraints/jacobian_rows.hpp"
#include "ncpgym/constraints/particle_rows.hpp"

namespace ncpgym {

void particle_distance_row(const Model& m, int p1, int p2, double rest, double compliance, const VecX& x,
                           Rows& rows) {
  const int r = rows.J.rows();
  const Vec3 d = x.segment<3>(3 * p1) - x.segment<3>(3 * p2);
  const double len = d.norm();
  const Vec3 n = len > 1e-12 ? Vec3(d / len) : Vec3::UnitZ();
  rows.C[r] = len - rest;
  rows.E[r] = compliance;
  add_particle_row(m, p1, n, 1.0, rows.J);
  add_particle_row(m, p2, n, -1.0, rows.J);
  rows.J.end_row();
}

void distance_rows(const Model& m, const VecX& x, Rows& rows) {
  for (int k = 0; k < m.ndistance; ++k)
    particle_distance_row(m, m.dist_p1[k], m.dist_p2[k], m.dist_rest[k], m.dist_compliance[k], x, rows);
}

}  // namespace ncpgym
