#include "ncpgym/constraints/dry_friction_rows.hpp"

#include "ncpgym/constraints/jacobian_rows.hpp"

namespace ncpgym {

int dry_friction_row_count(const Model& m) {
  int n = 0;
  for (const double f : m.dof_frictionloss) n += f > 0;
  for (const double f : m.tendon_frictionloss) n += f > 0;
  return n;
}

void dry_friction_rows(const Model& m, const Data& d, Rows& rows) {
  for (int d = 0; d < m.nv; ++d) {
    if (!(m.dof_frictionloss[d] > 0)) continue;
    rows.J.push(d, 1.0);
    rows.J.end_row();
  }
  for (int t = 0; t < m.ntendon; ++t) {
    if (!(m.tendon_frictionloss[t] > 0)) continue;
    add_tendon_row(m, d, t, 1.0, rows.J);
    rows.J.end_row();
  }
}

void dry_friction_bounds(const Model& m, double* bound) {
  for (int d = 0; d < m.nv; ++d)
    if (m.dof_frictionloss[d] > 0) *bound++ = m.dof_frictionloss[d];
  for (int t = 0; t < m.ntendon; ++t)
    if (m.tendon_frictionloss[t] > 0) *bound++ = m.tendon_frictionloss[t];
}

}  // namespace ncpgym
