// Implicit Inversion Method for the inertia-weighted input matrix M^-1 B
// (iwim-on-dynamics.txt §5). It reuses the factorisation of the O(n) pass (M*_i, M_Ri^-1,
// M*_i F_i) and runs two sweeps over the columns of B, never forming or factoring M:
//  - inward, eqs. 16-17: the input part of the articulated bias, h*_u = -B* u, propagated
//    to the parent through T*_ip^T (here P_p += P_i + U_i Dinv_i (B_i - F_i^T P_i));
//  - outward, eqs. 21-27: qdd_u,i = M_Ri^-1 F_i^T [ (B* u)_i - M*_i T_ip ydd_u,p ], the
//    cascaded inversion of the unitriangular Gamma (eqs. 22-24) applied column-wise; the
//    product diag(M*_i T_ip) T^ diag(F_i M_Ri^-1 F_i^T) of eq. 27 is accumulated in the
//    body accelerations A_i = A_p + F_i qdd_i instead of being formed.
// Without velocity terms and gravity the recursion is linear in B, so all columns move
// together. Implementation choices (ours, for speed; the seed gives the algebra only):
//  - every per-body block is stored transposed (ncols x 6, column-major), so each update
//    is a few contiguous length-ncols axpys; B and the result are transposed too
//    (ncols x nv), which is the memory of a row-major (nv, ncols) NumPy array;
//  - B* is block upper triangular (eq. 17): a subtree's P block is non-zero only in the
//    columns of B that have entries in that subtree, so the inward sweep touches only
//    that column range (for B = I on a chain, half the work);
//  - blocks are shared along chains (Model::body_slot_in/out) instead of copied.
#include <algorithm>

#include "ncpgym/dynamics/algorithms.hpp"

// The two single-dof kernels below carry almost all of the work. They are plain loops
// over the columns of B so that GCC vectorises them, and on x86-64 they are cloned for
// AVX2/FMA with run-time dispatch: portable wheels still use wide registers where the
// CPU has them (Eigen's own SIMD width is fixed when the file is compiled).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(NCPGYM_NATIVE_BUILD)
#define NCPGYM_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define NCPGYM_CLONES
#endif

namespace ncpgym {

namespace {

// Inward step of a single-dof body on rows [0, n) (column stride ld):
//   ub = b - P s, then the parent's block gets P + ub w^T (w = U Dinv): written in place
//   when the parent shares the child's block (Pp == nullptr, in_place), added into a
//   separate block Pp otherwise, skipped at a root (Pp == nullptr, !in_place).
NCPGYM_CLONES void inward_1dof(int n, Eigen::Index ld, const double* __restrict b,
                               double* __restrict P, double* __restrict Pp, bool in_place,
                               const double* s, const double* w, double* __restrict ub) {
  double s_[6], w_[6];
  for (int j = 0; j < 6; ++j) {
    s_[j] = s[j];
    w_[j] = w[j];
  }
  for (int r = 0; r < n; ++r) {
    double acc = b[r];
    for (int j = 0; j < 6; ++j) acc -= P[j * ld + r] * s_[j];
    ub[r] = acc;
  }
  if (in_place) {
    for (int j = 0; j < 6; ++j)
      for (int r = 0; r < n; ++r) P[j * ld + r] += ub[r] * w_[j];
  } else if (Pp != nullptr) {
    for (int j = 0; j < 6; ++j)
      for (int r = 0; r < n; ++r) Pp[j * ld + r] += P[j * ld + r] + ub[r] * w_[j];
  }
}

// Outward step of a single-dof body on rows [0, n):
//   qdd = dinv (ub - A U);  A += qdd s^T     (A holds the parent's acceleration on entry)
NCPGYM_CLONES void outward_1dof(int n, Eigen::Index ld, double* __restrict A, bool has_parent,
                                const double* U, double dinv, const double* s,
                                double* __restrict qdd) {
  const double U0 = U[0], U1 = U[1], U2 = U[2], U3 = U[3], U4 = U[4], U5 = U[5];
  const double s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4], s5 = s[5];
  double *A0 = A, *A1 = A + ld, *A2 = A + 2 * ld, *A3 = A + 3 * ld, *A4 = A + 4 * ld,
         *A5 = A + 5 * ld;
  const double h = has_parent ? 1.0 : 0.0;
  for (int r = 0; r < n; ++r) {
    const double au = A0[r] * U0 + A1[r] * U1 + A2[r] * U2 + A3[r] * U3 + A4[r] * U4 + A5[r] * U5;
    const double x = dinv * (qdd[r] - h * au);
    qdd[r] = x;
    A0[r] += x * s0;
    A1[r] += x * s1;
    A2[r] += x * s2;
    A3[r] += x * s3;
    A4[r] += x * s4;
    A5[r] += x * s5;
  }
}

}  // namespace

