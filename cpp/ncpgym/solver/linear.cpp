// Krylov and relaxation solvers written for ncpgym (textbook algorithms: Saad, "Iterative
// Methods for Sparse Linear Systems", 2003, Alg. 6.19-6.20 for conjugate residual,
// Alg. 9.1 for preconditioned CG). Dense LDL^T is Eigen's.
#include "ncpgym/solver/linear.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ncpgym {

namespace {

// z = P^-1 r with the operator's preconditioner, Jacobi by default.
void precond(const LinearOperator& op, const VecX& Pinv, const VecX& r, VecX& z) {
  if (op.precondition) {
    op.precondition(r, z);
  } else {
    z = Pinv.cwiseProduct(r);
  }
}

LinearResult pcr(const LinearOperator& op, const VecX& b, VecX& x, int iters, double tol) {
  const Eigen::Index n = op.size();
  const VecX Pinv = op.diagonal.cwiseAbs().cwiseMax(1e-300).cwiseInverse();
  x.setZero(n);
  VecX r = b, z(n), p(n), Az(n), Ap(n), PAp(n);
  precond(op, Pinv, r, z);
  p = z;
  op.mul(z, Az);
  Ap = Az;
  double zAz = z.dot(Az);
  const double bnorm = b.norm();
  LinearResult res;
  for (int k = 0; k < iters; ++k) {
    if (r.norm() <= tol * bnorm || zAz == 0) break;
    precond(op, Pinv, Ap, PAp);
    const double den = Ap.dot(PAp);
    if (den <= 0) break;
    const double alpha = zAz / den;
    x += alpha * p;
    r -= alpha * Ap;
    z -= alpha * PAp;
    op.mul(z, Az);
    const double zAz_new = z.dot(Az);
    const double beta = zAz_new / zAz;
    zAz = zAz_new;
    p = z + beta * p;
    Ap = Az + beta * Ap;
    res.iterations = k + 1;
  }
  res.residual = r.norm();
  return res;
}

LinearResult pcg(const LinearOperator& op, const VecX& b, VecX& x, int iters, double tol) {
  const Eigen::Index n = op.size();
  const VecX Pinv = op.diagonal.cwiseAbs().cwiseMax(1e-300).cwiseInverse();
  x.setZero(n);
  VecX r = b, z(n), p(n), Ap(n);
  precond(op, Pinv, r, z);
  p = z;
  double rz = r.dot(z);
  const double bnorm = b.norm();
  LinearResult res;
  for (int k = 0; k < iters; ++k) {
    if (r.norm() <= tol * bnorm || rz == 0) break;
    op.mul(p, Ap);
    const double den = p.dot(Ap);
    if (den <= 0) break;
    const double alpha = rz / den;
    x += alpha * p;
    r -= alpha * Ap;
    precond(op, Pinv, r, z);
    const double rz_new = r.dot(z);
    p = z + (rz_new / rz) * p;
    rz = rz_new;
    res.iterations = k + 1;
  }
  res.residual = r.norm();
  return res;
}

LinearResult jacobi(const LinearOperator& op, const VecX& b, VecX& x, int iters, double tol) {
  const double w = 2.0 / 3.0;  // damped: plain Jacobi diverges on many contact systems
  const VecX Dinv = op.diagonal.cwiseMax(1e-300).cwiseInverse();
  x.setZero(b.size());
  VecX Ax(b.size()), r = b;
  LinearResult res;
  for (int k = 0; k < iters; ++k) {
    if (r.norm() <= tol * b.norm()) break;
    x += w * Dinv.cwiseProduct(r);
    op.mul(x, Ax);
    r = b - Ax;
    res.iterations = k + 1;
  }
  res.residual = r.norm();
  return res;
}

LinearResult gauss_seidel(const LinearOperator& op, const VecX& b, VecX& x, int iters, double tol) {
  if (!op.A) throw std::invalid_argument("Gauss-Seidel needs the assembled matrix");
  const MatX& A = *op.A;
  const Eigen::Index n = b.size();
  x.setZero(n);
  LinearResult res;
  for (int k = 0; k < iters; ++k) {
    if ((b - A * x).norm() <= tol * b.norm()) break;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double aii = A(i, i);
      if (aii <= 0) continue;
      x[i] += (b[i] - A.row(i).dot(x)) / aii;
    }
    res.iterations = k + 1;
  }
  res.residual = (b - A * x).norm();
  return res;
}

}  // namespace

LinearResult solve_linear(LinearSolverType type, const LinearOperator& op, const VecX& b, VecX& x,
                          int iterations, double tol) {
  tol = std::max(tol, 1e-13);  // below this the iterates only shuffle rounding errors
  switch (type) {
    case LinearSolverType::PCR: return pcr(op, b, x, iterations, tol);
    case LinearSolverType::PCG: return pcg(op, b, x, iterations, tol);
    case LinearSolverType::Jacobi: return jacobi(op, b, x, iterations, tol);
    case LinearSolverType::GaussSeidel: return gauss_seidel(op, b, x, iterations, tol);
    case LinearSolverType::LDLT: {
      if (!op.A) throw std::invalid_argument("LDLT needs the assembled matrix");
      x = op.A->ldlt().solve(b);
      return {1, (b - *op.A * x).norm()};
    }
  }
  return {};
}

}  // namespace ncpgym
