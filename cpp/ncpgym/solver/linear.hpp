// Linear solvers for the Newton system [J H^-1 J^T + C] x = b (nonsmooth-newton-ncp.txt
// eq. 59) behind one interface. The operator is either an assembled dense matrix or a
// matrix-free product; the iterative methods only need products and the diagonal.
// Vectors live in a caller-owned workspace so that a time step never allocates.
#pragma once

#include "ncpgym/math/spatial.hpp"
#include "ncpgym/util/function_ref.hpp"

namespace ncpgym {

// SparseLDLT: the Schur complement assembled as a sparse matrix and factorised by Eigen's
// SimplicialLDLT (soft bodies: tetrahedra rows couple only through shared particles);
// systems small enough for the dense path use the dense LDLT instead.
// KKT: no Schur complement at all: every Newton direction comes from the sparse LDL^T of
// the primal KKT system that worlds with soft elements solve (solver/soft_kkt.cpp), whose
// tree blocks keep H's own sparsity (a free body is a 6 x 6 block), so a pile of bodies
// factorises in time linear in its contact graph instead of PCR's 50 sweeps per iterate.
enum class LinearSolverType { PCR = 0, PCG = 1, Jacobi = 2, GaussSeidel = 3, LDLT = 4, SparseLDLT = 5, KKT = 6 };

// The system operator of size n: dense (A set: its top-left n x n block) or matrix-free
// (apply set), with the diagonal either way.
struct LinearOperator {
  int n = 0;
  const double* diagonal = nullptr;
  const MatX* A = nullptr;
  FunctionRef<void(const double* x, double* y)> apply;  // y = A x
  // Optional: y = A x returning x . y (PCR's next inner product, taken with the product)
  FunctionRef<double(const double* x, double* y)> apply_dot;
  // Optional preconditioner z = P^-1 r for PCR/PCG (default: Jacobi, 1 / |diagonal|).
  FunctionRef<void(const double* r, double* z)> precondition;
  void mul(const double* x, double* y) const;
};

// Scratch vectors of the iterative solvers; they grow to the largest system seen.
struct LinearWorkspace {
  VecX r, z, p, Az, Ap, PAp, Pinv;
  void reserve(Eigen::Index n);
};

struct LinearResult {
  int iterations = 0;
  double residual = 0;  // |b - A x|
};

// Solves A x = b (n entries each) from x = 0 with at most `iterations` iterations (all
// but LDLT) or until |b - A x| <= tol |b|. PCR and PCG use the Jacobi preconditioner
// (§8.2) unless the operator brings its own; Jacobi is damped (weight 2/3); Gauss-Seidel
// and LDLT need the dense matrix (LDLT is Eigen's and, with SparseLDLT, allocates).
LinearResult solve_linear(LinearSolverType type, const LinearOperator& op, const double* b, double* x,
                          int iterations, double tol, LinearWorkspace& ws);

}  // namespace ncpgym
