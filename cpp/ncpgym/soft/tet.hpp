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
};

// Rows of one element at vertex positions x[4], with Dminv the inverse rest edge matrix
// [x1 - x0, x2 - x0, x3 - x0]^-1. The exact derivative of S = sqrt(F^T F) comes from the
// Sylvester equation S dS + dS S = dC in the eigenbasis of C = F^T F:
// dS_ij = dC_ij / (s_i + s_j).
void tet_rows(const Vec3 x[4], const Mat3& Dminv, TetRows& out);

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

}  // namespace ncpgym
