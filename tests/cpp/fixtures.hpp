// Test models built with the Builder: analytic pendulums, chains, and random trees that
// mix every joint type (free base, ball, slide, hinge, several joints per body).
#pragma once

#include <random>

#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/builder/builder.hpp"

namespace ncpgym::test {

using ModelPtr = std::shared_ptr<const Model>;

// Planar chain of n links hanging along -z with hinges about y; link length l, point
// mass m at each link's end (tiny rotational inertia to stay physical).
inline ModelPtr point_mass_chain(int n, double m = 1.0, double l = 1.0, double g = 9.81) {
  Builder b;
  int parent = 0;
  for (int i = 0; i < n; ++i) {
    const Vec3 pos = i == 0 ? Vec3::Zero() : Vec3(0, 0, -l);
    parent = b.add_body(parent, pos, Quat::Identity(), m, Vec3(0, 0, -l), Mat3::Zero());
    JointSpec j;
    j.type = JointType::Hinge;
    j.axis = Vec3::UnitY();
    b.add_joint(parent, j);
  }
  b.set_gravity(Vec3(0, 0, -g));
  return b.build();
}

// An arm hanging from the world at (1, 0, 1) on a hinge about y with limits +-0.3 rad, a
// 40 N m/rad spring and a position servo (kp 100, kv 1): every joint-level row kind.
// Returns the arm's body id.
inline int add_servo_arm(Builder& b) {
  const int arm = b.add_body(0, Vec3(1, 0, 1), Quat::Identity(), 1.0, Vec3(0, 0, -0.3), Mat3::Identity() * 0.01);
  JointSpec hinge;
  hinge.axis = Vec3(0, 1, 0);
  hinge.limited = true;
  hinge.range_lo = -0.3;
  hinge.range_hi = 0.3;
  hinge.stiffness = 40;
  const int hj = b.add_joint(arm, hinge);
  b.add_actuator(hj, ActuatorType::Position, 1.0, true, -1, 1, 100.0, 1.0);
  return arm;
}

inline Mat3 random_inertia(std::mt19937& rng) {
  std::uniform_real_distribution<double> U(0.05, 1.0);
  // principal moments satisfying the triangle inequality, random orientation
  Vec3 d(U(rng), U(rng), U(rng));
  d[2] = std::min(d[2], d[0] + d[1]);
  Quat r(Vec4(U(rng) - 0.5, U(rng) - 0.5, U(rng) - 0.5, U(rng) - 0.5).normalized());
  Mat3 R = r.toRotationMatrix();
  return R * d.asDiagonal() * R.transpose();
}

inline Vec3 random_vec(std::mt19937& rng, double s = 1.0) {
  std::uniform_real_distribution<double> U(-s, s);
  return Vec3(U(rng), U(rng), U(rng));
}

// Random tree: body 1 carries a free joint when `floating`; other bodies get 0-3 joints
// of random type (a ball only as the body's last joint), random anchors and axes,
// armature on some dofs, and a site.
inline ModelPtr random_tree(int nbody, unsigned seed, bool floating = true, bool passive = true) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(0, 1);
  Builder b;
  for (int i = 1; i <= nbody; ++i) {
    const int parent = i == 1 ? 0 : 1 + static_cast<int>(U(rng) * (i - 1));
    Quat q(Vec4(U(rng) - 0.5, U(rng) - 0.5, U(rng) - 0.5, U(rng) - 0.5).normalized());
    const int id = b.add_body(parent, random_vec(rng, 0.5), q, 0.5 + U(rng), random_vec(rng, 0.2),
                              random_inertia(rng), "b" + std::to_string(i));
    b.add_site(id, random_vec(rng, 0.3), Quat::Identity(), "s" + std::to_string(i));
    if (i == 1 && floating) {
      JointSpec j;
      j.type = JointType::Free;
      b.add_joint(id, j);
      continue;
    }
    const int nj = i == 1 ? 1 : static_cast<int>(U(rng) * 3.999);
    for (int k = 0; k < nj; ++k) {
      JointSpec j;
      const double r = U(rng);
      j.type = (k == nj - 1 && r < 0.2) ? JointType::Ball : (r < 0.4 ? JointType::Slide : JointType::Hinge);
      j.pos = random_vec(rng, 0.2);
      j.axis = random_vec(rng).normalized();
      j.armature = U(rng) < 0.5 ? 0.1 * U(rng) : 0.0;
      j.damping = passive && U(rng) < 0.5 ? U(rng) : 0.0;
      if (j.type != JointType::Ball) {
        j.stiffness = passive && U(rng) < 0.5 ? 5 * U(rng) : 0.0;
        j.springref = U(rng) - 0.5;
        j.ref = U(rng) < 0.3 ? U(rng) - 0.5 : 0.0;
      }
      b.add_joint(id, j);
    }
  }
  if (!passive) b.set_gravity(Vec3::Zero());
  return b.build();
}

// Random configuration (unit quaternions) and velocity.
inline void random_state(const Model& m, std::mt19937& rng, VecX& q, VecX& u) {
  std::normal_distribution<double> N(0, 1);
  q.resize(m.nq);
  u.resize(m.nv);
  for (int i = 0; i < m.nq; ++i) q[i] = N(rng);
  for (int i = 0; i < m.nv; ++i) u[i] = N(rng);
  for (int j = 0; j < m.njnt; ++j) {
    int a = -1;
    if (m.jnt_type[j] == JointType::Free) a = m.jnt_qposadr[j] + 3;
    if (m.jnt_type[j] == JointType::Ball) a = m.jnt_qposadr[j];
    if (a >= 0) q.segment<4>(a).normalize();
  }
}

// A free-floating box (half sizes `half`) hanging from the world at pose (pos, quat), mass m
// and rotational inertia `inertia` about its centre; returns its body id.
inline int add_free_box(Builder& b, const Vec3& pos, const Quat& quat, double m, const Mat3& inertia,
                        const Vec3& half) {
  const int body = b.add_body(0, pos, quat, m, Vec3::Zero(), inertia);
  JointSpec free;
  free.type = JointType::Free;
  b.add_joint(body, free);
  GeomSpec box;
  box.type = GeomType::Box;
  box.size = half;
  b.add_geom(body, box);
  return body;
}

}  // namespace ncpgym::test
