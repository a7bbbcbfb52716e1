// Forward kinematics and body velocities: the first, outward recursion of the O(n)
// method (iwim-on-dynamics.txt eq. 8, y_i = T_ip y_p + F_i q_i). Poses follow MuJoCo's
// rules (joints of a body applied in order about their own anchors), so bodies, sites and
// the motion subspace match a MuJoCo model compiled from the same file.
#pragma once

#include "ncpgym/dynamics/data.hpp"

namespace ncpgym {

// Body and site poses, joint anchors, the world twists cdof (6 x nv) and body inertias
// cinert about the world origin (unless `inertia` is false: poses and twists only, what
// constraint rows need), at configuration q (nq). With `bodies` (nbody flags, closed under
// parents: a flagged body's parent is flagged), only the flagged bodies, their joints'
// dofs and their sites are computed, bitwise as in a full pass; the rest keep old values.
void kinematics(const Model& m, Data& d, const double* q, bool inertia = true,
                const unsigned char* bodies = nullptr);

// What kinematics(inertia = false) writes, copied from a Data that holds it (no allocation).
void copy_poses(const Data& from, Data& to);
// The body inertias cinert at d's poses: with copy_poses, kinematics(inertia = true).
void body_inertias(const Model& m, Data& d);

// The velocity of the world point p due to a unit rate of dof j at d's poses: the dof's
// world twist [w; v_O] moved to p, v = v_O + w x p (a column of the point's Jacobian J_p).
inline Vec3 point_velocity(const Data& d, int j, const Vec3& p) {
  const auto S = d.cdof.col(j);
  const Vec3 w = S.head<3>();
  return S.tail<3>() + w.cross(p);
}

// A geom's world position and orientation at d's poses (its body's frame times its own).
inline Vec3 geom_xpos(const Model& m, const Data& d, int g) {
  const int b = m.geom_body[g];
  return d.xpos[b] + d.xmat[b] * m.geom_pos[g];
}
inline Mat3 geom_xmat(const Model& m, const Data& d, int g) { return d.xmat[m.geom_body[g]] * m.geom_rot[g]; }

// Body spatial velocities cvel, velocity-product accelerations cbias (the F-dot q-dot
// term of eq. 12) and their running sum cacc0, at velocity u (nv). Needs kinematics().
void velocities(const Model& m, Data& d, const double* u);
// Only cvel (bitwise as velocities() gives it): what bounds a geom's sweep over a step.
void body_velocities(const Model& m, Data& d, const double* u);

}  // namespace ncpgym
