// Supernodal LDL^T (supernodal_ldlt.hpp says why it is written here and which method).
#include "ncpgym/solver/supernodal_ldlt.hpp"

#include <Eigen/OrderingMethods>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ncpgym/util/clones.hpp"

namespace ncpgym {

namespace {

// A symmetric pattern in upper compressed columns (column j: its rows i < j), under a
// renumbering `to` of the lower-triangle matrix a's indices.
void upper_pattern(const SupernodalLdlt::SpMat& a, const std::vector<int>& to, std::vector<int>& start,
                   std::vector<int>& idx) {
  const int n = static_cast<int>(a.rows());
  start.assign(n + 1, 0);
  for (int j = 0; j < n; ++j)
    for (SupernodalLdlt::SpMat::InnerIterator it(a, j); it; ++it) {
      const int r = to[it.index()], c = to[j];
      if (r != c) ++start[std::max(r, c) + 1];
    }
  for (int j = 0; j < n; ++j) start[j + 1] += start[j];
  idx.resize(start[n]);
  std::vector<int> next(start.begin(), start.end() - 1);
  for (int j = 0; j < n; ++j)
    for (SupernodalLdlt::SpMat::InnerIterator it(a, j); it; ++it) {
      const int r = to[it.index()], c = to[j];
      if (r != c) idx[next[std::max(r, c)]++] = std::min(r, c);
    }
}

// Elimination tree of the pattern (Liu 1990; ancestors with path compression).
std::vector<int> elimination_tree(const std::vector<int>& start, const std::vector<int>& idx) {
  const int n = static_cast<int>(start.size()) - 1;
  std::vector<int> parent(n, -1), ancestor(n, -1);
  for (int k = 0; k < n; ++k)
    for (int p = start[k]; p < start[k + 1]; ++p)
      for (int i = idx[p]; i != -1 && i < k;) {
        const int next = ancestor[i];
        ancestor[i] = k;
        if (next == -1) parent[i] = k;
        i = next;
      }
  return parent;
}

// The update of up to kBlock columns of a target panel by a factorised panel: out_j[a] =
// sum_k L(a, k) w_jk over the panel's update rows a from row0 (m of them), with w_jk =
// L(b_j, k) d_k for the target columns' rows b_j. Columns of L are contiguous (column-
// major); each is read once for all the target columns.
constexpr int kBlock = 4;
template <int NW>
__attribute__((always_inline)) inline void update_block(const double* L, int ld, int nc, int row0, int m,
                                                        const double* w, int wstride, double* out) {
  double* o[NW];
  for (int j = 0; j < NW; ++j) {
    o[j] = out + static_cast<std::int64_t>(j) * m;
    for (int a = 0; a < m; ++a) o[j][a] = 0.0;
  }
  for (int k = 0; k < nc; ++k) {
    double wk[NW];
    for (int j = 0; j < NW; ++j) wk[j] = w[j * wstride + k];
    const double* col = L + static_cast<std::int64_t>(k) * ld + row0;
    for (int a = 0; a < m; ++a) {
      const double l = col[a];
      for (int j = 0; j < NW; ++j) o[j][a] += l * wk[j];
    }
  }
}
NCPGYM_CLONES void update_columns(const double* L, int ld, int nc, int row0, int m, const double* w, int wstride,
                                  int nw, double* out) {
  switch (nw) {
    case 4: update_block<4>(L, ld, nc, row0, m, w, wstride, out); break;
    case 3: update_block<3>(L, ld, nc, row0, m, w, wstride, out); break;
    case 2: update_block<2>(L, ld, nc, row0, m, w, wstride, out); break;
    default: update_block<1>(L, ld, nc, row0, m, w, wstride, out); break;
  }
}

// In-place LDL^T of a panel's leading nc x nc block, and L_2 = A_21 L_11^-T D^-1 below it.
NCPGYM_CLONES bool factor_panel(double* P, int nr, int nc, double* d) {
  for (int k = 0; k < nc; ++k) {
    double* ck = P + static_cast<std::int64_t>(k) * nr;
    const double dk = ck[k];
    // a zero pivot is refused; a non-finite one is not: it comes from a diverging iterate,
    // which the step detects and reports from the non-finite direction it gives
    if (dk == 0.0) return false;
    d[k] = dk;
    const double inv = 1.0 / dk;
    for (int i = k + 1; i < nr; ++i) ck[i] *= inv;
    for (int j = k + 1; j < nc; ++j) {
      double* cj = P + static_cast<std::int64_t>(j) * nr;
      const double c = ck[j] * dk;
      for (int i = j; i < nr; ++i) cj[i] -= ck[i] * c;
    }
  }
  return true;
}

}  // namespace

void SupernodalLdlt::analyze(const SpMat& a) {
  if (a.rows() != a.cols()) throw std::invalid_argument("SupernodalLdlt: the matrix is not square");
  if (!a.isCompressed()) throw std::invalid_argument("SupernodalLdlt: the matrix is not compressed");
  for (int j = 0; j < a.outerSize(); ++j)  // checked before any state changes
    for (int p = a.outerIndexPtr()[j]; p < a.outerIndexPtr()[j + 1]; ++p)
      if (a.innerIndexPtr()[p] < j)
        throw std::invalid_argument("SupernodalLdlt: an entry above the diagonal (give the lower triangle)");
  ok_ = false;
  const int n = static_cast<int>(a.rows());
  n_ = n;
  nnz_ = a.nonZeros();

  // 1. Fill-reducing order: Eigen's AMD on the symmetric pattern (indices()[k] is the
  //    original index eliminated k-th), then a postorder of the elimination tree so that
  //    every subtree, and so every supernode, is a contiguous range of columns.
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> amd;
  Eigen::AMDOrdering<int>()(a.selfadjointView<Eigen::Lower>(), amd);
  std::vector<int> to(n);
  for (int k = 0; k < n; ++k) to[amd.indices()[k]] = k;
  std::vector<int> ustart, uidx;
  upper_pattern(a, to, ustart, uidx);
  const std::vector<int> tree = elimination_tree(ustart, uidx);

  // 2. Column counts of L (with the diagonal) from the row subtrees: row k of L holds the
  //    nodes on the tree paths from each i with A(i, k) != 0, i < k, up to k. Counted in
  //    AMD's numbering; the postorder below only renames the tree's nodes.
  std::vector<int> count0(n, 1), mark(n, -1);
  for (int k = 0; k < n; ++k) {
    mark[k] = k;
    for (int p = ustart[k]; p < ustart[k + 1]; ++p)
      for (int j = uidx[p]; mark[j] != k; j = tree[j]) {
        ++count0[j];
        mark[j] = k;
      }
  }
  std::vector<int> parent(n), count(n), nchild(n, 0);
  {
    std::vector<int> head(n, -1), next(n, -1), stack, order;
    for (int j = n - 1; j >= 0; --j)  // children in ascending order
      if (tree[j] >= 0) {
        next[j] = head[tree[j]];
        head[tree[j]] = j;
      }
    order.reserve(n);
    for (int root = 0; root < n; ++root) {
      if (tree[root] != -1) continue;
      stack.push_back(root);
      while (!stack.empty()) {  // iterative depth-first search, a node after its children
        const int j = stack.back();
        if (head[j] != -1) {
          const int c = head[j];
          head[j] = next[c];
          stack.push_back(c);
        } else {
          stack.pop_back();
          order.push_back(j);
        }
      }
    }
    std::vector<int> pos(n);
    for (int k = 0; k < n; ++k) pos[order[k]] = k;
    perm_.resize(n);
    for (int i = 0; i < n; ++i) perm_[i] = pos[to[i]];
    for (int j = 0; j < n; ++j) {  // the tree and counts in the factor's numbering: parent[j] > j
      parent[pos[j]] = tree[j] < 0 ? -1 : pos[tree[j]];
      count[pos[j]] = count0[j];
    }
    for (int j = 0; j < n; ++j)
      if (parent[j] >= 0) ++nchild[parent[j]];
  }

  // 3. Fundamental supernodes (column j + 1 continues j's supernode when it is j's only
  //    parent-child link and its structure is j's minus j), then relaxed: a supernode joins
  //    its parent's when the columns are adjacent and the explicit zeros this stores stay
  //    few, so that small blocks (a particle's three coordinates beside its neighbours) make
  //    panels wide enough for the dense loops to pay.
  std::vector<int> fs;  // fundamental supernode starts
  for (int j = 0; j < n; ++j)
    if (j == 0 || !(parent[j - 1] == j && count[j - 1] == count[j] + 1 && nchild[j] == 1)) fs.push_back(j);
  fs.push_back(n);
  const int nf = static_cast<int>(fs.size()) - 1;
  // a supernode's column count at its first column = its row count; its width
  std::vector<int> snr(nf), snc(nf), spar(nf, -1), zeros(nf, 0), fsnode(n);
  for (int s = 0; s < nf; ++s) {
    snr[s] = count[fs[s]];
    snc[s] = fs[s + 1] - fs[s];
    for (int j = fs[s]; j < fs[s + 1]; ++j) fsnode[j] = s;
  }
  for (int s = 0; s < nf; ++s) {
    const int p = parent[fs[s + 1] - 1];
    spar[s] = p < 0 ? -1 : fsnode[p];
  }
  // merge child s into its parent t = s + 1 (adjacent in the postorder) when the merged
  // panel (rows: s's columns + t's rows) wastes at most a fraction of its entries
  std::vector<char> merged(nf, 0);
  constexpr double kMaxZeroFraction = 0.15;
  constexpr int kSmall = 16;  // only supernodes narrower than this join their parent
  for (int s = 0; s + 1 < nf; ++s) {
    const int t = s + 1;
    if (spar[s] != t) continue;
    const int nc = snc[s] + snc[t], nr = snc[s] + snr[t];
    // s's columns held snr[s] rows each; merged, they hold nr (t's rows below s's columns)
    const double stored = static_cast<double>(nc) * nr;
    const double new_zeros = static_cast<double>(snc[s]) * (nr - snr[s]) + zeros[s] + zeros[t];
    if (snc[s] < kSmall && new_zeros <= kMaxZeroFraction * stored) {
      snc[t] = nc;
      snr[t] = nr;
      zeros[t] = static_cast<int>(new_zeros);
      merged[s] = 1;
    }
  }
  first_.clear();
  for (int s = 0; s < nf; ++s)
    if (!merged[s]) first_.push_back(fs[s + 1] - snc[s]);
  first_.push_back(n);
  const int ns = static_cast<int>(first_.size()) - 1;
  snode_.resize(n);
  for (int s = 0; s < ns; ++s)
    for (int j = first_[s]; j < first_[s + 1]; ++j) snode_[j] = s;

  // 4. A in the factor's numbering, lower triangle by columns, with each entry's index in
  //    `a` (for step 5).
  std::vector<int> lstart(n + 1, 0), lrow(nnz_), lentry(nnz_);
  const int* aouter = a.outerIndexPtr();
  const int* ainner = a.innerIndexPtr();
  for (int j = 0; j < n; ++j)
    for (int p = aouter[j]; p < aouter[j + 1]; ++p) ++lstart[std::min(perm_[ainner[p]], perm_[j]) + 1];
  for (int j = 0; j < n; ++j) lstart[j + 1] += lstart[j];
  {
    std::vector<int> next(lstart.begin(), lstart.end() - 1);
    for (int j = 0; j < n; ++j)
      for (int p = aouter[j]; p < aouter[j + 1]; ++p) {
        const int r = std::max(perm_[ainner[p]], perm_[j]), c = std::min(perm_[ainner[p]], perm_[j]);
        lrow[next[c]] = r;
        lentry[next[c]++] = p;
      }
  }

  // 5. Rows of each supernode: its columns, then every row below them of A's columns in it
  //    and of its children's rows (the structure of L's first column of the supernode).
  std::vector<int> child_head(ns, -1), child_next(ns, -1);  // children as linked lists
  for (int s = ns - 1; s >= 0; --s) {
    const int p = parent[first_[s + 1] - 1];
    if (p >= 0) {
      child_next[s] = child_head[snode_[p]];
      child_head[snode_[p]] = s;
    }
  }
  row_start_.assign(1, 0);
  rows_.clear();
  std::fill(mark.begin(), mark.end(), -1);
  for (int s = 0; s < ns; ++s) {
    const int f = first_[s], l = first_[s + 1];
    for (int j = f; j < l; ++j) rows_.push_back(j);
    const size_t below = rows_.size();
    auto add = [&](int i) {
      if (i >= l && mark[i] != s) {
        mark[i] = s;
        rows_.push_back(i);
      }
    };
    for (int j = f; j < l; ++j)
      for (int p = lstart[j]; p < lstart[j + 1]; ++p) add(lrow[p]);
    for (int c = child_head[s]; c != -1; c = child_next[c])
      for (int p = row_start_[c] + (first_[c + 1] - first_[c]); p < row_start_[c + 1]; ++p) add(rows_[p]);
    std::sort(rows_.begin() + below, rows_.end());
    row_start_.push_back(static_cast<int>(rows_.size()));
  }

  // 6. Panels, and where each entry of A lands in them (through each supernode's row
  //    positions, `mark` reused).
  panel_.assign(ns + 1, 0);
  int max_rows = 0, max_cols = 0;
  for (int s = 0; s < ns; ++s) {
    const int nr = row_start_[s + 1] - row_start_[s], nc = first_[s + 1] - first_[s];
    panel_[s + 1] = panel_[s] + static_cast<std::int64_t>(nr) * nc;
    max_rows = std::max(max_rows, nr);
    max_cols = std::max(max_cols, nc);
  }
  amap_.resize(nnz_);
  for (int s = 0; s < ns; ++s) {
    const int nr = row_start_[s + 1] - row_start_[s];
    for (int q = 0; q < nr; ++q) mark[rows_[row_start_[s] + q]] = q;
    for (int c = first_[s]; c < first_[s + 1]; ++c)
      for (int p = lstart[c]; p < lstart[c + 1]; ++p)
        amap_[lentry[p]] = panel_[s] + static_cast<std::int64_t>(c - first_[s]) * nr + mark[lrow[p]];
  }
  val_.assign(panel_[ns], 0.0);
  d_.assign(n, 0.0);
  tmp_.assign(static_cast<size_t>(kBlock) * max_rows, 0.0);
  w_.assign(static_cast<size_t>(kBlock) * max_cols, 0.0);
  rel_.assign(max_rows, 0);
  y_.resize(n);
}

bool SupernodalLdlt::factorize(const SpMat& a) {
  if (n_ < 0) throw std::invalid_argument("SupernodalLdlt: factorize before analyze");
  if (a.rows() != n_ || a.cols() != n_ || a.nonZeros() != nnz_ || !a.isCompressed())
    throw std::invalid_argument("SupernodalLdlt: the matrix does not have the analysed pattern");
  ok_ = false;
  std::fill(val_.begin(), val_.end(), 0.0);
  const double* av = a.valuePtr();
  for (Eigen::Index p = 0; p < nnz_; ++p) val_[amap_[p]] += av[p];
  const int ns = supernodes();
  for (int s = 0; s < ns; ++s) {
    const int f = first_[s], nc = first_[s + 1] - f;
    const int nr = row_start_[s + 1] - row_start_[s];
    double* P = val_.data() + panel_[s];
    if (!factor_panel(P, nr, nc, d_.data() + f)) return false;
    // L_2 D L_2^T into the ancestors' panels: the update rows R = rows nc.. of the panel,
    // grouped by the supernode their column belongs to
    const int* R = rows_.data() + row_start_[s] + nc;
    const int m = nr - nc;
    for (int b = 0; b < m;) {
      const int t = snode_[R[b]];
      int b1 = b;
      while (b1 < m && R[b1] < first_[t + 1]) ++b1;
      // positions of R[b..m) among t's rows (a subset, both ascending)
      const int* Rt = rows_.data() + row_start_[t];
      const int ntr = row_start_[t + 1] - row_start_[t];
      for (int q = b, pt = 0; q < m; ++q) {
        while (Rt[pt] != R[q]) ++pt;
        rel_[q] = pt;
      }
      // kBlock target columns at a time, over the rows from the first one's (the few
      // entries above the others' diagonals are computed and not used)
      for (int c = b; c < b1; c += kBlock) {
        const int nw = std::min(kBlock, b1 - c);
        for (int j = 0; j < nw; ++j)
          for (int k = 0; k < nc; ++k)
            w_[j * nc + k] = P[static_cast<std::int64_t>(k) * nr + nc + c + j] * d_[f + k];
        update_columns(P, nr, nc, nc + c, m - c, w_.data(), nc, nw, tmp_.data());
        for (int j = 0; j < nw; ++j) {
          double* col = val_.data() + panel_[t] + static_cast<std::int64_t>(R[c + j] - first_[t]) * ntr;
          const double* u = tmp_.data() + static_cast<std::int64_t>(j) * (m - c);
          for (int q = c + j; q < m; ++q) col[rel_[q]] -= u[q - c];
        }
      }
      b = b1;
    }
  }
  negative_ = 0;
  for (int j = 0; j < n_; ++j) negative_ += d_[j] < 0;
  ok_ = true;
  return true;
}

void SupernodalLdlt::solve(const VecX& b, VecX& x) const {
  if (!ok_) throw std::invalid_argument("SupernodalLdlt: solve without a successful factorisation");
  if (b.size() != n_) throw std::invalid_argument("SupernodalLdlt: right-hand side of the wrong size");
  for (int i = 0; i < n_; ++i) y_[perm_[i]] = b[i];
  const int ns = supernodes();
  for (int s = 0; s < ns; ++s) {  // L y = b
    const int f = first_[s], nc = first_[s + 1] - f, nr = row_start_[s + 1] - row_start_[s];
    const double* P = val_.data() + panel_[s];
    const int* R = rows_.data() + row_start_[s];
    for (int k = 0; k < nc; ++k) {
      const double yk = y_[f + k];
      const double* col = P + static_cast<std::int64_t>(k) * nr;
      for (int i = k + 1; i < nr; ++i) y_[R[i]] -= col[i] * yk;
    }
  }
  for (int j = 0; j < n_; ++j) y_[j] /= d_[j];
  for (int s = ns - 1; s >= 0; --s) {  // L^T x = y
    const int f = first_[s], nc = first_[s + 1] - f, nr = row_start_[s + 1] - row_start_[s];
    const double* P = val_.data() + panel_[s];
    const int* R = rows_.data() + row_start_[s];
    for (int k = nc - 1; k >= 0; --k) {
      const double* col = P + static_cast<std::int64_t>(k) * nr;
      double sum = y_[f + k];
      for (int i = k + 1; i < nr; ++i) sum -= col[i] * y_[R[i]];
      y_[f + k] = sum;
    }
  }
  x.resize(n_);
  for (int i = 0; i < n_; ++i) x[i] = y_[perm_[i]];
}

}  // namespace ncpgym