void minv_times_transposed(const Model& m, Data& d, const Eigen::Ref<const MatX>& Bt,
                           Eigen::Ref<MatX> Xt) {
  const int nc = static_cast<int>(Bt.rows());
  if (d.iim_buf.rows() != nc || d.iim_buf.cols() < 6 * m.nbody) {
    d.iim_buf.resize(nc, 6 * m.nbody);
    d.iim_tmp.resize(nc, 6);
  }
  auto blk = [&](int slot) { return d.iim_buf.middleCols(6 * slot, 6); };

  // Column range of B touched by each subtree.
  for (int b = 0; b < m.nbody; ++b) {
    d.iim_lo[b] = nc;
    d.iim_hi[b] = 0;
  }
  for (int b = m.nbody - 1; b > 0; --b) {
    for (int r = m.body_dofadr[b]; r < m.body_dofadr[b] + m.body_dofnum[b]; ++r) {
      const auto col = Bt.col(r);
      int lo = 0, hi = nc;
      while (lo < nc && col[lo] == 0) ++lo;
      while (hi > lo && col[hi - 1] == 0) --hi;
      if (lo < hi) {
        d.iim_lo[b] = std::min(d.iim_lo[b], lo);
        d.iim_hi[b] = std::max(d.iim_hi[b], hi);
      }
    }
    const int p = m.body_parent[b];
    d.iim_lo[p] = std::min(d.iim_lo[p], d.iim_lo[b]);
    d.iim_hi[p] = std::max(d.iim_hi[p], d.iim_hi[b]);
    if (m.body_slot_in[b] == b) blk(b).setZero();  // leaves start the accumulation
  }

  // Inward sweep (eq. 16): Xt columns temporarily hold B_i - F_i^T P_i.
  for (int b = m.nbody - 1; b > 0; --b) {
    const int p = m.body_parent[b];
    const int k = m.body_dofnum[b], da = m.body_dofadr[b];
    const int lo = d.iim_lo[b], n = std::max(0, d.iim_hi[b] - lo);
    const int sb = m.body_slot_in[b], sp = m.body_slot_in[p];
    auto Pb = blk(sb).middleRows(lo, n);
    if (k == 1) {
      const Vec6 UD = d.U.col(da) * d.Dinv[b](0, 0);
      double* ub = Xt.col(da).data();
      std::fill(ub, ub + nc, 0.0);
      inward_1dof(n, nc, Bt.col(da).data() + lo, Pb.data(),
                  (p > 0 && sp != sb) ? blk(sp).data() + lo : nullptr, p > 0 && sp == sb,
                  d.cdof.col(da).data(), UD.data(), ub + lo);
    } else if (k > 1) {
      // multi-dof bodies (ball, free, several joints): one column of the k at a time
      auto ub = Xt.middleCols(da, k);
      ub.setZero();
      ub.middleRows(lo, n) = Bt.middleCols(da, k).middleRows(lo, n);
      for (int j = 0; j < k; ++j) ub.col(j).segment(lo, n).noalias() -= Pb * d.cdof.col(da + j);
      if (p == 0) continue;
      auto Pp = blk(sp).middleRows(lo, n);
      if (sp != sb) Pp += Pb;
      const Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> UD =
          d.U.middleCols(da, k) * d.Dinv[b].topLeftCorner(k, k);
      for (int j = 0; j < k; ++j) Pp.noalias() += ub.col(j).segment(lo, n) * UD.col(j).transpose();
    } else if (p > 0 && sp != sb) {
      blk(sp).middleRows(lo, n) += Pb;
    }
  }

  // Outward sweep (eqs. 21-27): the blocks now hold the body accelerations A_i^T.
  for (int b = 1; b < m.nbody; ++b) {
    const int p = m.body_parent[b];
    const int k = m.body_dofnum[b], da = m.body_dofadr[b];
    const int sb = m.body_slot_out[b], sp = m.body_slot_out[p];
    auto A = blk(sb);
    if (p == 0) {
      A.setZero();
    } else if (sb != sp) {
      A = blk(sp);
    }
    if (k == 1) {
      outward_1dof(nc, nc, A.data(), p > 0, d.U.col(da).data(), d.Dinv[b](0, 0),
                   d.cdof.col(da).data(), Xt.col(da).data());
    } else if (k > 1) {
      auto qdd = Xt.middleCols(da, k);
      if (p > 0)
        for (int j = 0; j < k; ++j) qdd.col(j).noalias() -= A * d.U.col(da + j);
      // qdd <- qdd Dinv^T, a column combination through the k x 6 scratch
      auto tmp = d.iim_tmp.leftCols(k);
      tmp = qdd;
      const auto Dinv = d.Dinv[b].topLeftCorner(k, k);
      for (int j = 0; j < k; ++j) {
        qdd.col(j) = tmp.col(0) * Dinv(j, 0);
        for (int i = 1; i < k; ++i) qdd.col(j) += tmp.col(i) * Dinv(j, i);
      }
      for (int j = 0; j < k; ++j) A.noalias() += qdd.col(j) * d.cdof.col(da + j).transpose();
    }
  }
}

void minv_times(const Model& m, Data& d, const Eigen::Ref<const MatX>& B, Eigen::Ref<MatX> out) {
  const MatX Bt = B.transpose();
  MatX Xt(B.cols(), B.rows());
  minv_times_transposed(m, d, Bt, Xt);
  out = Xt.transpose();
}

}  // namespace ncpgym
