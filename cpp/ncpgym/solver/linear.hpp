// Linear solvers for the Newton system [J H^-1 J^T + C] x = b (nonsmooth-newton-ncp.txt
// eq. 59) behind one interface. The operator is either an assembled dense matrix or a
// matrix-free product; the iterative methods only need products and the diagonal.
#pragma once

#include <functional>
#include <vector>

#include "ncpgym/math/spatial.hpp"

namespace ncpgym {

enum class LinearSolverType { PCR = 0, PCG = 1, Jacobi = 2, GaussSeidel = 3, LDLT = 4 };

// The system operator: dense (A set) or matrix-free (apply set, with the diagonal).
struct LinearOperator {
  const MatX* A = nullptr;
  std::function<void(const VecX& x, VecX& y)> apply;  // y = A x
  VecX diagonal;
  // Optional preconditioner z = P^-1 r for PCR/PCG (default: Jacobi, 1 / |diagonal|).
  std::function<void(const VecX& r, VecX& z)> precondition;
  Eigen::Index size() const { return diagonal.size(); }
  void mul(const VecX& x, VecX& y) const {
    if (A) {
      y.noalias() = *A * x;
    } else {
      apply(x, y);
    }
  }
};

struct LinearResult {
  int iterations = 0;
  double residual = 0;  // |b - A x|
};

// Solves A x = b from x = 0 with at most `iterations` iterations (all but LDLT) or until
// |b - A x| <= tol |b|. PCR and PCG use the Jacobi preconditioner (§8.2); Jacobi is damped
// (weight 2/3) and Gauss-Seidel needs the dense matrix; LDLT needs the dense matrix.
LinearResult solve_linear(LinearSolverType type, const LinearOperator& op, const VecX& b, VecX& x,
                          int iterations, double tol = 0.0);

}  // namespace ncpgym
