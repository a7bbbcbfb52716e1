// Contact pieces against independent truth: NCP functions and friction compliance against
// finite differences and their defining fixed point, narrow-phase distances against
// closed-form geometry, and constraint rows against finite differences of the gap.
#include <gtest/gtest.h>

#include <cmath>

#include "ncpgym/builder/hull.hpp"
#include "ncpgym/collision/convex.hpp"
#include "fixtures.hpp"
#include "ncpgym/collision/detect.hpp"
#include "ncpgym/collision/convex_contact.hpp"
#include "ncpgym/collision/narrowphase.hpp"
#include "ncpgym/constraints/ncp.hpp"
#include "ncpgym/solver/stepper.hpp"

namespace ncpgym {
namespace {

TEST(Ncp, FischerBurmeisterDerivativesMatchFiniteDifferences) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> U(-2, 2);
  const double eps = 1e-7;
  for (int k = 0; k < 200; ++k) {
    const double C = U(rng), l = U(rng), r = std::abs(U(rng)) + 0.1;
    const auto v = ncp::fischer_burmeister(C, l, r);
    const double dC = (ncp::fischer_burmeister(C + eps, l, r).phi - ncp::fischer_burmeister(C - eps, l, r).phi) / (2 * eps);
    const double dl = (ncp::fischer_burmeister(C, l + eps, r).phi - ncp::fischer_burmeister(C, l - eps, r).phi) / (2 * eps);
    EXPECT_NEAR(v.dC, dC, 1e-6);
    EXPECT_NEAR(v.dlambda, dl, 1e-6);
    // phi = 0 exactly on the complementarity set (eq. 17)
    EXPECT_NEAR(ncp::fischer_burmeister(std::abs(C), 0, r).phi, 0, 1e-15);
    EXPECT_NEAR(ncp::fischer_burmeister(0, std::abs(l), r).phi, 0, 1e-15);
  }
  const auto z = ncp::fischer_burmeister(0, 0, 2.0);  // eqs. 26-27
  EXPECT_EQ(z.dC, 0.0);
  EXPECT_EQ(z.dlambda, 2.0);
}

TEST(Ncp, MinimumMapDerivativesMatchFiniteDifferences) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> U(-2, 2);
  const double eps = 1e-7;
  for (int k = 0; k < 200; ++k) {
    const double C = U(rng), l = U(rng), r = std::abs(U(rng)) + 0.1;
    if (std::abs(C - r * l) < 1e-3) continue;  // away from the kink
    const auto v = ncp::minimum_map(C, l, r);
    EXPECT_NEAR(v.phi, std::min(C, r * l), 1e-15);
    EXPECT_NEAR(v.dC, (ncp::minimum_map(C + eps, l, r).phi - ncp::minimum_map(C - eps, l, r).phi) / (2 * eps), 1e-6);
    EXPECT_NEAR(v.dlambda, (ncp::minimum_map(C, l + eps, r).phi - ncp::minimum_map(C, l - eps, r).phi) / (2 * eps), 1e-6);
  }
}

TEST(Ncp, FrictionComplianceIsTheFixedPointOfEqs99To101) {
  // W_FB = |D^T u|^{n+1} / |lambda_f|^{n+1} with the updates of eqs. 99-101, computed
  // here from psi_FB directly; and the minimum-map variant from psi_min (eq. 105).
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> U(0.01, 2);
  for (int k = 0; k < 200; ++k) {
    const double s = U(rng), lf = U(rng), mu_ln = U(rng) + lf * 0.5, r = U(rng);
    const double g = mu_ln - lf;
    const double psi = s + r * g - std::sqrt(s * s + r * r * g * g);
    const double s1 = s - psi, l1 = lf + psi / r;
    EXPECT_NEAR(ncp::friction_w_fb(s, lf, mu_ln, r), s1 / l1, 1e-9 * (1 + s1 / l1));
    const double psim = std::min(s, r * g);
    const double s1m = s - psim, l1m = lf + psim / r;
    EXPECT_NEAR(ncp::friction_w_min(s, lf, mu_ln, r), s1m / l1m, 1e-9 * (1 + s1m / l1m));
  }
  // sticking (no slip, inside the cone): W = 0
  EXPECT_EQ(ncp::friction_w_fb(0.0, 0.2, 1.0, 1.0), 0.0);
}

