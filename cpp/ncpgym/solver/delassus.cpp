#include "ncpgym/solver/delassus.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ncpgym/dynamics/algorithms.hpp"

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

Delassus::Delassus(const Model& m, Data& dH, const SparseRows& J, int dense_capacity)
    : m_(m), dH_(dH), J_(J), nvall_(m.nv + 3 * m.nparticle) {
  Jd_.setZero(dense_capacity, nvall_);
  JHinv_.setZero(dense_capacity, nvall_);
  A_.setZero(dense_capacity, dense_capacity);
  pminv_.setZero(3 * m.nparticle);
  tmp_.setZero(nvall_);
  tmp2_.setZero(nvall_);
  dof_root_.resize(m.nv);
  for (int i = 0; i < m.nv; ++i) dof_root_[i] = m.dof_parent[i] < 0 ? i : dof_root_[m.dof_parent[i]];
  if (m.nv > 0) {
    // the IIM scratch at its widest (dense rows, or the identity of matrix-free mode)
    MatX probe = MatX::Zero(std::max(dense_capacity, m.nv), m.nv), out(std::max(dense_capacity, m.nv), m.nv);
    minv_times_transposed(m, dH_, probe, out);
  }
}

void Delassus::begin_step(int nrow, bool dense) {
  nrow_ = nrow;
  dense_ = dense;
  if (dense && Jd_.rows() < nrow) {  // only with Gauss-Seidel/LDLT beyond dense_max_rows
    Jd_.resize(nrow, nvall_);
    JHinv_.resize(nrow, nvall_);
    A_.resize(nrow, nrow);
  }
}

void Delassus::apply_hinv(const double* w, double* out) {
  minv_times_vector(m_, dH_, w, out);
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

void Delassus::rows_changed(int it, int ndiag, double* jhj) {
  const int nv = m_.nv, np3 = 3 * m_.nparticle, nrow = nrow_;
  if (dense_) {
    // J H^-1 (= (H^-1 J^T)^T): the Implicit Inversion Method on the trees' factorisation
    // of H, and the diagonal H^-1 of the particles.
    auto Jd = Jd_.topRows(nrow);
    auto JHinv = JHinv_.topRows(nrow);
    Jd.setZero();
    for (int r = 0; r < nrow; ++r)
      for (int k = J_.start[r]; k < J_.start[r + 1]; ++k) Jd(r, J_.col[k]) += J_.val[k];
    if (nv > 0) minv_times_transposed(m_, dH_, Jd.leftCols(nv), JHinv.leftCols(nv));
    if (np3) JHinv.rightCols(np3) = Jd.rightCols(np3) * pminv_.asDiagonal();
    for (int r = 0; r < ndiag; ++r) jhj[r] = Jd.row(r).dot(JHinv.row(r));  // diag J H^-1 J^T
    auto A = A_.topLeftCorner(nrow, nrow);
    A.noalias() = JHinv * Jd.transpose();
    return;
  }
  // Matrix-free: H is fixed for the step, so its tree part is inverted once (IIM on the
  // identity) and each row's diagonal entry costs nnz^2 instead of a sweep per row.
  if (it == 0 && nv > 0) {
    if (eye_.rows() != nv) eye_ = MatX::Identity(nv, nv);
    if (Hinv_.rows() != nv) Hinv_.resize(nv, nv);
    minv_times_transposed(m_, dH_, eye_, Hinv_);
  }
  for (int r = 0; r < ndiag; ++r) jhj[r] = row_hinv_diag(r);
}

void Delassus::set_row_scaling(const double* alpha, const double* opdiag) {
  if (!dense_) return;
  const int nrow = nrow_;
  auto JHinv = JHinv_.topRows(nrow);
  auto A = A_.topLeftCorner(nrow, nrow);
  for (int r = 0; r < nrow; ++r) JHinv.row(r) *= alpha[r];
  for (int r = 0; r < nrow; ++r) {
    A.row(r) *= alpha[r];
    A.col(r) *= alpha[r];
  }
  A.diagonal() = CMap(opdiag, nrow);
}

void Delassus::hinv_jt(const double* alpha, const double* x, double* out) {
  if (dense_) {  // the rows of J H^-1 already carry alpha
    VMap(out, nvall_).noalias() = JHinv_.topRows(nrow_).transpose() * CMap(x, nrow_);
    return;
  }
  J_.transpose_times(nrow_, alpha, x, tmp2_.data(), nvall_);
  apply_hinv(tmp2_.data(), out);
}

void Delassus::block_inverses(int nc, const RowCoefficients& k) {
  // inverse 3 x 3 blocks of the contacts (normal and friction rows coupled)
  if (blocks_.size() < static_cast<size_t>(nc)) blocks_.resize(nc);
  auto Jd = Jd_.topRows(nrow_);
  auto JHinv = JHinv_.topRows(nrow_);
  const double *alpha = k.alpha, *opdiag = k.opdiag;
  for (int c = 0; c < nc; ++c) {
    Mat3 B;
    // JHinv rows already carry alpha: B_ij = alpha_i J_i . (alpha_j H^-1 J_j^T)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        B(i, j) = dense_ ? alpha[3 * c + i] * Jd.row(3 * c + i).dot(JHinv.row(3 * c + j))
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
  // y = J_eff H^-1 J_eff^T x + (C + eps) x, with one O(n) sweep for H^-1
  auto apply = [&](const double* xin, double* y) {
    J_.transpose_times(nrow, alpha, xin, tmp2_.data(), nvall_);
    apply_hinv(tmp2_.data(), tmp_.data());
    for (int r = 0; r < nrow; ++r)
      y[r] = alpha[r] * J_.dot(r, tmp_.data()) + (opdiag[r] - alpha[r] * alpha[r] * jhj[r]) * xin[r];
  };
  if (dense_) {
    op.A = &A_;
  } else {
    op.apply = apply;
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
