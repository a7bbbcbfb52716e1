// Narrow-phase tests between primitive pairs. Each appends the witness pairs of geom 1
// (first argument) against geom 2 whose distance is below `margin`, with normals pointing
// from geom 2 to geom 1. Face contacts return manifolds (up to 4 points for box faces,
// the two end caps of a capsule) so resting bodies are supported over an area.
#pragma once

#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/model/hull.hpp"

namespace ncpgym::collision {

// geom 2 is a plane through pose.pos with normal pose.rot.col(2) (half-space below)
void sphere_plane(const GeomPose& s, double r, const GeomPose& p, double margin, Points& out);
void capsule_plane(const GeomPose& c, double r, double half, const GeomPose& p, double margin, Points& out);
void box_plane(const GeomPose& b, const Vec3& half, const GeomPose& p, double margin, Points& out);
void cylinder_plane(const GeomPose& c, double r, double half, const GeomPose& p, double margin, Points& out);
// An ellipsoid of semi-axes `size` (geom frame) on a plane: its support point, one contact.
void ellipsoid_plane(const GeomPose& e, const Vec3& size, const GeomPose& p, double margin, Points& out);
void mesh_plane(const GeomPose& m, const ConvexHull& hull, const GeomPose& p, double margin, Points& out);

void sphere_sphere(const GeomPose& a, double ra, const GeomPose& b, double rb, double margin, Points& out);
void sphere_capsule(const GeomPose& a, double ra, const GeomPose& b, double rb, double hb, double margin, Points& out);
void capsule_capsule(const GeomPose& a, double ra, double ha, const GeomPose& b, double rb, double hb, double margin, Points& out);
void sphere_box(const GeomPose& a, double ra, const GeomPose& b, const Vec3& hb, double margin, Points& out);
void capsule_box(const GeomPose& a, double ra, double ha, const GeomPose& b, const Vec3& hb, double margin, Points& out);
void box_box(const GeomPose& a, const Vec3& ha, const GeomPose& b, const Vec3& hb, double margin, Points& out);

// Sphere against a convex hull (exact closest points: face interiors, then edges).
// Capsules against hulls go through convex_pair (convex_contact.hpp): per-end closest
// points gave each end its own normal, up to 18 degrees off the pair's in deep overlaps.
void sphere_poly(const GeomPose& a, double ra, const GeomPose& b, const ConvexHull& pb, double margin, Points& out);

}  // namespace ncpgym::collision