TEST(Ncp, BoundedFrictionComplianceStaysFiniteOutsideTheCone) {
  // Eq. 104 at s = 0 reflects |lambda_f| about the cone (|lambda_f|^{n+1} = 2 mu_ln - lf):
  // its denominator vanishes at lf = 2 mu_ln and W is unbounded around it. The bounded
  // variant projects instead: W = (s - r g) / mu_ln = |D^T u|^{n+1} / mu_ln for g < 0.
  const double mu_ln = 1.0, r = 0.5;
  EXPECT_GT(ncp::friction_w_fb(1e-9, 2.0, mu_ln, r), 1e6);  // the seed's W blows up
  for (double s : {0.0, 1e-9, 0.3, 2.0})
    for (double lf : {1.01, 2.0, 5.0}) {
      const double g = mu_ln - lf;
      EXPECT_NEAR(ncp::friction_w_fb(s, lf, mu_ln, r, true), (s - r * g) / mu_ln, 1e-15);
      EXPECT_LT(ncp::friction_w_fb(s, lf, mu_ln, r, true), (s + r * lf) / mu_ln + 1e-12);
    }
  // inside the cone it is eq. 104; at the cone boundary both sides give s / mu_ln
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> U(0.01, 2);
  for (int k = 0; k < 100; ++k) {
    const double s = U(rng), mu = U(rng), lf = U(rng) / 2.01 * mu, rr = U(rng);  // lf < mu_ln
    EXPECT_EQ(ncp::friction_w_fb(s, lf, mu, rr, true), ncp::friction_w_fb(s, lf, mu, rr));
    const double in = ncp::friction_w_fb(s, mu * (1 - 1e-9), mu, rr, true);
    const double out = ncp::friction_w_fb(s, mu * (1 + 1e-9), mu, rr, true);
    EXPECT_NEAR(in, s / mu, 1e-6 * (1 + s / mu));
    EXPECT_NEAR(out, s / mu, 1e-6 * (1 + s / mu));
  }
}

TEST(Ncp, EllipticFrictionWithEqualCoefficientsIsTheIsotropicRow) {
  // Two sliding rows with one coefficient mu: the elliptic cone is the isotropic one, and
  // the change of variables (r~ = mu^2 r) gives the isotropic row's W and value exactly;
  // with cone_return the offset of friction_return. Catches a scaling by mu instead of mu^2.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-2, 2);
  for (int k = 0; k < 200; ++k) {
    const double mu = std::abs(U(rng)) + 0.05, ln = std::abs(U(rng)) + 0.01, r = std::abs(U(rng)) + 0.1;
    const double lam[2] = {U(rng), U(rng)}, slip[2] = {U(rng), U(rng)}, m2[2] = {mu, mu}, rr[2] = {r, r};
    for (int fb = 0; fb < 2; ++fb) {
      double W[2], phi[2];
      ncp::elliptic_friction(2, m2, lam, slip, rr, ln, fb, true, true, W, phi);
      const double s = std::hypot(slip[0], slip[1]), lf = std::hypot(lam[0], lam[1]);
      const double Wiso = fb ? ncp::friction_w_fb(s, lf, mu * ln, r, true) : ncp::friction_w_min(s, lf, mu * ln, r);
      const ncp::Offset o = ncp::friction_return(lam[0], lam[1], slip[0], slip[1], mu * ln, r);
      EXPECT_NEAR(W[0], Wiso, 1e-9 * (1 + Wiso));
      EXPECT_NEAR(W[1], Wiso, 1e-9 * (1 + Wiso));
      EXPECT_NEAR(phi[0], slip[0] + Wiso * lam[0] - o.x, 1e-9 * (1 + std::abs(phi[0])));
      EXPECT_NEAR(phi[1], slip[1] + Wiso * lam[1] - o.y, 1e-9 * (1 + std::abs(phi[1])));
    }
  }
}

