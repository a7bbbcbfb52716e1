// Tendons (model.hpp): length, rate, Jacobian and passive force, with MuJoCo's definitions
// (its "Computation" chapter, tendons). A fixed tendon: L = sum_k coef_k q_k, dL/dt = J_t u
// with J_t the coefficients on the joints' dofs. A spatial tendon: L = sum over its path's
// straight pieces (site to site, or to and from the tangent points on a wrapping geom) of
// |p_b - p_a| / divisor plus its arcs (pulleys start new branches with their divisor),
// dL/dt = sum e . (v_b - v_a) / divisor with e a piece's unit direction, so
// J_t = sum e^T (J_pb - J_pa) / divisor from the pieces' ends' point Jacobians.
// A spring pulls L into [springlength_lo, springlength_hi] with stiffness k and a damper
// resists dL/dt with b, the joints receiving J_t^T f.
#pragma once

#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/dynamics/kinematics.hpp"
#include "ncpgym/dynamics/tendon_wrap.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

// Fixed tendons only (they read q alone): length, rate and J_t^T f.
inline double tendon_length(const Model& m, int t, const double* q) {
  double L = 0;
  for (int k = m.tendon_adr[t]; k < m.tendon_adr[t] + m.tendon_num[t]; ++k)
    L += m.tendon_coef[k] * q[m.dof_qposadr[m.tendon_obj[k]]];
  return L;
}

inline double tendon_rate(const Model& m, int t, const double* u) {
  double v = 0;
  for (int k = m.tendon_adr[t]; k < m.tendon_adr[t] + m.tendon_num[t]; ++k) v += m.tendon_coef[k] * u[m.tendon_obj[k]];
  return v;
}

inline void add_tendon_force(const Model& m, int t, double f, double* tau) {
  for (int k = m.tendon_adr[t]; k < m.tendon_adr[t] + m.tendon_num[t]; ++k) tau[m.tendon_obj[k]] += m.tendon_coef[k] * f;
}

// Spatial tendon t's path at d's poses, MuJoCo's way: site to site straight, or site, geom,
// site around the geom when the tendon wraps it (tendon_wrap.hpp; else straight). Calls
// fn(body a, point a, body b, point b, unit direction a to b, 1 / divisor) for each straight
// piece whose ends lie on different bodies (a piece within one body, an arc on its geom,
// keeps its length whatever the joints do) and returns the path's length, each piece and
// arc divided by the divisor of the last pulley before it. Tangent points move with the
// geom's body: the length is stationary in where they lie on the geom (the path is
// shortest), so J_t is the pieces' point Jacobians alone.
template <class Fn>
double tendon_path(const Model& m, const Data& d, int t, Fn&& fn) {
  double L = 0, w = 1.0;
  const auto piece = [&](int ba, const Vec3& a, int bb, const Vec3& b) {
    const Vec3 dp = b - a;
    const double len = dp.norm();
    L += w * len;
    if (ba != bb) fn(ba, a, bb, b, len > 0 ? Vec3(dp / len) : Vec3::Zero(), w);
  };
  const int end = m.tendon_adr[t] + m.tendon_num[t];
  for (int k = m.tendon_adr[t]; k < end;) {
    if (m.tendon_wrap[k] == TendonWrap::Pulley) {
      w = 1.0 / m.tendon_coef[k++];
      continue;
    }
    if (k + 1 >= end || m.tendon_wrap[k + 1] == TendonWrap::Pulley) {  // a branch's last site
      ++k;
      continue;
    }
    const int s0 = m.tendon_obj[k];
    const Vec3& p0 = d.site_xpos[s0];
    if (m.tendon_wrap[k + 1] == TendonWrap::Site) {
      const int s1 = m.tendon_obj[k + 1];
      piece(m.site_body[s0], p0, m.site_body[s1], d.site_xpos[s1]);
      ++k;
      continue;
    }
    const int g = m.tendon_obj[k + 1], s1 = m.tendon_obj[k + 2], side = m.tendon_side[k + 1], gb = m.geom_body[g];
    const Vec3& p1 = d.site_xpos[s1];
    Vec3 t0, t1;
    const double arc = wrap_geom(m.tendon_wrap[k + 1] == TendonWrap::Cylinder, m.geom_size[g][0], geom_xpos(m, d, g),
                                 geom_xmat(m, d, g), p0, p1, side >= 0 ? &d.site_xpos[side] : nullptr, t0, t1);
    if (arc < 0) {
      piece(m.site_body[s0], p0, m.site_body[s1], p1);
    } else {
      piece(m.site_body[s0], p0, gb, t0);
      L += w * arc;
      piece(gb, t1, m.site_body[s1], p1);
    }
    k += 2;
  }
  return L;
}

