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

}  // namespace ncpgym