TEST(Ncp, EllipticFrictionVanishesAtMaximalDissipationOnTheEllipse) {
  // The solution the rows encode (MuJoCo's elliptic cone, maximal dissipation): for slip v
  // and coefficients mu_i, lambda_i = -ln mu_i^2 v_i / |mu o v| lies on the ellipse
  // sum (lambda_i / mu_i)^2 = ln^2 and zeroes every row's value (FB and minimum map);
  // scaled off the ellipse it does not.
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int k = 0; k < 100; ++k) {
    const int n = 2 + k % 4;
    double mu[5], v[5], lam[5], rr[5], W[5], phi[5], sm = 0;
    for (int i = 0; i < n; ++i) {
      mu[i] = i < 2 ? 0.3 + std::abs(U(rng)) : 0.001 + 0.01 * std::abs(U(rng));  // sliding, then lengths
      v[i] = U(rng);
      rr[i] = 0.5 + std::abs(U(rng));
      sm += mu[i] * mu[i] * v[i] * v[i];
    }
    const double ln = 2.0;
    for (int i = 0; i < n; ++i) lam[i] = -ln * mu[i] * mu[i] * v[i] / std::sqrt(sm);
    for (int fb = 0; fb < 2; ++fb) {
      ncp::elliptic_friction(n, mu, lam, v, rr, ln, fb, true, true, W, phi);
      for (int i = 0; i < n; ++i) EXPECT_NEAR(phi[i], 0.0, 1e-9) << n << " " << i;
    }
    for (int i = 0; i < n; ++i) lam[i] *= 0.9;
    ncp::elliptic_friction(n, mu, lam, v, rr, ln, true, true, true, W, phi);
    double worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, std::abs(phi[i]));
    EXPECT_GT(worst, 1e-6);
  }
}

GeomPose pose(const Vec3& p, const Quat& q = Quat::Identity()) { return {p, q.toRotationMatrix()}; }

TEST(Narrowphase, DistancesMatchClosedForm) {
  using namespace collision;
  Points pts;
  sphere_sphere(pose(Vec3(0, 0, 1)), 0.3, pose(Vec3(0, 0, 0)), 0.5, 1.0, pts);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].dist, 0.2, 1e-15);
  EXPECT_NEAR(pts[0].n.z(), 1.0, 1e-15);
  pts.clear();
  // sphere over a box face and over a box corner
  sphere_box(pose(Vec3(0, 0, 1.5)), 0.25, pose(Vec3::Zero()), Vec3(1, 1, 1), 1.0, pts);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].dist, 0.25, 1e-15);
  pts.clear();
  sphere_box(pose(Vec3(2, 2, 2)), 0.5, pose(Vec3::Zero()), Vec3(1, 1, 1), 2.0, pts);
  EXPECT_NEAR(pts[0].dist, std::sqrt(3.0) - 0.5, 1e-14);
  pts.clear();
  // crossed capsules, one above the other
  capsule_capsule(pose(Vec3(0, 0, 1), Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()))), 0.1, 1.0,
                  pose(Vec3(0, 0, 0), Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()))), 0.2, 1.0, 1.0, pts);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].dist, 0.7, 1e-14);
  pts.clear();
  // a rotated box resting on a plane touches it with its lowest corner
  const Quat tilt(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()));
  box_plane(pose(Vec3(0, 0, 2), tilt), Vec3(0.5, 0.4, 0.3), pose(Vec3::Zero()), 10.0, pts);
  double lowest = 1e9;
  for (int i = 0; i < 8; ++i)
    lowest = std::min(lowest, (Vec3(0, 0, 2) + tilt * Vec3((i & 1 ? 1 : -1) * 0.5, (i & 2 ? 1 : -1) * 0.4, (i & 4 ? 1 : -1) * 0.3)).z());
  double dmin = 1e9;
  for (const auto& p : pts) dmin = std::min(dmin, p.dist);
  EXPECT_NEAR(dmin, lowest, 1e-14);
}

