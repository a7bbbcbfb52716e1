// Tendons (model.hpp): length, rate, Jacobian and passive force, with MuJoCo's definitions
// (its "Computation" chapter, tendons). A fixed tendon: L = sum_k coef_k q_k, dL/dt = J_t u
// with J_t the coefficients on the joints' dofs. A spatial tendon: L = sum over the straight
// segments between consecutive sites of |p_b - p_a| / divisor (pulleys start new branches
// with their divisor), dL/dt = sum e . (v_b - v_a) / divisor with e the segment's unit
// direction, so J_t = sum e^T (J_pb - J_pa) / divisor from the sites' point Jacobians.
// A spring pulls L into [springlength_lo, springlength_hi] with stiffness k and a damper
// resists dL/dt with b, the joints receiving J_t^T f.
#pragma once

#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/dynamics/kinematics.hpp"
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

// Spatial tendon t's straight segments at d's site poses: fn(site a, site b, unit direction
// from a to b (zero for a segment of length 0, as MuJoCo leaves it), length, 1 / divisor).
template <class Fn>
void tendon_segments(const Model& m, const Data& d, int t, Fn&& fn) {
  double w = 1.0;
  int prev = -1;
  for (int k = m.tendon_adr[t]; k < m.tendon_adr[t] + m.tendon_num[t]; ++k) {
    if (m.tendon_wrap[k] == TendonWrap::Pulley) {
      w = 1.0 / m.tendon_coef[k];
      prev = -1;
      continue;
    }
    const int s = m.tendon_obj[k];
    if (prev >= 0) {
      const Vec3 dp = d.site_xpos[s] - d.site_xpos[prev];
      const double len = dp.norm();
      fn(prev, s, len > 0 ? Vec3(dp / len) : Vec3::Zero(), len, w);
    }
    prev = s;
  }
}

// J_t of any tendon as (dof, coefficient) terms, fn(dof, scale * coefficient); a dof may
// recur (its terms add up). Spatial tendons read d's poses and twists (kinematics()).
template <class Fn>
void tendon_jacobian(const Model& m, const Data& d, int t, double scale, Fn&& fn) {
  if (!spatial_tendon(m, t)) {
    for (int k = m.tendon_adr[t]; k < m.tendon_adr[t] + m.tendon_num[t]; ++k) fn(m.tendon_obj[k], scale * m.tendon_coef[k]);
    return;
  }
  tendon_segments(m, d, t, [&](int a, int b, const Vec3& e, double, double w) {
    for (const auto& [site, sign] : {std::pair{b, scale * w}, std::pair{a, -scale * w}}) {
      const Vec3& p = d.site_xpos[site];
      for (int j = m.body_lastdof[m.site_body[site]]; j >= 0; j = m.dof_parent[j])
        fn(j, sign * e.dot(point_velocity(d, j, p)));
    }
  });
}

// Any tendon's length and rate, spatial ones at d's poses.
inline double tendon_length(const Model& m, const Data& d, int t, const double* q) {
  if (!spatial_tendon(m, t)) return tendon_length(m, t, q);
  double L = 0;
  tendon_segments(m, d, t, [&](int, int, const Vec3&, double len, double w) { L += w * len; });
  return L;
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
