// Jacobian entries shared by the row kinds: a direction applied at a point of a body, or
// at a particle.
#pragma once

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/dynamics/tendon.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

// Adds sign * dir^T J_p(u) to the open row, where J_p is the Jacobian of the world point p
// fixed to `body` (columns: the dofs on its path). Shared dofs of two bodies give duplicate
// columns, which add up.
inline void add_point_row(const Model& m, const Data& d, int body, const Vec3& p, const Vec3& dir, double sign,
                          SparseRows& out) {
  for (int j = m.body_lastdof[body]; j >= 0; j = m.dof_parent[j]) out.push(j, sign * dir.dot(point_velocity(d, j, p)));
}

// Adds sign * dir^T w_rot J_w(u): the angular velocity of `body` along dir.
inline void add_rotation_row(const Model& m, const Data& d, int body, const Vec3& dir, double sign,
                             SparseRows& out) {
  for (int j = m.body_lastdof[body]; j >= 0; j = m.dof_parent[j]) out.push(j, sign * dir.dot(d.cdof.col(j).head<3>()));
}

// Adds scale * J_t to the open row: tendon t's rate (dynamics/tendon.hpp; a spatial one at
// d's poses).
inline void add_tendon_row(const Model& m, const Data& d, int t, double scale, SparseRows& out) {
  tendon_jacobian(m, d, t, scale, [&](int j, double c) { out.push(j, c); });
}

// Adds sign * dir^T to the open row at particle p's velocity (columns after the trees').
inline void add_particle_row(const Model& m, int p, const Vec3& dir, double sign, SparseRows& out) {
  for (int i = 0; i < 3; ++i) out.push(m.nv + 3 * p + i, sign * dir[i]);
}

}  // namespace ncpgym