TEST(Narrowphase, StackedBoxesGetAFourPointManifold) {
  using namespace collision;
  Points pts;
  // box A (upper, smaller, yawed 0.3 rad) resting 1 mm into box B
  const Quat yaw(Eigen::AngleAxisd(0.3, Vec3::UnitZ()));
  box_box(pose(Vec3(0.05, 0, 0.399), yaw), Vec3(0.1, 0.1, 0.1), pose(Vec3::Zero()), Vec3(0.3, 0.3, 0.3), 0.01, pts);
  ASSERT_EQ(pts.size(), 4u);
  for (const auto& p : pts) {
    EXPECT_NEAR(p.dist, -0.001, 1e-12);
    EXPECT_NEAR(p.n.z(), 1.0, 1e-12);
    EXPECT_NEAR(p.b.z(), 0.3, 1e-12);  // on B's top face
  }
  // edge-on-edge: two boxes rotated 45 deg about orthogonal horizontal axes
  pts.clear();
  const Quat ra(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX())), rb(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitY()));
  const double reach = std::sqrt(2.0) * 0.5;
  box_box(pose(Vec3(0, 0, 2 * reach - 0.01), ra), Vec3(0.5, 0.5, 0.5), pose(Vec3::Zero(), rb), Vec3(0.5, 0.5, 0.5), 0.05, pts);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].dist, -0.01, 1e-9);
}

TEST(Solver, ContactRowsMatchFiniteDifferencesOfTheGap) {
  // A free box touching a plane while spinning and sliding: at a Newton iterate, the
  // normal row J_n must satisfy d/dh C(q- + h G u) = J_n u (eq. 44). We check it through
  // the simulator: with zero gravity and no contact force (separating), the gap changes
  // by h J_n u per step to first order.
  Builder b;
  b.set_gravity(Vec3::Zero());
  b.set_timestep(1e-4);
  GeomSpec plane;
  plane.type = GeomType::Plane;
  b.add_geom(0, plane);
  test::add_free_box(b, Vec3::Zero(), Quat::Identity(), 1.0, Mat3::Identity() * 0.1, Vec3(0.1, 0.2, 0.3));
  auto m = b.build();
  SolverOptions o;
  o.collision.margin = 1.0;
  Stepper st(m, o);
  State s(*m);
  s.q << 0, 0, 0.5, 1, 0, 0, 0;
  s.q.segment<4>(3) = Vec4(0.9, 0.1, 0.3, -0.2).normalized();
  s.u << 0.3, -0.2, 0.5, 1.0, -2.0, 0.5;  // moving away: contacts stay inactive
  Data d(*m);
  kinematics(*m, d, s.q.data());
  std::vector<Contact> cs;
  CollisionOptions co;
  co.margin = 1.0;
  detect_contacts(*m, d, co, cs);
  ASSERT_FALSE(cs.empty());
  const double h = 1e-6;
  VecX q2(m->nq);
  integrate(*m, s.q.data(), s.u.data(), h, q2.data());
  Data d2(*m);
  kinematics(*m, d2, q2.data());
  for (const auto& c : cs) {
    auto gap = [&](const Data& dd) {
      const Vec3 a = dd.xpos[c.body1] + dd.xmat[c.body1] * c.local1 - c.radius1 * c.normal;
      const Vec3 bb = dd.xpos[c.body2] + dd.xmat[c.body2] * c.local2 + c.radius2 * c.normal;
      return c.normal.dot(a - bb);
    };
    // row from the point Jacobian of body 1 (body 2 is the static world)
    const Vec3 a = d.xpos[c.body1] + d.xmat[c.body1] * c.local1 - c.radius1 * c.normal;
    double Jn_u = 0;
    for (int j = m->body_lastdof[c.body1]; j >= 0; j = m->dof_parent[j]) {
      const Vec3 w = d.cdof.col(j).head<3>();
      Jn_u += c.normal.dot(d.cdof.col(j).tail<3>() + w.cross(a)) * s.u[j];
    }
    EXPECT_NEAR((gap(d2) - gap(d)) / h, Jn_u, 1e-5);
    EXPECT_NEAR(gap(d), c.dist, 1e-12);
  }
  st.step(s);  // separating: no impulse
  EXPECT_LT(st.contact_forces().cwiseAbs().maxCoeff(), 1e-9);
}

}  // namespace
}  // namespace ncpgym