// J_t of any tendon as (dof, coefficient) terms, fn(dof, scale * coefficient); a dof may
// recur (its terms add up). Spatial tendons read d's poses and twists (kinematics()).
template <class Fn>
void tendon_jacobian(const Model& m, const Data& d, int t, double scale, Fn&& fn) {
  if (!spatial_tendon(m, t)) {
    for (int k = m.tendon_adr[t]; k < m.tendon_adr[t] + m.tendon_num[t]; ++k) fn(m.tendon_obj[k], scale * m.tendon_coef[k]);
    return;
  }
  tendon_path(m, d, t, [&](int ba, const Vec3& a, int bb, const Vec3& b, const Vec3& e, double w) {
    for (int j = m.body_lastdof[bb]; j >= 0; j = m.dof_parent[j]) fn(j, scale * w * e.dot(point_velocity(d, j, b)));
    for (int j = m.body_lastdof[ba]; j >= 0; j = m.dof_parent[j]) fn(j, -scale * w * e.dot(point_velocity(d, j, a)));
  });
}

// Any tendon's length and rate, spatial ones at d's poses.
inline double tendon_length(const Model& m, const Data& d, int t, const double* q) {
  if (!spatial_tendon(m, t)) return tendon_length(m, t, q);
  return tendon_path(m, d, t, [](int, const Vec3&, int, const Vec3&, const Vec3&, double) {});
}

inline double tendon_rate(const Model& m, const Data& d, int t, const double* u) {
  if (!spatial_tendon(m, t)) return tendon_rate(m, t, u);
  double v = 0;
  tendon_jacobian(m, d, t, 1.0, [&](int j, double c) { v += c * u[j]; });
  return v;
}

// A spring with a deadband and a damper: f = -k (L - L_s) - b dL/dt.
inline double tendon_passive_force(const Model& m, int t, double L, double V) {
  const double k = m.tendon_stiffness[t], b = m.tendon_damping[t];
  double f = 0;
  if (k != 0) {
    const double lo = m.tendon_springlength[2 * t], hi = m.tendon_springlength[2 * t + 1];
    f -= k * (L < lo ? L - lo : L > hi ? L - hi : 0.0);
  }
  if (b != 0) f -= b * V;
  return f;
}

// tau += J_t^T f for every fixed tendon with a spring or a damper at (q, u), explicitly (as
// MuJoCo's Euler integrator takes tendon forces).
inline void add_tendon_passive(const Model& m, const double* q, const double* u, double* tau) {
  for (int t = 0; t < m.ntendon; ++t) {
    if (spatial_tendon(m, t) || (m.tendon_stiffness[t] == 0 && m.tendon_damping[t] == 0)) continue;
    add_tendon_force(m, t, tendon_passive_force(m, t, tendon_length(m, t, q), tendon_rate(m, t, u)), tau);
  }
}

// The same for the spatial tendons, at d's poses (what needs them: with gravcomp and fluid
// forces in aba's passive forces).
inline void add_spatial_tendon_passive(const Model& m, const Data& d, const double* u, double* tau) {
  for (int t = 0; t < m.ntendon; ++t) {
    if (!spatial_tendon(m, t) || (m.tendon_stiffness[t] == 0 && m.tendon_damping[t] == 0)) continue;
    const double f = tendon_passive_force(m, t, tendon_length(m, d, t, nullptr), tendon_rate(m, d, t, u));
    tendon_jacobian(m, d, t, f, [&](int j, double c) { tau[j] += c; });
  }
}

}  // namespace ncpgym
