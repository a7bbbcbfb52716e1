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

}  // namespace ncpgym