namespace ncpgym {
namespace {

TEST(Narrowphase, HullOfABoxHasSixFacesAndConvexPairMatchesBoxBox) {
  using namespace collision;
  const ConvexHull box = box_hull(Vec3(0.3, 0.2, 0.1));
  const ConvexHull hull = hull_from_points(box.vert);  // brute force over the 8 corners
  ASSERT_EQ(hull.faces.size(), 6u);
  for (const auto& f : hull.faces) EXPECT_EQ(f.verts.size(), 4u);
  for (int v = 0; v < 8; ++v) EXPECT_EQ(hull.adj_start[v + 1] - hull.adj_start[v], 3);  // a cube's vertex degree
  // a tilted small box resting into a big one: support-function path == box-box path
  const Quat tilt(Eigen::AngleAxisd(0.2, Vec3(1, 1, 0).normalized()));
  const GeomPose A{Vec3(0.05, -0.02, 0.33), tilt.toRotationMatrix()}, B{Vec3::Zero(), Mat3::Identity()};
  Points p1, p2;
  box_box(A, Vec3(0.1, 0.1, 0.1), B, Vec3(0.3, 0.3, 0.3), 0.05, p1);
  const ConvexHull ha = box_hull(Vec3(0.1, 0.1, 0.1)), hb = box_hull(Vec3(0.3, 0.3, 0.3));
  Shape sa, sb;
  sa.kind = sb.kind = CoreKind::Box;
  sa.pos = A.pos;
  sa.rot = A.rot;
  sa.size = Vec3(0.1, 0.1, 0.1);
  sa.hull = &ha;
  sb.size = Vec3(0.3, 0.3, 0.3);
  sb.hull = &hb;
  convex_pair(sa, sb, 0.05, p2);
  ASSERT_FALSE(p1.empty());
  double d1 = 1e9, d2 = 1e9;
  for (const auto& p : p1) d1 = std::min(d1, p.dist);
  for (const auto& p : p2) d2 = std::min(d2, p.dist);
  EXPECT_NEAR(d1, d2, 1e-12);
  EXPECT_NEAR(p2[0].n.z(), 1.0, 1e-12);
  // the deepest corner of the tilted box, computed directly
  double lowest = 1e9;
  for (const Vec3& v : ha.vert) lowest = std::min(lowest, (A.pos + A.rot * v).z());
  EXPECT_NEAR(d2, lowest - 0.3, 1e-12);
}

}  // namespace
}  // namespace ncpgym

