// Closest points on segments, shared by the narrow phase and the soft-surface contacts.
#pragma once

#include <algorithm>

#include "ncpgym/math/spatial.hpp"

namespace ncpgym::collision {

// Closest point to p on the segment [s0, s1].
inline Vec3 closest_on_segment(const Vec3& p, const Vec3& s0, const Vec3& s1) {
  const Vec3 d = s1 - s0;
  const double dd = d.squaredNorm();
  if (dd < 1e-300) return s0;
  const double t = std::clamp((p - s0).dot(d) / dd, 0.0, 1.0);
  return s0 + t * d;
}

// Closest points between segments [p0, p1] and [q0, q1] (Ericson §5.1.9).
inline void closest_segments(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                             Vec3& cp, Vec3& cq) {
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  double s = 0, t = 0;
  if (a <= 1e-300 && e <= 1e-300) {
    cp = p0;
    cq = q0;
    return;
  }
  if (a <= 1e-300) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (e <= 1e-300) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2), den = a * e - b * b;
      s = den > 1e-14 * a * e ? std::clamp((b * f - c * e) / den, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  cp = p0 + s * d1;
  cq = q0 + t * d2;
}

}  // namespace ncpgym::collision
