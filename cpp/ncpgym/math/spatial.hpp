// Spatial vector algebra in world coordinates (Featherstone, "Rigid Body Dynamics
// Algorithms", 2008, ch. 2), angular part first: a motion m = [w; v], a force f = [n; f].
// Every spatial quantity in ncpgym is expressed in the world frame about the world origin,
// so the velocity propagation T_ip of iwim-on-dynamics.txt eq. 8 is the identity and no
// Plücker transforms are needed between bodies (as in MuJoCo's com-frame pipeline).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace ncpgym {

using Vec2d = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Quat = Eigen::Quaterniond;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;
using Mat6X = Eigen::Matrix<double, 6, Eigen::Dynamic>;

// Skew-symmetric matrix [a]x with [a]x b = a x b.
inline Mat3 skew(const Vec3& a) {
  Mat3 s;
  s << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return s;
}

// Motion cross product m1 x m2 (Featherstone eq. 2.31).
inline Vec6 cross_motion(const Vec6& m1, const Vec6& m2) {
  const Vec3 w1 = m1.head<3>(), v1 = m1.tail<3>();
  const Vec3 w2 = m2.head<3>(), v2 = m2.tail<3>();
  Vec6 r;
  r.head<3>() = w1.cross(w2);
  r.tail<3>() = w1.cross(v2) + v1.cross(w2);
  return r;
}

// Force cross product m x* f (Featherstone eq. 2.32).
inline Vec6 cross_force(const Vec6& m, const Vec6& f) {
  const Vec3 w = m.head<3>(), v = m.tail<3>();
  const Vec3 n = f.head<3>(), fl = f.tail<3>();
  Vec6 r;
  r.head<3>() = w.cross(n) + v.cross(fl);
  r.tail<3>() = w.cross(fl);
  return r;
}

// Spatial inertia about the world origin of a body with mass m, centre of mass c (world)
// and rotational inertia Ic about c in world axes (Featherstone eq. 2.63).
inline Mat6 spatial_inertia(double m, const Vec3& c, const Mat3& Ic) {
  const Mat3 cx = skew(c);
  Mat6 I;
  I.topLeftCorner<3, 3>() = Ic - m * cx * cx;
  I.topRightCorner<3, 3>() = m * cx;
  I.bottomLeftCorner<3, 3>() = -m * cx;
  I.bottomRightCorner<3, 3>() = m * Mat3::Identity();
  return I;
}

// Unit quaternion from MuJoCo's wxyz storage.
inline Quat quat_wxyz(const double* q) { return Quat(q[0], q[1], q[2], q[3]); }
inline void store_wxyz(const Quat& q, double* out) {
  out[0] = q.w();
  out[1] = q.x();
  out[2] = q.y();
  out[3] = q.z();
}

}  // namespace ncpgym
