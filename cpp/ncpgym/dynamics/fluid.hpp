// Fluid forces of MuJoCo's inertia-box model: MuJoCo documentation, Computation chapter, "Fluid
// forces", section "Inertia model" (mujoco.readthedocs.io/en/stable/computation/fluid.html). MuJoCo
// uses it for every body none of whose geoms sets fluidshape="ellipsoid" (e.g. Gymnasium's swimmer).
//
// Each body is replaced by its equivalent inertia box (half sizes r from its mass and principal
// inertia). In the body's inertial frame, at its centre of mass, with v the linear velocity minus
// the wind and w the angular velocity, component i (j, k the other two axes) gets
//   quadratic drag force    f_D,i = -2 rho r_j r_k |v_i| v_i
//   quadratic drag torque   g_D,i = -1/2 rho r_i (r_j^4 + r_k^4) |w_i| w_i
//   viscous (Stokes) force  f_V,i = -6 beta pi r_eq v_i,      r_eq = (r_x + r_y + r_z) / 3
//   viscous (Stokes) torque g_V,i = -8 beta pi r_eq^3 w_i
// (rho: option density, beta: option viscosity). The results are rotated back to world.
//
// What the caller must do to match MuJoCo (4.0.1, checked against mjData.qfrc_fluid by
// tests/python/fluid_reference.py):
//  - loop over all bodies except the world, skipping those with mass < kFluidMinVal (MuJoCo skips
//    them; they would divide by zero); welded bodies are not merged: each one applies its own
//    wrench at its own centre of mass through its parent's dofs;
//  - compute nothing when density and viscosity are both 0, or when springs and dampers are both
//    disabled (MuJoCo then skips all passive forces, fluid included);
//  - take the principal moments and axes as MuJoCo's compiler left them (body_inertia, body_iquat):
//    the drag is not invariant to a rotation of the axes within a plane of equal moments (a capsule
//    has one), so re-diagonalising a body-frame inertia tensor gives other forces (25% on swimmer);
//  - add J_p(c)^T force + J_r^T torque to the generalized force, c the body's centre of mass.
#pragma once

#include <algorithm>
#include <cmath>

#include "ncpgym/math/spatial.hpp"

namespace ncpgym {

// MuJoCo's mjMINVAL: its threshold for a zero body mass and its lower clamp of I_j + I_k - I_i.
constexpr double kFluidMinVal = 1e-15;

// Half sizes (r_x, r_y, r_z) of the equivalent inertia box, i.e. half the side lengths: the box
// of uniform density with this mass and these principal moments, r_i^2 = 3 (I_j + I_k - I_i) / (2 M).
// I_j + I_k - I_i is clamped to kFluidMinVal before the division, as MuJoCo does, so a point
// mass or a flat lamina gets sides of sqrt(1.5e-15 / M) rather than 0 (or a NaN from round-off).
inline Vec3 inertia_box_size(double mass, const Vec3& principal_inertia) {
  const Vec3& I = principal_inertia;
  const Vec3 s(I.y() + I.z() - I.x(), I.z() + I.x() - I.y(), I.x() + I.y() - I.z());
  Vec3 r;
  for (int i = 0; i < 3; ++i) r[i] = std::sqrt(1.5 * std::max(s[i], kFluidMinVal) / mass);
  return r;
}

// Fluid wrench on one body. box: half sizes from inertia_box_size; R: rotation of the body's
// inertial frame (columns: principal axes in world, MuJoCo's ximat); w: angular velocity and v:
// velocity of the centre of mass, both world; wind: velocity of the medium, world. Outputs the world
// torque and force, both applied at the centre of mass.
inline void inertia_box_wrench(const Vec3& box, const Mat3& R, const Vec3& w, const Vec3& v, double density,
                               double viscosity, const Vec3& wind, Vec3& torque, Vec3& force) {
  constexpr double kPi = 3.14159265358979323846;
  // The box is axis-aligned in the inertial frame, so drag is per axis there. The wind only moves
  // the medium: it shifts the relative linear velocity and leaves the angular one alone.
  const Vec3 wl = R.transpose() * w;
  const Vec3 vl = R.transpose() * (v - wind);
  const double r_eq = (box.x() + box.y() + box.z()) / 3.0;  // radius of the equivalent sphere
  const double lin_visc = 6.0 * viscosity * kPi * r_eq;     // Stokes drag on that sphere
  const double ang_visc = 8.0 * viscosity * kPi * r_eq * r_eq * r_eq;
  Vec3 f, g;
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const double rj2 = box[j] * box[j], rk2 = box[k] * box[k];
    // frontal area of the box normal to axis i is 4 r_j r_k; drag 1/2 rho A |v_i| v_i
    f[i] = -2.0 * density * box[j] * box[k] * std::abs(vl[i]) * vl[i] - lin_visc * vl[i];
    // the same pressure drag integrated over the faces swept by a rotation about axis i
    g[i] = -0.5 * density * box[i] * (rj2 * rj2 + rk2 * rk2) * std::abs(wl[i]) * wl[i] - ang_visc * wl[i];
  }
  torque = R * g;
  force = R * f;
}

