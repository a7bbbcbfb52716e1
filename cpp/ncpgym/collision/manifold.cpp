// Face clipping and manifold reduction (written for ncpgym; see manifold.hpp).
#include "ncpgym/collision/manifold.hpp"

#include <algorithm>

namespace ncpgym::collision {

// Keep at most 4 points spanning the largest area: deepest, farthest from it, then the
// extreme points on either side of the line through both.
void reduce_manifold(Points& pts, size_t first) {
  if (pts.size() - first <= 4) return;
  thread_local Points cand = reserved<Points>(64);  // per-thread scratch
  cand.assign(pts.begin() + first, pts.end());
  pts.resize(first);
  auto deepest = std::min_element(cand.begin(), cand.end(),
                                  [](const ContactPoint& x, const ContactPoint& y) { return x.dist < y.dist; });
  const ContactPoint p0 = *deepest;
  const ContactPoint* p1 = &cand[0];
  for (const auto& c : cand)
    if ((c.a - p0.a).squaredNorm() > (p1->a - p0.a).squaredNorm()) p1 = &c;
  const Vec3 n = p0.n, e = p1->a - p0.a;
  const ContactPoint *p2 = nullptr, *p3 = nullptr;
  double amax = 0, amin = 0;
  for (const auto& c : cand) {
    const double area = n.dot(e.cross(c.a - p0.a));
    if (area > amax) {
      amax = area;
      p2 = &c;
    }
    if (area < amin) {
      amin = area;
      p3 = &c;
    }
  }
  pts.push_back(p0);
  pts.push_back(*p1);
  if (p2) pts.push_back(*p2);
  if (p3) pts.push_back(*p3);
}

// Face contact: clip the incident polygon against the side planes (normal . x <= offset)
// of the reference face, then keep the points below the reference plane m . x = d (m
// points from the reference body towards the other). Contact normal n is from B to A.
void clip_polygon(std::vector<Vec3>& poly, const std::vector<std::pair<Vec3, double>>& sides) {
  thread_local std::vector<Vec3> next = reserved<std::vector<Vec3>>(kScratchPoly);  // scratch
  for (const auto& [side, offset] : sides) {
    if (poly.empty()) break;
    next.clear();
    for (size_t k = 0; k < poly.size(); ++k) {
      const Vec3& p = poly[k];
      const Vec3& q = poly[(k + 1) % poly.size()];
      const double dp = side.dot(p) - offset, dq = side.dot(q) - offset;
      if (dp <= 0) next.push_back(p);
      if ((dp < 0) != (dq < 0) && dp != dq) next.push_back(p + (q - p) * (dp / (dp - dq)));
    }
    poly.swap(next);
  }
}

void push_on_face(const std::vector<Vec3>& cores, double rad, const Vec3& m, double d, bool ref_is_a,
                  const Vec3& n, double margin, Points& out) {
  const size_t first = out.size();
  for (const Vec3& p : cores) {
    const double s = m.dot(p) - d;  // the core point's height over the reference plane
    if (s - rad >= margin) continue;
    const Vec3 on_ref = p - s * m, surf = p - rad * m;
    if (ref_is_a) {
      push(out, on_ref, surf, n, 0.0, rad);
    } else {
      push(out, surf, on_ref, n, rad, 0.0);
    }
  }
  reduce_manifold(out, first);
}

void clip_face(const std::vector<Vec3>& incident, const std::vector<std::pair<Vec3, double>>& sides,
               const Vec3& m, double d, bool ref_is_a, const Vec3& n, double margin, Points& out) {
  thread_local std::vector<Vec3> poly = reserved<std::vector<Vec3>>(kScratchPoly);  // scratch
  poly.assign(incident.begin(), incident.end());
  clip_polygon(poly, sides);
  push_on_face(poly, 0.0, m, d, ref_is_a, n, margin, out);
}

}  // namespace ncpgym::collision
