#include "ncpgym/dynamics/algorithms.hpp"

namespace ncpgym {

void add_passive_spring(const Model& m, const double* q, double* out) {
  for (int j = 0; j < m.njnt; ++j) {
    const double k = m.jnt_stiffness[j];
    if (k == 0) continue;  // the Builder allows springs on hinge and slide joints only
    out[m.jnt_dofadr[j]] -= k * (q[m.jnt_qposadr[j]] - m.jnt_springref[j]);
  }
}

void add_passive_damping(const Model& m, const double* u, double* out) {
  for (int i = 0; i < m.nv; ++i) out[i] -= m.dof_damping[i] * u[i];
}

}  // namespace ncpgym
