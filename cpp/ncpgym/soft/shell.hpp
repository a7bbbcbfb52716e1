// Discrete elastic shells, hinge-based bending (dismech-rods-shells.txt §3.3.1, after Baraff &
// Witkin and Grinspun et al.): the hinge angle of two triangles sharing an edge, written once
// as a template so that T = double gives the value and T = Eigen's AutoDiffScalar its exact
// gradient (constraints/shell_rows.cpp).
#pragma once

#include "ncpgym/math/spatial.hpp"

namespace ncpgym {

// Signed angle between the normals of triangles (x0, x1, x2) and (x1, x0, x3), about the
// edge x0 -> x1 (the normals n0 = (x1 - x0) x (x2 - x0) and n1 = (x3 - x0) x (x1 - x0) of
// consistently oriented triangles): 0 when flat, positive when x3 folds to the side opposite n0.
template <class T>
T hinge_angle(const Eigen::Matrix<T, 3, 1> (&x)[4]) {
  using V = Eigen::Matrix<T, 3, 1>;
  const V e = x[1] - x[0];
  const V n0 = e.cross(x[2] - x[0]).normalized();
  const V n1 = (x[3] - x[0]).cross(e).normalized();
  using std::atan2;
  return atan2(n0.cross(n1).dot(e.normalized()), n0.dot(n1));
}

}  // namespace ncpgym
