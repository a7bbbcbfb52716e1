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

void add_passive_gravcomp(const Model& m, Data& d, double* out) {
  if (m.body_gravcomp.empty()) return;
  // The compensating force f = -w m g acts at the centre of mass: as a spatial force about
  // the world origin (the frame of cdof) it is (c x f, f). Accumulated inward over subtrees,
  // each dof takes cdof . F of its body's subtree (the transpose of the Jacobian, O(n)).
  for (int b = 1; b < m.nbody; ++b) {
    const Vec3 f = -m.body_gravcomp[b] * m.body_mass[b] * m.gravity;
    d.force[b] << d.xipos[b].cross(f), f;
  }
  for (int b = m.nbody - 1; b > 0; --b) {
    for (int r = m.body_dofadr[b]; r < m.body_dofadr[b] + m.body_dofnum[b]; ++r)
      out[r] += d.cdof.col(r).dot(d.force[b]);
    if (m.body_parent[b] > 0) d.force[m.body_parent[b]] += d.force[b];
  }
}

}  // namespace ncpgym