namespace ncpgym {
namespace {

TEST(Solver, EveryPositionRowMatchesFiniteDifferences) {
  // One model with every position-level row kind: contacts (box-plane, sphere-box,
  // particle-plane), a joint limit, a joint spring and a servo (compliant rows), a
  // particle distance constraint and a particle attachment to a moving body.
  // For each row, (C(q(+e), x(+e)) - C(q(-e), x(-e))) / 2e = J [u; v] (eq. 44).
  Builder b;
  b.set_timestep(0.01);
  GeomSpec plane;
  plane.type = GeomType::Plane;
  b.add_geom(0, plane);
  const int box = b.add_body(0, Vec3::Zero(), Quat::Identity(), 2.0, Vec3::Zero(), Mat3::Identity() * 0.05);
  JointSpec free;
  free.type = JointType::Free;
  b.add_joint(box, free);
  GeomSpec g;
  g.type = GeomType::Box;
  g.size = Vec3(0.2, 0.15, 0.1);
  b.add_geom(box, g);
  const int arm = test::add_servo_arm(b);
  GeomSpec ball;
  ball.type = GeomType::Sphere;
  ball.size = Vec3(0.1, 0, 0);
  ball.pos = Vec3(0, 0, -0.6);
  b.add_geom(arm, ball);
  const int p0 = b.add_particle(Vec3(1.5, 0, 0.02), 0.1, 0.02);
  const int p1 = b.add_particle(Vec3(1.5, 0.2, 0.3), 0.1, 0.0);
  b.add_distance(p0, p1, 1e-3);
  b.add_attachment(p1, arm, Vec3(0.5, 0.2, -0.7));
  auto m = b.build();

  SolverOptions o;
  o.collision.margin = 0.5;
  o.implicit_springs = false;  // spring and servo as compliant rows, to check them too
  Stepper st(m, o);
  State s(*m);
  s.q << 0.1, 0.05, 0.11, 1, 0, 0, 0, 0.29;
  s.q.segment<4>(3) = Vec4(0.98, 0.05, -0.1, 0.02).normalized();
  s.ctrl << 0.2;
  const ConstraintRows rows = st.constraint_rows(s);
  int counts[5] = {0, 0, 0, 0, 0};
  for (auto k : rows.kind) counts[static_cast<int>(k)]++;
  EXPECT_GT(counts[0], 4);  // normal rows: box corners, ball, particle
  EXPECT_GE(counts[2] + counts[3], 1);  // the limit
  EXPECT_EQ(counts[4], 1 + 1 + 1 + 3);  // spring, servo, distance, attachment

  std::mt19937 rng(4);
  std::normal_distribution<double> N(0, 1);
  VecX U(m->nv + 3 * m->nparticle);
  for (int i = 0; i < U.size(); ++i) U[i] = N(rng);
  const double e = 1e-6;
  auto at = [&](double sgn) {
    VecX q(m->nq), x(3 * m->nparticle);
    const VecX u = U.head(m->nv);
    integrate(*m, s.q.data(), u.data(), sgn * e, q.data());
    x = s.x + sgn * e * U.tail(3 * m->nparticle);
    return st.constraint_rows_at(q, x).C;
  };
  const VecX dC = (at(1) - at(-1)) / (2 * e);
  const VecX JU = rows.J * U;
  for (size_t r = 0; r < rows.kind.size(); ++r) {
    if (rows.kind[r] == RowKind::Friction) continue;  // velocity-level rows
    EXPECT_NEAR(dC[r], JU[r], 1e-6 * (1 + std::abs(JU[r]))) << "row " << r << " kind " << static_cast<int>(rows.kind[r]);
  }
}

}  // namespace
}  // namespace ncpgym

namespace ncpgym {
namespace {

TEST(Narrowphase, SphereAgainstPolyhedronMatchesSphereAgainstBox) {
  // Closest points on a box given as a polyhedron (faces, edges, vertices) equal the
  // closed-form box test, inside and outside, at random rotated poses.
  using namespace collision;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  const Vec3 half(0.3, 0.2, 0.1);
  const ConvexHull P = box_hull(half);
  for (int k = 0; k < 500; ++k) {
    const Quat r(Vec4(U(rng), U(rng), U(rng), U(rng)).normalized());
    const GeomPose box{Vec3(U(rng), U(rng), U(rng)) * 0.1, r.toRotationMatrix()};
    const GeomPose ball{Vec3(U(rng), U(rng), U(rng)) * 0.6, Mat3::Identity()};
    Points a, b;
    sphere_box(ball, 0.05, box, half, 10.0, a);
    sphere_poly(ball, 0.05, box, P, 10.0, b);
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_NEAR(a[0].dist, b[0].dist, 1e-12) << k;
    EXPECT_LT((a[0].b - b[0].b).norm(), 1e-9) << k;
  }
}

}  // namespace
}  // namespace ncpgym

