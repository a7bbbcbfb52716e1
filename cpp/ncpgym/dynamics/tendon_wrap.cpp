#include "ncpgym/dynamics/tendon_wrap.hpp"

#include <algorithm>
#include <cmath>

namespace ncpgym {

namespace {

using Vec2 = Eigen::Vector2d;
constexpr double kTiny = 1e-15;  // MuJoCo's mjMINVAL: below it a length or a determinant is zero

// Whether the 2D segments p-q and r-s cross (parameters of both within [0, 1]).
bool segments_cross(const Vec2& p, const Vec2& q, const Vec2& r, const Vec2& s) {
  const double det = (s.y() - r.y()) * (q.x() - p.x()) - (s.x() - r.x()) * (q.y() - p.y());
  if (std::abs(det) < kTiny) return false;
  const double a = ((s.x() - r.x()) * (p.y() - r.y()) - (s.y() - r.y()) * (p.x() - r.x())) / det;
  const double b = ((q.x() - p.x()) * (p.y() - r.y()) - (q.y() - p.y()) * (p.x() - r.x())) / det;
  return a >= 0 && a <= 1 && b >= 0 && b <= 1;
}

// Whether the ray from the origin along dir crosses the segment a-b.
bool ray_crosses(const Vec2& dir, const Vec2& a, const Vec2& b) {
  const Vec2 dif = b - a;
  const double det = dir.x() * dif.y() - dif.x() * dir.y();
  if (std::abs(det) < kTiny) return false;
  const double t = (a.x() * dir.y() - dir.x() * a.y()) / det;   // along the segment
  const double k = (a.x() * dif.y() - dif.x() * a.y()) / det;   // along the ray
  return t >= 0 && t <= 1 && k >= 0;
}

// Length of the arc of radius r from ta to tb, going the way of tangent pair `second`
// (the angle in [0, pi], or its complement when the pair winds the other way).
double arc_length(const Vec2& ta, const Vec2& tb, bool second, double r) {
  double angle = std::acos(std::clamp(ta.normalized().dot(tb.normalized()), -1.0, 1.0));
  const double turn = ta.y() * tb.x() - ta.x() * tb.y();
  if ((turn > 0 && second) || (turn < 0 && !second)) angle = 2 * M_PI - angle;
  return r * angle;
}

// The wrap of segment a-b around the circle of radius r about the origin: its tangent
// points and the arc between them, or -1. side (on the circle, or null): the side to pass.
double circle_wrap(const Vec2& a, const Vec2& b, const Vec2* side, double r, Vec2& ta, Vec2& tb) {
  const double la2 = a.squaredNorm(), lb2 = b.squaredNorm(), r2 = r * r;
  if (la2 < r2 || lb2 < r2 || r < kTiny) return -1;  // a site inside, or no circle
  const Vec2 dif = b - a;
  const double dd = dif.squaredNorm();
  if (dd < kTiny) return -1;
  // a segment clear of the circle stays straight unless a side site lies behind the circle
  // as seen from it (the ray from the centre away from the side site crosses the segment):
  // MuJoCo 4's rule, settled on its own tendon lengths (400 random cases agree)
  const Vec2 near = a + std::clamp(-dif.dot(a) / dd, 0.0, 1.0) * dif;
  if (near.squaredNorm() > r2 && (!side || !ray_crosses(-*side, a, b))) return -1;
  // the two pairs of tangent points (one per way round), scored by closeness to the side
  // site or by shortness; a pair whose tangent lines cross is never taken
  Vec2 cand[2][2];
  double good[2];
  const double sa = std::sqrt(la2 - r2), sb = std::sqrt(lb2 - r2);
  for (int i = 0; i < 2; ++i) {
    const double sg = i == 0 ? 1.0 : -1.0;
    cand[i][0] = Vec2(a.x() * r2 + sg * r * a.y() * sa, a.y() * r2 - sg * r * a.x() * sa) / la2;
    cand[i][1] = Vec2(b.x() * r2 - sg * r * b.y() * sb, b.y() * r2 + sg * r * b.x() * sb) / lb2;
    good[i] = side ? (cand[i][0] + cand[i][1]).normalized().dot(*side) : -(cand[i][0] - cand[i][1]).squaredNorm();
    if (segments_cross(a, cand[i][0], b, cand[i][1])) good[i] = -1e4;
  }
  const int i = good[0] > good[1] ? 0 : 1;
  ta = cand[i][0];
  tb = cand[i][1];
  if (segments_cross(a, ta, b, tb)) return -1;
  return arc_length(ta, tb, i == 1, r);
}

// The wrap through the inside of the circle (a side site within it): the path from a to b
// touching the circle once, at the point where the angles the two straight pieces make with
// the radius balance, asin(A z) + asin(B z) - 2 asin(z) + G = 0 in z (A = r/|a|, B = r/|b|,
// G the angle a-0-b), solved by Newton's method from just below 1. Returns 0 (the point
// twice) or -1. On a numerical failure the point is the normalised midpoint, as MuJoCo's.
double inside_wrap(const Vec2& a, const Vec2& b, double r, Vec2& ta, Vec2& tb) {
  const double la = a.norm(), lb = b.norm();
  const Vec2 dif = b - a;
  const double dd = dif.squaredNorm();
  if (la <= r || lb <= r || r < kTiny || la < kTiny || lb < kTiny) return -1;
  if (dd > kTiny) {  // the segment itself meets the circle: no wrap
    const double s = -dif.dot(a) / dd;
    if (s > 0 && s < 1 && (a + s * dif).norm() <= r) return -1;
  }
  ta = tb = r * (0.5 * (a + b)).normalized();
  const double A = r / la, B = r / lb;
  const double cosG = (la * la + lb * lb - dd) / (2 * la * lb);
  if (cosG < -1 + kTiny) return -1;
  if (cosG > 1 - kTiny) return 0;
  const double G = std::acos(cosG);
  const auto f_of = [&](double z) { return std::asin(A * z) + std::asin(B * z) - 2 * std::asin(z) + G; };
  double z = 1 - 1e-7, f = f_of(z);
  if (f > 0) return 0;
  int it = 0;
  for (; it < 20 && std::abs(f) > 1e-6; ++it) {
    const double df = A / std::max(kTiny, std::sqrt(1 - z * z * A * A)) + B / std::max(kTiny, std::sqrt(1 - z * z * B * B)) -
                      2 / std::max(kTiny, std::sqrt(1 - z * z));
    if (df > -kTiny) return 0;
    const double z1 = z - f / df;
    if (z1 > z) return 0;
    z = z1;
    f = f_of(z);
    if (f > 1e-6) return 0;
  }
  if (it >= 20) return 0;
  // rotate from the site on the positive side of the turn a-0-b by the balancing angle
  const bool from_a = a.x() * b.y() - a.y() * b.x() > 0;
  const Vec2 v = (from_a ? a : b).normalized();
  const double ang = std::asin(z) - std::asin((from_a ? A : B) * z);
  ta = tb = r * Vec2(std::cos(ang) * v.x() - std::sin(ang) * v.y(), std::sin(ang) * v.x() + std::cos(ang) * v.y());
  return 0;
}

}  // namespace

double wrap_geom(bool cylinder, double radius, const Vec3& centre, const Mat3& rot, const Vec3& p0, const Vec3& p1,
                 const Vec3* side, Vec3& t0, Vec3& t1) {
  const Vec3 q0 = rot.transpose() * (p0 - centre), q1 = rot.transpose() * (p1 - centre);
  if (q0.norm() < kTiny || q1.norm() < kTiny) return -1;
  // the plane of the circle: the sphere's through its centre and both sites, the
  // cylinder's cross-section (its axis is the geom's z)
  Vec3 e0 = Vec3::UnitX(), e1 = Vec3::UnitY();
  if (!cylinder) {
    e0 = q0.normalized();
    Vec3 n = q0.cross(q1);
    if (n.norm() < kTiny) {  // sites in line with the centre: any plane through them
      int big = 0;
      e0.cwiseAbs().maxCoeff(&big);
      Vec3 other = Vec3::Ones();
      other[big] = 0;
      n = e0.cross(other);
    }
    n.normalize();
    e1 = n.cross(e0).normalized();
  }
  const Vec2 a(q0.dot(e0), q0.dot(e1)), b(q1.dot(e0), q1.dot(e1));
  Vec2 s2 = Vec2::Zero();
  bool inside = false;
  if (side) {  // the side site's direction in the plane, on the circle; inside the geom: the inside wrap
    const Vec3 qs = rot.transpose() * (*side - centre);
    s2 = Vec2(qs.dot(e0), qs.dot(e1));
    if (s2.norm() > 0) s2 = radius * s2.normalized();
    inside = qs.norm() < radius;
  }
  Vec2 ta, tb;
  double len = inside ? inside_wrap(a, b, radius, ta, tb) : circle_wrap(a, b, side ? &s2 : nullptr, radius, ta, tb);
  if (len < 0) return -1;
  Vec3 r0 = e0 * ta.x() + e1 * ta.y(), r1 = e0 * tb.x() + e1 * tb.y();
  if (cylinder) {  // heights along the path in proportion to its length in the cross-section
    const double L0 = (q0.head<2>() - r0.head<2>()).norm(), L1 = (q1.head<2>() - r1.head<2>()).norm();
    const double total = L0 + len + L1;
    r0.z() = q0.z() + (q1.z() - q0.z()) * L0 / total;
    r1.z() = q0.z() + (q1.z() - q0.z()) * (L0 + len) / total;
    len = std::sqrt(len * len + (r1.z() - r0.z()) * (r1.z() - r0.z()));
  }
  t0 = centre + rot * r0;
  t1 = centre + rot * r1;
  return len;
}

}  // namespace ncpgym
