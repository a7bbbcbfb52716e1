// Implicit Inversion Method for the inertia-weighted input matrix M^-1 B
// (iwim-on-dynamics.txt §5). It reuses the factorisation of the O(n) pass (M*_i, M_Ri^-1,
// M*_i F_i) and runs two sweeps over the columns of B, never forming or factoring M:
//  - inward, eq. 16-17: the input part of the articulated bias, h*_u = -B* u, propagated
//    to the parent through T*_ip^T (here P_p += P_i + U_i Dinv_i (B_i - F_i^T P_i));
//  - outward, eqs. 21-27: qdd_u,i = M_Ri^-1 F_i^T [ (B* u)_i - M*_i T_ip ydd_u,p ], which is
//    the cascaded inversion of the unitriangular Gamma (eqs. 22-24) applied column-wise;
//    the product diag(M*_i T_ip) T^ diag(F_i M_Ri^-1 F_i^T) of eq. 27 is accumulated in
//    the body accelerations A_i = A_p + F_i qdd_i instead of being formed.
// With velocity terms and gravity absent, the recursion is linear in B, so every column
// is handled at once as a 6 x ncols block per body: cost O(nbody * ncols).
#include "ncpgym/dynamics/algorithms.hpp"

namespace ncpgym {

void minv_times(const Model& m, Data& d, const Eigen::Ref<const MatX>& B, Eigen::Ref<MatX> out) {
  const int nc = static_cast<int>(B.cols());
  if (d.iim_buf.cols() < static_cast<Eigen::Index>(m.nbody) * nc)
    d.iim_buf.resize(6, static_cast<Eigen::Index>(m.nbody) * nc);
  auto P = [&](int b) { return d.iim_buf.middleCols(static_cast<Eigen::Index>(b) * nc, nc); };
  for (int b = 0; b < m.nbody; ++b) P(b).setZero();

  // Inward sweep: out rows temporarily hold B_i - F_i^T P_i (eq. 16).
  for (int b = m.nbody - 1; b > 0; --b) {
    const int p = m.body_parent[b];
    const int k = m.body_dofnum[b], da = m.body_dofadr[b];
    if (k == 0) {
      if (p > 0) P(p) += P(b);
      continue;
    }
    auto S = d.cdof.middleCols(da, k);
    auto ub = out.middleRows(da, k);
    ub.noalias() = B.middleRows(da, k);
    ub.noalias() -= S.transpose() * P(b);
    if (p > 0) {
      P(p) += P(b);
      P(p).noalias() += (d.U.middleCols(da, k) * d.Dinv[b].topLeftCorner(k, k)) * ub;
    }
  }
  // Outward sweep (eqs. 21-27): the P blocks are no longer needed and now hold A_i.
  P(0).setZero();
  for (int b = 1; b < m.nbody; ++b) {
    const int p = m.body_parent[b];
    const int k = m.body_dofnum[b], da = m.body_dofadr[b];
    if (k == 0) {
      P(b) = P(p);
      continue;
    }
    auto qdd = out.middleRows(da, k);
    qdd -= d.U.middleCols(da, k).transpose() * P(p);
    qdd = d.Dinv[b].topLeftCorner(k, k) * qdd;
    P(b) = P(p);
    P(b).noalias() += d.cdof.middleCols(da, k) * qdd;
  }
}

}  // namespace ncpgym
