// Convex shapes through their support functions, and the distance / penetration between
// two of them: GJK (Gilbert, Johnson, Keerthi 1988) for the distance and witness points of
// separated shapes, EPA (van den Bergen 2001) for the depth and normal of overlapping ones
// (written for ncpgym, after Ericson, "Real-Time Collision Detection", 2004, §9.5).
//
// A shape is a core (point, segment, box, cylinder or hull) grown by a radius, so spheres
// (point + r) and capsules (segment + r) are exact: GJK and EPA run on the cores and the
// radii are subtracted afterwards. Cylinders and ellipsoids have their true support
// functions (no prism, no polytope).
#pragma once

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/model/hull.hpp"

namespace ncpgym::collision {

enum class CoreKind { Point, Segment, Box, Cylinder, Ellipsoid, Hull };

struct Shape {
  CoreKind kind = CoreKind::Point;
  Vec3 pos = Vec3::Zero();  // world pose of the geom frame
  Mat3 rot = Mat3::Identity();
  Vec3 size = Vec3::Zero();  // segment: [., half, .]; box, ellipsoid: half-sizes; cylinder: [r, half, .]
  const ConvexHull* hull = nullptr;  // CoreKind::Hull (also set for boxes: their faces)
  double radius = 0;                 // sphere / capsule radius grown around the core
  mutable int hint = 0;              // hill-climbing start for hull supports

  // The core's farthest point in world direction d (any length).
  Vec3 support(const Vec3& d) const;
};

// Result of convex_distance: dist = n . (a - b), negative when the cores overlap or the
// radii overlap; a on shape A's surface, b on B's; n unit, from B to A. a_core/b_core are
// the core points (a = a_core - radiusA n, b = b_core + radiusB n).
struct ConvexResult {
  double dist = 0;
  Vec3 a = Vec3::Zero(), b = Vec3::Zero(), n = Vec3::UnitZ();
  Vec3 a_core = Vec3::Zero(), b_core = Vec3::Zero();
  bool ok = true;  // false: degenerate input (no direction could be found)
};

// Signed distance between shapes A and B with witness points and normal.
ConvexResult convex_distance(const Shape& A, const Shape& B);

}  // namespace ncpgym::collision
