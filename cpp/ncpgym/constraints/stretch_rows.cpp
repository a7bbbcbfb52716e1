#include "ncpgym/constraints/stretch_rows.hpp"

#include "ncpgym/constraints/particle_rows.hpp"

namespace ncpgym {

void stretch_rows(const Model& m, const VecX& x, Rows& rows) {
  for (int k = 0; k < m.nstretch; ++k)
    particle_distance_row(m, m.stretch_p[k][0], m.stretch_p[k][1], m.stretch_rest[k], m.stretch_compliance[k], x, rows);
}

}  // namespace ncpgym
