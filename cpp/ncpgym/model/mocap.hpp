// Mocap bodies: their pose is a per-world parameter written into that world's copy of the
// Model before it steps (Batch per world, Simulator for its one world); read, checked and
// written here once for both.
#pragma once

#include <cmath>
#include <vector>

#include "ncpgym/model/model.hpp"

namespace ncpgym {

// The body of each mocap index (nmocap).
inline std::vector<int> mocap_bodies(const Model& m) {
  std::vector<int> out(m.nmocap, 0);
  for (int b = 0; b < m.nbody; ++b)
    if (m.body_mocapid[b] >= 0) out[m.body_mocapid[b]] = b;
  return out;
}

// The model's pose of `body`: pos (3) and quaternion (w, x, y, z).
inline void mocap_pose(const Model& m, int body, double* pos, double* quat) {
  for (int k = 0; k < 3; ++k) pos[k] = m.body_pos[body][k];
  store_wxyz(m.body_quat[body], quat);
}

// A usable pose: finite, with a quaternion that can be normalised.
inline bool valid_mocap_pose(const double* pos, const double* quat) {
  const Eigen::Map<const Vec3> p(pos);
  const Eigen::Map<const Vec4> q(quat);
  return p.allFinite() && q.allFinite() && q.norm() >= 1e-10;
}

// Poses `body` of the model copy `m` (the quaternion normalised).
inline void set_mocap_pose(Model& m, int body, const double* pos, const double* quat) {
  m.body_pos[body] = Eigen::Map<const Vec3>(pos);
  m.body_quat[body] = quat_wxyz(quat).normalized();
  m.body_rot[body] = m.body_quat[body].toRotationMatrix();
}

}  // namespace ncpgym
