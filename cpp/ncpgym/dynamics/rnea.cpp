// Recursive Newton-Euler inverse dynamics (Featherstone, RBDA §5.3, Table 5.1) in world
// coordinates: outward accelerations, body forces f_i = M_i a_i + v_i x* M_i v_i, inward
// accumulation, tau_i = F_i^T f_i + armature * qdd_i.
#include "ncpgym/dynamics/algorithms.hpp"

namespace ncpgym {

void body_forces(const Model& m, Data& d, const double* qacc) {
  d.acc[0] << Vec3::Zero(), -m.gravity;  // gravity as a base acceleration
  for (int b = 1; b < m.nbody; ++b) {
    const int k = m.body_dofnum[b], da = m.body_dofadr[b];
    Vec6 a = d.acc[m.body_parent[b]] + d.cbias[b];
    if (k > 0) a.noalias() += d.cdof.middleCols(da, k) * Eigen::Map<const VecX>(qacc + da, k);
    d.acc[b] = a;
    d.force[b] = d.cinert[b] * a + cross_force(d.cvel[b], d.cinert[b] * d.cvel[b]);
  }
}

void rnea(const Model& m, Data& d, const double* q, const double* u, const double* qacc,
          double* out) {
  kinematics(m, d, q);
  velocities(m, d, u);
  body_forces(m, d, qacc);
  for (int b = m.nbody - 1; b > 0; --b) {
    const int k = m.body_dofnum[b], da = m.body_dofadr[b];
    for (int i = 0; i < k; ++i)
      out[da + i] = d.cdof.col(da + i).dot(d.force[b]) + m.dof_armature[da + i] * qacc[da + i];
    const int p = m.body_parent[b];
    if (p > 0) d.force[p] += d.force[b];
  }
}

}  // namespace ncpgym
