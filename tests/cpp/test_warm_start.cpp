// The warm-start memory (solver/warm_start.hpp): which remembered impulse a new contact
// gets, and how it is carried into the new contact's basis.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <vector>

#include "ncpgym/solver/warm_start.hpp"

namespace ncpgym {
namespace {

Contact contact(int g1, int g2, const Vec3& pos, const Vec3& normal) {
  Contact c;
  c.geom1 = g1;
  c.geom2 = g2;
  c.pos = pos;
  c.normal = normal.normalized();
  c.friction = 1.0;
  set_tangents(c);
  return c;
}

TEST(WarmStart, TheSameContactGetsItsImpulseBack) {
  const std::vector<Contact> cs = {contact(0, 2, Vec3(0, 0, 0), Vec3::UnitZ()),
                                   contact(0, 3, Vec3(1, 0, 0), Vec3(0.3, 0.1, 1.0))};
  const double lam[6] = {5.0, -1.0, 2.0, 7.0, 0.5, -0.25};  // inside the cone (mu = 1)
  WarmStart w;
  w.record(cs, lam);
  double out[6] = {};
  w.apply(cs, out);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(out[i], lam[i], 1e-12) << i;
}

TEST(WarmStart, MultipliersAreCopiedInTheNewContactsBasis) {
  // The normal turned by 0.05 rad: lambda is taken as it is (normal, t1, t2 of the new
  // contact), not re-read from a world-frame force (docs/architecture.md, "Warm start").
  const Contact before = contact(1, 4, Vec3(0, 0, 0), Vec3::UnitZ());
  const Eigen::AngleAxisd turn(0.05, Vec3::UnitX());
  const Contact after = contact(1, 4, Vec3(0, 0, 0.0005), turn * Vec3::UnitZ());
  const double lam[3] = {5.0, 1.0, -2.0};
  WarmStart w;
  w.record({before}, lam);
  double out[3] = {};
  w.apply({after}, out);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out[i], lam[i]) << i;
}

TEST(WarmStart, OnlyTheNearestContactOfTheSamePairWithinAMillimetre) {
  const Vec3 n = Vec3::UnitZ();
  const std::vector<Contact> old = {contact(0, 2, Vec3(0, 0, 0), n), contact(0, 2, Vec3(0.0008, 0, 0), n),
                                    contact(0, 5, Vec3(0.0001, 0, 0), n)};
  const double lam[9] = {1, 0, 0, 2, 0, 0, 3, 0, 0};
  WarmStart w;
  w.record(old, lam);
  const std::vector<Contact> now = {contact(0, 2, Vec3(0.0006, 0, 0), n),    // nearest: the second
                                    contact(0, 2, Vec3(0, 0.0011, 0), n),    // beyond 1 mm of both
                                    contact(2, 0, Vec3(0, 0, 0), n),         // geoms swapped: another pair
                                    contact(0, 5, Vec3(0.0001, 0, 0.0009), n)};
  double out[12];
  for (double& v : out) v = -7;  // left as it is where nothing matches
  w.apply(now, out);
  EXPECT_EQ(out[0], 2.0);
  EXPECT_EQ(out[3], -7.0);
  EXPECT_EQ(out[6], -7.0);
  EXPECT_EQ(out[9], 3.0);
}

TEST(WarmStart, ContactsThatMoveAParticleStartFromZero) {
  Contact a = contact(-1, 0, Vec3(0, 0, 0), Vec3::UnitZ());
  a.particle1 = 3;
  Contact tri = contact(2, 0, Vec3(1, 0, 0), Vec3::UnitZ());
  tri.n1 = 3;
  tri.p1[0] = 7;
  const double lam[6] = {9, 0, 0, 4, 1, 0};
  WarmStart w;
  w.record({a, tri}, lam);
  EXPECT_EQ(w.entries().size(), 2u);  // remembered (saved with the state), not applied
  double out[6] = {0, 0, 0, 0, 0, 0};
  w.apply({a, tri}, out);
  for (double v : out) EXPECT_EQ(v, 0.0);
}

TEST(WarmStart, RowsRoundTripAndBadRowsAreRefused) {
  const std::vector<Contact> cs = {contact(0, 2, Vec3(0.1, 0.2, 0.3), Vec3(0, 1, 1)),
                                   contact(0, 1, Vec3(0, 0, 0), Vec3::UnitZ())};
  const double lam[6] = {5, 1, 2, 6, 2, -3};  // inside the cone (mu = 1)
  WarmStart w;
  w.record(cs, lam);
  std::vector<double> rows(2 * kWarmColumns);
  w.write_rows(7, rows.data());
  EXPECT_EQ(rows[0], 7.0);
  WarmStart back;
  back.read_rows(rows.data(), 2);
  double out[6] = {};
  back.apply(cs, out);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(out[i], lam[i], 1e-12);
  rows[1] = 0.5;  // a geom id that is not an integer
  EXPECT_THROW(back.read_rows(rows.data(), 2), std::invalid_argument);
  rows[1] = 0;
  rows[kWarmColumns - 1] = std::nan("");
  EXPECT_THROW(back.read_rows(rows.data(), 2), std::invalid_argument);
}

}  // namespace
}  // namespace ncpgym
