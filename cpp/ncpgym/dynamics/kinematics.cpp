#include "ncpgym/dynamics/kinematics.hpp"

namespace ncpgym {

namespace {
// World twist of a rotation about `axis` through `anchor`: [a; anchor x a].
inline Vec6 rotation_twist(const Vec3& axis, const Vec3& anchor) {
  Vec6 s;
  s << axis, anchor.cross(axis);
  return s;
}
inline Vec6 translation_twist(const Vec3& axis) {
  Vec6 s;
  s << Vec3::Zero(), axis;
  return s;
}
// Body b's spatial inertia about the world origin at its pose in d.
inline void body_inertia(const Model& m, Data& d, int b) {
  const Mat3& R = d.xmat[b];
  d.cinert[b] = spatial_inertia(m.body_mass[b], d.xipos[b], R * m.body_inertia[b] * R.transpose());
}
}  // namespace

void body_inertias(const Model& m, Data& d) {
  for (int b = 1; b < m.nbody; ++b) body_inertia(m, d, b);
}

// Orientations are carried as rotation matrices (one conversion per quaternion joint);
// a hinge multiplies by the matrix of its axis-angle rotation.
void kinematics(const Model& m, Data& d, const double* q, bool inertia, const unsigned char* bodies) {
  for (int b = 1; b < m.nbody; ++b) {
    if (bodies && !bodies[b]) continue;
    const int p = m.body_parent[b];
    const int j0 = m.body_jntadr[b], nj = m.body_jntnum[b];
    Vec3 pos;
    Mat3 R;
    if (nj > 0 && m.jnt_type[j0] == JointType::Free) {
      // Free joint: qpos holds the body pose directly; translations along world axes,
      // rotations about the body axes through the body origin.
      const double* qj = q + m.jnt_qposadr[j0];
      pos = Vec3(qj[0], qj[1], qj[2]);
      R = quat_wxyz(qj + 3).normalized().toRotationMatrix();
      d.xanchor[j0] = pos;
      const int da = m.jnt_dofadr[j0];
      for (int k = 0; k < 3; ++k) {
        d.cdof.col(da + k) = translation_twist(Vec3::Unit(k));
        d.cdof.col(da + 3 + k) = rotation_twist(R.col(k), pos);
      }
    } else {
      pos = d.xpos[p] + d.xmat[p] * m.body_pos[b];
      R = d.xmat[p] * m.body_rot[b];
      for (int j = j0; j < j0 + nj; ++j) {
        const double* qj = q + m.jnt_qposadr[j];
        const int da = m.jnt_dofadr[j];
        const Vec3 anchor = pos + R * m.jnt_pos[j];
        d.xanchor[j] = anchor;
        switch (m.jnt_type[j]) {
          case JointType::Slide: {
            const Vec3 axis = R * m.jnt_axis[j];
            d.cdof.col(da) = translation_twist(axis);
            pos += axis * (qj[0] - m.jnt_ref[j]);
            break;
          }
          case JointType::Hinge: {
            d.cdof.col(da) = rotation_twist(R * m.jnt_axis[j], anchor);
            R = R * Eigen::AngleAxisd(qj[0] - m.jnt_ref[j], m.jnt_axis[j]).toRotationMatrix();
            pos = anchor - R * m.jnt_pos[j];
            break;
          }
          case JointType::Ball: {
            // The angular velocity of a ball joint is expressed in the child frame, i.e.
            // about the axes after the ball rotation.
            R = R * quat_wxyz(qj).normalized().toRotationMatrix();
            for (int k = 0; k < 3; ++k) d.cdof.col(da + k) = rotation_twist(R.col(k), anchor);
            pos = anchor - R * m.jnt_pos[j];
            break;
          }
          case JointType::Free:
            break;  // rejected by the Builder unless it is the only joint
        }
      }
    }
    d.xpos[b] = pos;
    d.xmat[b] = R;
    d.xipos[b] = pos + R * m.body_com[b];
    if (inertia) body_inertia(m, d, b);
  }
  for (int s = 0; s < m.nsite; ++s) {
    const int b = m.site_body[s];
    if (bodies && !bodies[b]) continue;
    d.site_xpos[s] = d.xpos[b] + d.xmat[b] * m.site_pos[s];
    d.site_xmat[s] = d.xmat[b] * m.site_rot[s];
  }
}

void copy_poses(const Data& from, Data& to) {
  to.xpos = from.xpos;
  to.xmat = from.xmat;
  to.xipos = from.xipos;
  to.xanchor = from.xanchor;
  to.site_xpos = from.site_xpos;
  to.site_xmat = from.site_xmat;
  to.cdof = from.cdof;
}

void velocities(const Model& m, Data& d, const double* u) {
  for (int b = 1; b < m.nbody; ++b) {
    const int p = m.body_parent[b];
    Vec6 v = d.cvel[p];
    Vec6 c = Vec6::Zero();
    const int j0 = m.body_jntadr[b], nj = m.body_jntnum[b];
    for (int j = j0; j < j0 + nj; ++j) {
      const int da = m.jnt_dofadr[j];
      // Per-dof bias c_d = v' x S_d qdot_d with v' the velocity of the frame the axis is
      // fixed in. Hinge and slide axes ride on the frame before the joint (v' = running
      // velocity). A ball's three axes turn with the child body, v' = v_child, and
      // v_child x (S w) = v_before x (S w) since (S w) x (S w) = 0: all three use v_before.
      // A free joint's translations are fixed in the world (c = 0); its rotations follow.
      const JointType t = m.jnt_type[j];
      const int nd = joint_nv(t);
      if (t == JointType::Free) {
        for (int k = 0; k < 3; ++k) {
          d.cdofdot.col(da + k).setZero();
          v += d.cdof.col(da + k) * u[da + k];
        }
      }
      const int r0 = t == JointType::Free ? da + 3 : da;
      const Vec6 vb = v;
      for (int r = r0; r < da + nd; ++r) {
        const Vec6 w = d.cdof.col(r) * u[r];
        d.cdofdot.col(r) = cross_motion(t == JointType::Hinge || t == JointType::Slide ? v : vb, w);
        c += d.cdofdot.col(r);
        v += w;
      }
    }
    d.cvel[b] = v;
    d.cbias[b] = c;
    d.cacc0[b] = d.cacc0[p] + c;
  }
}

void body_velocities(const Model& m, Data& d, const double* u) {
  // velocities()' sums in its order, without the bias terms
  for (int b = 1; b < m.nbody; ++b) {
    Vec6 v = d.cvel[m.body_parent[b]];
    const int j0 = m.body_jntadr[b], nj = m.body_jntnum[b];
    for (int j = j0; j < j0 + nj; ++j) {
      const int da = m.jnt_dofadr[j];
      const int nd = joint_nv(m.jnt_type[j]);
      for (int r = da; r < da + nd; ++r) v += d.cdof.col(r) * u[r];
    }
    d.cvel[b] = v;
  }
}

}  // namespace ncpgym
