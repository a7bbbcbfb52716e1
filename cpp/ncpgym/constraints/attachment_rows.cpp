#include "ncpgym/constraints/jacobian_rows.hpp"
#include "ncpgym/constraints/particle_rows.hpp"

namespace ncpgym {

void attachment_rows(const Model& m, const Data& d, const VecX& x, Rows& rows) {
  int r = rows.J.rows();
  for (int k = 0; k < m.nattach; ++k) {
    // particle pinned to a body point: three hard rows along the world axes
    const int p = m.att_particle[k], body = m.att_body[k];
    const Vec3 P = d.xpos[body] + d.xmat[body] * m.att_local[k];
    for (int i = 0; i < 3; ++i, ++r) {
      rows.C[r] = x[3 * p + i] - P[i];
      rows.E[r] = 0.0;
      add_particle_row(m, p, Vec3::Unit(i), 1.0, rows.J);
      add_point_row(m, d, body, P, Vec3::Unit(i), -1.0, rows.J);
      rows.J.end_row();
    }
  }
}

}  // namespace ncpgym
