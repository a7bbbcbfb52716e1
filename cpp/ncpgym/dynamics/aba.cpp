// O(n) forward dynamics in subsystem form (iwim-on-dynamics.txt §3; Bremer 2008; the
// same recursions as Featherstone's articulated-body algorithm, RBDA §7.3).
// Notation map, all quantities in world coordinates about the world origin:
//   T_ip = identity (a common reference point, so no transform between bodies)
//   F_i  = d.cdof columns of body i,  M_i = d.cinert[i],  M*_i = d.IA[i],  h*_i = d.pA[i]
//   M_Ri = F_i^T M*_i F_i + armature, T*_ip^T = I - M*_i F_i M_Ri^-1 F_i^T  (eq. 11).
// A body with k dofs (ball, free, or several MuJoCo joints) is eliminated as a chain of
// k single-dof steps, deepest dof first: this is block Gaussian elimination of its k x k
// M_Ri, so every step divides by a scalar and no k x k factorisation is needed. The
// per-dof bias terms cdofdot sum to the body's F-dot q-dot term of eq. 12.
#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/dynamics/tendon.hpp"

namespace ncpgym {

namespace {

// Second recursion (eqs. 10-11), inward. With `bias` the articulated bias forces h*_i and
// uu = tau - F^T h* are accumulated too; without, only the inertias (for the IIM).
template <bool bias>
void inward(const Model& m, Data& d, const double* extra) {
  for (int b = 1; b < m.nbody; ++b) {
    d.IA[b] = d.cinert[b];
    if (bias) d.pA[b] = cross_force(d.cvel[b], d.cinert[b] * d.cvel[b]);
  }
  for (int b = m.nbody - 1; b > 0; --b) {
    const int p = m.body_parent[b];
    Mat6& IA = d.IA[b];
    Vec6& pA = d.pA[b];
    for (int r = m.body_dofadr[b] + m.body_dofnum[b] - 1; r >= m.body_dofadr[b]; --r) {
      const auto S = d.cdof.col(r);
      auto U = d.U.col(r);
      U.noalias() = IA * S;  // M* F  (eq. 11)
      const double dinv = 1.0 / (S.dot(U) + m.dof_armature[r] + (extra ? extra[r] : 0.0));
      d.dinv[r] = dinv;
      // project the inertia past this dof: M* <- T*^T M* (eq. 10); (IA stays symmetric)
      IA.noalias() -= (dinv * U) * U.transpose();
      if (bias) {
        const double uu = d.tau[r] - S.dot(pA);
        d.uu[r] = uu;
        pA.noalias() += IA * d.cdofdot.col(r);
        pA.noalias() += (dinv * uu) * U;
      }
    }
    if (p == 0) continue;  // nothing to accumulate into the world
    d.IA[p] += IA;
    if (bias) d.pA[p] += pA;
  }
}
}  // namespace

void factorize(const Model& m, Data& d, const double* q, const double* extra_armature) {
  kinematics(m, d, q);
  inward<false>(m, d, extra_armature);
}

void aba(const Model& m, Data& d, const double* q, const double* u, const double* tau,
         Passive passive, const double* extra_armature) {
  kinematics(m, d, q);
  aba_posed(m, d, q, u, tau, passive, extra_armature);
}

void aba_posed(const Model& m, Data& d, const double* q, const double* u, const double* tau,
               Passive passive, const double* extra_armature) {
  // First recursion (eq. 8): poses and twists (in d already), velocities.
  velocities(m, d, u);
  d.tau = Eigen::Map<const VecX>(tau, m.nv);
  if (passive == Passive::All) {
    add_passive_spring(m, q, d.tau.data());
    add_passive_damping(m, u, d.tau.data());
    add_tendon_passive(m, q, u, d.tau.data());
  }
  if (passive != Passive::None) {
    add_passive_gravcomp(m, d, d.tau.data());
    add_passive_fluid(m, d, d.tau.data());
    add_spatial_tendon_passive(m, d, u, d.tau.data());
  }
  // Second recursion (eqs. 10-11).
  inward<true>(m, d, extra_armature);
  // Third recursion (eq. 12), outward; gravity enters as a base acceleration -g.
  d.acc[0] << Vec3::Zero(), -m.gravity;
  for (int b = 1; b < m.nbody; ++b) {
    Vec6 a = d.acc[m.body_parent[b]];
    for (int r = m.body_dofadr[b]; r < m.body_dofadr[b] + m.body_dofnum[b]; ++r) {
      a += d.cdofdot.col(r);
      const double qdd = d.dinv[r] * (d.uu[r] - d.U.col(r).dot(a));
      d.qacc[r] = qdd;
      a.noalias() += d.cdof.col(r) * qdd;
    }
    d.acc[b] = a;
  }
}

}  // namespace ncpgym
