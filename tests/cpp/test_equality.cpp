// Equality-constraint rows (constraints/equality_rows.cpp): their Jacobians against central
// finite differences of the row values at random states, away from the constraint (weld
// rotation errors of ~0.5 rad, so the exact log-map derivative is exercised, not only its
// value at zero), and inactive equalities contribute empty rows.
#include <gtest/gtest.h>

#include <random>

#include "ncpgym/constraints/equality_rows.hpp"
#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/builder/builder.hpp"
#include "ncpgym/solver/stepper.hpp"

namespace ncpgym {
namespace {

std::shared_ptr<const Model> equality_model() {
  Builder b;
  b.set_gravity(Vec3::Zero());
  JointSpec free;
  free.type = JointType::Free;
  JointSpec hinge;
  hinge.axis = Vec3(0.3, 1, 0.2).normalized();
  JointSpec slide;
  slide.type = JointType::Slide;
  slide.axis = Vec3(1, 0, 0.5).normalized();
  JointSpec ball;
  ball.type = JointType::Ball;
  const Mat3 I = Vec3(0.02, 0.03, 0.04).asDiagonal();
  const int a = b.add_body(0, Vec3(0, 0, 1), Quat::Identity(), 1.0, Vec3(0.1, 0, 0), I, "a");
  b.add_joint(a, free);
  const int c = b.add_body(a, Vec3(0.4, 0, 0), Quat(0.9, 0.1, 0.3, 0.2).normalized(), 1.0, Vec3(0, 0.1, 0), I, "c");
  const int jc = b.add_joint(c, hinge);
  const int d = b.add_body(0, Vec3(1, 0, 0.5), Quat::Identity(), 1.0, Vec3::Zero(), I, "d");
  const int jd = b.add_joint(d, slide);
  const int e = b.add_body(d, Vec3(0, 0.3, 0), Quat::Identity(), 1.0, Vec3::Zero(), I, "e");
  b.add_joint(e, ball);
  const int mocap = b.add_body(0, Vec3(0.5, 0.5, 1.5), Quat(0.7, 0.7, 0, 0).normalized(), 0.0, Vec3::Zero(),
                               Mat3::Zero(), "mocap");
  b.set_mocap(mocap);
  b.add_connect(c, e, Vec3(0.1, 0.2, -0.1), Vec3(-0.2, 0.05, 0.3));
  b.add_weld(a, e, Vec3(0.2, -0.1, 0.4), Quat(0.8, -0.2, 0.5, 0.1).normalized(), Vec3(0.05, 0.1, -0.2));
  b.add_weld(mocap, c, Vec3(0.1, 0, 0), Quat(0.6, 0.1, -0.4, 0.3).normalized(), Vec3::Zero(), 1e-3);
  b.add_joint_coupling(jd, jc, {0.1, 2.0, -0.7, 0.4, 0.3});
  b.add_joint_coupling(jc, -1, {0.25, 0, 0, 0, 0});
  b.add_weld(0, d, Vec3::Zero(), Quat::Identity(), Vec3::Zero(), 0.0, false);  // inactive
  return b.build();
}

TEST(Equality, RowCountsAndKinds) {
  auto m = equality_model();
  EXPECT_EQ(m->neq, 6);
  EXPECT_EQ(m->nmocap, 1);
  EXPECT_EQ(equality_row_count(*m), 3 + 6 + 6 + 1 + 1 + 6);
  Stepper st(m, SolverOptions{});
  State s(*m);
  const ConstraintRows rows = st.constraint_rows(s);
  EXPECT_EQ(static_cast<int>(rows.kind.size()), equality_row_count(*m));  // no contacts, no limits
  for (auto k : rows.kind) EXPECT_EQ(k, RowKind::Compliant);
  // the inactive weld: empty rows, zero value
  for (int r = 17; r < 23; ++r) {
    EXPECT_EQ(rows.J.row(r).norm(), 0.0);
    EXPECT_EQ(rows.C[r], 0.0);
  }
}

TEST(Equality, JacobiansMatchFiniteDifferences) {
  auto m = equality_model();
  Stepper st(m, SolverOptions{});
  std::mt19937 rng(7);
  std::normal_distribution<double> N(0, 1);
  for (int trial = 0; trial < 5; ++trial) {
    State s(*m);
    for (int i = 0; i < m->nq; ++i) s.q[i] += 0.4 * N(rng);
    s.q.segment<4>(3).normalize();                        // free joint quaternion
    s.q.segment<4>(m->nq - 4).normalize();                // ball joint quaternion
    const ConstraintRows rows = st.constraint_rows(s);
    VecX U(m->nv);
    for (int i = 0; i < U.size(); ++i) U[i] = N(rng);
    const double e = 1e-6;
    auto at = [&](double sgn) {
      VecX q(m->nq);
      integrate(*m, s.q.data(), U.data(), sgn * e, q.data());
      return st.constraint_rows_at(q, s.x).C;
    };
    const VecX dC = (at(1) - at(-1)) / (2 * e);
    const VecX JU = rows.J * U;
    double worst_rot = 0;
    for (int r = 0; r < JU.size(); ++r) {
      EXPECT_NEAR(dC[r], JU[r], 1e-6 * (1 + std::abs(JU[r]))) << "trial " << trial << " row " << r;
      if (r >= 3 && r < 15) worst_rot = std::max(worst_rot, std::abs(rows.C[r]));
    }
    EXPECT_GT(worst_rot, 0.1);  // the rows are checked away from the constraint
  }
}

TEST(Equality, SO3LogAndLeftJacobianInverse) {
  // J_l^-1(c) maps a left perturbation w of R = exp(c) to d log(R): log(exp(t w) R) = c + t J_l^-1 w + O(t^2)
  std::mt19937 rng(3);
  std::normal_distribution<double> N(0, 1);
  for (double angle : {1e-6, 1e-3, 0.5, 2.0, 3.0}) {
    const Vec3 c = angle * Vec3(N(rng), N(rng), N(rng)).normalized();
    const Mat3 R = Eigen::AngleAxisd(c.norm(), c.normalized()).toRotationMatrix();
    EXPECT_LT((so3_log(R) - c).norm(), 1e-9 * (1 + angle));
    const Vec3 w(N(rng), N(rng), N(rng));
    const double t = 1e-6;
    auto log_at = [&](double s) {
      return so3_log(Eigen::AngleAxisd(s * t * w.norm(), w.normalized()).toRotationMatrix() * R);
    };
    const Vec3 fd = (log_at(1) - log_at(-1)) / (2 * t);
    EXPECT_LT((fd - so3_left_jacobian_inverse(c) * w).norm(), 1e-6 * (1 + w.norm())) << "angle " << angle;
  }
}

TEST(Equality, BuilderRejectsBadInput) {
  Builder b;
  const int a = b.add_body(0, Vec3::Zero(), Quat::Identity(), 1, Vec3::Zero(), Mat3::Identity());
  JointSpec free;
  free.type = JointType::Free;
  const int jf = b.add_joint(a, free);
  EXPECT_THROW(b.add_connect(a, 5, Vec3::Zero(), Vec3::Zero()), std::invalid_argument);
  EXPECT_THROW(b.add_weld(a, a, Vec3::Zero(), Quat::Identity(), Vec3::Zero()), std::invalid_argument);
  EXPECT_THROW(b.add_joint_coupling(jf, -1, {0, 1, 0, 0, 0}), std::invalid_argument);
  EXPECT_THROW(b.add_connect(a, 0, Vec3::Zero(), Vec3::Zero(), -1.0), std::invalid_argument);
  b.set_mocap(a);  // a has a joint: refused when built
  EXPECT_THROW(b.build(), std::invalid_argument);
}

}  // namespace
}  // namespace ncpgym
