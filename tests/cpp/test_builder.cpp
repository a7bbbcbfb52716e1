// The Builder rejects degenerate input with a message naming the item.
#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace ncpgym {
namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Builder, RejectsDegenerateBodies) {
  Builder b;
  EXPECT_NE(error_of([&] { b.add_body(0, Vec3::Zero(), Quat::Identity(), -1, Vec3::Zero(), Mat3::Identity(), "neg"); })
                .find("negative mass"),
            std::string::npos);
  Mat3 bad = Mat3::Identity();
  bad(0, 0) = -1;
  EXPECT_NE(error_of([&] { b.add_body(0, Vec3::Zero(), Quat::Identity(), 1, Vec3::Zero(), bad, "x"); })
                .find("positive semi-definite"),
            std::string::npos);
  EXPECT_NE(error_of([&] { b.add_body(5, Vec3::Zero(), Quat::Identity(), 1, Vec3::Zero(), Mat3::Identity()); })
                .find("parent id 5"),
            std::string::npos);
}

TEST(Builder, RejectsZeroMassMovingSubtree) {
  Builder b;
  const int id = b.add_body(0, Vec3::Zero(), Quat::Identity(), 0.0, Vec3::Zero(), Mat3::Zero(), "ghost");
  JointSpec j;
  b.add_joint(id, j);
  const std::string e = error_of([&] { b.build(); });
  EXPECT_NE(e.find("'ghost'"), std::string::npos);
  EXPECT_NE(e.find("zero mass in a moving subtree"), std::string::npos);
}

TEST(Builder, RejectsBadJoints) {
  Builder b;
  const int a = b.add_body(0, Vec3::Zero(), Quat::Identity(), 1, Vec3::Zero(), Mat3::Identity(), "a");
  const int c = b.add_body(a, Vec3::Zero(), Quat::Identity(), 1, Vec3::Zero(), Mat3::Identity(), "c");
  JointSpec j;
  j.axis = Vec3::Zero();
  EXPECT_NE(error_of([&] { b.add_joint(a, j); }).find("zero joint axis"), std::string::npos);
  JointSpec f;
  f.type = JointType::Free;
  EXPECT_NE(error_of([&] { b.add_joint(c, f); }).find("parent is the world"), std::string::npos);
  JointSpec h;
  b.add_joint(c, h);
  EXPECT_NE(error_of([&] { b.add_joint(a, h); }).find("body order"), std::string::npos);
}

TEST(Builder, RejectsDegenerateGeomsAndMeshes) {
  Builder b;
  GeomSpec g;
  g.type = GeomType::Sphere;
  g.size = Vec3::Zero();
  EXPECT_NE(error_of([&] { b.add_geom(0, g); }).find("radius must be > 0"), std::string::npos);
  g.type = GeomType::Box;
  g.size = Vec3(1, 0, 1);
  EXPECT_NE(error_of([&] { b.add_geom(0, g); }).find("half-sizes"), std::string::npos);
  EXPECT_NE(error_of([&] { b.add_mesh({}, "empty"); }).find("at least 4 vertices"), std::string::npos);
  EXPECT_NE(error_of([&] { b.add_mesh({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0)}, "flat"); })
                .find("coplanar"),
            std::string::npos);
  g.type = GeomType::Mesh;
  g.mesh = 3;
  EXPECT_NE(error_of([&] { b.add_geom(0, g); }).find("mesh id 3"), std::string::npos);
}

TEST(Builder, LayoutFollowsMujoco) {
  auto m = test::random_tree(6, 7, true);
  EXPECT_EQ(m->jnt_qposadr[0], 0);
  EXPECT_EQ(m->nq - m->nv, 1 + [&] {
    int nball = 0;
    for (auto t : m->jnt_type) nball += t == JointType::Ball;
    return nball;
  }());
  for (int i = 0; i < m->nv; ++i) EXPECT_LT(m->dof_parent[i], i);
  EXPECT_THROW(m->body_id("nope"), std::out_of_range);
  EXPECT_EQ(m->body_id("b3"), 3);
}

}  // namespace
}  // namespace ncpgym
