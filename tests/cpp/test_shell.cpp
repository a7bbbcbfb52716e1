// Discrete elastic shells (constraints/shell_rows.cpp, soft/shell.hpp, builder/shell_builder.cpp):
// the hinge row's gradient against central finite differences, its sign and value on a hinge
// folded by a known angle, the stiffnesses of the rows, and mesh validation.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <random>

#include "ncpgym/builder/builder.hpp"
#include "ncpgym/constraints/shell_rows.hpp"
#include "ncpgym/soft/medium.hpp"

namespace ncpgym {
namespace {

// two triangles (0, 1, 2) and (1, 0, 3) sharing the edge 0 -> 1 along x
std::shared_ptr<const Model> two_triangles(double fold, int group = -1) {
  Builder b;
  const std::vector<Vec3> v = {Vec3(0, 0, 0), Vec3(0.1, 0, 0), Vec3(0.05, 0.08, 0),
                               Vec3(0.05, -0.08 * std::cos(fold), 0.08 * std::sin(fold))};
  b.add_shell(v, {{0, 1, 2}, {1, 0, 3}}, 1e-3, 1e9, 0.3, 1000.0);
  if (group >= 0) b.set_hinge_group(0, group);
  return b.build();
}

VecX positions(const Model& m) {
  VecX x(3 * m.nparticle);
  for (int p = 0; p < m.nparticle; ++p) x.segment<3>(3 * p) = m.particle_pos0[p];
  return x;
}

// The medium's -dF/dv blocks (drag_forces' D) against central differences of F in a random
// velocity (normal entries, seeded): only particle p's force moves with v_p, and each block is
// symmetric positive semi-definite.
void expect_medium_jacobian_matches_differences(const Model& m, unsigned seed) {
  const VecX x = positions(m);
  std::mt19937 rng(seed);
  std::normal_distribution<double> N(0.0, 1.0);
  VecX v(x.size());
  for (int k = 0; k < v.size(); ++k) v[k] = N(rng);
  VecX f, fp, fm;
  std::vector<Mat3> D, Dx;
  drag_forces(m, x, v, f, D);
  for (int p = 0; p < m.nparticle; ++p) {
    EXPECT_NEAR((D[p] - D[p].transpose()).norm(), 0.0, 1e-12);
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Mat3>(D[p]).eigenvalues().minCoeff(), -1e-12);
    for (int j = 0; j < 3; ++j) {
      VecX vp = v, vm = v;
      vp[3 * p + j] += 1e-6;
      vm[3 * p + j] -= 1e-6;
      drag_forces(m, x, vp, fp, Dx);
      drag_forces(m, x, vm, fm, Dx);
      const VecX col = -(fp - fm) / 2e-6;  // -dF/dv_{p,j}
      for (int q = 0; q < m.nparticle; ++q)
        for (int i = 0; i < 3; ++i)
          EXPECT_NEAR(q == p ? D[p](i, j) : 0.0, col[3 * q + i], 1e-6 * (1 + D[p].norm()));
    }
  }
}

Rows evaluate(const Model& m, const VecX& x, const VecX& act) {
  Rows rows;
  rows.C.setZero(m.nhinge);
  rows.E.setZero(m.nhinge);
  rows.J.clear();
  shell_rows(m, x, act, rows);
  return rows;
}

TEST(Shell, HingeRowMatchesFiniteDifferences) {
  const auto m = two_triangles(0.0);
  ASSERT_EQ(m->nhinge, 1);
  std::mt19937 rng(5);
  std::normal_distribution<double> N(0.0, 0.01);
  VecX x = positions(*m);
  for (int k = 0; k < x.size(); ++k) x[k] += N(rng);
  const Rows rows = evaluate(*m, x, VecX());
  const MatX J = rows.J.dense(3 * m->nparticle);
  VecX fd(x.size());
  for (int k = 0; k < x.size(); ++k) {
    VecX xp = x, xm = x;
    xp[k] += 1e-7;
    xm[k] -= 1e-7;
    fd[k] = (evaluate(*m, xp, VecX()).C[0] - evaluate(*m, xm, VecX()).C[0]) / 2e-7;
  }
  EXPECT_LT((J.row(0).transpose() - fd).norm(), 1e-6 * fd.norm());
  EXPECT_GT(fd.norm(), 1.0);
}

TEST(Shell, HingeAngleSignValueAndActuation) {
  // built flat, folded by 0.7 rad with the tip x3 lifted to +z (the first triangle's normal
  // is +z): the row reads -0.7 from the flat rest; built folded, it reads 0, and an
  // activation of 0.3 rad on its group reads -0.3
  const auto flat = two_triangles(0.0);
  const auto folded = two_triangles(0.7, 0);
  const Rows r = evaluate(*flat, positions(*folded), VecX());
  EXPECT_NEAR(r.C[0], -0.7, 1e-12);
  EXPECT_NEAR(folded->hinge_rest[0], -0.7, 1e-12);
  VecX act(1);
  act[0] = 0.3;
  EXPECT_NEAR(evaluate(*folded, positions(*folded), VecX::Zero(1)).C[0], 0.0, 1e-12);
  EXPECT_NEAR(evaluate(*folded, positions(*folded), act).C[0], -0.3, 1e-12);
  EXPECT_EQ(folded->nactgroup, 1);
}

TEST(Shell, StiffnessesAndMasses) {
  const auto m = two_triangles(0.0);
  const double E = 1e9, h = 1e-3;
  EXPECT_NEAR(m->hinge_compliance[0], 12 * std::sqrt(3.0) / (2 * E * h * h * h), 1e-12 * m->hinge_compliance[0]);
  ASSERT_EQ(m->nstretch, 5);
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(m->stretch_compliance[k], 4 / (std::sqrt(3.0) * E * h), 1e-20);
  double total = 0;
  for (double w : m->particle_mass) total += w;
  EXPECT_NEAR(total, 1000.0 * h * 2 * (0.5 * 0.1 * 0.08), 1e-15);
  EXPECT_NEAR(m->particle_radius[0], 0.5 * h, 1e-18);
}

TEST(Shell, BuilderRejectsBadMeshes) {
  const std::vector<Vec3> v = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, -1, 0), Vec3(0, 0, 1)};
  Builder b;
  // the same walk of edge (0, 1) in both triangles
  EXPECT_THROW(b.add_shell(v, {{0, 1, 2}, {0, 1, 3}}, 1e-3, 1e9, 0.3, 1000), std::invalid_argument);
  // three triangles on one edge
  EXPECT_THROW(b.add_shell(v, {{0, 1, 2}, {1, 0, 3}, {1, 0, 4}}, 1e-3, 1e9, 0.3, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_shell(v, {{0, 1, 1}}, 1e-3, 1e9, 0.3, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_shell(v, {{0, 1, 9}}, 1e-3, 1e9, 0.3, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_shell({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)}, {{0, 1, 2}}, 1e-3, 1e9, 0.3, 1000),
               std::invalid_argument);  // collinear: zero area
  EXPECT_THROW(b.add_shell(v, {{0, 1, 2}}, 0.0, 1e9, 0.3, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_shell(v, {{0, 1, 2}}, 1e-3, 1e9, 0.5, 1000), std::invalid_argument);
  EXPECT_THROW(b.add_shell(v, {{0, 1, 2}}, 1e-3, 1e9, 0.3, 1000), std::invalid_argument);  // unused vertices
  EXPECT_EQ(b.build()->nparticle, 0);
  EXPECT_THROW(b.set_hinge_group(0, 0), std::invalid_argument);
}

TEST(Shell, DragForceAndItsVelocityJacobian) {
  // the seed's §5.4 drag on two triangles: -dF/dv against central differences of F in v,
  // the force against the formula for a node of one triangle moving along the normal
  Builder b;
  b.add_shell({Vec3(0, 0, 0), Vec3(0.1, 0, 0), Vec3(0.05, 0.08, 0), Vec3(0.05, -0.08, 0.02)},
              {{0, 1, 2}, {1, 0, 3}}, 1e-3, 1e9, 0.3, 1000.0);
  b.set_medium(1000.0, 0.5, 0.0);
  const auto m = b.build();
  ASSERT_TRUE(has_drag(*m));
  expect_medium_jacobian_matches_differences(*m, 2);
  const VecX x = positions(*m);
  VecX f;
  std::vector<Mat3> D;
  // vertex 2 belongs to triangle (0, 1, 2) only (normal +z, area 0.004): moving at w along +z
  VecX v2 = VecX::Zero(x.size());
  v2[3 * 2 + 2] = 2.0;
  drag_forces(*m, x, v2, f, D);
  EXPECT_NEAR(f[3 * 2 + 2], -0.5 * 1000.0 * 0.5 * (0.004 / 3) * 4.0, 1e-12);
  EXPECT_NEAR(f.segment<2>(3 * 2).norm(), 0.0, 1e-15);
}

TEST(Shell, SkinFrictionAndItsVelocityJacobian) {
  // skin friction (ncpgym's, not the seed's) with the seed's drag on the same two triangles:
  // -dF/dv against central differences; vertex 2 sliding in its triangle's plane at 2 m/s
  // along x feels -rho C_f A / 3 |v_t| v_t along x and nothing along the normal
  Builder b;
  b.add_shell({Vec3(0, 0, 0), Vec3(0.1, 0, 0), Vec3(0.05, 0.08, 0), Vec3(0.05, -0.08, 0.02)},
              {{0, 1, 2}, {1, 0, 3}}, 1e-3, 1e9, 0.3, 1000.0);
  b.set_medium(1000.0, 0.5, 0.0, 0.004);
  const auto m = b.build();
  ASSERT_TRUE(has_drag(*m));
  EXPECT_EQ(m->skin_friction, 0.004);
  expect_medium_jacobian_matches_differences(*m, 3);
  const VecX x = positions(*m);
  VecX f;
  std::vector<Mat3> D;
  VecX v2 = VecX::Zero(x.size());
  v2[3 * 2 + 0] = 2.0;
  drag_forces(*m, x, v2, f, D);
  EXPECT_NEAR(f[3 * 2 + 0], -1000.0 * 0.004 * (0.004 / 3) * 4.0, 1e-12);
  EXPECT_NEAR(f[3 * 2 + 1], 0.0, 1e-15);
  EXPECT_NEAR(f[3 * 2 + 2], 0.0, 1e-15);
}

}  // namespace
}  // namespace ncpgym
