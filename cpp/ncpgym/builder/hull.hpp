// Convex hulls for the Model (written for ncpgym). The hull itself comes from a library
// (MuJoCo's compiler runs qhull at load time: python/ncpgym/models/loader.py passes its
// triangles); this file turns a triangulated hull into the collision structure: hull
// vertices only, coplanar triangles merged into polygons, vertex adjacency for hill
// climbing. Small vertex sets without triangles get a brute-force hull.
#pragma once

#include <array>
#include <vector>

#include "ncpgym/model/hull.hpp"

namespace ncpgym {

// Largest vertex set hull_from_points() accepts (brute force is O(V^4)).
constexpr int kMaxBruteForceHullVertices = 64;

// The hull of `points` given the triangles of its surface (indices into points, any
// orientation; interior points are allowed and dropped). Throws std::invalid_argument on
// an index out of range or a hull without volume.
ConvexHull hull_from_triangles(const std::vector<Vec3>& points, const std::vector<std::array<int, 3>>& tris);

// The hull of at most kMaxBruteForceHullVertices points by brute force over vertex triples.
ConvexHull hull_from_points(const std::vector<Vec3>& points);

// A box's hull (8 vertices, 6 faces) with half-sizes h.
ConvexHull box_hull(const Vec3& h);

}  // namespace ncpgym
