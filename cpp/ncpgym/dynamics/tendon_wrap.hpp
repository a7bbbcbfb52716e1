// A spatial tendon's wrap around a sphere or a cylinder (MJCF <spatial><geom sidesite>), as
// MuJoCo defines it (its "Computation" chapter, tendons, and the XML reference): between
// two sites the tendon takes the shortest way around the geom's circle, in the plane through
// the sphere's centre and both sites, or in the cylinder's cross-section with the height
// spread along the path (a helix). It wraps only when the straight segment would cut the
// circle (or a side site lies behind it, seen from the segment), on the side the side site
// says; a side site inside the geom forces a wrap through the inside (the path touching the
// circle once). Written from the definitions, with MuJoCo 4's rules where they are not
// written down settled on its own results: lengths, rates and forces are checked against
// MuJoCo's (tests/python/test_spatial_tendons.py).
#pragma once

#include "ncpgym/math/spatial.hpp"

namespace ncpgym {

// p0, p1: the sites around the geom (world); centre, rot: the geom's pose; radius; cylinder
// or sphere; side: the side site (world) or null. Returns the length of the path on the
// geom and its two tangent points t0 (after p0) and t1 (before p1) in world coordinates,
// or -1 when the tendon does not wrap (the straight segment p0-p1 then holds).
double wrap_geom(bool cylinder, double radius, const Vec3& centre, const Mat3& rot, const Vec3& p0, const Vec3& p1,
                 const Vec3* side, Vec3& t0, Vec3& t1);

}  // namespace ncpgym
