#include "ncpgym/solver/delassus.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/util/clones.hpp"

namespace ncpgym {

using CMap = Eigen::Map<const VecX>;
using VMap = Eigen::Map<VecX>;

void SparseRows::transpose_times(int nrow, const double* w, const double* x, double* y, int n) const {
  std::fill(y, y + n, 0.0);
  for (int r = 0; r < nrow; ++r) add_scaled_row(r, w ? w[r] * x[r] : x[r], y);
}

MatX SparseRows::dense(int ncols) const {
  MatX J = MatX::Zero(rows(), ncols);
  for (int r = 0; r < rows(); ++r)
    for (int k = start[r]; k < start[r + 1]; ++k) J(r, col[k]) += val[k];
  return J;
}

namespace {

// The matrix-free products' kernels over the step's row groups (Delassus::group_: a
// contact's three rows share their columns and are read together), one call per product,
// cloned for AVX2/FMA (util/clones.hpp): the grouped loops vectorise over a segment's
// coordinates (scatter) and the three sums (the others).

// The operator's rows y = alpha (J x) + corr xin (the product's last step, fused), returning
// xin . y (the Krylov solver's next inner product). A group of three rows takes its three sums at once, one 4-wide
// multiply-add per column from the packed values, in two halves (even and odd entries):
// one chain of adds per sum was latency-bound (a contact between two free bodies has 12
// entries: 12 dependent adds).
using V4 = double __attribute__((vector_size(32)));  // GCC's generic vectors: AVX2 or two SSE2 halves

NCPGYM_CLONES double rows_times_kernel(int ngroup, const int* group, const int* start, const int* col,
                                       const double* val, const double* __restrict packed, const double* __restrict x,
                                       double* __restrict y, const double* alpha, const double* corr,
                                       const double* xin) {
  double dot = 0;
  int r = 0;
  const double* jp = packed;  // the groups of three, (v0, v1, v2, 0) per column (pack_triples)
  for (int gi = 0; gi < ngroup; ++gi) {
    const int g = group[gi];
    const int b = start[r], n = start[r + 1] - b;
    const int* c = col + b;
    if (g == 3) {
      V4 s = {0, 0, 0, 0}, t = {0, 0, 0, 0};
      int k = 0;
      for (; k + 1 < n; k += 2) {
        V4 ja, jb;
        std::memcpy(&ja, jp + 4 * k, sizeof(V4));
        std::memcpy(&jb, jp + 4 * k + 4, sizeof(V4));
        s += ja * x[c[k]];
        t += jb * x[c[k + 1]];
      }
      if (k < n) {
        V4 ja;
        std::memcpy(&ja, jp + 4 * k, sizeof(V4));
        s += ja * x[c[k]];
      }
      s += t;
      jp += 4 * n;
      for (int q = 0; q < 3; ++q) {  // written once, from the lanes (a store and reload of y stalled here)
        const double yq = alpha[r + q] * s[q] + corr[r + q] * xin[r + q];
        y[r + q] = yq;
        dot += xin[r + q] * yq;
      }
    } else {
      double s = 0;
      for (int k = 0; k < n; ++k) s += val[b + k] * x[c[k]];
      s = alpha[r] * s + corr[r] * xin[r];
      dot += xin[r] * s;
      y[r] = s;
    }
    r += g;
  }
  return dot;
}

// One block's sum into o (n coordinates; W > 0: n = W known when compiled, so that the
// free body's six sums stay in registers and are stored with fixed-size moves: with a
// run-time count GCC copied the register sums out through a memcpy call per block, 3 % of
// the 50-body pile's step).
template <int W>
__attribute__((always_inline)) inline void scatter_block(int n, const ScatterEntry* __restrict e0,
                                                         const ScatterEntry* __restrict e1,
                                                         const double* __restrict sval, const double* alpha,
                                                         const double* x, double* __restrict o) {
  if constexpr (W > 0) n = W;
  for (const ScatterEntry* e = e0; e != e1; ++e) {
    const int r = e->row;
    if (e->group == 3) {
      const double a0 = alpha[r] * x[r], a1 = alpha[r + 1] * x[r + 1], a2 = alpha[r + 2] * x[r + 2];
      const double *__restrict v0 = sval + e->off0, *__restrict v1 = sval + e->off1, *__restrict v2 = sval + e->off2;
      for (int i = 0; i < n; ++i) o[i] += (a0 * v0[i] + a1 * v1[i]) + a2 * v2[i];
    } else {
      const double a = alpha[r] * x[r];
      if (a == 0.0) continue;
      const double* __restrict v = sval + e->off0;
      for (int i = 0; i < n; ++i) o[i] += a * v[i];
    }
  }
}

// out (nvall) = H^-1 J_eff^T x from the sparse rows of H^-1 J^T (segments, see delassus.hpp),
// by output block: a block (a tree's dofs, or one particle coordinate) sums its entries'
// terms, each a row's a_r H^-1 J_r^T over the block or a group of three rows'
// (a0 v0 + a1 v1) + a2 v2, in row order, and is written once. Scattered row by row, the
// contacts of one body each loaded and stored its segment: a chain through memory, a
// store-to-load forwarding per contact. A row with a_r = 0 adds nothing (skipped: a long
// segment costs its length).
NCPGYM_CLONES void scatter_kernel(int nblock, const int* block_lo, const int* block_start, const int* width,
                                  const ScatterEntry* entries, const double* __restrict sval, const double* alpha,
                                  const double* x, double* __restrict out, int nvall) {
  for (int i = 0; i < nvall; ++i) out[i] = 0.0;
  for (int b = 0; b < nblock; ++b) {
    const int lo = block_lo[b], n = width[lo];
    const ScatterEntry *e0 = entries + block_start[b], *e1 = entries + block_start[b + 1];
    if (n == 6) {  // a free body (the pile's step 2.25-2.35 ms against 2.33-2.51 ms rolled)
      double acc[6] = {0, 0, 0, 0, 0, 0};
      scatter_block<6>(6, e0, e1, sval, alpha, x, acc);
      for (int i = 0; i < 6; ++i) out[lo + i] = acc[i];
    } else if (n <= 8) {  // other short blocks (particle coordinates) sum in registers too
      double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      scatter_block<0>(n, e0, e1, sval, alpha, x, acc);
      for (int i = 0; i < n; ++i) out[lo + i] = acc[i];
    } else {
      scatter_block<0>(n, e0, e1, sval, alpha, x, out + lo);
    }
  }
}

// y (nvall) = J^T diag(alpha) x; a group of three rows adds its three terms per column at
// once (one add on y's chain, as scatter_kernel).
NCPGYM_CLONES void transpose_kernel(int ngroup, const int* group, const int* start, const int* col,
                                    const double* val, const double* alpha, const double* x, double* __restrict y,
                                    int nvall) {
  for (int i = 0; i < nvall; ++i) y[i] = 0.0;
  int r = 0;
  for (int gi = 0; gi < ngroup; ++gi) {
    const int g = group[gi];
    const int b = start[r], n = start[r + 1] - b;
    const int* c = col + b;
    if (g == 3) {
      const double *v0 = val + b, *v1 = val + start[r + 1], *v2 = val + start[r + 2];
      const double a0 = alpha[r] * x[r], a1 = alpha[r + 1] * x[r + 1], a2 = alpha[r + 2] * x[r + 2];
      for (int k = 0; k < n; ++k) y[c[k]] += (a0 * v0[k] + a1 * v1[k]) + a2 * v2[k];
    } else {
      const double a = alpha[r] * x[r];
      for (int k = 0; k < n; ++k) y[c[k]] += a * val[b + k];
    }
    r += g;
  }
}

// The values of the sparse rows of H^-1 J^T (plan_sparse_hinv_jt's segments): each tree
// entry of row r adds its column of H^-1 over its tree's segment, each particle entry its
// diagonal H^-1. One cloned call per iterate (a cloned axpy per entry paid a dispatch each).
NCPGYM_CLONES void form_sparse_kernel(int nrow, int nv, const int* start, const int* col, const double* val,
                                      const int* root, const int* seg_start, const int* seg_lo, const int* seg_hi,
                                      const int* seg_off, const double* __restrict Hinv, Eigen::Index ld_h,
                                      const double* pminv, double* __restrict sval) {
  for (int r = 0; r < nrow; ++r) {
    const int g0 = seg_start[r], g1 = seg_start[r + 1];
    for (int g = g0; g < g1; ++g) {  // a free body's six by fixed-size stores (a memset call each, else)
      double* __restrict z = sval + seg_off[g];
      const int n = seg_hi[g] - seg_lo[g];
      if (n == 6) {
        for (int i = 0; i < 6; ++i) z[i] = 0.0;
      } else {
        for (int i = 0; i < n; ++i) z[i] = 0.0;
      }
    }
    for (int k = start[r]; k < start[r + 1]; ++k) {
      const int c = col[k];
      const int lo = c < nv ? root[c] : c;
      int g = g0;
      while (seg_lo[g] != lo) ++g;
      double* __restrict out = sval + seg_off[g];  // coordinate lo first
      if (c < nv) {
        const double v = val[k];
        const double* __restrict h = Hinv + c * ld_h + lo;
        for (int i = 0, n = seg_hi[g] - lo; i < n; ++i) out[i] += v * h[i];
      } else {
        out[0] += val[k] * pminv[c - nv];
      }
    }
  }
}

// diag J H^-1 J^T of a group of three rows (row_hinv_diag's sums in its order, the three
// at once): a tree column pairs with the later columns of its own tree, a particle column
// with its repeats. The columns of one tree must be contiguous (a contact's two sides,
// contact_rows.cpp: a body's path, or particle coordinates), so each tree column's partners
// are the rest of its run, with no test per pair; false, nothing written, for rows where a
// tree's columns are split (or more than kMaxRun columns), which take row_hinv_diag.
constexpr int kMaxRun = 64;
NCPGYM_CLONES bool triple_hinv_diag(int n, int nv, const int* col, const double* v0, const double* v1,
                                    const double* v2, const int* root, const double* pminv,
                                    const double* __restrict Hinv, Eigen::Index ld, double* out) {
  if (n > kMaxRun) return false;
  int end[kMaxRun], run_root[kMaxRun], nrun = 0;
  for (int a = n - 1; a >= 0; --a) {  // end[a]: one past the run of a's tree (tree columns)
    const bool tree = col[a] < nv;
    end[a] = tree && a + 1 < n && col[a + 1] < nv && root[col[a + 1]] == root[col[a]] ? end[a + 1] : a + 1;
    if (tree && end[a] == a + 1) run_root[nrun++] = root[col[a]];  // a run's last column
  }
  for (int i = 0; i < nrun; ++i)
    for (int j = i + 1; j < nrun; ++j)
      if (run_root[i] == run_root[j]) return false;  // one tree in two runs
  double acc0 = 0, acc1 = 0, acc2 = 0;
  for (int a = 0; a < n; ++a) {
    const int i = col[a];
    if (i >= nv) {  // particles: diagonal H^-1 (a repeated column pairs with itself too)
      const double p = pminv[i - nv];
      for (int c = 0; c < n; ++c)
        if (col[c] == i) {
          acc0 += v0[a] * p * v0[c];
          acc1 += v1[a] * p * v1[c];
          acc2 += v2[a] * p * v2[c];
        }
      continue;
    }
    const double* __restrict Hi = Hinv + static_cast<Eigen::Index>(i) * ld;
    double s0 = 0.5 * v0[a] * Hi[i], s1 = 0.5 * v1[a] * Hi[i], s2 = 0.5 * v2[a] * Hi[i];
    for (int c = a + 1; c < end[a]; ++c) {
      const double h = Hi[col[c]];
      s0 += h * v0[c];
      s1 += h * v1[c];
      s2 += h * v2[c];
    }
    acc0 += 2.0 * v0[a] * s0;
    acc1 += 2.0 * v1[a] * s1;
    acc2 += 2.0 * v2[a] * s2;
  }
  out[0] = acc0;
  out[1] = acc1;
  out[2] = acc2;
  return true;
}

// y (m) = A x, A column-major (m x n, leading dimension lda), by column axpys: the body of
// the two cloned kernels below, inlined into each clone so that each is vectorised for its
// target (Eigen's own GEMV is built for the wheel's baseline SSE2).
__attribute__((always_inline)) inline void gemv_axpy(int m, int n, const double* __restrict A, Eigen::Index lda,
                                                     const double* __restrict x, double* __restrict y) {
  for (int i = 0; i < m; ++i) y[i] = 0.0;
  for (int j = 0; j < n; ++j) {
    const double xj = x[j];
    const double* __restrict a = A + j * lda;
    for (int i = 0; i < m; ++i) y[i] += a[i] * xj;
  }
}

// out = H^-1 w over the trees' dofs, tree by tree from the step's dense H^-1 (column-major,
// ld): each tree's diagonal block a GEMV
NCPGYM_CLONES void trees_gemv(int nv, const int* tree_end, const double* __restrict Hinv, Eigen::Index ld,
                              const double* __restrict w, double* __restrict out) {
  for (int root = 0; root < nv; root = tree_end[root]) {
    const int n = tree_end[root] - root;
    gemv_axpy(n, n, Hinv + static_cast<Eigen::Index>(root) * ld + root, ld, w + root, out + root);
  }
}

// y (m) = A x: the dense form's products
NCPGYM_CLONES void gemv_cols(int m, int n, const double* __restrict A, Eigen::Index lda, const double* __restrict x,
                             double* __restrict y) {
  gemv_axpy(m, n, A, lda, x, y);
}

}  // namespace

Delassus::Delassus(const Model& m, Data& dH, const SparseRows& J, int dense_capacity)
    : m_(m), dH_(dH), J_(J), nvall_(m.nv + 3 * m.nparticle) {
  Jd_.setZero(dense_capacity, m.nv);
  Xt_.setZero(dense_capacity, m.nv);
  JHt_.setZero(nvall_, dense_capacity);
  A_.setZero(dense_capacity, dense_capacity);
  pminv_.setZero(3 * m.nparticle);
  tmp_.setZero(nvall_);
  tmp2_.setZero(nvall_);
  dof_root_.resize(m.nv);
  tree_end_.assign(m.nv, 0);
  for (int i = 0; i < m.nv; ++i) dof_root_[i] = m.dof_parent[i] < 0 ? i : dof_root_[m.dof_parent[i]];
  // a tree's dofs are [root, end): MuJoCo numbers them depth first (a wider range would
  // only add zeros of H^-1)
  for (int i = 0; i < m.nv; ++i) tree_end_[dof_root_[i]] = std::max(tree_end_[dof_root_[i]], i + 1);
  for (int i = 0; i < m.nv; ++i) tree_end_[i] = tree_end_[dof_root_[i]];
  // the scatter's blocks (plan_scatter_blocks): at most one per coordinate
  block_width_.assign(nvall_, 1);  // a particle coordinate: 1
  for (int i = 0; i < m.nv; ++i) block_width_[i] = tree_end_[i] - dof_root_[i];
  block_count_.assign(nvall_, 0);
  block_lo_.reserve(nvall_);
  block_start_.reserve(nvall_ + 1);
  for (int root = 0; root < m.nv; ++root)
    if (dof_root_[root] == root) tree_work_ += static_cast<double>(tree_end_[root] - root) * (tree_end_[root] - root);
  // H^-1 w: the trees' dense H^-1 (once inverted for the step) costs sum n_tree^2 FMAs at
  // GEMV speed, the IIM's O(n) sweep ~24 flops per dof in scalar recursions; the GEMV wins
  // on the humanoid (529 against 552 flops, 1.1x faster measured) and on piles of free
  // bodies (36 per body), the sweep on long chains
  tree_gemv_ = tree_work_ <= 48.0 * m.nv;
  if (m.nv > 0) {
    // the IIM scratch at its widest (dense rows, or the identity of matrix-free mode)
    MatX probe = MatX::Zero(std::max(dense_capacity, m.nv), m.nv), out(std::max(dense_capacity, m.nv), m.nv);
    minv_times_transposed(m, dH_, probe, out);
  }
}

void Delassus::begin_step(int nrow, bool dense, int iterations, bool assemble, bool products,
                          int linear_iterations, bool choose) {
  nrow_ = nrow;
  dense_ = dense;
  choose_ = dense && !assemble && choose;
  hinv_fresh_ = false;
  assemble_ = dense && assemble;
  products_ = products;
  linear_iterations_ = std::max(linear_iterations, 1);
  iterations_ = std::max(iterations, 1);
  // at most one group per row: find_row_triples never grows it (headroom: rows vary by step)
  if (static_cast<int>(group_.capacity()) < nrow) group_.reserve(2 * nrow);
  if (dense && A_.rows() < nrow) {  // only with Gauss-Seidel/LDLT beyond dense_max_rows
    Jd_.resize(nrow, m_.nv);
    Xt_.resize(nrow, m_.nv);
    JHt_.resize(nvall_, nrow);
    A_.resize(nrow, nrow);
  }
}

void Delassus::invert_trees() {
  // the trees' H^-1 (H is fixed for the step): the IIM on the identity, tree by tree; the
  // blocks coupling two trees are the zeros written once here
  if (m_.nv == 0) return;
  if (Hinv_.rows() != m_.nv) {
    int widest = 0;
    for (int i = 0; i < m_.nv; ++i) widest = std::max(widest, tree_end_[i] - dof_root_[i]);
    eye_ = MatX::Identity(widest, widest);
    Hinv_.setZero(m_.nv, m_.nv);
  }
  minv_tree_blocks(m_, dH_, eye_, Hinv_);
  hinv_fresh_ = true;
}

bool Delassus::assemble_through_hinv() const {
  // Two ways to J H^-1 each iterate: the IIM sweeps over the rows (~24 flops per row and
  // dof, iim.cpp), or sparse rows times the step's H^-1 (each entry of J scales one column
  // of its tree), after one IIM on the identity (~24 flops per pair of dofs in a tree).
  // The second wins on shallow trees (humanoid: 3x fewer flops; free bodies: ~50x) and
  // loses where rows reach deep into long chains; both are exact.
  const double rows = hinv_column_work();
  const double sweeps = 24.0 * nrow_ * m_.nv;
  return 24.0 * tree_work_ + iterations_ * rows < iterations_ * sweeps;
}

double Delassus::hinv_column_work() const {
  // each tree entry of J scales one column of H^-1 over its tree
  double work = 0;
  for (int k = 0; k < J_.start[nrow_]; ++k)
    if (J_.col[k] < m_.nv) work += tree_end_[J_.col[k]] - dof_root_[J_.col[k]];
  return work;
}

void Delassus::apply_hinv(const double* w, double* out) {
  if (tree_gemv_ && hinv_fresh_) {
    trees_gemv(m_.nv, tree_end_.data(), Hinv_.data(), Hinv_.outerStride(), w, out);
  } else {
    minv_times_vector(m_, dH_, w, out);
  }
  for (int k = 0; k < 3 * m_.nparticle; ++k) out[m_.nv + k] = pminv_[k] * w[m_.nv + k];
}

double Delassus::row_hinv_row(int r1, int r2) const {
  const int nv = m_.nv;
  double acc = 0;
  for (int a = J_.start[r1]; a < J_.start[r1 + 1]; ++a)
    for (int c = J_.start[r2]; c < J_.start[r2 + 1]; ++c) {
      const int i = J_.col[a], j = J_.col[c];
      if (i < nv && j < nv) {
        // a contact between two bodies: half its pairs lie in different trees, where H^-1 is 0
        if (dof_root_[i] == dof_root_[j]) acc += J_.val[a] * Hinv_(i, j) * J_.val[c];
      } else if (i == j) {
        acc += J_.val[a] * pminv_[i - nv] * J_.val[c];
      }
    }
  return acc;
}

double Delassus::row_hinv_diag(int r) const {
  // row_hinv_row(r, r) at a third of its cost (it ran 15-19 % of a pile's step): H^-1 is
  // symmetric and zero between trees, so each pair of tree entries is read once, along one
  // column of Hinv_, and counted twice off the diagonal
  const int nv = m_.nv;
  const int b = J_.start[r], e = J_.start[r + 1];
  double acc = 0;
  for (int a = b; a < e; ++a) {
    const int i = J_.col[a];
    const double va = J_.val[a];
    if (i >= nv) {  // particles: diagonal H^-1 (a repeated column pairs with itself too)
      for (int c = b; c < e; ++c)
        if (J_.col[c] == i) acc += va * pminv_[i - nv] * J_.val[c];
      continue;
    }
    const double* Hi = Hinv_.data() + static_cast<Eigen::Index>(i) * nv;
    const int root = dof_root_[i];
    double s = 0.5 * va * Hi[i];
    for (int c = a + 1; c < e; ++c) {
      const int j = J_.col[c];
      if (j < nv && dof_root_[j] == root) s += Hi[j] * J_.val[c];
    }
    acc += 2.0 * va * s;
  }
  return acc;
}

void Delassus::rows_hinv_diag(int ndiag, double* jhj) const {
  // row_hinv_diag of every row; a group of three rows (a contact's, with the same columns)
  // reads each entry of H^-1 once for its three sums (triple_hinv_diag)
  int r = 0;
  for (const int g : group_) {
    if (r >= ndiag) break;
    const bool grouped = g == 3 && r + 3 <= ndiag;
    if (grouped) {
      const auto [n, col, v0, v1, v2] = triple(r);
      if (triple_hinv_diag(n, m_.nv, col, v0, v1, v2, dof_root_.data(), pminv_.data(), Hinv_.data(), m_.nv, jhj + r)) {
        r += 3;
        continue;
      }
    }
    for (int k = r; k < std::min(r + g, ndiag); ++k) jhj[k] = row_hinv_diag(k);
    r += g;
  }
}

void Delassus::rows_transpose_times(const double* alpha, const double* x, double* y) const {
  transpose_kernel(static_cast<int>(group_.size()), group_.data(), J_.start.data(), J_.col.data(), J_.val.data(), alpha,
                   x, y, nvall_);
}

namespace {

// Columns r < nrow of H^-1 J^T (column r at out + r ld_out, zeroed here) from the sparse
// rows and the trees' H^-1 (ld_h): each tree entry of row r adds its column of H^-1 over
// the tree's dofs [root, end). One call for all rows: a cloned kernel per entry cost a
// dispatch per entry.
// Rows come in groups (Delassus::group_): a group of three rows with the same columns
// reads each column of H^-1 once for its three outputs (each output's sum in the same
// order as alone).
NCPGYM_CLONES void hinv_columns(int ngroup, const int* group, int nvall, const int* start, const int* col,
                                const double* val, int nv, const int* root, const int* end,
                                const double* __restrict Hinv, Eigen::Index ld_h, double* __restrict out,
                                Eigen::Index ld_out) {
  int r = 0;
  for (int gi = 0; gi < ngroup; ++gi) {
    const int g = group[gi];
    double* __restrict o0 = out + r * ld_out;
    for (int j = 0; j < g; ++j)
      for (int i = 0; i < nvall; ++i) o0[j * ld_out + i] = 0.0;
    if (g == 3) {
      double* __restrict o1 = o0 + ld_out;
      double* __restrict o2 = o1 + ld_out;
      const int b = start[r], n = start[r + 1] - b;
      const double *v0 = val + b, *v1 = val + start[r + 1], *v2 = val + start[r + 2];
      for (int k = 0; k < n; ++k) {
        const int c = col[b + k];
        if (c >= nv) continue;
        const double a0 = v0[k], a1 = v1[k], a2 = v2[k];
        const double* __restrict h = Hinv + c * ld_h;
        for (int i = root[c]; i < end[c]; ++i) {
          o0[i] += a0 * h[i];
          o1[i] += a1 * h[i];
          o2[i] += a2 * h[i];
        }
      }
    } else {
      for (int k = start[r]; k < start[r + 1]; ++k) {
        const int c = col[k];
        if (c >= nv) continue;
        const double v = val[k];
        const double* __restrict h = Hinv + c * ld_h;
        for (int i = root[c]; i < end[c]; ++i) o0[i] += v * h[i];
      }
    }
    r += g;
  }
}

}  // namespace

bool Delassus::dense_pays() const {
  // Flops per Newton iterate with up to linear_iterations_ products. Dense: forming H^-1 J^T
  // (the cheaper of its two routes) and two GEMVs of nv x rows per product. Matrix-free:
  // J^T x and J y through the sparse rows and H^-1 w per product (apply_hinv). The
  // humanoid (~45 rows of ~13 entries on one 23-dof tree) goes matrix-free, a closed chain
  // of 60 dofs with a few rows dense (55 against 71 us per step, session 30).
  const int nv = m_.nv;
  const double nnz = J_.start[nrow_];
  const double L = linear_iterations_;
  const double form = std::min(hinv_column_work(), 24.0 * nrow_ * nv);
  const double dense = form + L * 2.0 * nvall_ * nrow_;
  const double matrix_free = L * (2.0 * nnz + (tree_gemv_ ? tree_work_ : 24.0 * nv) + 3.0 * m_.nparticle);
  return dense < matrix_free;
}

void Delassus::rows_changed(int it, int ndiag, double* jhj) {
  const int nv = m_.nv, nrow = nrow_;
  if (it == 0 && choose_) dense_ = dense_pays();
  if (!dense_) {
    // Matrix-free: each row's diagonal entry costs nnz^2 reads of the step's H^-1.
    if (it == 0) {
      invert_trees();
      find_row_triples();  // the grouped products, diagonals and plan_sparse_hinv_jt read it
      sparse_hj_ = products_ && plan_sparse_hinv_jt();
    }
    if (sparse_hj_) form_sparse_hinv_jt();
    rows_hinv_diag(ndiag, jhj);
    return;
  }
  // Dense form: H^-1 J^T, one column per row.
  if (it == 0) {
    via_hinv_ = assemble_through_hinv();
    if (via_hinv_) invert_trees();
    find_row_triples();
  }
  auto JHt = JHt_.leftCols(nrow);
  auto Jd = Jd_.topRows(nrow);  // J over the trees' dofs, dense: the IIM's input and, without
  if (!via_hinv_ || m_.nparticle == 0) {  // particles, the products' second factor (solve)
    Jd.setZero();
    for (int r = 0; r < nrow; ++r)
      for (int k = J_.start[r]; k < J_.start[r + 1]; ++k)
        if (J_.col[k] < nv) Jd(r, J_.col[k]) += J_.val[k];
  }
  if (via_hinv_) {
    hinv_columns(static_cast<int>(group_.size()), group_.data(), nvall_, J_.start.data(), J_.col.data(),
                 J_.val.data(), nv, dof_root_.data(), tree_end_.data(), Hinv_.data(), Hinv_.outerStride(), JHt_.data(),
                 JHt_.outerStride());
  } else {
    // the Implicit Inversion Method on the trees' factorisation of H, one column of B per row
    auto Xt = Xt_.topRows(nrow);
    if (nv > 0) minv_times_transposed(m_, dH_, Jd, Xt);
    JHt.topRows(nv) = Xt.transpose();
    JHt.bottomRows(nvall_ - nv).setZero();
  }
  for (int r = 0; r < nrow; ++r)  // particles: diagonal H^-1
    for (int k = J_.start[r]; k < J_.start[r + 1]; ++k)
      if (J_.col[k] >= nv) JHt(J_.col[k], r) += J_.val[k] * pminv_[J_.col[k] - nv];
  for (int r = 0; r < ndiag; ++r) jhj[r] = J_.dot(r, JHt.col(r).data());  // diag J H^-1 J^T
  if (!assemble_) return;
  // J H^-1 J^T for the solvers that read its entries: the lower triangle, mirrored
  auto A = A_.topLeftCorner(nrow, nrow);
  for (int j = 0; j < nrow; ++j)
    for (int i = j; i < nrow; ++i) A(i, j) = J_.dot(i, JHt.col(j).data());
  for (int j = 0; j < nrow; ++j)
    for (int i = j + 1; i < nrow; ++i) A(j, i) = A(i, j);
}

bool Delassus::plan_sparse_hinv_jt() {
  // H^-1 J_r^T is non-zero only on the trees row r touches (and its particle coordinates).
  // Kept as sparse rows, a product is a scatter over those segments and a gather through J,
  // with no O(n) sweep (~24 flops per dof); forming it costs each entry of J one column of
  // its tree's H^-1 per Newton iterate. A pile of free bodies: 12 values per row against a
  // 300-dof sweep per product. Decided once per step (the rows' pattern holds for the step).
  const int nv = m_.nv;
  seg_start_.assign(1, 0);
  seg_lo_.clear();
  seg_hi_.clear();
  seg_off_.clear();
  // at most one segment per entry and one start per row: no growth below (headroom: the
  // rows vary by step)
  const int nnz = J_.start[nrow_];
  if (static_cast<int>(seg_lo_.capacity()) < nnz)
    for (auto* v : {&seg_lo_, &seg_hi_, &seg_off_}) v->reserve(2 * nnz);
  if (static_cast<int>(seg_start_.capacity()) < nrow_ + 1) seg_start_.reserve(2 * (nrow_ + 1));
  double form = 0;
  int off = 0;
  for (int r = 0; r < nrow_; ++r) {
    const int first = static_cast<int>(seg_lo_.size());
    for (int k = J_.start[r]; k < J_.start[r + 1]; ++k) {
      const int c = J_.col[k];
      const int lo = c < nv ? dof_root_[c] : c, hi = c < nv ? tree_end_[c] : c + 1;
      form += hi - lo;
      bool seen = false;
      for (int g = first; g < static_cast<int>(seg_lo_.size()) && !seen; ++g) seen = seg_lo_[g] == lo;
      if (seen) continue;
      seg_lo_.push_back(lo);
      seg_hi_.push_back(hi);
      seg_off_.push_back(off);
      off += hi - lo;
    }
    seg_start_.push_back(static_cast<int>(seg_lo_.size()));
  }
  if (static_cast<int>(sval_.size()) < off) sval_.resize(off);
  // J^T x and H^-1 (apply_hinv)
  const double apply = off, sweep = (tree_gemv_ ? tree_work_ : 24.0 * nv) + static_cast<double>(J_.start[nrow_]);
  const bool pays = apply < sweep && form < linear_iterations_ * (sweep - apply);
  if (pays) plan_scatter_blocks();
  return pays;
}

void Delassus::plan_scatter_blocks() {
  // The scatter by output block (scatter_kernel): every segment starting at coordinate lo
  // (a tree's first dof or a particle coordinate) is one entry of block lo, entries in row
  // order (a counting sort by lo; the step's pattern).
  std::fill(block_count_.begin(), block_count_.end(), 0);
  int nentry = 0;
  int r = 0;
  for (const int g : group_) {  // one entry per segment of a group (its first row's)
    for (int s0 = seg_start_[r]; s0 < seg_start_[r + 1]; ++s0, ++nentry) ++block_count_[seg_lo_[s0]];
    r += g;
  }
  block_lo_.clear();
  block_start_.assign(1, 0);
  for (int lo = 0; lo < nvall_; ++lo)
    if (block_count_[lo] > 0) {
      block_lo_.push_back(lo);
      block_start_.push_back(block_start_.back() + block_count_[lo]);
      block_count_[lo] = block_start_[block_start_.size() - 2];  // now the block's next free entry
    }
  if (entries_.size() < static_cast<size_t>(nentry)) entries_.resize(2 * static_cast<size_t>(nentry));
  r = 0;
  for (const int g : group_) {
    for (int j = 0; j < seg_start_[r + 1] - seg_start_[r]; ++j) {
      const int s0 = seg_start_[r] + j;
      ScatterEntry& e = entries_[block_count_[seg_lo_[s0]]++];
      e.row = r;
      e.group = g;
      e.off0 = seg_off_[s0];
      e.off1 = g == 3 ? seg_off_[seg_start_[r + 1] + j] : 0;
      e.off2 = g == 3 ? seg_off_[seg_start_[r + 2] + j] : 0;
    }
    r += g;
  }
}

void Delassus::form_sparse_hinv_jt() {
  form_sparse_kernel(nrow_, m_.nv, J_.start.data(), J_.col.data(), J_.val.data(), dof_root_.data(), seg_start_.data(),
                     seg_lo_.data(), seg_hi_.data(), seg_off_.data(), Hinv_.data(), Hinv_.outerStride(), pminv_.data(),
                     sval_.data());
}

void Delassus::find_row_triples() {
  // contact_rows writes a contact's three rows with the same columns; found here from the
  // rows themselves, so any other row layout is simply handled one row at a time
  auto same = [&](int r1, int r2) {
    const int n = J_.start[r1 + 1] - J_.start[r1];
    return J_.start[r2 + 1] - J_.start[r2] == n &&
           std::equal(J_.col.begin() + J_.start[r1], J_.col.begin() + J_.start[r1] + n, J_.col.begin() + J_.start[r2]);
  };
  group_.clear();
  for (int r = 0; r < nrow_;) {
    const int g = r + 2 < nrow_ && same(r, r + 1) && same(r, r + 2) ? 3 : 1;
    group_.push_back(g);
    r += g;
  }
}

void Delassus::pack_triples() {
  // the groups of three rows' values interleaved per column, (v0, v1, v2, 0), for
  // rows_times_kernel (once per solve: J changes every Newton iterate)
  size_t need = 0;
  int r = 0;
  for (const int g : group_) {
    if (g == 3) need += 4 * static_cast<size_t>(J_.start[r + 1] - J_.start[r]);
    r += g;
  }
  if (packed_.size() < need) packed_.resize(2 * need);  // headroom: the rows vary by step
  double* p = packed_.data();
  r = 0;
  for (const int g : group_) {
    if (g == 3) {
      const auto [n, col, v0, v1, v2] = triple(r);
      for (int k = 0; k < n; ++k, p += 4) {
        p[0] = v0[k];
        p[1] = v1[k];
        p[2] = v2[k];
        p[3] = 0.0;
      }
    }
    r += g;
  }
}

double Delassus::rows_times(const double* x, double* y, const double* alpha, const double* corr, const double* xin) const {
  return rows_times_kernel(static_cast<int>(group_.size()), group_.data(), J_.start.data(), J_.col.data(), J_.val.data(),
                    packed_.data(), x, y, alpha, corr, xin);
}

void Delassus::scatter_hinv_jt(const double* alpha, const double* x, double* out) const {
  scatter_kernel(static_cast<int>(block_lo_.size()), block_lo_.data(), block_start_.data(), block_width_.data(),
                 entries_.data(), sval_.data(), alpha, x, out, nvall_);
}

void Delassus::set_row_scaling(const double* alpha, const double* opdiag) {
  if (!dense_) return;
  const int nrow = nrow_;
  auto JHt = JHt_.leftCols(nrow);
  for (int r = 0; r < nrow; ++r) JHt.col(r) *= alpha[r];
  if (!assemble_) return;
  auto A = A_.topLeftCorner(nrow, nrow);
  for (int j = 0; j < nrow; ++j)
    for (int i = 0; i < nrow; ++i) A(i, j) = A(i, j) * alpha[i] * alpha[j];
  A.diagonal() = CMap(opdiag, nrow);
}

void Delassus::hinv_jt(const double* alpha, const double* x, double* out) {
  if (dense_) {  // the columns of H^-1 J^T already carry alpha
    gemv_cols(nvall_, nrow_, JHt_.data(), JHt_.outerStride(), x, out);
    return;
  }
  if (sparse_hj_) {
    scatter_hinv_jt(alpha, x, out);
    return;
  }
  rows_transpose_times(alpha, x, tmp2_.data());
  apply_hinv(tmp2_.data(), out);
}

void Delassus::block_inverses(int nc, const RowCoefficients& k) {
  // inverse 3 x 3 blocks of the contacts (normal and friction rows coupled)
  if (blocks_.size() < static_cast<size_t>(nc)) blocks_.resize(nc);
  const double *alpha = k.alpha, *opdiag = k.opdiag;
  for (int c = 0; c < nc; ++c) {
    Mat3 B;
    // the dense columns carry alpha already: B_ij = alpha_i J_i . (alpha_j H^-1 J_j^T)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        B(i, j) = dense_ ? alpha[3 * c + i] * J_.dot(3 * c + i, JHt_.col(3 * c + j).data())
                         : alpha[3 * c + i] * alpha[3 * c + j] * row_hinv_row(3 * c + i, 3 * c + j);
    for (int i = 0; i < 3; ++i) B(i, i) = opdiag[3 * c + i];
    B = 0.5 * (B + B.transpose()).eval();
    Eigen::LDLT<Mat3> f(B);
    blocks_[c] = f.info() == Eigen::Success ? f.solve(Mat3::Identity())
                                            : Mat3(CMap(opdiag + 3 * c, 3).cwiseInverse().asDiagonal());
  }
}

LinearResult Delassus::solve(const SolverOptions& opt, int nc, const RowCoefficients& k, const double* b, double* x,
                             bool first, LinearWorkspace& ws) {
  const int nrow = nrow_;
  const double *alpha = k.alpha, *opdiag = k.opdiag, *jhj = k.jhj;
  if (!dense_ && opt.linear == LinearSolverType::SparseLDLT) return solve_sparse(k, b, x, first);
  LinearOperator op;
  op.n = nrow;
  op.diagonal = opdiag;
  // y = J_eff H^-1 J_eff^T x + (C + eps) x, H^-1 J_eff^T x from the dense form's columns,
  // from the sparse rows of H^-1 J^T, or by J^T x and one O(n) sweep for H^-1
  auto apply = [&](const double* xin, double* y) -> double {
    if (dense_) {
      gemv_cols(nvall_, nrow, JHt_.data(), JHt_.outerStride(), xin, tmp_.data());  // the columns carry alpha
    } else if (sparse_hj_) {
      scatter_hinv_jt(alpha, xin, tmp_.data());
    } else {
      rows_transpose_times(alpha, xin, tmp2_.data());
      apply_hinv(tmp2_.data(), tmp_.data());
    }
    if (dense_ && m_.nparticle == 0) {  // J tmp by the dense J of the trees
      gemv_cols(nrow, m_.nv, Jd_.data(), Jd_.outerStride(), tmp_.data(), y);
      double dot = 0;
      for (int r = 0; r < nrow; ++r) {
        y[r] = alpha[r] * y[r] + corr_[r] * xin[r];
        dot += xin[r] * y[r];
      }
      return dot;
    }
    return rows_times(tmp_.data(), y, alpha, corr_.data(), xin);
  };
  auto apply_only = [&](const double* xin, double* y) { apply(xin, y); };
  if (dense_ && assemble_) {
    op.A = &A_;
  } else {
    // the diagonal's correction: opdiag less the product's own diagonal
    if (corr_.size() < nrow) corr_.resize(2 * nrow);  // headroom: the rows vary by step
    for (int r = 0; r < nrow; ++r) corr_[r] = opdiag[r] - alpha[r] * alpha[r] * jhj[r];
    if (!(dense_ && m_.nparticle == 0)) pack_triples();  // rows_times multiplies
    op.apply = apply_only;
    op.apply_dot = apply;
  }
  auto block_precondition = [&](const double* r, double* z) {
    for (int i = 0; i < nrow; ++i) z[i] = r[i] / std::max(std::abs(opdiag[i]), 1e-300);
    for (int c = 0; c < nc; ++c) Eigen::Map<Vec3>(z + 3 * c) = blocks_[c] * Eigen::Map<const Vec3>(r + 3 * c);
  };
  if (opt.block_preconditioner && nc > 0) {
    block_inverses(nc, k);
    op.precondition = block_precondition;
  }
  return solve_linear(opt.linear, op, b, x, opt.linear_iterations, opt.linear_tolerance, ws);
}

LinearResult Delassus::solve_sparse(const RowCoefficients& k, const double* bp, double* xp, bool first) {
  if (!sparse_ldlt_) sparse_ldlt_ = std::make_unique<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>>();
  // A = diag(alpha) J H^-1 J^T diag(alpha) with the diagonal opdiag (compliance and
  // regularisation included). Particle columns: H^-1 diagonal, so their part is a sparse
  // product. Tree columns: only the rows touching trees couple, through the dense Hinv_.
  const Model& m = m_;
  const int nrow = nrow_;
  const double *alpha = k.alpha, *opdiag = k.opdiag;
  using Sp = Eigen::SparseMatrix<double>;
  std::vector<Eigen::Triplet<double>> jp;
  std::vector<int> tree_rows;
  for (int r = 0; r < nrow; ++r) {
    bool tree = false;
    for (int e = J_.start[r]; e < J_.start[r + 1]; ++e) {
      const int c = J_.col[e];
      if (c >= m.nv) {
        jp.emplace_back(r, c - m.nv, alpha[r] * J_.val[e] * std::sqrt(pminv_[c - m.nv]));
      } else {
        tree = true;
      }
    }
    if (tree) tree_rows.push_back(r);
  }
  Sp Jp(nrow, 3 * m.nparticle);
  Jp.setFromTriplets(jp.begin(), jp.end());
  Sp A = Jp * Jp.transpose();  // structural pattern kept: the same in every iteration of a step
  if (!tree_rows.empty()) {
    const int nt = static_cast<int>(tree_rows.size());
    MatX Jt = MatX::Zero(nt, m.nv);
    for (int i = 0; i < nt; ++i) {
      const int r = tree_rows[i];
      for (int e = J_.start[r]; e < J_.start[r + 1]; ++e)
        if (J_.col[e] < m.nv) Jt(i, J_.col[e]) += alpha[r] * J_.val[e];
    }
    const MatX At = Jt * Hinv_ * Jt.transpose();
    std::vector<Eigen::Triplet<double>> tt;
    for (int i = 0; i < nt; ++i)
      for (int j = 0; j < nt; ++j) tt.emplace_back(tree_rows[i], tree_rows[j], At(i, j));
    Sp T(nrow, nrow);
    T.setFromTriplets(tt.begin(), tt.end());
    A += T;
  }
  for (int r = 0; r < nrow; ++r) A.coeffRef(r, r) = opdiag[r];
  // the ordering and symbolic factorisation once per step, numeric factorisation per iterate
  auto& ldlt = *sparse_ldlt_;
  if (first) ldlt.analyzePattern(A);
  ldlt.factorize(A);
  if (ldlt.info() != Eigen::Success) throw std::runtime_error("sparse LDLT factorisation failed");
  CMap b(bp, nrow);
  VMap x(xp, nrow);
  x = ldlt.solve(b);
  return {1, (b - A * x).norm()};
}

}  // namespace ncpgym
