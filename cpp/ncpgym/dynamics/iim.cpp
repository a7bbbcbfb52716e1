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
//  - blocks are shared along chains (Model::body_slot_in/out) instead of copied;
//  - a body with k dofs is swept as k single-dof steps, as in aba.cpp.
#include <algorithm>

#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/util/clones.hpp"

// The two single-dof kernels below carry all of the work. They are plain loops
// over the columns of B so that GCC vectorises them, cloned for AVX2/FMA (clones.hpp).

namespace ncpgym {

namespace {

// Inward step of one dof on rows [0, n) (column stride ld), in place on the body block P:
//   ub = b - P s,  then (unless last) P += ub w^T  with w = U / D.
NCPGYM_CLONES void inward_dof(int n, Eigen::Index ld, const double* __restrict b,
                              double* __restrict P, bool update, const double* s,
                              const double* w, double* __restrict ub) {
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
  if (!update) return;
  for (int j = 0; j < 6; ++j)
    for (int r = 0; r < n; ++r) P[j * ld + r] += ub[r] * w_[j];
}

// Outward step of one dof on rows [0, n):  qdd = dinv (ub - A U);  A += qdd s^T.
NCPGYM_CLONES void outward_dof(int n, Eigen::Index ld, double* __restrict A, const double* U,
                               double dinv, const double* s, double* __restrict qdd) {
  double U_[6], s_[6];
  for (int j = 0; j < 6; ++j) {
    U_[j] = U[j];
    s_[j] = s[j];
  }
  for (int r = 0; r < n; ++r) {
    double au = 0;
    for (int j = 0; j < 6; ++j) au += A[j * ld + r] * U_[j];
    qdd[r] = dinv * (qdd[r] - au);
  }
  for (int j = 0; j < 6; ++j)
    for (int r = 0; r < n; ++r) A[j * ld + r] += qdd[r] * s_[j];
}

}  // namespace

void minv_times_transposed(const Model& m, Data& d, const Eigen::Ref<const MatX>& Bt,
                           Eigen::Ref<MatX> Xt) {
  const int nc = static_cast<int>(Bt.rows());
  // The scratch only grows: calls with fewer columns use its top rows (leading dim ld).
  if (d.iim_buf.rows() < nc || d.iim_buf.cols() < 6 * m.nbody)
    d.iim_buf.resize(std::max<Eigen::Index>(nc, d.iim_buf.rows()), 6 * m.nbody);
  const Eigen::Index ld = d.iim_buf.rows();
  auto blk = [&](int slot) { return d.iim_buf.block(0, 6 * slot, nc, 6); };

  // Column range of B touched by each subtree (B* is block upper triangular, eq. 17).
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

  // Inward sweep (eq. 16): Xt columns temporarily hold B_d - S_d^T P.
  for (int b = m.nbody - 1; b > 0; --b) {
    const int p = m.body_parent[b];
    const int lo = d.iim_lo[b], n = std::max(0, d.iim_hi[b] - lo);
    const int sb = m.body_slot_in[b], sp = m.body_slot_in[p];
    double* P = blk(sb).data() + lo;
    const int first = m.body_dofadr[b];
    for (int r = first + m.body_dofnum[b] - 1; r >= first; --r) {
      const Vec6 w = d.U.col(r) * d.dinv[r];
      double* ub = Xt.col(r).data();
      std::fill(ub, ub + nc, 0.0);
      inward_dof(n, ld, Bt.col(r).data() + lo, P, p > 0 || r > first, d.cdof.col(r).data(),
                 w.data(), ub + lo);
    }
    if (p > 0 && sp != sb) blk(sp).middleRows(lo, n) += blk(sb).middleRows(lo, n);
  }

  // Outward sweep (eqs. 21-27): the blocks now hold the body accelerations A_i^T. H^-1
  // couples no two trees, so a tree's dofs are swept only over the columns of B touching
  // that tree (its root's range; the others stay the zeros the inward sweep wrote): for B = I
  // on a pile of free bodies, 6 columns per body instead of nv.
  for (int b = 1; b < m.nbody; ++b) {
    const int p = m.body_parent[b];
    if (p > 0) {  // the tree's range, carried down from its root
      d.iim_lo[b] = d.iim_lo[p];
      d.iim_hi[b] = d.iim_hi[p];
    }
    const int lo = d.iim_lo[b], n = d.iim_hi[b] - lo;
    if (n <= 0) continue;
    const int sb = m.body_slot_out[b], sp = m.body_slot_out[p];
    auto A = blk(sb).middleRows(lo, n);
    if (p == 0) {
      A.setZero();
    } else if (sb != sp) {
      A = blk(sp).middleRows(lo, n);
    }
    for (int r = m.body_dofadr[b]; r < m.body_dofadr[b] + m.body_dofnum[b]; ++r)
      outward_dof(n, ld, A.data(), d.U.col(r).data(), d.dinv[r], d.cdof.col(r).data(),
                  Xt.col(r).data() + lo);
  }
}

void minv_tree_blocks(const Model& m, Data& d, const Eigen::Ref<const MatX>& eye, Eigen::Ref<MatX> Xt) {
  // minv_times_transposed on B = I, tree by tree: the columns of I touching a body's subtree
  // are that subtree's dofs (bodies and dofs are numbered depth first, so they are one
  // range), and H^-1 couples no two trees, so each tree's block is swept over its own
  // columns alone. Per column the same operations in the same order as the call on the
  // whole identity, without its O(nv^2) scans and fills (for 50 free bodies: 300 x 300
  // entries written and scanned per step for 50 blocks of 6 x 6).
  for (int b = 0; b < m.nbody; ++b) {
    d.iim_lo[b] = m.nv;
    d.iim_hi[b] = 0;
  }
  for (int b = m.nbody - 1; b > 0; --b) {
    if (m.body_dofnum[b] > 0) {
      d.iim_lo[b] = std::min(d.iim_lo[b], m.body_dofadr[b]);
      d.iim_hi[b] = std::max(d.iim_hi[b], m.body_dofadr[b] + m.body_dofnum[b]);
    }
    const int p = m.body_parent[b];
    d.iim_lo[p] = std::min(d.iim_lo[p], d.iim_lo[b]);
    d.iim_hi[p] = std::max(d.iim_hi[p], d.iim_hi[b]);
  }
  for (int b0 = 1, b1; b0 < m.nbody; b0 = b1) {
    for (b1 = b0 + 1; b1 < m.nbody && m.body_parent[b1] != 0;) ++b1;  // the tree [b0, b1)
    const int root = d.iim_lo[b0], nt = d.iim_hi[b0] - root;  // its dofs
    if (nt <= 0) continue;
    if (d.iim_buf.rows() < nt || d.iim_buf.cols() < 6 * m.nbody)
      d.iim_buf.resize(std::max<Eigen::Index>(nt, d.iim_buf.rows()), 6 * m.nbody);
    const Eigen::Index ld = d.iim_buf.rows();
    // a body's block over the tree's columns, row 0 = column `root`
    auto blk = [&](int slot) { return d.iim_buf.block(0, 6 * slot, nt, 6); };
    for (int b = b0; b < b1; ++b)
      if (m.body_slot_in[b] == b) blk(b).setZero();
    for (int b = b1 - 1; b >= b0; --b) {  // inward (eq. 16)
      const int p = m.body_parent[b];
      const int n = std::max(0, d.iim_hi[b] - d.iim_lo[b]), lo = n > 0 ? d.iim_lo[b] - root : 0;
      const int sb = m.body_slot_in[b], sp = m.body_slot_in[p];
      double* P = blk(sb).data() + lo;
      const int first = m.body_dofadr[b];
      for (int r = first + m.body_dofnum[b] - 1; r >= first; --r) {
        const Vec6 w = d.U.col(r) * d.dinv[r];
        double* ub = Xt.col(r).data() + root;
        std::fill(ub, ub + nt, 0.0);
        inward_dof(n, ld, eye.col(r - root).data() + lo, P, p > 0 || r > first, d.cdof.col(r).data(), w.data(),
                   ub + lo);
      }
      if (p > 0 && sp != sb) blk(sp).middleRows(lo, n) += blk(sb).middleRows(lo, n);
    }
    for (int b = b0; b < b1; ++b) {  // outward (eqs. 21-27), over the whole tree's columns
      const int p = m.body_parent[b];
      const int sb = m.body_slot_out[b], sp = m.body_slot_out[p];
      auto A = blk(sb);
      if (p == 0) {
        A.setZero();
      } else if (sb != sp) {
        A = blk(sp);
      }
      for (int r = m.body_dofadr[b]; r < m.body_dofadr[b] + m.body_dofnum[b]; ++r)
        outward_dof(nt, ld, A.data(), d.U.col(r).data(), d.dinv[r], d.cdof.col(r).data(), Xt.col(r).data() + root);
    }
  }
}

void minv_times_vector(const Model& m, Data& d, const double* w, double* out) {
  for (int b = 0; b < m.nbody; ++b) d.iim_p[b].setZero();
  for (int b = m.nbody - 1; b > 0; --b) {  // inward (eq. 16)
    Vec6& P = d.iim_p[b];
    const int first = m.body_dofadr[b];
    for (int r = first + m.body_dofnum[b] - 1; r >= first; --r) {
      const double ub = w[r] - d.cdof.col(r).dot(P);
      out[r] = ub;
      P.noalias() += (ub * d.dinv[r]) * d.U.col(r);
    }
    const int p = m.body_parent[b];
    if (p > 0) d.iim_p[p] += P;
  }
  for (int b = 1; b < m.nbody; ++b) {  // outward (eqs. 21-27)
    const int p = m.body_parent[b];
    Vec6 A = p > 0 ? d.iim_a[p] : Vec6::Zero();
    for (int r = m.body_dofadr[b]; r < m.body_dofadr[b] + m.body_dofnum[b]; ++r) {
      const double qdd = d.dinv[r] * (out[r] - d.U.col(r).dot(A));
      out[r] = qdd;
      A.noalias() += qdd * d.cdof.col(r);
    }
    d.iim_a[b] = A;
  }
}

void minv_times(const Model& m, Data& d, const Eigen::Ref<const MatX>& B, Eigen::Ref<MatX> out) {
  const MatX Bt = B.transpose();
  MatX Xt(B.cols(), B.rows());
  minv_times_transposed(m, d, Bt, Xt);
  out = Xt.transpose();
}

}  // namespace ncpgym
