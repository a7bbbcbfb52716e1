// Batch: a world's trajectory is the single-world Stepper's, bitwise, whatever the batch
// size or thread count; one diverging world never touches the others; per-world
// parameters act as physics says they must.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "fixtures.hpp"
#include "ncpgym/batch/batch.hpp"
#include "ncpgym/batch/rng.hpp"

namespace ncpgym {
namespace {

// Boxes dropped on a plane, plus a hinge arm with a motor: contacts, friction, limits.
std::shared_ptr<const Model> boxes(double incline = 0.0) {
  Builder b;
  b.set_timestep(0.01);
  GeomSpec plane;
  plane.type = GeomType::Plane;
  plane.quat = Quat(Eigen::AngleAxisd(incline, Vec3::UnitY()));
  b.add_geom(0, plane);
  for (int k = 0; k < 3; ++k)
    test::add_free_box(b, Vec3(0.4 * k, 0, 0.2 + 0.1 * k), Quat(Eigen::AngleAxisd(0.2 * k, Vec3::UnitX())), 1.0 + k,
                       Mat3::Identity() * 0.01, Vec3(0.1, 0.1, 0.05));
  const int arm = b.add_body(0, Vec3(0, 1, 1), Quat::Identity(), 1.0, Vec3(0, 0, -0.3), Mat3::Identity() * 0.01);
  JointSpec hinge;
  hinge.axis = Vec3::UnitY();
  hinge.limited = true;
  hinge.range_lo = -0.5;
  hinge.range_hi = 0.5;
  const int j = b.add_joint(arm, hinge);
  b.add_actuator(j, ActuatorType::Motor, 2.0, true, -1, 1);
  return b.build();
}

void set_ctrl(Batch& batch, int step) {
  for (int i = 0; i < batch.size(); ++i) batch.ctrl()[i] = std::sin(0.1 * step + i);
}

TEST(Batch, WorldsMatchTheSingleWorldStepperBitwise) {
  auto m = boxes();
  Batch batch(m, 3, SolverOptions(), 2);
  batch.q()[m->nq + 2] += 0.05;  // world 1 starts higher
  Stepper st(m, SolverOptions());
  State s(*m);
  s.q = Eigen::Map<VecX>(batch.q() + m->nq, m->nq);
  for (int k = 0; k < 60; ++k) {
    set_ctrl(batch, k);
    s.ctrl[0] = batch.ctrl()[1];
    batch.step();
    st.step(s);
  }
  EXPECT_EQ(std::memcmp(s.q.data(), batch.q() + m->nq, sizeof(double) * m->nq), 0);
  EXPECT_EQ(std::memcmp(s.u.data(), batch.u() + m->nv, sizeof(double) * m->nv), 0);
  EXPECT_GT(batch.ncontact()[1], 0);
}

TEST(Batch, TrajectoriesDoNotDependOnThreadsOrBatchSize) {
  auto m = boxes();
  auto run = [&](int n, int threads) {
    Batch batch(m, n, SolverOptions(), threads);
    for (int i = 0; i < n; ++i) batch.q()[i * m->nq + 2] += 0.01 * i;
    for (int k = 0; k < 50; ++k) {
      set_ctrl(batch, k);
      batch.step(2);
    }
    return std::vector<double>(batch.q(), batch.q() + n * m->nq);
  };
  const auto a = run(6, 1), b = run(6, 2), c = run(2, 2);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(std::equal(c.begin(), c.end(), a.begin()));
}

TEST(Batch, ADivergingWorldIsFlaggedAndLeavesTheOthersUntouched) {
  auto m = boxes();
  Batch clean(m, 4, SolverOptions(), 2), dirty(m, 4, SolverOptions(), 2);
  dirty.u()[2 * m->nv + 1] = std::nan("");
  for (int k = 0; k < 20; ++k) {
    set_ctrl(clean, k);
    set_ctrl(dirty, k);
    clean.step();
    dirty.step();
  }
  EXPECT_EQ(dirty.status()[2], static_cast<int8_t>(WorldStatus::Diverged));
  for (int i : {0, 1, 3}) {
    EXPECT_EQ(dirty.status()[i], 0);
    EXPECT_EQ(std::memcmp(clean.q() + i * m->nq, dirty.q() + i * m->nq, sizeof(double) * m->nq), 0);
  }
  // reset brings it back
  const uint8_t mask[4] = {0, 0, 1, 0};
  const VecX q0 = m->qpos0, u0 = VecX::Zero(m->nv);
  dirty.reset(mask, q0.data(), u0.data());
  dirty.step();
  EXPECT_EQ(dirty.status()[2], 0);
}

TEST(Batch, FreeFallIgnoresMassScaleAndFollowsEachWorldsGravity) {
  // A free box far above the plane: semi-implicit Euler gives z_n = z_0 - g h^2 n(n+1)/2
  // exactly, for any mass (mass scales M and the gravity force alike).
  // (No constraint rows anywhere: with contacts elsewhere the damped Newton steps from
  // u = 0 (eq. 67) leave a (1 - t)^8 fraction of the free motion unconverged.)
  auto m = boxes();
  Batch batch(m, 3, SolverOptions(), 2);
  for (int i = 0; i < 3; ++i)
    for (int b = 0; b < 3; ++b) batch.q()[i * m->nq + 7 * b + 2] = 10.0 + b;
  batch.mass_scale()[1] = 7.5;
  batch.gravity()[3 * 2 + 2] = -2.0;
  const int n = 40;
  batch.step(n);
  const double h = batch.timestep();
  for (int i = 0; i < 3; ++i) {
    const double g = i == 2 ? 2.0 : 9.81;
    EXPECT_NEAR(batch.q()[i * m->nq + 2], 10.0 - g * h * h * n * (n + 1) / 2, 1e-9) << "world " << i;
  }
}

TEST(Batch, FrictionScaleDecidesWhetherABlockSlides) {
  // incline of 20 degrees: tan = 0.364; friction 0.5 holds, scaled by 0.5 (0.25) it slides
  const double theta = 20 * M_PI / 180;
  auto m = boxes(theta);
  ASSERT_NEAR(m->geom_friction[1][0], 1.0, 1e-12);  // Builder default
  Batch batch(m, 2, SolverOptions(), 2);
  batch.friction_scale()[0] = 0.5;
  batch.friction_scale()[1] = 0.25;
  // place box 1 resting on the incline, drop the others far away
  for (int i = 0; i < 2; ++i) {
    double* q = batch.q() + i * m->nq;
    const Vec3 nrm = Quat(Eigen::AngleAxisd(theta, Vec3::UnitY())) * Vec3::UnitZ();
    Eigen::Map<Vec3>{q} = 0.05 * nrm;
    Eigen::Map<Vec4>{q + 3} = Vec4(std::cos(theta / 2), 0, std::sin(theta / 2), 0);
    for (int b = 1; b < 3; ++b) q[7 * b + 0] = 50.0 + 5 * b;
  }
  const double start = batch.q()[0];
  const int n = 100;
  batch.step(n);
  const double h = batch.timestep();
  const double x0 = batch.q()[0] - start, x1 = batch.q()[m->nq] - start;
  EXPECT_LT(std::abs(x0), 5e-4);  // held (the damped Newton creep of issue 3 is ~1e-4 m/s)
  // slides down the slope (+x) with a = g (sin - mu cos): s_n = a h^2 n (n + 1) / 2
  const double a = 9.81 * (std::sin(theta) - 0.25 * std::cos(theta));
  EXPECT_NEAR(x1, a * h * h * n * (n + 1) / 2 * std::cos(theta), 0.03 * x1);
}

TEST(Batch, RandomStreamsDependOnlyOnTheirWorld) {
  auto m = boxes();
  Batch a(m, 5, SolverOptions(), 1), b(m, 2, SolverOptions(), 2);
  for (int i = 0; i < 5; ++i) a.set_rng_key(i, world_key(42, i));
  for (int i = 0; i < 2; ++i) b.set_rng_key(i, world_key(42, i));
  const int wa[] = {1, 4}, wb[] = {1};
  double ra[2 * 1000], rb[1000];
  a.uniform(wa, 2, 1000, -1, 1, ra);
  b.uniform(wb, 1, 1000, -1, 1, rb);
  EXPECT_TRUE(std::equal(rb, rb + 1000, ra));  // world 1, first 1000 numbers
  double mean = 0, var = 0;
  for (double r : ra) mean += r / 2000;
  for (double r : ra) var += (r - mean) * (r - mean) / 2000;
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(var, 1.0 / 3.0, 0.03);  // uniform(-1, 1)
  std::vector<double> nrm(20000);
  const int w0[] = {0};
  a.normal(w0, 1, 20000, nrm.data());
  double m2 = 0;
  for (double r : nrm) m2 += r * r / 20000;
  EXPECT_NEAR(m2, 1.0, 0.04);
}

TEST(Batch, RejectsBadArguments) {
  auto m = boxes();
  EXPECT_THROW(Batch(m, 0, SolverOptions()), std::invalid_argument);
  Batch batch(m, 2, SolverOptions(), 1);
  EXPECT_THROW(batch.step(0), std::invalid_argument);
  EXPECT_THROW(batch.set_num_threads(0), std::invalid_argument);
}

}  // namespace
}  // namespace ncpgym
