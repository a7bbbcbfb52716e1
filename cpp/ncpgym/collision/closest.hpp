// Closest points on segments and triangles, shared by the narrow phase and the soft, rod and
// shell contacts.
#pragma once

#include <algorithm>
#include <limits>

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

// Parameter in [0, 1] of a point y on segment [p, q].
inline double param_of(const Vec3& y, const Vec3& p, const Vec3& q) {
  const double dd = (q - p).squaredNorm();
  return dd > 0 ? std::clamp((y - p).dot(q - p) / dd, 0.0, 1.0) : 0.0;
}

// Closest point on triangle (a, b, c) to x; w gets its barycentric coordinates.
inline Vec3 closest_on_triangle(const Vec3& x, const Vec3& a, const Vec3& b, const Vec3& c, double w[3]) {
  const Vec3 e1 = b - a, e2 = c - a, r = x - a;
  const double d11 = e1.dot(e1), d12 = e1.dot(e2), d22 = e2.dot(e2), r1 = r.dot(e1), r2 = r.dot(e2);
  const double det = d11 * d22 - d12 * d12;
  if (det > 0) {
    const double v = (d22 * r1 - d12 * r2) / det, u = (d11 * r2 - d12 * r1) / det;  // weights of b, c
    if (v >= 0 && u >= 0 && u + v <= 1) {
      w[0] = 1 - u - v;
      w[1] = v;
      w[2] = u;
      return a + v * e1 + u * e2;
    }
  }
  // outside: the nearest of the three edges
  const Vec3* P[3] = {&a, &b, &c};
  double best = std::numeric_limits<double>::infinity();
  Vec3 out = a;
  for (int k = 0; k < 3; ++k) {
    const Vec3 &p = *P[k], &q = *P[(k + 1) % 3];
    const Vec3 y = closest_on_segment(x, p, q);
    const double t = param_of(y, p, q);
    const double dist = (x - y).squaredNorm();
    if (dist < best) {
      best = dist;
      out = y;
      w[k] = 1 - t;
      w[(k + 1) % 3] = t;
      w[(k + 2) % 3] = 0;
    }
  }
  return out;
}

// Which region of the triangle a closest point is in: -1 a vertex, 3 the interior, else
// the edge index k (between corners k and k + 1).
inline int region(const double w[3]) {
  constexpr double tiny = 1e-12;
  for (int k = 0; k < 3; ++k)
    if (w[k] > 1 - tiny) return -1;
  for (int k = 0; k < 3; ++k)
    if (w[k] < tiny) return (k + 1) % 3;
  return 3;
}

}  // namespace ncpgym::collision
