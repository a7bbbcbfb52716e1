// Contact manifolds shared by the narrow-phase tests: face clipping (Sutherland-Hodgman,
// Ericson §8.3) and the reduction of a face contact to the 4 points spanning the largest
// area, so resting bodies are supported over an area with a bounded number of rows.
#pragma once

#include <utility>
#include <vector>

#include "ncpgym/collision/contact.hpp"

namespace ncpgym::collision {

// Collision scratch lives in thread_local vectors reserved on a thread's first use (a time
// step must not touch the heap); polygons larger than this grow them once.
constexpr size_t kScratchPoly = 128;

// An empty vector with room for n elements (to initialise thread_local scratch).
template <class V>
V reserved(size_t n) {
  V v;
  v.reserve(n);
  return v;
}

// Appends the witness pair (a, b) with normal n: dist = n . (a - b), core points a + ra n
// and b - rb n.
inline void push(Points& out, const Vec3& a, const Vec3& b, const Vec3& n, double ra = 0, double rb = 0) {
  out.push_back({a, b, n, n.dot(a - b), ra, rb});
}

// Keep at most 4 of the points appended since `first`: the deepest, the farthest from it,
// then the extreme points on either side of the line through both.
void reduce_manifold(Points& pts, size_t first);

// Clips a polygon (a closed loop; in place) to the half-spaces side . x <= offset.
void clip_polygon(std::vector<Vec3>& poly, const std::vector<std::pair<Vec3, double>>& sides);

// Contacts on a reference face (outward normal m, plane m . x = d, m pointing from the
// reference body towards the other) at the other body's core points, each grown by `rad`
// along -m to its surface: the points within `margin` of the face, projected onto it,
// reduced to 4. Contact normal n is from B to A; ref_is_a says which body holds the face.
void push_on_face(const std::vector<Vec3>& cores, double rad, const Vec3& m, double d, bool ref_is_a,
                  const Vec3& n, double margin, Points& out);

// Face contact: clip the incident polygon against the side planes (normal . x <= offset)
// of the reference face, then keep the points below the reference plane m . x = d (m
// points from the reference body towards the other) by less than `margin`. Contact normal
// n is from B to A; ref_is_a says which body holds the reference face.
void clip_face(const std::vector<Vec3>& incident, const std::vector<std::pair<Vec3, double>>& sides,
               const Vec3& m, double d, bool ref_is_a, const Vec3& n, double margin, Points& out);

}  // namespace ncpgym::collision
