// Krylov and relaxation solvers written for ncpgym (textbook algorithms: Saad, "Iterative
// Methods for Sparse Linear Systems", 2003, Alg. 6.19-6.20 for conjugate residual,
// Alg. 9.1 for preconditioned CG). Dense LDL^T is Eigen's.
#include "ncpgym/solver/linear.hpp"

#include "ncpgym/util/clones.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ncpgym {

using VMap = Eigen::Map<VecX>;
using CMap = Eigen::Map<const VecX>;

void LinearOperator::mul(const double* x, double* y) const {
  if (A) {
    VMap(y, n).noalias() = A->topLeftCorner(n, n) * CMap(x, n);
  } else {
    apply(x, y);
  }
}

void LinearWorkspace::reserve(Eigen::Index n) {
  for (VecX* v : {&r, &z, &p, &Az, &Ap, &PAp, &Pinv})
    if (v->size() < n) v->resize(n);
}

namespace {

// z = P^-1 r with the operator's preconditioner, Jacobi by default.
void precond(const LinearOperator& op, const VMap& Pinv, const VMap& r, VMap& z) {
  if (op.precondition) {
    op.precondition(r.data(), z.data());
  } else {
    z = Pinv.cwiseProduct(r);
  }
}

struct Vectors {  // the workspace seen as n-vectors
  VMap r, z, p, Az, Ap, PAp, Pinv;
  Vectors(LinearWorkspace& w, int n)
      : r(w.r.data(), n), z(w.z.data(), n), p(w.p.data(), n), Az(w.Az.data(), n), Ap(w.Ap.data(), n),
        PAp(w.PAp.data(), n), Pinv(w.Pinv.data(), n) {}
};

// One PCR iteration's vector work with the Jacobi preconditioner, in two fused passes
// around the product (the general loop below makes seven passes over ~8 vectors; on a pile
// of ~1,300 rows they were a fifth of the solve). Cloned for AVX2/FMA. Each pass's sum is
// kept in kLanes partial sums (lane i mod kLanes, added pairwise at the end): one running
// sum is a chain of dependent adds, one add latency (4 cycles) per element, which made the
// two passes as slow as the product itself on the 50-body pile (perf, session 37).
constexpr int kLanes = 8;

// sum over i < n of term(i) (which may also write element i), term i in lane i mod kLanes
template <class Term>
__attribute__((always_inline)) inline double lane_sum(int n, Term&& term) {
  double s[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) s[l] += term(i + l);
  for (int l = 0; i < n; ++i, ++l) s[l] += term(i);
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

// update: x += alpha p, r -= alpha Ap, z -= alpha PAp; returns |r|^2
NCPGYM_CLONES double pcr_update(int n, double alpha, const double* __restrict p, const double* __restrict Ap,
                                const double* __restrict PAp, double* __restrict x, double* __restrict r,
                                double* __restrict z) {
  return lane_sum(n, [&](int i) __attribute__((always_inline)) {
    x[i] += alpha * p[i];
    r[i] -= alpha * Ap[i];
    z[i] -= alpha * PAp[i];
    return r[i] * r[i];
  });
}

// direction: p = z + beta p, Ap = Az + beta Ap, PAp = Pinv Ap; returns Ap . PAp
NCPGYM_CLONES double pcr_direction(int n, double beta, const double* __restrict z, const double* __restrict Az,
                                   const double* __restrict Pinv, double* __restrict p, double* __restrict Ap,
                                   double* __restrict PAp) {
  return lane_sum(n, [&](int i) __attribute__((always_inline)) {
    p[i] = z[i] + beta * p[i];
    Ap[i] = Az[i] + beta * Ap[i];
    PAp[i] = Pinv[i] * Ap[i];
    return Ap[i] * PAp[i];
  });
}

NCPGYM_CLONES double dot(int n, const double* __restrict a, const double* __restrict b) {
  return lane_sum(n, [&](int i) __attribute__((always_inline)) { return a[i] * b[i]; });
}

// Preconditioned conjugate residual with the Jacobi preconditioner: pcr() below, the same
// recurrence with its passes fused.
LinearResult pcr_jacobi(const LinearOperator& op, const CMap& b, VMap& x, int iters, double tol, Vectors& w) {
  const int n = op.n;
  w.Pinv = CMap(op.diagonal, n).cwiseAbs().cwiseMax(1e-300).cwiseInverse();
  x.setZero();
  w.r = b;
  w.z = w.Pinv.cwiseProduct(w.r);
  // Az = A z and z . Az, from the operator's fused product where it has one
  auto product = [&]() {
    if (op.apply_dot && !op.A) return op.apply_dot(w.z.data(), w.Az.data());
    op.mul(w.z.data(), w.Az.data());
    return dot(n, w.z.data(), w.Az.data());
  };
  double zAz = product();
  // the first direction p = z, Ap = Az (beta = 0 on zeroed p and Ap)
  w.p.setZero();
  w.Ap.setZero();
  double den = pcr_direction(n, 0.0, w.z.data(), w.Az.data(), w.Pinv.data(), w.p.data(), w.Ap.data(), w.PAp.data());
  const double bnorm = b.norm(), stop2 = (tol * bnorm) * (tol * bnorm);
  double rr = dot(n, w.r.data(), w.r.data());
  LinearResult res;
  for (int k = 0; k < iters; ++k) {
    if (rr <= stop2 || zAz == 0 || den <= 0) break;
    const double alpha = zAz / den;
    rr = pcr_update(n, alpha, w.p.data(), w.Ap.data(), w.PAp.data(), x.data(), w.r.data(), w.z.data());
    const double zAz_new = product();
    const double beta = zAz_new / zAz;
    zAz = zAz_new;
    den = pcr_direction(n, beta, w.z.data(), w.Az.data(), w.Pinv.data(), w.p.data(), w.Ap.data(), w.PAp.data());
    res.iterations = k + 1;
  }
  res.residual = std::sqrt(rr);
  return res;
}

LinearResult pcr(const LinearOperator& op, const CMap& b, VMap& x, int iters, double tol, Vectors& w) {
  if (!op.precondition) return pcr_jacobi(op, b, x, iters, tol, w);
  w.Pinv = CMap(op.diagonal, op.n).cwiseAbs().cwiseMax(1e-300).cwiseInverse();
  x.setZero();
  w.r = b;
  precond(op, w.Pinv, w.r, w.z);
  w.p = w.z;
  op.mul(w.z.data(), w.Az.data());
  w.Ap = w.Az;
  double zAz = w.z.dot(w.Az);
  const double bnorm = b.norm();
  LinearResult res;
  for (int k = 0; k < iters; ++k) {
    if (w.r.norm() <= tol * bnorm || zAz == 0) break;
    precond(op, w.Pinv, w.Ap, w.PAp);
    const double den = w.Ap.dot(w.PAp);
    if (den <= 0) break;
    const double alpha = zAz / den;
    x += alpha * w.p;
    w.r -= alpha * w.Ap;
    w.z -= alpha * w.PAp;
    op.mul(w.z.data(), w.Az.data());
    const double zAz_new = w.z.dot(w.Az);
    const double beta = zAz_new / zAz;
    zAz = zAz_new;
    w.p = w.z + beta * w.p;
    w.Ap = w.Az + beta * w.Ap;
    res.iterations = k + 1;
  }
  res.residual = w.r.norm();
  return res;
}

LinearResult pcg(const LinearOperator& op, const CMap& b, VMap& x, int iters, double tol, Vectors& w) {
  w.Pinv = CMap(op.diagonal, op.n).cwiseAbs().cwiseMax(1e-300).cwiseInverse();
  x.setZero();
  w.r = b;
  precond(op, w.Pinv, w.r, w.z);
  w.p = w.z;
  double rz = w.r.dot(w.z);
  const double bnorm = b.norm();
  LinearResult res;
  for (int k = 0; k < iters; ++k) {
    if (w.r.norm() <= tol * bnorm || rz == 0) break;
    op.mul(w.p.data(), w.Ap.data());
    const double den = w.p.dot(w.Ap);
    if (den <= 0) break;
    const double alpha = rz / den;
    x += alpha * w.p;
    w.r -= alpha * w.Ap;
    precond(op, w.Pinv, w.r, w.z);
    const double rz_new = w.r.dot(w.z);
    w.p = w.z + (rz_new / rz) * w.p;
    rz = rz_new;
    res.iterations = k + 1;
  }
  res.residual = w.r.norm();
  return res;
}

LinearResult jacobi(const LinearOperator& op, const CMap& b, VMap& x, int iters, double tol, Vectors& w) {
  const double omega = 2.0 / 3.0;  // damped: plain Jacobi diverges on many contact systems
  w.Pinv = CMap(op.diagonal, op.n).cwiseMax(1e-300).cwiseInverse();
  x.setZero();
  w.r = b;
  LinearResult res;
  for (int k = 0; k < iters; ++k) {
    if (w.r.norm() <= tol * b.norm()) break;
    x += omega * w.Pinv.cwiseProduct(w.r);
    op.mul(x.data(), w.Az.data());
    w.r = b - w.Az;
    res.iterations = k + 1;
  }
  res.residual = w.r.norm();
  return res;
}

LinearResult gauss_seidel(const LinearOperator& op, const CMap& b, VMap& x, int iters, double tol, Vectors& w) {
  if (!op.A) throw std::invalid_argument("Gauss-Seidel needs the assembled matrix");
  const auto A = op.A->topLeftCorner(op.n, op.n);
  x.setZero();
  LinearResult res;
  for (int k = 0; k < iters; ++k) {
    w.r = b;
    w.r.noalias() -= A * x;
    if (w.r.norm() <= tol * b.norm()) break;
    for (int i = 0; i < op.n; ++i) {
      const double aii = A(i, i);
      if (aii <= 0) continue;
      x[i] += (b[i] - A.row(i).dot(x)) / aii;
    }
    res.iterations = k + 1;
  }
  w.r = b;
  w.r.noalias() -= A * x;
  res.residual = w.r.norm();
  return res;
}

}  // namespace

LinearResult solve_linear(LinearSolverType type, const LinearOperator& op, const double* b_, double* x_,
                          int iterations, double tol, LinearWorkspace& ws) {
  tol = std::max(tol, 1e-13);  // below this the iterates only shuffle rounding errors
  ws.reserve(op.n);
  Vectors w(ws, op.n);
  const CMap b(b_, op.n);
  VMap x(x_, op.n);
  switch (type) {
    case LinearSolverType::PCR: return pcr(op, b, x, iterations, tol, w);
    case LinearSolverType::PCG: return pcg(op, b, x, iterations, tol, w);
    case LinearSolverType::Jacobi: return jacobi(op, b, x, iterations, tol, w);
    case LinearSolverType::GaussSeidel: return gauss_seidel(op, b, x, iterations, tol, w);
    case LinearSolverType::SparseLDLT:  // on an assembled dense matrix: the dense factorisation
    case LinearSolverType::LDLT: {
      if (!op.A) throw std::invalid_argument("LDLT needs the assembled matrix");
      const MatX A = op.A->topLeftCorner(op.n, op.n);
      x = A.ldlt().solve(b);
      w.r = b;
      w.r.noalias() -= A * x;
      return {1, w.r.norm()};
    }
    case LinearSolverType::KKT:  // the stepper solves these in primal form (soft_kkt.cpp)
      throw std::invalid_argument("the KKT solver has no dual operator form");
  }
  return {};
}

}  // namespace ncpgym
