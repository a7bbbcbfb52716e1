// State: what changes during a rollout of one world (q, u, ctrl now; soft-body positions,
// warm-start multipliers and the RNG counter are added by later stages).
#pragma once

#include "ncpgym/model/model.hpp"

namespace ncpgym {

struct State {
  explicit State(const Model& m) : q(m.qpos0), u(VecX::Zero(m.nv)), ctrl(VecX::Zero(m.nu)) {}
  VecX q;     // generalized positions (nq), MuJoCo qpos layout
  VecX u;     // generalized velocities (nv), MuJoCo qvel layout
  VecX ctrl;  // actuator controls (nu)
};

}  // namespace ncpgym
