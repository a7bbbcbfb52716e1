// Actuators on joints: the control a step uses and the force it makes (MuJoCo's joint
// transmission with gain/bias): motor f = ctrl, position servo f = kp (ctrl - g q) - kv g qdot;
// the joint receives g f. The solver treats the servo implicitly (solver/stepper.cpp); this
// is the explicit force reported as MuJoCo's qfrc_actuator.
#pragma once

#include <algorithm>
#include <cmath>

#include "ncpgym/dynamics/tendon.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

// ctrl of actuator a clamped to its ctrlrange when it has one.
inline double clamped_ctrl(const Model& m, int a, double ctrl) {
  return m.act_ctrllimited[a] ? std::clamp(ctrl, m.act_ctrlrange[2 * a], m.act_ctrlrange[2 * a + 1]) : ctrl;
}

// What actuator a's force reads, as in MuJoCo: its clamped control, or with activation
// dynamics its activation (act: the world's na activations).
inline double actuator_input(const Model& m, int a, const double* ctrl, const double* act) {
  return m.act_dyn[a] == ActuatorDyn::None ? clamped_ctrl(m, a, ctrl[a]) : act[m.act_actadr[a]];
}

// Actuator a's activation after a step of h from x with the clamped control c, as MuJoCo's
// Euler integrator advances it (act + h d act/dt; filterexact: the filter's exact solution,
// x + (c - x)(1 - exp(-h / tau))), then clamped to actrange; MuJoCo's order of operations.
inline double next_activation(const Model& m, int a, double c, double x, double h) {
  double next = x;
  switch (m.act_dyn[a]) {
    case ActuatorDyn::None: return x;
    case ActuatorDyn::Integrator: next = x + h * c; break;
    case ActuatorDyn::Filter: next = x + h * ((c - x) / m.act_dyntau[a]); break;
    case ActuatorDyn::FilterExact: {
      const double tau = m.act_dyntau[a];
      next = x + (c - x) / tau * tau * (1 - std::exp(-h / tau));
      break;
    }
  }
  return m.act_actlimited[a] ? std::clamp(next, m.act_actrange[2 * a], m.act_actrange[2 * a + 1]) : next;
}

// Whether a Position actuator is MuJoCo's general affine one (model.hpp), not a plain servo.
inline bool affine_actuator(const Model& m, int a) {
  return m.act_type[a] == ActuatorType::Position && (m.act_ctrlgain[a] != m.act_kp[a] || m.act_bias0[a] != 0);
}

// The joint coordinate (times the gear) a servo with kp > 0 pulls towards: the control, or
// (kc c + b0) / kp for the general affine actuator.
inline double servo_target(const Model& m, int a, double c) {
  return affine_actuator(m, a) ? (m.act_ctrlgain[a] * c + m.act_bias0[a]) / m.act_kp[a] : c;
}

// The actuator's scalar force f for the clamped control c at joint position qj and rate uj,
// before its force range.
inline double unlimited_actuator_force(const Model& m, int a, double c, double qj, double uj) {
  const double g = m.act_gear[a];
  if (m.act_type[a] == ActuatorType::Motor) return c;
  if (m.act_type[a] == ActuatorType::Damper) return -m.act_kv[a] * c * g * uj;
  if (affine_actuator(m, a)) return m.act_ctrlgain[a] * c + m.act_bias0[a] - m.act_kp[a] * g * qj - m.act_kv[a] * g * uj;
  return m.act_kp[a] * (c - g * qj) - m.act_kv[a] * g * uj;
}

// The coordinate an actuator drives (a joint's q, or a tendon's length) and its rate; MuJoCo's
// actuator_length and actuator_velocity are these times the gear. d: the poses at q (a
// spatial tendon reads them).
inline double actuated_coordinate(const Model& m, const Data& d, int a, const double* q) {
  return m.act_tendon[a] >= 0 ? tendon_length(m, d, m.act_tendon[a], q) : q[m.jnt_qposadr[m.act_joint[a]]];
}
inline double actuated_rate(const Model& m, const Data& d, int a, const double* u) {
  return m.act_tendon[a] >= 0 ? tendon_rate(m, d, m.act_tendon[a], u) : u[m.jnt_dofadr[m.act_joint[a]]];
}

// tau += g f J^T for actuator a (J: its joint's unit row, or its tendon's J_t; d as above).
inline void add_actuator_force(const Model& m, const Data& d, int a, double f, double* tau) {
  if (m.act_tendon[a] >= 0)
    tendon_jacobian(m, d, m.act_tendon[a], m.act_gear[a] * f, [&](int j, double c) { tau[j] += c; });
  else
    tau[m.jnt_dofadr[m.act_joint[a]]] += m.act_gear[a] * f;
}

// The same within the actuator's force range (MuJoCo's clamp of actuator_force).
inline double actuator_force(const Model& m, int a, double c, double qj, double uj) {
  const double f = unlimited_actuator_force(m, a, c, qj, uj);
  return m.act_forcelimited[a] ? std::clamp(f, m.act_forcerange[2 * a], m.act_forcerange[2 * a + 1]) : f;
}

}  // namespace ncpgym
