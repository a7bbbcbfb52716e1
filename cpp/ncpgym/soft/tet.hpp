// Tetrahedral elements in compliance form (nonsmooth-newton-ncp.txt §9.1-9.2.1): the
// linear co-rotational model as six constraint rows per element, c = <eps, B_k>, with
// eps = S - I the co-rotated small strain (F = R S, S = sqrt(F^T F)) and B_k an
// orthonormal basis of symmetric 3 x 3 matrices chosen so that the compliance block
// E = (V K_e)^-1 of §9.2.1 is diagonal for an isotropic material:
//   B_0 = I / sqrt(3) (volumetric), compliance 1 / (3 K V), K = lambda + 2 mu / 3;
//   B_1..B_5 traceless (deviatoric), compliance 1 / (2 mu V).
// Then 1/2 sum_k c_k^2 / E_k = V (mu eps:eps + lambda/2 tr(eps)^2), the element's strain
// energy, and the rows fit the solver's per-row compliance unchanged. Written for ncpgym.
#pragma once

#include <Eigen/Eigenvalues>
#include <array>

#include "ncpgym/math/spatial.hpp"

namespace ncpgym {

// Lame parameters from Young's modulus and Poisson's ratio (standard isotropic relations).
inline double lame_mu(double young, double poisson) { return young / (2 * (1 + poisson)); }
inline double lame_lambda(double young, double poisson) {
  return young * poisson / ((1 + poisson) * (1 - 2 * poisson));
}

// The basis B_k (orthonormal under A:B).
const std::array<Mat3, 6>& strain_basis();

struct TetRows {
  double c[6];                 // row values
  double grad[6][4][3];        // d c_k / d x_{vertex, axis}
  Vec3 s;                      // principal stretches (eigenvalues of S, ascending)
  Mat3 V;                      // their directions: S = V diag(s) V^T
};

// Rows of one element at vertex positions x[4], with Dminv the inverse rest edge matrix
// [x1 - x0, x2 - x0, x3 - x0]^-1. The exact derivative of S = sqrt(F^T F) comes from the
// Sylvester equation S dS + dS S = dC in the eigenbasis of C = F^T F:
// dS_ij = dC_ij / (s_i + s_j).
void tet_rows(const Vec3 x[4], const Mat3& Dminv, TetRows& out);

// F = Ds Dm^-1 of a tetrahedron with vertices x (Dm^-1 = Model::tet_Dminv).
Mat3 deformation_gradient(const Vec3 x[4], const Mat3& Dminv);

// Eigen-decomposition of a symmetric 3 x 3 stretch tensor C = F^T F: closed form, with the
// iterative solver where the closed form loses orthogonality (a near-triple eigenvalue).
void stretch_eigen(const Mat3& C, Eigen::SelfAdjointEigenSolver<Mat3>& eig);

// One element's block of the primal Newton matrix (soft_kkt.cpp) with its stress stiffness,
// for rows that depend on x only through F = Ds Dminv (the linear rows; the six Neo-Hookean
// rows with their coefficients held). The seed's block is J^T D^-1 J = sum_k w_k grad_k
// grad_k^T; Newton's also has -h^2 sum_k lambda_k d2c_k/dx2, the change of the force J^T lambda
// with x at held multipliers, without which Newton converges only linearly on a stressed
// body. Both are formed in F-space (9 x 9, F = G x with G the 9 x 12 vertex map):
//   T = sum_k w_k a_k a_k^T - h^2 d2<S, Lambda>/dF2,   grad_k = G^T a_k,
// and with `project` T is projected to its non-negative eigenvalues (compressed elements make
// it indefinite: their buckling modes; checked by a Cholesky first, so a stable element pays
// no eigen-decomposition), then B = G^T T G. The solver projects only when the whole matrix
// is indefinite: an element's negative curvature is often held by its neighbours, and
// clamping it then costs Newton its quadratic convergence. The stress Hessian (derivation written for
// ncpgym): with f(F) = <S, Lambda>, S = sqrt(F^T F), (S^2)'' = 2 dF^T dF gives S S'' + S'' S =
// 2 dF^T dF - 2 S'^2, so in the frames of F = U diag(s) V^T, d2f[dF1, dF2] = 2 <Y, dF1^T dF2>
// - 2 tr(Y dS1 dS2) with Y_ij = Lambda_ij / (s_i + s_j) and dS_ij = (s_i dF_ij + s_j dF_ji) /
// (s_i + s_j); Y comes from the force P = df/dF = 2 F Y = sum_k lambda_k a_k. grad: the six
// rows' gradients (vertex-major xyz), w: their weights 1 / D_k, lambda: their multipliers.
// False (B untouched) for a degenerate or inverted element.
bool tet_newton_block(const Vec3 x[4], const Mat3& Dminv, const double grad[6][12], const double w[6],
                      const double lambda[6], double h2, bool project, Eigen::Matrix<double, 12, 12>& B);

enum class TetModel : int { LinearCorotational = 0, StableNeoHookean = 1 };

// Stable Neo-Hookean (Smith et al. 2018, in the form of nonsmooth-newton-ncp.txt App. B):
// Psi = C1 (I_C - 3) + D1 (J - alpha)^2 over the principal stretches s (rotation-variant
// SVD: det U = det V = 1, so s3 < 0 for an inverted element). Small strains must match
// the linear model: the Hessian at rest, 2 (C1 + D1) on the diagonal and 2 (D1 - C1) off
// it, equals lambda 1 1^T + 2 mu I when C1 = mu / 2, D1 = (lambda + mu) / 2, and the rest
// state is stress-free when alpha = 1 + C1 / D1. (App. B prints the gradient with J - 1;
// it is J - alpha, as the Hessian's k0 = 2 J - alpha shows.)
struct NeoHookean {
  double C1, D1, alpha;
  NeoHookean(double mu, double lambda) : C1(mu / 2), D1((lambda + mu) / 2), alpha(1 + C1 / D1) {}
  double energy(const Vec3& s) const;     // Psi
  Vec3 gradient(const Vec3& s) const;     // dPsi / ds
  Mat3 hessian(const Vec3& s) const;      // d2Psi / ds2
};

// Principal stretches of F = Ds Dminv and their derivatives ds_i / dx_{vertex, axis}
// (ds_i = u_i^T dF v_i).
void principal_stretches(const Vec3 x[4], const Mat3& Dminv, Vec3& s, double grad[3][4][3]);

// Three compliance-form rows of a Neo-Hookean element (§9.2.2): with N = V d2Psi/ds2 =
// Q L Q^T (eigenvalues clamped to a small positive floor: the projection to the positive
// definite cone), row k has value (Q^T V dPsi/ds)_k / L_k, compliance 1 / L_k and gradient
// sum_i Q_ik ds_i/dx. At the solution lambda = -L phi = -Q^T V dPsi/ds, so J^T lambda is
// the elastic force -dU/dx. Re-evaluated at every Newton iterate (App. B).
struct TetRowsNH {
  double c[3], E[3];
  double grad[3][4][3];
};
// `activation` a scales the rest shape by 1 + a (F = F_e (1 + a) I): the energy is
// V Psi(s / (1 + a)), so the rows are stress-free at s = 1 + a.
void tet_rows_neohookean(const Vec3 x[4], const Mat3& Dminv, double volume, const NeoHookean& mat, TetRowsNH& out,
                         double activation = 0.0);

// Six rows of a Neo-Hookean element over the six components e_k = <S - I, B_k> of the
// stretch tensor (the linear model's rows, exact derivatives of S): with g = V dPsi/de and
// N = V d2Psi/de2 = L D L^T (6 x 6, unpivoted, pivots floored), row m has value
// (L^-1 g)_m / D_m, compliance 1 / D_m and gradient sum_k L_km de_k/dx, so J^T lambda = -dU/dx
// at the solution as with three rows, and at rest the rows are the linear model's (a fixed
// basis, not N's eigenbasis: the rows change continuously, so multipliers carry over). Why six: the three principal-stretch rows have no gradient
// along shears of the principal frame (s changes to second order), so the Newton matrix
// lacks the element's shear stiffness, (psi_i - psi_j) / (s_i - s_j) -> 2 mu at rest, and
// a body at rest never settles. Here N holds it: for an isotropic Psi(S) (Lewis 1996),
// d(dPsi/dS) = V [diag(H ds) + kappa_ij dS^_ij (i != j)] V^T in the eigenbasis, kappa_ij =
// (psi_i - psi_j) / (s_i - s_j), H_ii - H_ij where s_i = s_j; at rest N is the linear
// model's compliance inverse. Inverted elements (det F <= 0, where S = sqrt(F^T F) cannot
// tell) and elements where N is not positive definite (strong volumetric tension) use the
// three principal-stretch rows of the rotation-variant SVD, and three empty rows.
struct TetRowsNH6 {
  double c[6], E[6];
  double grad[6][4][3];
};
void tet_rows_neohookean6(const Vec3 x[4], const Mat3& Dminv, double volume, const NeoHookean& mat,
                          TetRowsNH6& out, double activation = 0.0);

}  // namespace ncpgym
