#include "ncpgym/constraints/spring_rows.hpp"

#include "ncpgym/dynamics/actuation.hpp"

namespace ncpgym {

SpringRows::SpringRows(const Model& m, bool folded) {
  if (folded) return;
  for (int j = 0; j < m.njnt; ++j) {
    if (m.jnt_stiffness[j] == 0) continue;  // the Builder allows it on hinge/slide only
    dof_.push_back(m.jnt_dofadr[j]);
    qadr_.push_back(m.jnt_qposadr[j]);
    act_.push_back(-1);
    E_.push_back(1.0 / m.jnt_stiffness[j]);
    ref_.push_back(m.jnt_springref[j]);
  }
  for (int a = 0; a < m.nu; ++a) {
    if (m.act_type[a] != ActuatorType::Position || m.act_kp[a] == 0 || m.act_tendon[a] >= 0) continue;  // no row
    const int j = m.act_joint[a];
    dof_.push_back(m.jnt_dofadr[j]);
    qadr_.push_back(m.jnt_qposadr[j]);
    act_.push_back(a);
    E_.push_back(1.0 / (m.act_kp[a] * m.act_gear[a] * m.act_gear[a]));
    ref_.push_back(0.0);
  }
}

void SpringRows::set_targets(const Model& m, const State& s) {
  for (int k = 0; k < count(); ++k)
    if (act_[k] >= 0)
      ref_[k] = servo_target(m, act_[k], actuator_input(m, act_[k], s.ctrl.data(), s.actuator_act.data())) / m.act_gear[act_[k]];
}

void SpringRows::append(const VecX& q, Rows& rows) const {
  int r = rows.J.rows();
  for (int k = 0; k < count(); ++k, ++r) {
    rows.C[r] = q[qadr_[k]] - ref_[k];
    rows.E[r] = E_[k];
    rows.J.push(dof_[k], 1.0);
    rows.J.end_row();
  }
}

}  // namespace ncpgym
