// Fixed tendons (model.hpp): length, rate and passive force. MuJoCo's definitions (its
// "Computation" chapter, tendons): L = sum_k coef_k q_k, dL/dt = J_t u with J_t the
// coefficients on the joints' dofs; a spring pulls L into [springlength_lo, springlength_hi]
// with stiffness k and a damper resists dL/dt with b, the joints receiving J_t^T f.
#pragma once

#include "ncpgym/model/model.hpp"

namespace ncpgym {

inline double tendon_length(const Model& m, int t, const double* q) {
  double L = 0;
  for (int k = m.tendon_adr[t]; k < m.tendon_adr[t] + m.tendon_num[t]; ++k)
    L += m.tendon_coef[k] * q[m.dof_qposadr[m.tendon_dof[k]]];
  return L;
}

inline double tendon_rate(const Model& m, int t, const double* u) {
  double v = 0;
  for (int k = m.tendon_adr[t]; k < m.tendon_adr[t] + m.tendon_num[t]; ++k) v += m.tendon_coef[k] * u[m.tendon_dof[k]];
  return v;
}

// tau += J_t^T f: a force f along tendon t on the joints it spans.
inline void add_tendon_force(const Model& m, int t, double f, double* tau) {
  for (int k = m.tendon_adr[t]; k < m.tendon_adr[t] + m.tendon_num[t]; ++k) tau[m.tendon_dof[k]] += m.tendon_coef[k] * f;
}

// tau += J_t^T f for every tendon with a spring or a damper, f = -k (L - L_s) - b dL/dt at
// (q, u), explicitly (as MuJoCo's Euler integrator takes tendon forces).
inline void add_tendon_passive(const Model& m, const double* q, const double* u, double* tau) {
  for (int t = 0; t < m.ntendon; ++t) {
    const double k = m.tendon_stiffness[t], b = m.tendon_damping[t];
    if (k == 0 && b == 0) continue;
    double f = 0;
    if (k != 0) {
      const double L = tendon_length(m, t, q), lo = m.tendon_springlength[2 * t], hi = m.tendon_springlength[2 * t + 1];
      f -= k * (L < lo ? L - lo : L > hi ? L - hi : 0.0);
    }
    if (b != 0) f -= b * tendon_rate(m, t, u);
    add_tendon_force(m, t, f, tau);
  }
}

}  // namespace ncpgym