namespace ncpgym {
namespace {

TEST(Solver, SpringsFoldedIntoHMatchSpringsAsCompliantRows) {
  // A hinge pendulum with a stiff spring and a stiff servo: eliminating the linear
  // compliant rows into H (default) must give the trajectory of the rows solved by Newton.
  Builder b;
  b.set_timestep(1.0 / 120);
  const int arm = b.add_body(0, Vec3::Zero(), Quat::Identity(), 0.5, Vec3(0, 0, -0.4), Mat3::Identity() * 1e-3);
  JointSpec hinge;
  hinge.axis = Vec3::UnitY();
  hinge.stiffness = 400;
  hinge.springref = 0.3;
  hinge.damping = 0.1;
  const int j = b.add_joint(arm, hinge);
  b.add_actuator(j, ActuatorType::Position, 2.0, true, -1, 1, 3000.0, 5.0);
  const int arm2 = b.add_body(arm, Vec3(0, 0, -0.4), Quat::Identity(), 0.3, Vec3(0, 0, -0.3), Mat3::Identity() * 1e-3);
  hinge.stiffness = 50;
  b.add_joint(arm2, hinge);
  auto m = b.build();
  SolverOptions rows;
  rows.implicit_springs = false;
  rows.newton_iterations = 30;  // the damped iteration converges to the folded solution
  Stepper folded(m, SolverOptions()), solved(m, rows);
  State s1(*m), s2(*m);
  for (int k = 0; k < 240; ++k) {
    s1.ctrl[0] = s2.ctrl[0] = 0.4 * std::sin(0.05 * k);
    folded.step(s1);
    solved.step(s2);
    EXPECT_EQ(folded.stats().newton_iterations, 0);  // no rows left at all
  }
  EXPECT_LT((s1.q - s2.q).norm(), 1e-9);
  EXPECT_LT((s1.u - s2.u).norm(), 1e-8);
  EXPECT_GT(s1.u.norm(), 0.05);  // it does move
}

}  // namespace
}  // namespace ncpgym

namespace ncpgym {
namespace {

TEST(Solver, PosesKeptFromTheRefreshGiveBitwiseTheSameStepsAsFreshOnes) {
  // A step's contact refresh poses every body at the step's result; the next step and the
  // Batch's observations reuse them (Stepper::poses_at) only for that exact q. A stepper that
  // reuses them and fresh steppers (nothing kept) must agree bit for bit, step after step.
  // a box with a swinging capsule arm tumbling on a floor: contacts come and go
  GeomSpec plane;
  plane.type = GeomType::Plane;
  Builder fb;
  const int body =
      test::add_free_box(fb, Vec3(0, 0, 0.3), Quat::Identity(), 1.0, Mat3::Identity() * 0.02, Vec3(0.1, 0.15, 0.05));
  const int arm = fb.add_body(body, Vec3(0.1, 0, 0), Quat::Identity(), 0.3, Vec3(0.1, 0, 0), Mat3::Identity() * 0.005);
  JointSpec hinge;
  hinge.type = JointType::Hinge;
  hinge.axis = Vec3(0, 1, 0);
  fb.add_joint(arm, hinge);
  GeomSpec cap;
  cap.type = GeomType::Capsule;
  cap.size = Vec3(0.03, 0.1, 0);
  cap.quat = Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()));
  cap.pos = Vec3(0.1, 0, 0);
  fb.add_geom(arm, cap);
  fb.add_geom(0, plane);
  fb.set_timestep(0.01);
  auto world = fb.build();
  SolverOptions o;
  o.warm_start = false;  // fresh steppers remember no impulses; this test is about the poses
  Stepper kept(world, o);
  State s(*world), fresh_state(*world);
  s.q.segment<4>(3) = Vec4(0.95, 0.2, 0.1, 0.05).normalized();
  s.u << 0.5, 0, 0, 1.0, -2.0, 0.5, 3.0;
  fresh_state = s;
  int reused = 0;
  for (int k = 0; k < 150; ++k) {
    if (kept.poses_at(s.q)) {
      ++reused;
      Data d(*world);
      kinematics(*world, d, s.q.data(), false);
      const Data& p = *kept.poses_at(s.q);
      for (int bb = 0; bb < world->nbody; ++bb) {
        ASSERT_TRUE((p.xpos[bb].array() == d.xpos[bb].array()).all());
        ASSERT_TRUE((p.xmat[bb].array() == d.xmat[bb].array()).all());
      }
      VecX other = s.q;
      other[0] += 1e-12;
      EXPECT_EQ(kept.poses_at(other), nullptr);
    }
    kept.step(s);
    Stepper fresh(world, o);  // nothing kept from earlier steps
    fresh.step(fresh_state);
    ASSERT_TRUE((s.q.array() == fresh_state.q.array()).all()) << "step " << k;
    ASSERT_TRUE((s.u.array() == fresh_state.u.array()).all()) << "step " << k;
  }
  EXPECT_GT(reused, 100);
}

}  // namespace
}  // namespace ncpgym
