// Contacts between any two convex shapes (written for ncpgym). GJK/EPA (convex.cpp) give
// the normal and the deepest (or closest) pair; a resting contact then needs an area, so
// when one shape has a face (hull face, box face, cylinder cap) within 3 degrees of the
// normal (kCosFace), that face is the reference and the other shape's supporting feature
// (a face, a cylinder's side line or two cap-rim points, a capsule's segment, a point) is
// clipped against its sides, as box-box does (Ericson §8.3 face clipping). Otherwise
// (edge-edge, curved-curved) the contact is the single GJK/EPA pair.
#include <algorithm>
#include <array>
#include <cmath>

#include "ncpgym/collision/convex.hpp"
#include "ncpgym/collision/manifold.hpp"
#include "ncpgym/collision/convex_contact.hpp"

namespace ncpgym::collision {

namespace {

const double kCosFace = std::cos(3 * M_PI / 180);  // face-aligned within 3 degrees
const double kSinSide = std::sin(3 * M_PI / 180);  // segment perpendicular within 3 degrees
constexpr int kCapPoints = 8;                      // rim points of a cylinder cap polygon

// The face of shape S whose outward normal is most aligned with world direction d:
// returns the alignment (cos) and fills the polygon (world) and its outward normal.
// -2 when the shape has no faces (points, segments).
double best_face(const Shape& S, const Vec3& d, std::vector<Vec3>& poly, Vec3& normal) {
  if (S.kind == CoreKind::Cylinder) {
    const Vec3 axis = S.rot.col(2);
    const double c = axis.dot(d);
    const double side = c >= 0 ? 1.0 : -1.0;
    normal = side * axis;
    poly.clear();
    for (int k = 0; k < kCapPoints; ++k) {  // counter-clockwise about the outward normal
      const double th = side * 2 * M_PI * k / kCapPoints;
      poly.push_back(S.pos + S.rot * Vec3(S.size[0] * std::cos(th), S.size[0] * std::sin(th), side * S.size[1]));
    }
    return std::abs(c);
  }
  if (!S.hull) return -2;
  // Among the faces around the support vertex in d (the face most aligned with d overall
  // may lie beside the deepest vertex on an irregular hull, and would miss it).
  const Vec3 dl = S.rot.transpose() * d;
  S.hint = S.hull->support_index(dl, S.hint);
  const HullFace& F = S.hull->faces[S.hull->face_around(S.hint, dl)];
  normal = S.rot * F.normal;
  poly.clear();
  for (int v : F.verts) poly.push_back(S.pos + S.rot * S.hull->vert[v]);
  return F.normal.dot(dl);
}

// The supporting feature of shape S towards world direction d (unit): a polygon, a
// segment (2 points) or a point, as core points (world) grown by `rad` along d. A
// cylinder's side is its axis segment grown by r, so a rolling cylinder keeps its contact
// at the bottom during the step (see cylinder_plane).
void feature(const Shape& S, const Vec3& d, std::vector<Vec3>& pts, double& rad) {
  pts.clear();
  rad = S.radius;
  switch (S.kind) {
    case CoreKind::Point:
      pts.push_back(S.pos);
      return;
    case CoreKind::Segment: {
      // both ends whatever the tilt: each is exact as a ball, and the far end of a capsule
      // rocking on a face is in the manifold (with its gap) before it lands
      const Vec3 axis = S.rot.col(2);
      pts.push_back(S.pos - S.size[1] * axis);
      pts.push_back(S.pos + S.size[1] * axis);
      return;
    }
    case CoreKind::Cylinder: {
      const Vec3 axis = S.rot.col(2);
      const double c = axis.dot(d);
      if (std::abs(c) >= kCosFace) {
        Vec3 nrm;
        best_face(S, d, pts, nrm);
      } else if (std::abs(c) <= kSinSide) {  // the side line: the axis grown by r |d_perp|
        rad = S.size[0] * std::sqrt(1 - c * c);
        pts.push_back(S.pos - S.size[1] * axis);
        pts.push_back(S.pos + S.size[1] * axis);
      } else {  // tilted: the point of each cap's rim furthest along d (exact for each)
        const Vec3 out = S.size[0] * (d - c * axis).normalized();
        pts.push_back(S.pos - S.size[1] * axis + out);
        pts.push_back(S.pos + S.size[1] * axis + out);
      }
      return;
    }
    case CoreKind::Ellipsoid:  // smooth: its support point
      pts.push_back(S.support(d));
      return;
    case CoreKind::Box:
    case CoreKind::Hull: {
      Vec3 nrm;
      best_face(S, d, pts, nrm);
      return;
    }
  }
}

// Clips segment [p, q] to the side planes; false when nothing is left.
bool clip_segment(Vec3& p, Vec3& q, const std::vector<std::pair<Vec3, double>>& sides) {
  double t0 = 0, t1 = 1;
  for (const auto& [s, off] : sides) {
    const double dp = s.dot(p) - off, dq = s.dot(q) - off;
    if (dp > 0 && dq > 0) return false;
    if (dp > 0) t0 = std::max(t0, dp / (dp - dq));
    else if (dq > 0) t1 = std::min(t1, dp / (dp - dq));
  }
  if (t0 > t1) return false;
  const Vec3 a = p + t0 * (q - p), b = p + t1 * (q - p);
  p = a;
  q = b;
  return true;
}

}  // namespace

void clip_to_face(const Shape& I, const std::vector<Vec3>& ref, const Vec3& m, std::vector<Vec3>& cores,
                  double& rad) {
  thread_local std::vector<std::pair<Vec3, double>> sides =
      reserved<std::vector<std::pair<Vec3, double>>>(kScratchPoly);
  sides.clear();
  for (size_t i = 0; i < ref.size(); ++i) {
    const Vec3 side = (ref[(i + 1) % ref.size()] - ref[i]).cross(m);
    sides.emplace_back(side, side.dot(ref[i]));
  }
  feature(I, -m, cores, rad);
  if (cores.size() >= 3) {
    clip_polygon(cores, sides);
  } else if (cores.size() == 2) {
    Vec3 p = cores[0], q = cores[1];
    cores.clear();
    if (clip_segment(p, q, sides)) {
      cores.push_back(p);
      if ((q - p).norm() > 1e-9) cores.push_back(q);
    }
  } else {
    bool inside = true;
    for (const auto& [sd, off] : sides) inside = inside && sd.dot(cores[0]) <= off;
    if (!inside) cores.clear();
  }
}

void convex_pair(const Shape& A, const Shape& B, double margin, Points& out) {
  const ConvexResult r = convex_distance(A, B);
  if (r.dist >= margin) return;
  const size_t first = out.size();
  thread_local std::vector<Vec3> fa = reserved<std::vector<Vec3>>(kScratchPoly), fb = fa, cores = fa;
  // Reference face: A's face towards B (outward ~ -n) or B's towards A (outward ~ +n).
  Vec3 na, nb;
  const double ca = best_face(A, -r.n, fa, na), cb = best_face(B, r.n, fb, nb);
  if (r.ok && std::max(ca, cb) >= kCosFace) {
    const bool ref_is_a = ca >= cb;
    const std::vector<Vec3>& ref = ref_is_a ? fa : fb;
    const Vec3 m = ref_is_a ? na : nb;  // outward normal of the reference face
    const Vec3 n = ref_is_a ? Vec3(-m) : m;
    const double d = m.dot(ref[0]);
    double rad;  // the incident side may be round (sphere, capsule, cylinder side)
    clip_to_face(ref_is_a ? B : A, ref, m, cores, rad);
    push_on_face(cores, rad, m, d, ref_is_a, n, margin, out);
    if (out.size() > first) return;
  }
  push(out, r.a, r.b, r.n, A.radius, B.radius);
}

}  // namespace ncpgym::collision
