// O(n) forward dynamics in subsystem form (iwim-on-dynamics.txt §3; Bremer 2008; the
// same recursions as Featherstone's articulated-body algorithm, RBDA §7.3).
// Notation map, all quantities in world coordinates about the world origin:
//   T_ip = identity (a common reference point, so no transform between bodies)
//   F_i  = d.cdof columns of body i (6 x k_i, k_i = 1 hinge/slide, 3 ball, 6 free)
//   M_i  = d.cinert[i],  M*_i = d.IA[i],  h*_i = d.pA[i]
//   M_Ri = F_i^T M*_i F_i + armature,  stored inverted in d.Dinv[i]
//   T*_ip^T = I - M*_i F_i M_Ri^-1 F_i^T  (eq. 11), applied as IA - U Dinv U^T.
#include <Eigen/Cholesky>

#include "ncpgym/dynamics/algorithms.hpp"

namespace ncpgym {

namespace {
using MatK = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
using VecK = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;  // stack storage: no heap

// D^-1 for the k x k joint-space inertia of one body; k = 1 is the common case.
inline void invert_block(const MatK& D, Mat6& Dinv) {
  const int k = static_cast<int>(D.rows());
  if (k == 1) {
    Dinv(0, 0) = 1.0 / D(0, 0);
  } else {
    Dinv.topLeftCorner(k, k) = D.llt().solve(MatK::Identity(k, k));
  }
}

// Second recursion (eqs. 10-11), inward. With `bias` the articulated bias forces h*_i and
// uu = tau_i - F_i^T h*_i are accumulated too; without, only the inertias (for the IIM).
template <bool bias>
void inward(const Model& m, Data& d) {
  for (int b = 1; b < m.nbody; ++b) {
    d.IA[b] = d.cinert[b];
    if (bias) d.pA[b] = cross_force(d.cvel[b], d.cinert[b] * d.cvel[b]);
  }
  for (int b = m.nbody - 1; b > 0; --b) {
    const int p = m.body_parent[b];
    const int k = m.body_dofnum[b], da = m.body_dofadr[b];
    const Mat6& IA = d.IA[b];
    if (k == 0) {  // welded to the parent: its inertia and bias pass through unchanged
      if (p > 0) {
        d.IA[p] += IA;
        if (bias) d.pA[p] += d.pA[b];
      }
      continue;
    }
    auto S = d.cdof.middleCols(da, k);
    auto U = d.U.middleCols(da, k);
    U.noalias() = IA * S;  // M*_i F_i
    MatK D = S.transpose() * U;  // M_Ri (eq. 11)
    for (int i = 0; i < k; ++i) D(i, i) += m.dof_armature[da + i];
    invert_block(D, d.Dinv[b]);
    const auto Dinv = d.Dinv[b].topLeftCorner(k, k);
    if (bias) {
      VecK sp(k);
      sp.noalias() = S.transpose() * d.pA[b];
      d.uu.segment(da, k) = d.tau.segment(da, k) - sp;
    }
    if (p == 0) continue;  // nothing to accumulate into the world
    // M*_p += T*^T M*_i T  and  h*_p += T*^T (M*_i Tdot y_p + h*_i)  (eq. 10)
    const Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> UD = U * Dinv;
    const Mat6 Ia = IA - UD * U.transpose();
    d.IA[p] += Ia;
    if (bias) d.pA[p] += d.pA[b] + Ia * d.cbias[b] + UD * d.uu.segment(da, k);
  }
}
}  // namespace

void factorize(const Model& m, Data& d, const double* q) {
  kinematics(m, d, q);
  inward<false>(m, d);
}

void aba(const Model& m, Data& d, const double* q, const double* u, const double* tau,
         bool include_passive) {
  // First recursion (eq. 8): poses, twists and velocities.
  kinematics(m, d, q);
  velocities(m, d, u);
  d.tau = Eigen::Map<const VecX>(tau, m.nv);
  if (include_passive) {
    for (int j = 0; j < m.njnt; ++j)
      if (m.jnt_stiffness[j] != 0)
        d.tau[m.jnt_dofadr[j]] -= m.jnt_stiffness[j] * (q[m.jnt_qposadr[j]] - m.jnt_springref[j]);
    for (int i = 0; i < m.nv; ++i) d.tau[i] -= m.dof_damping[i] * u[i];
  }
  // Second recursion (eqs. 10-11).
  inward<true>(m, d);
  // Third recursion (eq. 12), outward; gravity enters as a base acceleration -g.
  d.acc[0] << Vec3::Zero(), -m.gravity;
  for (int b = 1; b < m.nbody; ++b) {
    const int k = m.body_dofnum[b], da = m.body_dofadr[b];
    const Vec6 a = d.acc[m.body_parent[b]] + d.cbias[b];
    if (k == 0) {
      d.acc[b] = a;
      continue;
    }
    auto S = d.cdof.middleCols(da, k);
    VecK r(k);
    r.noalias() = d.U.middleCols(da, k).transpose() * a;
    r = d.uu.segment(da, k) - r;
    auto qdd = d.qacc.segment(da, k);
    qdd.noalias() = d.Dinv[b].topLeftCorner(k, k) * r;
    d.acc[b] = a + S * qdd;
  }
}

}  // namespace ncpgym
