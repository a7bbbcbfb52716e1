// Discrete elastic rod rows (constraints/rod_rows.cpp, soft/rod.hpp): Jacobians against
// central finite differences of the row values, a stress-free rest shape, and the energy the
// rows encode (1/2 sum c^2 / E) against closed forms: a uniformly twisted straight rod
// (GJ Phi^2 / 2 L) and a rod bent on a circle (DER's EI / 2l (2 tan(phi/2))^2 per node).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ncpgym/builder/builder.hpp"
#include "ncpgym/constraints/rod_rows.hpp"

namespace ncpgym {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Evaluated {
  VecX C, E;
  MatX J;
};

Evaluated evaluate(const Model& m, const VecX& x, const VecX& act) {
  Rows rows;
  const int n = rod_frame_row_count(m) + rod_bend_row_count(m);
  rows.C.setZero(n);
  rows.E.setZero(n);
  rows.J.clear();
  rod_frame_rows(m, x, rows);
  rod_bend_rows(m, x, act, rows);
  EXPECT_EQ(rows.J.rows(), n);
  return {rows.C, rows.E, rows.J.dense(3 * m.nparticle)};
}

VecX positions(const Model& m) {
  VecX x(3 * m.nparticle);
  for (int p = 0; p < m.nparticle; ++p) x.segment<3>(3 * p) = m.particle_pos0[p];
  return x;
}

std::shared_ptr<const Model> helix_rod(int n) {
  Builder b;
  std::vector<Vec3> pts;
  for (int i = 0; i <= n; ++i) {
    const double a = 0.6 * i;
    pts.emplace_back(0.05 * std::cos(a), 0.05 * std::sin(a), 0.01 * i);
  }
  b.add_rod(pts, 1e-3, 2e6, 0.4, 1200.0, 0.5, Vec3(0, 0, 1), 0);
  return b.build();
}

std::shared_ptr<const Model> straight_rod(int n, double len) {
  Builder b;
  std::vector<Vec3> pts;
  for (int i = 0; i <= n; ++i) pts.emplace_back(len * i / n, 0, 0);
  b.add_rod(pts, 2e-3, 1e7, 0.25, 1000.0, 0.5, Vec3(0, 0, 1), 0);
  return b.build();
}

TEST(Rod, RowsMatchFiniteDifferencesAwayFromRest) {
  const auto m = helix_rod(7);
  std::mt19937 rng(3);
  std::normal_distribution<double> N(0.0, 3e-3);
  VecX x = positions(*m);
  for (int k = 0; k < x.size(); ++k) x[k] += N(rng);
  VecX act(1);
  act[0] = 4.0;  // natural curvature on: the rows' values move, their gradients must not care
  const Evaluated e = evaluate(*m, x, act);
  const double step = 1e-6;
  MatX fd(e.C.size(), x.size());
  for (int k = 0; k < x.size(); ++k) {
    VecX xp = x, xm = x;
    xp[k] += step;
    xm[k] -= step;
    fd.col(k) = (evaluate(*m, xp, act).C - evaluate(*m, xm, act).C) / (2 * step);
  }
  for (int r = 0; r < e.C.size(); ++r)
    EXPECT_LT((e.J.row(r) - fd.row(r)).norm(), 1e-6 * std::max(1.0, fd.row(r).norm())) << "row " << r;
  EXPECT_GT(e.J.cwiseAbs().maxCoeff(), 1.0);  // not an all-zero pair
}

TEST(Rod, RestShapeIsStressFree) {
  const auto m = helix_rod(9);
  const Evaluated e = evaluate(*m, positions(*m), VecX::Zero(1));
  EXPECT_LT(e.C.cwiseAbs().maxCoeff(), 1e-12);
  // the helix has curvature and twist at rest: the zero comes from the natural values
  double rest = 0;
  for (const auto& v : m->rodnode_rest) rest = std::max(rest, v.cwiseAbs().maxCoeff());
  EXPECT_GT(rest, 1e-3);
}

TEST(Rod, UniformTwistEnergyIsGJPhiSquaredOverTwiceTheLength) {
  // rotate ghost e about the x axis by e Phi / (ne - 1): twist Phi between the first and the
  // last edge's midpoints, a distance (ne - 1) l apart
  const int ne = 10;
  const double len = 0.3, l = len / ne, r = 2e-3, E = 1e7, nu = 0.25, phi = 1.3;
  const auto m = straight_rod(ne, len);
  VecX x = positions(*m);
  for (int e = 0; e < ne; ++e) {
    const int g = m->rodedge_p[e][2];
    const Vec3 mid(l * (e + 0.5), 0, 0);
    const Vec3 d = x.segment<3>(3 * g) - mid;
    x.segment<3>(3 * g) = mid + Eigen::AngleAxisd(phi * e / (ne - 1), Vec3::UnitX()) * d;
  }
  const Evaluated ev = evaluate(*m, x, VecX::Zero(1));
  double U = 0;
  for (int k = 2 * ne; k < ev.C.size(); ++k) U += 0.5 * ev.C[k] * ev.C[k] / ev.E[k];
  const double GJ = E / (2 * (1 + nu)) * kPi * std::pow(r, 4) / 2;
  EXPECT_NEAR(U, GJ * phi * phi / (2 * (ne - 1) * l), 1e-12 * U);
  EXPECT_LT(ev.C.head(2 * ne).cwiseAbs().maxCoeff(), 1e-15);  // ghosts still on their edges
}

TEST(Rod, CircularArcEnergyAndActuatedCurvature) {
  // nodes on a circle of radius R in the x-z plane, curling towards +z (the first edge's m1),
  // ghosts on the circle's inward normals: DER's bending energy EI / (2 l) (2 tan(phi/2))^2
  // per interior node, zero twist; and with act = 1/R the bend rows vanish.
  const int ne = 12;
  const double len = 0.3, l = len / ne, r = 2e-3, E = 1e7, R = 0.2;
  const auto m = straight_rod(ne, len);
  const double dth = 2 * std::asin(l / (2 * R));  // central angle of one chord
  VecX x = positions(*m);
  auto on_circle = [&](double th) { return Vec3(R * std::sin(th), 0, R * (1 - std::cos(th))); };
  for (int i = 0; i <= ne; ++i) x.segment<3>(3 * i) = on_circle(i * dth);
  for (int e = 0; e < ne; ++e) {
    const Vec3 a = on_circle(e * dth), b = on_circle((e + 1) * dth), mid = 0.5 * (a + b);
    const Vec3 inward = (Vec3(0, 0, R) - mid).normalized();
    x.segment<3>(3 * m->rodedge_p[e][2]) = mid + m->rodedge_ghost[e] * inward;
  }
  const Evaluated ev = evaluate(*m, x, VecX::Zero(1));
  double U = 0;
  for (int k = 2 * ne; k < ev.C.size(); ++k) U += 0.5 * ev.C[k] * ev.C[k] / ev.E[k];
  const double EI = E * kPi * std::pow(r, 4) / 4;
  const double kb = 2 * std::tan(dth / 2);  // turning angle between chords = central angle
  EXPECT_NEAR(U, (ne - 1) * EI / (2 * l) * kb * kb, 1e-10 * U);
  for (int k = 0; k < ne - 1; ++k) {
    EXPECT_NEAR(ev.C[2 * ne + 3 * k], kb, 1e-12);       // kappa1: towards m1
    EXPECT_NEAR(ev.C[2 * ne + 3 * k + 1], 0.0, 1e-12);  // kappa2
    EXPECT_NEAR(ev.C[2 * ne + 3 * k + 2], 0.0, 1e-12);  // twist
  }
  VecX act(1);
  act[0] = 1 / R;
  const Evaluated on = evaluate(*m, x, act);
  EXPECT_LT(on.C.cwiseAbs().maxCoeff(), 1e-12);
}

TEST(Rod, BuilderRejectsBadRods) {
  Builder b;
  EXPECT_THROW(b.add_rod({Vec3(0, 0, 0)}, 1e-3, 1e6, 0.3, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_rod({Vec3(0, 0, 0), Vec3(0, 0, 0)}, 1e-3, 1e6, 0.3, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_rod({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 0, 0)}, 1e-3, 1e6, 0.3, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_rod({Vec3(0, 0, 0), Vec3(1, 0, 0)}, 0.0, 1e6, 0.3, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_rod({Vec3(0, 0, 0), Vec3(1, 0, 0)}, 1e-3, -1, 0.3, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_rod({Vec3(0, 0, 0), Vec3(1, 0, 0)}, 1e-3, 1e6, 0.7, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_rod({Vec3(0, 0, 0), Vec3(1, 0, 0)}, 1e-3, 1e6, 0.3, 0), std::invalid_argument);
  EXPECT_THROW(b.add_rod({Vec3(0, 0, 0), Vec3(NAN, 0, 0)}, 1e-3, 1e6, 0.3, 1000), std::invalid_argument);
  EXPECT_EQ(b.build()->nparticle, 0);  // nothing half-added
}

TEST(Rod, MassAndLayout) {
  // nodes first, then ghosts; total mass rho A L; ghost at max(l, 2r) carrying 1/2 m_e r^2
  const auto m = straight_rod(6, 0.3);
  ASSERT_EQ(m->nparticle, 13);
  ASSERT_EQ(m->nrodedge, 6);
  ASSERT_EQ(m->nrodnode, 5);
  ASSERT_EQ(m->nstretch, 6);
  double total = 0;
  for (double w : m->particle_mass) total += w;
  EXPECT_NEAR(total, 1000.0 * kPi * 4e-6 * 0.3, 1e-15);
  const double me = 1000.0 * kPi * 4e-6 * 0.05;
  EXPECT_NEAR(m->particle_mass[7] * 0.05 * 0.05, 0.5 * me * 4e-6, 1e-18);
  for (int p = 0; p < 13; ++p) EXPECT_EQ(m->particle_ghost[p], p >= 7 ? 1 : 0);
  EXPECT_EQ(m->nactgroup, 1);
}

}  // namespace
}  // namespace ncpgym