// MuJoCo's ellipsoid model: MuJoCo documentation, Computation chapter, "Fluid forces", section
// "Ellipsoid model" (Novati's generalisation of Andersen et al. 2005 to 3-D). Per geom, in its own
// frame, with r its equivalent ellipsoid's semi-axes, v the velocity of its centre minus the wind
// and w its angular velocity (rho: density, beta: viscosity, V = 4/3 pi r_x r_y r_z):
//   added mass    f_A = (rho m_A o v) x w,   g_A = (rho m_A o v) x v + (rho I_A o w) x w
//                 (the terms in the accelerations are left out, as MuJoCo does: they would make
//                 the mass matrix depend on the fluid)
//   drag          f_D = -rho [C_blunt A_v + C_slender (A_max - A_v)] |v| v
//                 g_D = -rho w |[C_angular I_D + C_slender (I_max - I_D)] o w|
//   Magnus lift   f_M = C_M rho V w x v
//   Kutta lift    f_K = C_K rho A_v (v^ . n^) (n^ x v) x v,  n = (r_y r_z / r_x v_x, ...)
//   viscous       f_V = -6 pi r_D beta v,  g_V = -8 pi r_D^3 beta w,  r_D = (r_x + r_y + r_z) / 3
// A_v is the area the ellipsoid projects on the plane normal to v (the documentation's lemma),
// I_D,i = 8 pi / 15 r_i max(r_j, r_k)^4 and I_max their largest. Two readings of the text were
// settled on MuJoCo 4's qfrc_fluid (tests/python/test_fluid.py): A_max is the largest projected
// area pi r_max r_mid, and the angular drag takes the norm of the weighted rates.
inline void ellipsoid_wrench(const Vec3& r, const Eigen::Matrix<double, 5, 1>& coef, const Vec3& added_mass,
                             const Vec3& added_inertia, const Mat3& R, const Vec3& w_world, const Vec3& v_world,
                             double density, double viscosity, const Vec3& wind, Vec3& torque, Vec3& force) {
  constexpr double kPi = 3.14159265358979323846;
  const double c_blunt = coef[0], c_slender = coef[1], c_angular = coef[2], c_kutta = coef[3], c_magnus = coef[4];
  const Vec3 w = R.transpose() * w_world;
  const Vec3 v = R.transpose() * (v_world - wind);
  Vec3 f = Vec3::Zero(), g = Vec3::Zero();
  if (density > 0) {
    const Vec3 p_lin = density * added_mass.cwiseProduct(v), p_ang = density * added_inertia.cwiseProduct(w);
    f += p_lin.cross(w);
    g += p_lin.cross(v) + p_ang.cross(w);
    f += c_magnus * density * (4.0 / 3.0 * kPi * r.prod()) * w.cross(v);
    const double speed = v.norm();
    if (speed > 0) {
      // projected area on the plane normal to v: pi sqrt(sum (r_j r_k)^4 u_i^2 / sum (r_j r_k)^2 u_i^2)
      const Vec3 rr(r.y() * r.z(), r.z() * r.x(), r.x() * r.y());  // r_j r_k
      const Vec3 u = v / speed;
      const Vec3 a2 = rr.cwiseAbs2().cwiseProduct(u.cwiseAbs2());
      const double area = kPi * std::sqrt(rr.cwiseAbs2().dot(a2) / a2.sum());
      const double r_max = r.maxCoeff(), r_min = r.minCoeff(), r_mid = r.sum() - r_max - r_min;
      const double area_max = kPi * r_max * r_mid;
      f -= density * (c_blunt * area + c_slender * (area_max - area)) * speed * v;
      // Kutta lift: the normal of the cross-section that casts the projection
      const Vec3 n = Vec3(rr.x() / r.x(), rr.y() / r.y(), rr.z() / r.z()).cwiseProduct(v).normalized();
      f += c_kutta * density * area * u.dot(n) * n.cross(v).cross(v);
    }
    Vec3 moment;  // moment of inertia of the ellipsoid swept by a rotation about each axis
    for (int i = 0; i < 3; ++i) {
      const double rjk = std::max(r[(i + 1) % 3], r[(i + 2) % 3]);
      moment[i] = 8.0 / 15.0 * kPi * r[i] * rjk * rjk * rjk * rjk;
    }
    const Vec3 weighted = (c_angular * moment + c_slender * (Vec3::Constant(moment.maxCoeff()) - moment)).cwiseProduct(w);
    g -= density * weighted.norm() * w;
  }
  if (viscosity > 0) {
    const double r_d = r.sum() / 3.0;
    f -= 6.0 * kPi * r_d * viscosity * v;
    g -= 8.0 * kPi * r_d * r_d * r_d * viscosity * w;
  }
  torque = R * g;
  force = R * f;
}

}  // namespace ncpgym
