// Discrete elastic rods (dismech-rods-shells.txt §3, after Bergou et al. 2008): the strains of
// one interior node, written once as a template so that the same code gives the values (T =
// double) and their exact gradients (T = Eigen's forward-mode AutoDiffScalar, in
// constraints/rod_rows.cpp): no hand-derived Hessian-free gradient to get wrong.
//
// Twist without a twist coordinate. The seed carries one twist angle per edge beside the node
// positions. ncpgym instead gives each edge a ghost particle off its axis; the material vector
// m1 of the edge is the direction from the axis to the ghost (two hard rows keep the ghost on
// the edge's mid-plane at a fixed distance). Every rod quantity is then a function of particle
// positions, so rods enter the existing particle machinery (mass matrix, contact, attachments,
// the primal KKT solve, Batch views, serialisation) unchanged, and a clamped end that holds
// its ghost also holds the twist. docs/architecture.md "Rod twist by ghost points" says more.
//
// Per interior node with incoming edge e0 = x_b - x_a and outgoing edge e1 = x_c - x_b
// (tangents t0, t1):
//   curvature binormal   kb = 2 t0 x t1 / (1 + t0 . t1)                      (seed eq. for kappa b)
//   material curvatures  kappa1 = 1/2 (m2_0 + m2_1) . kb,  kappa2 = -1/2 (m1_0 + m1_1) . kb
//   twist                tau = signed angle about t1 from P(m1_0) to m1_1,
// where P is the parallel transport from t0 to t1 (the rotation about t0 x t1 taking t0 to t1).
// tau equals the seed's theta_1 - theta_0 + reference twist. Energies (seed §3.1-3.3):
//   U_bend = EI / (2 l) |kappa - kappa_bar|^2,  U_twist = GJ / (2 l) (tau - tau_bar)^2,
// with l the node's Voronoi length (half the two rest edge lengths): as compliant rows,
// c = kappa - kappa_bar with E = l / EI, and c = tau - tau_bar with E = l / GJ.
#pragma once

#include <cmath>

#include "ncpgym/math/spatial.hpp"

namespace ncpgym {

template <class T>
using V3 = Eigen::Matrix<T, 3, 1>;

// The edge's material vector m1: the ghost's offset from the edge midpoint, without its
// component along the edge, normalised.
template <class T>
V3<T> rod_m1(const V3<T>& a, const V3<T>& b, const V3<T>& ghost) {
  const V3<T> t = (b - a).normalized();
  V3<T> d = ghost - (a + b) * T(0.5);
  d -= t * t.dot(d);
  return d.normalized();
}

// Parallel transport of v from unit tangent t0 to unit tangent t1 (rotation about t0 x t1 by
// the angle between them; Rodrigues' formula without the normalised axis, defined for every
// pair but antiparallel tangents).
template <class T>
V3<T> rod_transport(const V3<T>& t0, const V3<T>& t1, const V3<T>& v) {
  const V3<T> b = t0.cross(t1);
  const T c = t0.dot(t1);
  return v * c + b.cross(v) + b * (b.dot(v) / (T(1) + c));
}

// kappa1, kappa2 (integrated, dimensionless) and tau at one interior node. x: nodes a, b, c
// and the ghosts of edges (a, b) and (b, c).
template <class T>
void rod_node_strains(const V3<T> (&x)[5], T (&out)[3]) {
  const V3<T> t0 = (x[1] - x[0]).normalized(), t1 = (x[2] - x[1]).normalized();
  const V3<T> m10 = rod_m1<T>(x[0], x[1], x[3]), m11 = rod_m1<T>(x[1], x[2], x[4]);
  const V3<T> m20 = t0.cross(m10), m21 = t1.cross(m11);
  const V3<T> kb = t0.cross(t1) * (T(2) / (T(1) + t0.dot(t1)));
  out[0] = T(0.5) * (m20 + m21).dot(kb);
  out[1] = T(-0.5) * (m10 + m11).dot(kb);
  const V3<T> p = rod_transport<T>(t0, t1, m10);
  using std::atan2;
  out[2] = atan2(t1.dot(p.cross(m11)), p.dot(m11));
}

// The integrated curvature 2 tan(phi / 2) of a node whose two edges (rest lengths l0, l1)
// lie on a circle of curvature k (1/m): each chord subtends 2 asin(l k / 2), and the turning
// angle is half the sum. A rod whose natural curvature is set this way relaxes to that circle
// exactly (not only to first order in l k). |l k| > 2 cannot be inscribed: clamped.
inline double rod_integrated_curvature(double k, double l0, double l1) {
  auto half = [k](double l) { return std::asin(std::max(-1.0, std::min(1.0, 0.5 * l * k))); };
  return 2.0 * std::tan(0.5 * (half(l0) + half(l1)));
}

}  // namespace ncpgym
