// The iterative linear solvers against the dense factorisation and against their stopping
// rule: with a relative tolerance (the inexact-Newton forcing term, option
// linear_tolerance) they stop at the first iterate whose residual |b - A x| is at most
// tol |b|, and not one iterate later.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <cmath>
#include <random>

#include "ncpgym/solver/linear.hpp"

namespace ncpgym {
namespace {

// A symmetric positive definite 40 x 40 matrix with eigenvalues from 1 to 1e4 in a random
// basis, and a random right-hand side.
struct System {
  MatX A;
  VecX b;
  System() {
    const int n = 40;
    std::mt19937 gen(7);
    std::normal_distribution<double> N(0.0, 1.0);
    MatX G(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) G(i, j) = N(gen);
    const MatX Q = Eigen::HouseholderQR<MatX>(G).householderQ();
    VecX ev(n);
    for (int i = 0; i < n; ++i) ev[i] = std::pow(10.0, 4.0 * i / (n - 1));
    A = Q * ev.asDiagonal() * Q.transpose();
    b.resize(n);
    for (int i = 0; i < n; ++i) b[i] = N(gen);
  }
};

LinearResult run(LinearSolverType type, const System& s, int iterations, double tol, VecX& x) {
  const VecX diag = s.A.diagonal();
  LinearOperator op;
  op.n = static_cast<int>(s.b.size());
  op.diagonal = diag.data();
  op.A = &s.A;
  LinearWorkspace ws;
  x.setZero(op.n);
  return solve_linear(type, op, s.b.data(), x.data(), iterations, tol, ws);
}

TEST(Linear, KrylovSolversConvergeToTheDenseSolution) {
  const System s;
  const VecX exact = s.A.ldlt().solve(s.b);
  for (auto type : {LinearSolverType::PCR, LinearSolverType::PCG}) {
    VecX x;
    run(type, s, 400, 1e-12, x);
    EXPECT_LT((x - exact).norm(), 1e-8 * exact.norm());
  }
}

TEST(Linear, RelativeToleranceStopsAtTheFirstIterateBelowIt) {
  const System s;
  const double bnorm = s.b.norm();
  for (auto type : {LinearSolverType::PCR, LinearSolverType::PCG}) {
    for (double tol : {1e-1, 1e-2, 1e-4}) {
      VecX x;
      const LinearResult r = run(type, s, 400, tol, x);
      ASSERT_GT(r.iterations, 1);
      ASSERT_LT(r.iterations, 400);  // stopped by the tolerance, not the budget
      EXPECT_NEAR(r.residual, (s.b - s.A * x).norm(), 1e-9 * bnorm);  // the true residual
      EXPECT_LE(r.residual, tol * bnorm);
      // one iterate earlier (the same iterates: no tolerance, one iteration less) it was not yet met
      VecX x_prev;
      const LinearResult prev = run(type, s, r.iterations - 1, 0.0, x_prev);
      EXPECT_EQ(prev.iterations, r.iterations - 1);
      EXPECT_GT(prev.residual, tol * bnorm) << "tol " << tol;
    }
  }
}

TEST(Linear, ZeroToleranceRunsTheWholeBudget) {
  const System s;
  for (auto type : {LinearSolverType::PCR, LinearSolverType::PCG}) {
    VecX x;
    EXPECT_EQ(run(type, s, 25, 0.0, x).iterations, 25);
  }
}

}  // namespace
}  // namespace ncpgym
