// The broad phase: listed pairs and sweep and prune against a brute-force loop over all
// geom pairs with MuJoCo's filtering rules written out here (same body, both static,
// parent-child, excluded bodies, contype/conaffinity bits) and boxes from the geoms' own
// extents; the listing threshold; and listed pairs surviving serialisation.
#include <gtest/gtest.h>

#include <random>

#include "ncpgym/collision/broadphase.hpp"
#include "ncpgym/collision/geom.hpp"
#include "ncpgym/dynamics/kinematics.hpp"
#include "ncpgym/model/serialize.hpp"
#include "fixtures.hpp"

using namespace ncpgym;

namespace {

// A random articulated tree on a floor (spheres, capsules, boxes on each body, random
// contype/conaffinity bits, one excluded body pair) plus `nfree` free boxes.
std::shared_ptr<const Model> geom_tree(int nbody, int nfree, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  Builder b;
  GeomSpec floor;
  floor.type = GeomType::Plane;
  floor.size = Vec3(5, 5, 0.1);
  b.add_geom(0, floor);
  auto add_geoms = [&](int body) {
    const int n = 1 + static_cast<int>(rng() % 2);
    for (int k = 0; k < n; ++k) {
      GeomSpec g;
      g.type = std::array{GeomType::Sphere, GeomType::Capsule, GeomType::Box}[rng() % 3];
      g.size = Vec3(0.05 + 0.05 * std::abs(U(rng)), 0.1 + 0.1 * std::abs(U(rng)), 0.05 + 0.05 * std::abs(U(rng)));
      g.pos = 0.1 * Vec3(U(rng), U(rng), U(rng));
      g.quat = Quat(Vec4(U(rng), U(rng), U(rng), U(rng)).normalized());
      g.contype = 1 + static_cast<int>(rng() % 3);      // 1, 2 or 3
      g.conaffinity = 1 + static_cast<int>(rng() % 3);
      b.add_geom(body, g);
    }
  };
  std::vector<int> bodies{0};
  for (int i = 0; i < nbody; ++i) {
    const int parent = bodies[rng() % bodies.size()];
    const int body = b.add_body(parent, Vec3(0.2 * U(rng), 0.2 * U(rng), parent == 0 ? 1.0 : -0.25), Quat::Identity(),
                                1.0, Vec3::Zero(), Mat3::Identity() * 0.01);
    JointSpec j;
    j.type = parent == 0 ? JointType::Free : JointType::Hinge;
    j.axis = Vec3(U(rng), U(rng), U(rng)).normalized();
    b.add_joint(body, j);
    add_geoms(body);
    bodies.push_back(body);
  }
  if (nbody >= 4) b.exclude_bodies(bodies[1], bodies[3]);
  for (int i = 0; i < nfree; ++i) {
    const int body = b.add_body(0, Vec3(U(rng), U(rng), 0.5 + std::abs(U(rng))), Quat::Identity(), 1.0, Vec3::Zero(),
                                Mat3::Identity() * 0.01);
    JointSpec j;
    j.type = JointType::Free;
    b.add_joint(body, j);
    add_geoms(body);
  }
  return b.build();
}

// MuJoCo's filter, written out independently of collision/filter.cpp.
bool allowed(const Model& m, int g1, int g2) {
  const int b1 = m.geom_body[g1], b2 = m.geom_body[g2];
  const auto is_static = [&](int b) {  // no joint on the path to the world
    for (; b > 0; b = m.body_parent[b])
      if (m.body_jntnum[b] > 0) return false;
    return true;
  };
  if (b1 == b2 || (is_static(b1) && is_static(b2))) return false;
  if ((b1 != 0 && m.body_parent[b2] == b1) || (b2 != 0 && m.body_parent[b1] == b2)) return false;
  for (const auto& e : m.exclude_pairs)
    if (e[0] == std::min(b1, b2) && e[1] == std::max(b1, b2)) return false;
  return (m.geom_contype[g1] & m.geom_conaffinity[g2]) || (m.geom_contype[g2] & m.geom_conaffinity[g1]);
}

// All pairs, tested one by one: filter, then (unless one is a plane) the grown boxes.
std::vector<std::pair<int, int>> brute_force(const Model& m, const std::vector<GeomPose>& pose, double margin,
                                             const double* sweep) {
  std::vector<std::pair<int, int>> out;
  for (int g1 = 0; g1 < m.ngeom; ++g1)
    for (int g2 = g1 + 1; g2 < m.ngeom; ++g2) {
      if (!allowed(m, g1, g2)) continue;
      if (m.geom_type[g1] != GeomType::Plane && m.geom_type[g2] != GeomType::Plane) {
        const Vec3 e1 = geom_half_extents(m, g1, pose[g1].rot).array() + 0.5 * margin + sweep[g1];
        const Vec3 e2 = geom_half_extents(m, g2, pose[g2].rot).array() + 0.5 * margin + sweep[g2];
        if (((pose[g1].pos - pose[g2].pos).cwiseAbs() - e1 - e2).maxCoeff() > 0) continue;
      }
      out.emplace_back(g1, g2);
    }
  return out;
}

}  // namespace

