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

namespace {

// The two sweeps over every body (eqs. 16-27). Body b works on the columns [c0, c0 + nc) of
// B, cols(b) = {c0, nc}: the same for every body (minv_times_transposed), or its tree's
// own (minv_tree_blocks; a slot is shared only along a chain, so within one tree). bcol(r)
// points at B^T's column r (dof r) from row c0 of its body's columns; Xt's column r gets
// rows [c0, c0 + nc). d.iim_lo/hi: the columns touching each subtree (absolute); the scratch
// d.iim_buf has at least every nc rows.
template <class Cols, class BCol>
void iim_sweeps(const Model& m, Data& d, Cols cols, BCol bcol, Eigen::Ref<MatX> Xt) {
  const Eigen::Index ld = d.iim_buf.rows();
  auto blk = [&](int slot, int nc) { return d.iim_buf.block(0, 6 * slot, nc, 6); };
  for (int b = 1; b < m.nbody; ++b)
    if (m.body_slot_in[b] == b) blk(b, cols(b).second).setZero();  // leaves start the accumulation

  // Inward sweep (eq. 16): Xt columns temporarily hold B_d - S_d^T P.
  for (int b = m.nbody - 1; b > 0; --b) {
    const auto [c0, nc] = cols(b);
    const int p = m.body_parent[b];
    const int n = std::max(0, d.iim_hi[b] - d.iim_lo[b]), lo = n > 0 ? d.iim_lo[b] - c0 : 0;
    const int sb = m.body_slot_in[b], sp = m.body_slot_in[p];
    double* P = blk(sb, nc).data() + lo;
    const int first = m.body_dofadr[b];
    for (int r = first + m.body_dofnum[b] - 1; r >= first; --r) {
      const Vec6 w = d.U.col(r) * d.dinv[r];
      double* ub = Xt.col(r).data() + c0;
      std::fill(ub, ub + nc, 0.0);
      inward_dof(n, ld, bcol(r) + lo, P, p > 0 || r > first, d.cdof.col(r).data(), w.data(), ub + lo);
    }
    if (p > 0 && sp != sb) blk(sp, nc).middleRows(lo, n) += blk(sb, nc).middleRows(lo, n);
  }

  // Outward sweep (eqs. 21-27): the blocks now hold the body accelerations A_i^T. H^-1
  // couples no two trees, so a tree's dofs are swept only over the columns of B touching
  // that tree (its root's range; the others stay the zeros the inward sweep wrote): for B = I
  // on a pile of free bodies, 6 columns per body instead of nv.
  for (int b = 1; b < m.nbody; ++b) {
    const int c0 = cols(b).first;
    const int p = m.body_parent[b];
    if (p > 0) {  // the tree's range, carried down from its root
      d.iim_lo[b] = d.iim_lo[p];
      d.iim_hi[b] = d.iim_hi[p];
    }
    const int n = d.iim_hi[b] - d.iim_lo[b], lo = d.iim_lo[b] - c0;
    if (n <= 0) continue;
    const int sb = m.body_slot_out[b], sp = m.body_slot_out[p];
    auto A = d.iim_buf.block(lo, 6 * sb, n, 6);
    if (p == 0) {
      A.setZero();
    } else if (sb != sp) {
      A = d.iim_buf.block(lo, 6 * sp, n, 6);
    }
    for (int r = m.body_dofadr[b]; r < m.body_dofadr[b] + m.body_dofnum[b]; ++r)
      outward_dof(n, ld, A.data(), d.U.col(r).data(), d.dinv[r], d.cdof.col(r).data(), Xt.col(r).data() + c0 + lo);
  }
}

// The scratch only grows: calls with fewer columns use its top rows (leading dim ld).
void reserve_iim(const Model& m, Data& d, int rows) {
  if (d.iim_buf.rows() < rows || d.iim_buf.cols() < 6 * m.nbody)
    d.iim_buf.resize(std::max<Eigen::Index>(rows, d.iim_buf.rows()), 6 * m.nbody);
}

}  // namespace

void minv_times_transposed(const Model& m, Data& d, const Eigen::Ref<const MatX>& Bt,
                           Eigen::Ref<MatX> Xt) {
  const int nc = static_cast<int>(Bt.rows());
  reserve_iim(m, d, nc);
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
  }
  iim_sweeps(m, d, [nc](int) { return std::pair<int, int>(0, nc); }, [&](int r) { return Bt.col(r).data(); }, Xt);
}

void minv_tree_blocks(const Model& m, Data& d, const Eigen::Ref<const MatX>& eye, Eigen::Ref<MatX> Xt) {
  // minv_times_transposed on B = I, each tree over its own columns: the columns of I
  // touching a body's subtree are that subtree's dofs, and H^-1 couples no two trees. Per
  // column the same operations in the same order as the call on the whole identity,
  // without its O(nv^2) scans and fills (for 50 free bodies: 300 x 300 entries written and
  // scanned per step for 50 blocks of 6 x 6). A tree's dofs are [lo, hi) of its root body
  // (depth first numbering; with another order the range also spans other trees' dofs,
  // whose entries, coupling two trees, are then computed as the zeros they are).
  for (int b = 0; b < m.nbody; ++b) {
    d.iim_lo[b] = m.nv;
    d.iim_hi[b] = 0;
  }
  int widest = 0;
  for (int b = m.nbody - 1; b > 0; --b) {
    if (m.body_dofnum[b] > 0) {
      d.iim_lo[b] = std::min(d.iim_lo[b], m.body_dofadr[b]);
      d.iim_hi[b] = std::max(d.iim_hi[b], m.body_dofadr[b] + m.body_dofnum[b]);
    }
    const int p = m.body_parent[b];
    d.iim_lo[p] = std::min(d.iim_lo[p], d.iim_lo[b]);
    d.iim_hi[p] = std::max(d.iim_hi[p], d.iim_hi[b]);
    if (p == 0) widest = std::max(widest, d.iim_hi[b] - d.iim_lo[b]);
  }
  reserve_iim(m, d, widest);
  // a body's columns: its tree root's range (roots keep theirs through the sweeps)
  auto cols = [&](int b) {
    while (m.body_parent[b] != 0) b = m.body_parent[b];
    return std::pair<int, int>(d.iim_lo[b], std::max(0, d.iim_hi[b] - d.iim_lo[b]));
  };
  iim_sweeps(m, d, cols, [&](int r) {
    int b = m.dof_body[r];
    while (m.body_parent[b] != 0) b = m.body_parent[b];
    return eye.col(r - d.iim_lo[b]).data();
  }, Xt);
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
