// Sparse LDL^T of a symmetric quasi-definite matrix, supernodal, without pivoting.
//
// Written here because no permissively licensed library fits: Eigen's SimplicialLDLT (which
// this replaces in the primal soft solve, soft_kkt.cpp) works column by column through
// scalar sparse updates, CHOLMOD's supernodal module is GPL, and the supernodal LU of
// Eigen (SparseLU) pivots and does twice the work of a symmetric factorisation. The KKT
// matrices of soft bodies are quasi-definite ([-D, -J; -J^T, K] with D, K positive
// definite), so an LDL^T exists for every symmetric ordering (Vanderbei 1995) and no
// pivoting is needed; their factors come in dense column blocks (a particle's three
// coordinates, the separators of a mesh share their row structure), which is what a
// supernodal factorisation exploits: each block is factorised and applied to its ancestors
// with dense loops instead of one scalar update per entry.
//
// Method (the textbook one: Liu 1990 for the elimination tree, Ng & Peyton 1993 for
// supernodes): AMD ordering of the pattern (Eigen's), then a postorder of its elimination
// tree so that supernodes are contiguous columns; column counts from the row subtrees;
// fundamental supernodes, merged with their parents where that adds few explicit zeros; each
// supernode's rows stored as one dense column-major panel. The numeric factorisation is
// right-looking: a panel is factorised in place (L and D), then its outer product
// L_2 D L_2^T is subtracted from the panels of the supernodes its rows belong to.
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <vector>

#include "ncpgym/math/spatial.hpp"

namespace ncpgym {

class SupernodalLdlt {
 public:
  using SpMat = Eigen::SparseMatrix<double>;  // column-major, int indices

  // Ordering and symbolic factorisation of the lower triangle `a` (compressed, square,
  // entries on or below the diagonal only). Allocates; factorize() does not.
  void analyze(const SpMat& a);
  // Numeric factorisation of a matrix with the analysed pattern (same outer and inner
  // indices). False where a pivot is zero (the matrix is singular, or not quasi-definite);
  // the factor is then unusable. Non-finite values are not refused: they propagate into
  // the solution, where the stepper reports a diverged step (as with Eigen's LDL^T).
  bool factorize(const SpMat& a);
  // x = A^-1 b (x and b may be the same vector).
  void solve(const VecX& b, VecX& x) const;

  int rows() const { return n_; }
  bool ok() const { return ok_; }
  // Negative entries of D: the number of negative eigenvalues of A (Sylvester's law of inertia).
  int negative_pivots() const { return negative_; }
  // Stored entries of L (with the explicit zeros of merged supernodes) and supernodes.
  std::int64_t factor_entries() const { return static_cast<std::int64_t>(val_.size()); }
  int supernodes() const { return static_cast<int>(first_.size()) - 1; }

 private:
  int n_ = -1;
  Eigen::Index nnz_ = 0;
  std::vector<int> perm_;        // position in the factor of each original index
  std::vector<int> first_;       // first column of each supernode, then n
  std::vector<int> row_start_;   // each supernode's rows in rows_, then the end
  std::vector<int> rows_;        // a supernode's rows: its own columns, then the rows below, ascending
  std::vector<std::int64_t> panel_;  // each supernode's panel in val_, column-major (leading dimension: its row count)
  std::vector<int> snode_;       // supernode of each column
  std::vector<std::int64_t> amap_;  // where each entry of the analysed matrix lands in val_
  std::vector<double> val_, d_;
  std::vector<double> tmp_, w_;  // factorize scratch: one update column, the panel's L_2 row times D
  std::vector<int> rel_;         // factorize scratch: update rows' positions in the target panel
  mutable VecX y_;               // solve scratch
  int negative_ = 0;
  bool ok_ = false;
};

}  // namespace ncpgym
