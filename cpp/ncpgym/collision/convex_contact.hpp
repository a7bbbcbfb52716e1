// Contacts between any two convex shapes through their support functions: the GJK/EPA
// normal and depth, then the feature of one shape clipped to a face of the other (also
// used with soft surface triangles as the face).
#pragma once

#include <vector>

#include "ncpgym/collision/convex.hpp"

namespace ncpgym::collision {

// Any other pair of convex shapes (boxes with hulls, cylinders, hulls; capsules against
// hulls and cylinders; spheres against cylinders): GJK/EPA for the normal and depth, then
// a face-clipped manifold (convex_contact.cpp). Shapes are described in convex.hpp.
void convex_pair(const Shape& a, const Shape& b, double margin, Points& out);

// The supporting feature of shape I towards a reference face `ref` (a convex polygon,
// counter-clockwise about its outward normal m, which points towards I), clipped to the
// face's prism: core points (world) of I, each grown by `rad` along -m to I's surface.
void clip_to_face(const Shape& I, const std::vector<Vec3>& ref, const Vec3& m, std::vector<Vec3>& cores,
                  double& rad);

}  // namespace ncpgym::collision