TEST(BroadPhase, ListedAndSweepPairsEqualBruteForceOnRandomTreesAndPiles) {
  int listed_models = 0, swept_models = 0;
  for (unsigned seed = 0; seed < 12; ++seed) {
    // trees alone (few pairs per geom: listed) and trees with a pile of free boxes (swept)
    const auto mp = geom_tree(6 + seed % 5, seed % 2 ? 12 : 0, seed);
    const Model& m = *mp;
    (m.geom_pairs.empty() ? swept_models : listed_models)++;
    Data d(m);
    std::mt19937 rng(100 + seed);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
      VecX q = m.qpos0;
      for (int i = 0; i < m.nq; ++i) q[i] += 0.8 * U(rng);
      kinematics(m, d, q.data(), false);
      std::vector<GeomPose> pose(m.ngeom);
      for (int g = 0; g < m.ngeom; ++g) pose[g] = geom_pose(m, d, g);
      std::vector<double> sweep(m.ngeom);
      for (auto& s : sweep) s = trial % 2 ? 0.05 * std::abs(U(rng)) : 0.0;
      const double margin = 0.01 * trial;
      const auto want = brute_force(m, pose, margin, sweep.data());
      std::vector<std::pair<int, int>> sap, listed;
      candidate_pairs_sweep(m, pose.data(), margin, sweep.data(), sap);
      EXPECT_EQ(sap, want) << "seed " << seed << " trial " << trial;
      if (!m.geom_pairs.empty()) {
        candidate_pairs_listed(m, pose.data(), margin, sweep.data(), listed);
        EXPECT_EQ(listed, want) << "seed " << seed << " trial " << trial;
      }
    }
  }
  EXPECT_GT(listed_models, 0);
  EXPECT_GT(swept_models, 0);
}

TEST(BroadPhase, PairsAreListedUpToEightPerGeomAndSurviveSerialisation) {
  for (unsigned seed = 0; seed < 12; ++seed) {
    const auto mp = geom_tree(6 + seed % 5, seed % 2 ? 12 : 0, seed);
    const Model& m = *mp;
    std::vector<std::array<int, 2>> all;
    for (int g1 = 0; g1 < m.ngeom; ++g1)
      for (int g2 = g1 + 1; g2 < m.ngeom; ++g2)
        if (allowed(m, g1, g2)) all.push_back({g1, g2});
    const bool few = all.size() <= 8u * m.ngeom;
    const std::vector<std::array<int, 2>> none;
    EXPECT_EQ(m.geom_pairs, few ? all : none) << all.size() << " pairs of " << m.ngeom << " geoms";
    const Model back = deserialize_model(serialize_model(m));
    EXPECT_EQ(back.geom_pairs, m.geom_pairs);
    for (int g = 0; g < m.ngeom; ++g) EXPECT_TRUE(back.geom_rot[g].isApprox(m.geom_quat[g].toRotationMatrix(), 1e-15));
  }
}
