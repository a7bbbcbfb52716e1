// Dynamics against independent truth: analytic pendulums, conservation laws, algebraic
// identities between independent algorithms (RNEA, ABA, CRBA, IIM, eUFM) and finite
// differences of kinematics.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>

#include "fixtures.hpp"

namespace ncpgym {
namespace {

using test::random_state;
using test::random_tree;

double rel_err(const MatX& a, const MatX& b) { return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff()); }

TEST(Pendulum, SingleLinkMatchesAnalytic) {
  const double g = 9.81, l = 0.7;
  auto m = test::point_mass_chain(1, 2.0, l, g);
  Data d(*m);
  for (double th : {-2.0, -0.3, 0.0, 0.4, 1.5, 3.0}) {
    for (double w : {0.0, 2.0}) {
      VecX q(1), u(1), tau = VecX::Zero(1);
      q << th;
      u << w;
      aba(*m, d, q.data(), u.data(), tau.data());
      EXPECT_NEAR(d.qacc[0], -g / l * std::sin(th), 1e-12) << th;
    }
  }
}

TEST(Pendulum, DoublePendulumMatchesAnalytic) {
  // Point masses m1, m2 on massless rods L1, L2; absolute angles t1, t2 from the downward
  // vertical. Lagrange's equations solved for the accelerations (classical closed form).
  const double g = 9.81, L = 1.0, m1 = 1.0, m2 = 1.0;
  auto m = test::point_mass_chain(2, 1.0, L, g);
  Data d(*m);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> U(-2, 2);
  for (int k = 0; k < 50; ++k) {
    const double t1 = U(rng), t2 = U(rng), w1 = U(rng), w2 = U(rng);
    const double den = 2 * m1 + m2 - m2 * std::cos(2 * t1 - 2 * t2);
    const double a1 = (-g * (2 * m1 + m2) * std::sin(t1) - m2 * g * std::sin(t1 - 2 * t2) -
                       2 * std::sin(t1 - t2) * m2 * (w2 * w2 * L + w1 * w1 * L * std::cos(t1 - t2))) /
                      (L * den);
    const double a2 = (2 * std::sin(t1 - t2) *
                       (w1 * w1 * L * (m1 + m2) + g * (m1 + m2) * std::cos(t1) +
                        w2 * w2 * L * m2 * std::cos(t1 - t2))) /
                      (L * den);
    // relative joint coordinates: phi1 = t1, phi2 = t2 - t1
    VecX q(2), u(2), tau = VecX::Zero(2);
    q << t1, t2 - t1;
    u << w1, w2 - w1;
    aba(*m, d, q.data(), u.data(), tau.data());
    EXPECT_NEAR(d.qacc[0], a1, 1e-10);
    EXPECT_NEAR(d.qacc[0] + d.qacc[1], a2, 1e-10);
  }
}

// Total spatial momentum about the world origin and kinetic energy.
std::pair<Vec6, double> momentum(const Model& m, Data& d, const VecX& q, const VecX& u) {
  kinematics(m, d, q.data());
  velocities(m, d, u.data());
  Vec6 h = Vec6::Zero();
  double ke = 0;
  for (int b = 1; b < m.nbody; ++b) {
    const Vec6 hb = d.cinert[b] * d.cvel[b];
    h += hb;
    ke += 0.5 * d.cvel[b].dot(hb);
  }
  return {h, ke};
}

TEST(FreeFloating, MomentumAndEnergyConservedInZeroGravity) {
  // A free-floating random tree (no gravity, springs or damping, no armature effect on
  // energy: armature is excluded via a model without it) integrated with RK4.
  for (unsigned seed : {1u, 2u, 3u}) {
    auto m = random_tree(5, seed, true, false);
    // armature adds rotor energy not in the body momenta: rebuild without it
    Model mm = *m;
    std::fill(mm.dof_armature.begin(), mm.dof_armature.end(), 0.0);
    Data d(mm);
    std::mt19937 rng(seed);
    VecX q, u;
    random_state(mm, rng, q, u);
    const VecX tau = VecX::Zero(mm.nv);
    auto [h0, e0] = momentum(mm, d, q, u);
    const double h = 1e-3;
    auto f = [&](const VecX& qq, const VecX& uu, VecX& dq, VecX& du) {
      MatX G(mm.nq, mm.nv);
      kinematic_map(mm, qq.data(), G);
      dq = G * uu;
      aba(mm, d, qq.data(), uu.data(), tau.data());
      du = d.qacc;
    };
    VecX k1q, k1u, k2q, k2u, k3q, k3u, k4q, k4u;
    for (int s = 0; s < 1000; ++s) {
      f(q, u, k1q, k1u);
      f(q + 0.5 * h * k1q, u + 0.5 * h * k1u, k2q, k2u);
      f(q + 0.5 * h * k2q, u + 0.5 * h * k2u, k3q, k3u);
      f(q + h * k3q, u + h * k3u, k4q, k4u);
      q += h / 6 * (k1q + 2 * k2q + 2 * k3q + k4q);
      u += h / 6 * (k1u + 2 * k2u + 2 * k3u + k4u);
      for (int j = 0; j < mm.njnt; ++j) {
        if (mm.jnt_type[j] == JointType::Free) q.segment<4>(mm.jnt_qposadr[j] + 3).normalize();
        if (mm.jnt_type[j] == JointType::Ball) q.segment<4>(mm.jnt_qposadr[j]).normalize();
      }
    }
    auto [h1, e1] = momentum(mm, d, q, u);
    EXPECT_LT((h1 - h0).norm() / h0.norm(), 1e-7) << "seed " << seed;
    EXPECT_LT(std::abs(e1 - e0) / e0, 1e-7) << "seed " << seed;
  }
}

class RandomTrees : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(RandomTrees, ForwardInvertsInverse) {
  auto [nb, floating] = GetParam();
  auto m = random_tree(nb, 10 + nb, floating);
  Data d(*m);
  std::mt19937 rng(nb);
  for (int k = 0; k < 20; ++k) {
    VecX q, u, a, tau(m->nv);
    random_state(*m, rng, q, u);
    random_state(*m, rng, tau, a);  // a: random accelerations (nv)
    rnea(*m, d, q.data(), u.data(), a.data(), tau.data());
    aba(*m, d, q.data(), u.data(), tau.data(), Passive::None);
    EXPECT_LT(rel_err(d.qacc, a), 1e-10);
  }
}

TEST_P(RandomTrees, AbaMatchesCrbaSolve) {
  auto [nb, floating] = GetParam();
  auto m = random_tree(nb, 20 + nb, floating);
  Data d(*m);
  std::mt19937 rng(nb + 1);
  VecX q, u, tau, dummy, bias(m->nv), pas = VecX::Zero(m->nv);
  random_state(*m, rng, q, u);
  random_state(*m, rng, dummy, tau);
  const VecX zero = VecX::Zero(m->nv);
  rnea(*m, d, q.data(), u.data(), zero.data(), bias.data());
  add_passive_spring(*m, q.data(), pas.data());
  add_passive_damping(*m, u.data(), pas.data());
  crba(*m, d, q.data());
  const MatX M = d.M;
  EXPECT_LT(rel_err(M, M.transpose()), 1e-14);
  const VecX expect = M.ldlt().solve(tau + pas - bias);
  aba(*m, d, q.data(), u.data(), tau.data(), Passive::All);
  EXPECT_LT(rel_err(d.qacc, expect), 1e-9);
}

TEST_P(RandomTrees, ImplicitInversionGivesMinverse) {
  auto [nb, floating] = GetParam();
  auto m = random_tree(nb, 30 + nb, floating);
  Data d(*m);
  std::mt19937 rng(nb + 2);
  VecX q, u;
  random_state(*m, rng, q, u);
  crba(*m, d, q.data());
  const MatX M = d.M;
  factorize(*m, d, q.data());
  MatX Minv(m->nv, m->nv);
  minv_times(*m, d, MatX::Identity(m->nv, m->nv), Minv);
  EXPECT_LT(rel_err(M * Minv, MatX::Identity(m->nv, m->nv)), 1e-10);
  // a random input matrix B, against eUFM and against a dense solve
  MatX B = MatX::Random(m->nv, 7), R1(m->nv, 7), R2(m->nv, 7);
  aba(*m, d, q.data(), u.data(), VecX::Zero(m->nv).eval().data());
  minv_times(*m, d, B, R1);
  eufm(*m, d, q.data(), u.data(), VecX::Zero(m->nv).eval().data(), B, R2);
  const MatX R3 = M.ldlt().solve(B);
  EXPECT_LT(rel_err(R1, R3), 1e-10);
  EXPECT_LT(rel_err(R2, R3), 1e-8);
  // the single-column form agrees with the block form
  VecX x(m->nv);
  minv_times_vector(*m, d, B.col(3).data(), x.data());
  EXPECT_LT(rel_err(x, R3.col(3)), 1e-10);
}

// M^-1 of a model at a random state, by a dense solve of CRBA's M (the independent truth for
// the IIM); leaves d factorised at that state for the IIM's sweeps.
MatX dense_minv_at_random_state(const Model& m, Data& d, std::mt19937& rng) {
  VecX q, u;
  random_state(m, rng, q, u);
  crba(m, d, q.data());
  const MatX Minv = MatX(d.M).ldlt().solve(MatX::Identity(m.nv, m.nv));
  factorize(m, d, q.data());
  return Minv;
}

// A forest: a free body; a hinge chain; a static body carrying a hinge with a ball and a
// hinge below it (a branching tree whose root has no dofs); a free body with a slide child; a static body alone.
// minv_tree_blocks gives each tree's block of M^-1 (against a dense solve of CRBA's M),
// bit for bit what minv_times_transposed gives on the whole identity, and writes nothing
// that couples two trees.
TEST(ImplicitInversion, TreeBlocksOfAForest) {
  std::mt19937 rng(5);
  Builder b;
  auto body = [&](int parent) {
    return b.add_body(parent, test::random_vec(rng, 0.5), Quat::Identity(), 1.0 + 0.1 * parent,
                      test::random_vec(rng, 0.1), test::random_inertia(rng));
  };
  auto joint = [&](int id, JointType type) {
    JointSpec j;
    j.type = type;
    j.axis = test::random_vec(rng).normalized();
    j.armature = 0.01;
    b.add_joint(id, j);
  };
  joint(body(0), JointType::Free);
  const int c1 = body(0);
  joint(c1, JointType::Hinge);
  const int c2 = body(c1);
  joint(c2, JointType::Hinge);
  joint(body(c2), JointType::Slide);
  const int base = body(0);  // static
  const int arm = body(base);
  joint(arm, JointType::Hinge);
  joint(body(arm), JointType::Ball);
  joint(body(arm), JointType::Hinge);  // a branch: the inward sweep adds two children's blocks
  const int f2 = body(0);
  joint(f2, JointType::Free);
  joint(body(f2), JointType::Slide);
  body(0);  // static, alone
  auto m = b.build();
  Data d(*m);
  const MatX Minv = dense_minv_at_random_state(*m, d, rng);
  const MatX eye = MatX::Identity(m->nv, m->nv);
  MatX whole(m->nv, m->nv), blocks = MatX::Constant(m->nv, m->nv, std::nan(""));
  minv_times_transposed(*m, d, eye, whole);
  minv_tree_blocks(*m, d, eye, blocks);
  // the trees' dof ranges: free 6, chain 3, arm 1 + 3 + 1, free 6 + slide 1
  const std::vector<std::pair<int, int>> trees{{0, 6}, {6, 9}, {9, 14}, {14, 21}};
  ASSERT_EQ(m->nv, 21);
  for (int i = 0; i < m->nv; ++i)
    for (int j = 0; j < m->nv; ++j) {
      bool same = false;
      for (auto [lo, hi] : trees) same |= lo <= i && i < hi && lo <= j && j < hi;
      if (same) {
        EXPECT_EQ(blocks(i, j), whole(i, j)) << i << "," << j;
        EXPECT_NEAR(blocks(i, j), Minv(j, i), 1e-10 * Minv.cwiseAbs().maxCoeff()) << i << "," << j;
      } else {
        EXPECT_TRUE(std::isnan(blocks(i, j))) << i << "," << j;
        EXPECT_NEAR(Minv(j, i), 0.0, 1e-12) << i << "," << j;
      }
    }
}

// Bodies need not be numbered tree by tree (the Builder asks only parent < child): two
// free bodies with the first one's hinge child added last.
TEST(ImplicitInversion, TreeBlocksWhenATreesBodiesAreNotContiguous) {
  std::mt19937 rng(6);
  Builder b;
  JointSpec free_joint, hinge;
  free_joint.type = JointType::Free;
  hinge.type = JointType::Hinge;
  hinge.axis = Vec3(0.3, 1, 0.2).normalized();
  const int a = b.add_body(0, Vec3(0, 0, 1), Quat::Identity(), 1.0, Vec3::Zero(), test::random_inertia(rng));
  b.add_joint(a, free_joint);
  const int c = b.add_body(0, Vec3(1, 0, 1), Quat::Identity(), 2.0, Vec3::Zero(), test::random_inertia(rng));
  b.add_joint(c, free_joint);
  const int child = b.add_body(a, Vec3(0.2, 0, 0), Quat::Identity(), 0.5, Vec3(0.1, 0, 0), test::random_inertia(rng));
  b.add_joint(child, hinge);
  auto m = b.build();
  ASSERT_EQ(m->nv, 13);
  Data d(*m);
  const MatX Minv = dense_minv_at_random_state(*m, d, rng);
  const MatX eye = MatX::Identity(m->nv, m->nv);
  MatX blocks = MatX::Zero(m->nv, m->nv);
  minv_tree_blocks(*m, d, eye, blocks);
  // the first tree holds dofs 0-5 and 12, the second 6-11
  auto tree = [](int i) { return i >= 6 && i < 12 ? 1 : 0; };
  for (int i = 0; i < m->nv; ++i)
    for (int j = 0; j < m->nv; ++j)
      if (tree(i) == tree(j)) {
        EXPECT_NEAR(blocks(i, j), Minv(j, i), 1e-10 * Minv.cwiseAbs().maxCoeff()) << i << "," << j;
      }
}

TEST_P(RandomTrees, SiteJacobianMatchesFiniteDifferences) {
  auto [nb, floating] = GetParam();
  auto m = random_tree(nb, 40 + nb, floating);
  Data d(*m), d2(*m);
  std::mt19937 rng(nb + 3);
  VecX q, u;
  random_state(*m, rng, q, u);
  const double eps = 1e-6;
  MatX G(m->nq, m->nv);
  kinematic_map(*m, q.data(), G);
  const VecX qp = q + eps * G * u, qm = q - eps * G * u;
  for (int s = 0; s < m->nsite; ++s) {
    MatX J(6, m->nv), Jp(6, m->nv), Jm(6, m->nv);
    kinematics(*m, d, q.data());
    velocities(*m, d, u.data());
    site_jacobian(*m, d, s, J);
    const Vec6 jdu = site_jdot_u(*m, d, s);
    kinematics(*m, d2, qp.data());
    const Vec3 pp = d2.site_xpos[s];
    const Mat3 Rp = d2.site_xmat[s];
    site_jacobian(*m, d2, s, Jp);
    kinematics(*m, d2, qm.data());
    const Vec3 pm = d2.site_xpos[s];
    const Mat3 Rm = d2.site_xmat[s];
    site_jacobian(*m, d2, s, Jm);
    const Vec3 v_fd = (pp - pm) / (2 * eps);
    const Eigen::AngleAxisd dR(Rp * Rm.transpose());
    const Vec3 w_fd = dR.axis() * dR.angle() / (2 * eps);
    const Vec6 Ju = J * u;
    EXPECT_LT((Ju.head<3>() - v_fd).norm(), 1e-6 * (1 + v_fd.norm())) << "site " << s;
    EXPECT_LT((Ju.tail<3>() - w_fd).norm(), 1e-6 * (1 + w_fd.norm())) << "site " << s;
    const Vec6 jdu_fd = (Jp - Jm) * u / (2 * eps);
    EXPECT_LT((jdu - jdu_fd).norm(), 1e-5 * (1 + jdu_fd.norm())) << "site " << s;
  }
}

TEST_P(RandomTrees, BodyVelocitiesMatchFiniteDifferencesOfPoses) {
  // Checks the kinematic map G (eqs. 88-89) and the motion subspace together.
  auto [nb, floating] = GetParam();
  auto m = random_tree(nb, 50 + nb, floating);
  Data d(*m), d2(*m);
  std::mt19937 rng(nb + 4);
  VecX q, u;
  random_state(*m, rng, q, u);
  const double eps = 1e-6;
  VecX qp(m->nq), qm(m->nq);
  integrate(*m, q.data(), u.data(), eps, qp.data());
  integrate(*m, q.data(), u.data(), -eps, qm.data());
  kinematics(*m, d, q.data());
  velocities(*m, d, u.data());
  Data d3(*m);  // body_velocities: the same cvel, bit for bit (the sweep bound reads it)
  kinematics(*m, d3, q.data());
  body_velocities(*m, d3, u.data());
  for (int b = 0; b < m->nbody; ++b) EXPECT_TRUE((d3.cvel[b].array() == d.cvel[b].array()).all()) << "body " << b;
  for (int b = 1; b < m->nbody; ++b) {
    kinematics(*m, d2, qp.data());
    const Vec3 pp = d2.xpos[b];
    const Mat3 Rp = d2.xmat[b];
    kinematics(*m, d2, qm.data());
    const Vec3 pm = d2.xpos[b];
    const Mat3 Rm = d2.xmat[b];
    const Eigen::AngleAxisd dR(Rp * Rm.transpose());
    const Vec3 w_fd = dR.axis() * dR.angle() / (2 * eps);
    const Vec3 w = d.cvel[b].head<3>();
    const Vec3 v = d.cvel[b].tail<3>() + w.cross(d.xpos[b]);
    EXPECT_LT((w - w_fd).norm(), 1e-6 * (1 + w.norm())) << "body " << b;
    EXPECT_LT((v - (pp - pm) / (2 * eps)).norm(), 1e-6 * (1 + v.norm())) << "body " << b;
  }
}

TEST_P(RandomTrees, PosesOfFlaggedBodiesEqualAFullPassAndOthersAreUntouched) {
  // kinematics(..., bodies): the constraint rows pose only the bodies they read and their
  // parents; those must come out bitwise as in a full pass, the rest untouched.
  auto [nb, floating] = GetParam();
  auto m = random_tree(nb, 60 + nb, floating);
  Data full(*m), part(*m), copy(*m);
  std::mt19937 rng(nb + 9);
  VecX q, u;
  random_state(*m, rng, q, u);
  kinematics(*m, full, q.data(), false);
  std::vector<unsigned char> flag(m->nbody, 0);
  for (int b = 1; b < m->nbody; ++b) flag[b] = rng() % 3 == 0;
  for (int b = m->nbody - 1; b > 0; --b)
    if (flag[b]) flag[m->body_parent[b]] = 1;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int b = 1; b < m->nbody; ++b) part.xpos[b].setConstant(nan);  // the world stays at its origin
  part.cdof.setConstant(nan);
  kinematics(*m, part, q.data(), false, flag.data());
  for (int b = 1; b < m->nbody; ++b) {
    if (!flag[b]) {
      EXPECT_TRUE(part.xpos[b].hasNaN()) << "body " << b << " was posed though not flagged";
      continue;
    }
    EXPECT_TRUE((part.xpos[b].array() == full.xpos[b].array()).all()) << "body " << b;
    EXPECT_TRUE((part.xmat[b].array() == full.xmat[b].array()).all()) << "body " << b;
    for (int dof = m->body_dofadr[b]; dof < m->body_dofadr[b] + m->body_dofnum[b]; ++dof)
      EXPECT_TRUE((part.cdof.col(dof).array() == full.cdof.col(dof).array()).all()) << "dof " << dof;
  }
  for (int s = 0; s < m->nsite; ++s) {
    if (!flag[m->site_body[s]]) continue;
    EXPECT_TRUE((part.site_xpos[s].array() == full.site_xpos[s].array()).all()) << "site " << s;
  }
  copy_poses(full, copy);
  for (int b = 0; b < m->nbody; ++b) EXPECT_TRUE((copy.xmat[b].array() == full.xmat[b].array()).all());
  EXPECT_TRUE((copy.cdof.array() == full.cdof.array()).all());
}

