// SupernodalLdlt (solver/supernodal_ldlt.hpp) against dense solves of the same matrices:
// quasi-definite KKT matrices as the primal soft solve builds them (mesh-like K, contact-
// like rows), in scrambled index orders, with several components; the inertia against a
// dense eigen-decomposition; refactorisation with new values; and its refusals.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "ncpgym/solver/supernodal_ldlt.hpp"

namespace ncpgym {
namespace {

using SpMat = SupernodalLdlt::SpMat;

// The lower triangle of a symmetric dense matrix, keeping the entries of `pattern` (also
// zeros that the pattern holds: the structure is the pattern's, not the values').
SpMat lower_of(const MatX& A, const Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic>& pattern) {
  std::vector<Eigen::Triplet<double>> t;
  for (int j = 0; j < A.cols(); ++j)
    for (int i = j; i < A.rows(); ++i)
      if (i == j || pattern(i, j)) t.emplace_back(i, j, A(i, j));
  SpMat L(A.rows(), A.cols());
  L.setFromTriplets(t.begin(), t.end());
  L.makeCompressed();
  return L;
}

// A KKT matrix [-D, -J; -J^T, K] of a world of `bodies` soft bodies (each a chain of
// `cells` cubes of 8 particles, K coupling the 3 coordinates of particles that share a
// cube, positive definite) and `rows` dual rows (each touching two random particles, as a
// contact between bodies), its rows and columns scrambled by a random permutation.
struct Kkt {
  MatX A;
  Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> pattern;
  int dual = 0;
};

Kkt kkt_matrix(std::mt19937& rng, int bodies, int cells, int rows) {
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const int per_body = 4 * (cells + 1);  // particles of a chain of cubes
  const int np = bodies * per_body, n = rows + 3 * np;
  Kkt k;
  k.A = MatX::Zero(n, n);
  k.pattern.setConstant(n, n, false);
  k.dual = rows;
  auto couple = [&](int i, int j, double v) {
    k.A(i, j) += v;
    if (i != j) k.A(j, i) += v;
    k.pattern(i, j) = k.pattern(j, i) = true;
  };
  for (int b = 0; b < bodies; ++b)
    for (int c = 0; c < cells; ++c) {
      // one cube: particles 4c .. 4c + 7 of the body; a random SPD 24 x 24 block G G^T
      const int p0 = rows + 3 * (b * per_body + 4 * c);
      MatX G = MatX::NullaryExpr(24, 12, [&] { return U(rng); });
      const MatX B = G * G.transpose() + 0.5 * MatX::Identity(24, 24);
      for (int i = 0; i < 24; ++i)
        for (int j = 0; j <= i; ++j) couple(p0 + i, p0 + j, B(i, j));
    }
  std::uniform_int_distribution<int> P(0, np - 1);
  for (int r = 0; r < rows; ++r) {
    couple(r, r, -(0.1 + 0.5 * (1 + U(rng))));
    for (int side = 0; side < 2; ++side) {
      const int p = P(rng);
      for (int x = 0; x < 3; ++x) couple(rows + 3 * p + x, r, -U(rng));
    }
  }
  // scramble: the factorisation must not depend on the caller's order
  std::vector<int> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  Kkt s = k;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      s.A(perm[i], perm[j]) = k.A(i, j);
      s.pattern(perm[i], perm[j]) = k.pattern(i, j);
    }
  return s;
}

int dense_negative_eigenvalues(const MatX& A) {
  Eigen::SelfAdjointEigenSolver<MatX> es(A);
  return static_cast<int>((es.eigenvalues().array() < 0).count());
}

TEST(SupernodalLdlt, SolvesQuasiDefiniteKktMatricesLikeADenseSolve) {
  std::mt19937 rng(7);
  struct Case {
    int bodies, cells, rows;
  };
  for (const Case c : {Case{1, 1, 0}, Case{1, 2, 3}, Case{3, 4, 12}, Case{2, 12, 40}, Case{4, 6, 5}}) {
    const Kkt k = kkt_matrix(rng, c.bodies, c.cells, c.rows);
    const SpMat L = lower_of(k.A, k.pattern);
    SupernodalLdlt f;
    f.analyze(L);
    ASSERT_TRUE(f.factorize(L));
    EXPECT_TRUE(f.ok());
    EXPECT_EQ(f.rows(), k.A.rows());
    // quasi-definite: exactly the dual rows' count of negative pivots (Sylvester)
    EXPECT_EQ(f.negative_pivots(), c.rows);
    EXPECT_EQ(f.negative_pivots(), dense_negative_eigenvalues(k.A));
    const VecX b = VecX::NullaryExpr(k.A.rows(), [&] { return std::uniform_real_distribution<double>(-1, 1)(rng); });
    VecX x;
    f.solve(b, x);
    const VecX xd = k.A.partialPivLu().solve(b);
    EXPECT_LT((x - xd).norm(), 1e-9 * xd.norm()) << c.bodies << " bodies, " << c.cells << " cells, " << c.rows << " rows";
    EXPECT_LT((k.A * x - b).norm(), 1e-10 * b.norm());
  }
}

TEST(SupernodalLdlt, FormsWidePanelsOnAMeshAndKeepsTheFactorSparse) {
  // a long chain of cubes: supernodes of several columns (a particle's 3 coordinates at
  // least), and far fewer stored entries than the dense lower triangle
  std::mt19937 rng(3);
  const Kkt k = kkt_matrix(rng, 2, 30, 20);
  const int n = static_cast<int>(k.A.rows());
  const SpMat L = lower_of(k.A, k.pattern);
  SupernodalLdlt f;
  f.analyze(L);
  EXPECT_LT(f.supernodes(), n / 3);
  EXPECT_LT(f.factor_entries(), static_cast<std::int64_t>(n) * n / 8);
  ASSERT_TRUE(f.factorize(L));
  const VecX b = VecX::LinSpaced(n, -1.0, 2.0);
  VecX x;
  f.solve(b, x);
  EXPECT_LT((k.A * x - b).norm(), 1e-10 * b.norm());
}

TEST(SupernodalLdlt, RefactorisesNewValuesOnTheSamePatternAndSolvesInPlace) {
  std::mt19937 rng(11);
  Kkt k = kkt_matrix(rng, 2, 5, 8);
  SpMat L = lower_of(k.A, k.pattern);
  SupernodalLdlt f;
  f.analyze(L);
  ASSERT_TRUE(f.factorize(L));
  // new values on the same pattern: the diagonal scaled, one coupling changed
  k.A.diagonal() *= 1.7;
  for (int j = 0; j < k.A.cols(); ++j)
    for (int i = j + 1; i < k.A.rows(); ++i)
      if (k.pattern(i, j)) {
        k.A(i, j) = k.A(j, i) = 0.3 * k.A(i, j) + 0.01;
        break;
      }
  const SpMat L2 = lower_of(k.A, k.pattern);
  ASSERT_TRUE(f.factorize(L2));
  VecX b = VecX::Ones(k.A.rows());
  const VecX xd = k.A.partialPivLu().solve(b);
  f.solve(b, b);  // in place
  EXPECT_LT((b - xd).norm(), 1e-9 * xd.norm());
}

TEST(SupernodalLdlt, CountsTheInertiaOfAnIndefiniteMatrix) {
  // 2 x 2 blocks [[a, 2], [2, 1]] (one negative eigenvalue each when a < 4) beside
  // positive diagonal entries, coupled in a chain; the count is the matrix's
  std::mt19937 rng(5);
  const int nb = 12, n = 2 * nb + 5;
  MatX A = MatX::Zero(n, n);
  Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> pat;
  pat.setConstant(n, n, false);
  for (int b = 0; b < nb; ++b) {
    const int i = 2 * b;
    A(i, i) = 1.0 + 0.1 * b;
    A(i + 1, i + 1) = 1.0;
    A(i, i + 1) = A(i + 1, i) = 2.0;
    pat(i, i + 1) = pat(i + 1, i) = true;
    if (b > 0) {
      A(i, i - 1) = A(i - 1, i) = 0.05;
      pat(i, i - 1) = pat(i - 1, i) = true;
    }
  }
  for (int i = 2 * nb; i < n; ++i) A(i, i) = 2.0;
  const SpMat L = lower_of(A, pat);
  SupernodalLdlt f;
  f.analyze(L);
  ASSERT_TRUE(f.factorize(L));
  EXPECT_EQ(f.negative_pivots(), dense_negative_eigenvalues(A));
  EXPECT_EQ(f.negative_pivots(), nb);
}

TEST(SupernodalLdlt, RefusesWhatItCannotFactorise) {
  MatX A = MatX::Identity(4, 4);
  Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> pat;
  pat.setConstant(4, 4, false);
  pat(2, 1) = pat(1, 2) = true;
  A(2, 1) = A(1, 2) = 0.5;
  const SpMat L = lower_of(A, pat);
  SupernodalLdlt f;
  EXPECT_THROW(f.factorize(L), std::invalid_argument);  // before analyze
  f.analyze(L);
  // a zero pivot: refused, and the factor is unusable
  MatX Z = A;
  Z(3, 3) = 0.0;
  EXPECT_FALSE(f.factorize(lower_of(Z, pat)));
  EXPECT_FALSE(f.ok());
  VecX x;
  EXPECT_THROW(f.solve(VecX::Ones(4), x), std::invalid_argument);
  // a non-finite pivot is not refused: it reaches the solution (the stepper reports the
  // diverged step from there)
  Z(3, 3) = std::numeric_limits<double>::quiet_NaN();
  ASSERT_TRUE(f.factorize(lower_of(Z, pat)));
  f.solve(VecX::Ones(4), x);
  EXPECT_TRUE(std::isnan(x[3]));
  EXPECT_EQ(x[0], 1.0);
  // another pattern, a wrong right-hand side, an upper entry, a rectangular matrix
  pat(3, 0) = pat(0, 3) = true;
  EXPECT_THROW(f.factorize(lower_of(A, pat)), std::invalid_argument);
  ASSERT_TRUE(f.factorize(L));
  EXPECT_THROW(f.solve(VecX::Ones(3), x), std::invalid_argument);
  SpMat U = L.transpose();
  U.makeCompressed();
  SupernodalLdlt g;
  EXPECT_THROW(g.analyze(U), std::invalid_argument);
  EXPECT_THROW(g.factorize(L), std::invalid_argument);  // still not analysed
  EXPECT_THROW(f.analyze(U), std::invalid_argument);     // a refused pattern leaves f as it was
  ASSERT_TRUE(f.factorize(L));
  EXPECT_THROW(g.analyze(SpMat(3, 4)), std::invalid_argument);
}

}  // namespace
}  // namespace ncpgym
