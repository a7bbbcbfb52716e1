// The geometry of one geom at a world state: its pose, its shape for support-function
// queries (collision/convex.hpp) and two radii the broad and narrow phases bound it by.
// Shared by detection, the broad phase, soft-surface contacts and the solver's refresh.
#pragma once

#include "ncpgym/collision/convex.hpp"
#include "ncpgym/dynamics/data.hpp"

namespace ncpgym {

// A geom's world pose, and its shape for support-function queries.
GeomPose geom_pose(const Model& m, const Data& d, int g);
collision::Shape geom_shape(const Model& m, int g, const GeomPose& p);

// Radius of the largest ball about the geom's origin inside it (0 for planes).
double inner_radius(const Model& m, int g);

// Bounding-sphere radius of a geom (infinite for planes).
double geom_rbound(const Model& m, int g);

}  // namespace ncpgym