INSTANTIATE_TEST_SUITE_P(Trees, RandomTrees,
                         ::testing::Combine(::testing::Values(1, 3, 8, 20), ::testing::Bool()));

TEST(KinematicMap, QuaternionDerivativeMatchesFiniteDifference) {
  // theta(t) = theta0 (x) exp(w t / 2) for a body-frame w: d/dt at t = 0 is G w.
  Builder b;
  const int body = b.add_body(0, Vec3::Zero(), Quat::Identity(), 1.0, Vec3::Zero(), Mat3::Identity());
  JointSpec j;
  j.type = JointType::Free;
  b.add_joint(body, j);
  auto m = b.build();
  std::mt19937 rng(5);
  VecX q, u;
  random_state(*m, rng, q, u);
  MatX G(7, 6);
  kinematic_map(*m, q.data(), G);
  const VecX qdot = G * u;
  const Vec3 w = u.tail<3>();
  const double eps = 1e-6;
  auto at = [&](double t) {
    Quat r(Eigen::AngleAxisd(w.norm() * t, w.normalized()));
    Quat q1 = quat_wxyz(q.data() + 3) * r;
    return Vec4(q1.w(), q1.x(), q1.y(), q1.z());
  };
  const Vec4 fd = (at(eps) - at(-eps)) / (2 * eps);
  EXPECT_LT((qdot.segment<4>(3) - fd).norm(), 1e-8);
  EXPECT_LT((qdot.head<3>() - u.head<3>()).norm(), 1e-15);
  VecX qn(7);
  integrate(*m, q.data(), u.data(), 0.01, qn.data());
  EXPECT_NEAR(qn.segment<4>(3).norm(), 1.0, 1e-15);
}

}  // namespace
}  // namespace ncpgym
