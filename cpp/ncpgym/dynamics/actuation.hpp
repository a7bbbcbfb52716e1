// Actuators on joints: the control a step uses and the force it makes (MuJoCo's joint
// transmission with gain/bias): motor f = ctrl, position servo f = kp (ctrl - g q) - kv g qdot;
// the joint receives g f. The solver treats the servo implicitly (solver/stepper.cpp); this
// is the explicit force reported as MuJoCo's qfrc_actuator.
#pragma once

#include <algorithm>

#include "ncpgym/model/model.hpp"

namespace ncpgym {

// ctrl of actuator a clamped to its ctrlrange when it has one.
inline double clamped_ctrl(const Model& m, int a, double ctrl) {
  return m.act_ctrllimited[a] ? std::clamp(ctrl, m.act_ctrlrange[2 * a], m.act_ctrlrange[2 * a + 1]) : ctrl;
}

// The actuator's scalar force f for the clamped control c at joint position qj and rate uj.
inline double actuator_force(const Model& m, int a, double c, double qj, double uj) {
  const double g = m.act_gear[a];
  return m.act_type[a] == ActuatorType::Motor ? c : m.act_kp[a] * (c - g * qj) - m.act_kv[a] * g * uj;
}

}  // namespace ncpgym
