// State: what changes during a rollout of one world (q, u, ctrl now; soft-body positions,
// warm-start multipliers and the RNG counter are added by later stages).
#pragma once

#include "ncpgym/model/model.hpp"

namespace ncpgym {

struct State {
  explicit State(const Model& m)
      : q(m.qpos0), u(VecX::Zero(m.nv)), ctrl(VecX::Zero(m.nu)), x(3 * m.nparticle), v(VecX::Zero(3 * m.nparticle)),
        act(VecX::Zero(m.nactgroup)), f(VecX::Zero(3 * m.nparticle)), actuator_act(VecX::Zero(m.na)) {
    for (int p = 0; p < m.nparticle; ++p) x.segment<3>(3 * p) = m.particle_pos0[p];
  }
  VecX q;     // generalized positions (nq), MuJoCo qpos layout
  VecX u;     // generalized velocities (nv), MuJoCo qvel layout
  VecX ctrl;  // actuator controls (nu)
  VecX x;     // particle positions (3 nparticle)
  VecX v;     // particle velocities (3 nparticle)
  VecX act;   // activation per group (nactgroup): active strain, rod curvature, hinge angle
  VecX f;     // external forces on the particles (3 nparticle, N), held over the step
  VecX actuator_act;  // actuators' activations (na): MuJoCo's act, advanced by each step
};

}  // namespace ncpgym
