// Kinematic map G and position integration (nonsmooth-newton-ncp.txt §9.4, eqs. 88-89).
// The seed writes G for an angular velocity in world axes, theta-dot = 1/2 (0, w) (x) theta.
// ncpgym follows MuJoCo, whose free and ball joints carry the angular velocity in body
// axes, so theta-dot = 1/2 theta (x) (0, w): the same truncated matrix Q of eq. 89 with
// the sign of the cross-product block flipped. Both are checked by finite differences.
#include "ncpgym/dynamics/algorithms.hpp"

namespace ncpgym {

namespace {
// 4 x 3 matrix Q_b(theta) with theta (x) (0, w) = Q_b w, theta = [w x y z].
inline Eigen::Matrix<double, 4, 3> quat_right_map(const double* t) {
  Eigen::Matrix<double, 4, 3> Q;
  Q << -t[1], -t[2], -t[3],
        t[0], -t[3],  t[2],
        t[3],  t[0], -t[1],
       -t[2],  t[1],  t[0];
  return Q;
}
}  // namespace

Vec4 quat_step(const double* t, const Vec3& w, double h) {
  // q + h G u, then renormalise (the seed keeps |theta| = 1 by normalisation)
  const Vec4 t0(t[0], t[1], t[2], t[3]);
  Vec4 tn = t0 + 0.5 * h * quat_right_map(t) * w;
  tn.normalize();
  return tn;
}

void kinematic_map(const Model& m, const double* q, Eigen::Ref<MatX> G) {
  G.setZero();
  for (int j = 0; j < m.njnt; ++j) {
    const int qa = m.jnt_qposadr[j], da = m.jnt_dofadr[j];
    switch (m.jnt_type[j]) {
      case JointType::Free:
        G.block<3, 3>(qa, da).setIdentity();
        G.block<4, 3>(qa + 3, da + 3) = 0.5 * quat_right_map(q + qa + 3);
        break;
      case JointType::Ball:
        G.block<4, 3>(qa, da) = 0.5 * quat_right_map(q + qa);
        break;
      default:
        G(qa, da) = 1.0;
    }
  }
}

void integrate(const Model& m, const double* q, const double* u, double h, double* q_out) {
  for (int j = 0; j < m.njnt; ++j) {
    const int qa = m.jnt_qposadr[j], da = m.jnt_dofadr[j];
    int quat_at = -1, w_at = -1;
    switch (m.jnt_type[j]) {
      case JointType::Free:
        for (int k = 0; k < 3; ++k) q_out[qa + k] = q[qa + k] + h * u[da + k];
        quat_at = qa + 3;
        w_at = da + 3;
        break;
      case JointType::Ball:
        quat_at = qa;
        w_at = da;
        break;
      default:
        q_out[qa] = q[qa] + h * u[da];
    }
    if (quat_at >= 0) {
      // q + h G u, then renormalise (the seed keeps |theta| = 1 by normalisation).
      const Vec4 tn = quat_step(q + quat_at, Eigen::Map<const Vec3>(u + w_at), h);
      for (int k = 0; k < 4; ++k) q_out[quat_at + k] = tn[k];
    }
  }
}

}  // namespace ncpgym
