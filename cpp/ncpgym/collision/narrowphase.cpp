// Narrow-phase collision tests (written for ncpgym; standard computational geometry:
// closest points on segments, separating-axis test and Sutherland-Hodgman face clipping
// for boxes, as in Ericson, "Real-Time Collision Detection", 2004, §5.1, §4.4, §8.3).
#include "ncpgym/collision/narrowphase.hpp"
#include "ncpgym/collision/closest.hpp"
#include "ncpgym/collision/convex.hpp"
#include "ncpgym/collision/manifold.hpp"

#include <algorithm>
#include <cmath>

namespace ncpgym::collision {

namespace {

// Two spheres (centres ca, cb; radii): witness points on each surface.
inline void spheres(const Vec3& ca, double ra, const Vec3& cb, double rb, double margin, Points& out) {
  Vec3 d = ca - cb;
  const double len = d.norm();
  if (len - ra - rb >= margin) return;
  const Vec3 n = len > 1e-12 ? Vec3(d / len) : Vec3::UnitZ();
  push(out, ca - ra * n, cb + rb * n, n, ra, rb);
}

inline void capsule_ends(const GeomPose& c, double half, Vec3& e0, Vec3& e1) {
  const Vec3 axis = c.rot.col(2);
  e0 = c.pos - half * axis;
  e1 = c.pos + half * axis;
}

// Sphere (centre, radius) against a box: closest point, or the nearest face when the centre
// is inside.
inline void sphere_box_point(const Vec3& ca, double ra, const GeomPose& b, const Vec3& hb,
                             double margin, Points& out) {
  const Vec3 local = b.rot.transpose() * (ca - b.pos);
  const Vec3 q = local.cwiseMax(-hb).cwiseMin(hb);
  const Vec3 diff = local - q;
  const double len = diff.norm();
  if (len > 1e-12) {
    if (len - ra >= margin) return;
    const Vec3 n = b.rot * (diff / len);
    push(out, ca - ra * n, b.pos + b.rot * q, n, ra, 0.0);
    return;
  }
  int k = 0;
  double best = hb[0] - std::abs(local[0]);
  for (int i = 1; i < 3; ++i) {
    const double pen = hb[i] - std::abs(local[i]);
    if (pen < best) {
      best = pen;
      k = i;
    }
  }
  Vec3 nl = Vec3::Zero();
  nl[k] = local[k] >= 0 ? 1.0 : -1.0;
  Vec3 surf = local;
  surf[k] = nl[k] * hb[k];
  const Vec3 n = b.rot * nl;
  push(out, ca - ra * n, b.pos + b.rot * surf, n, ra, 0.0);
}

}  // namespace

void sphere_plane(const GeomPose& s, double r, const GeomPose& p, double margin, Points& out) {
  const Vec3 n = p.rot.col(2);
  const double h = n.dot(s.pos - p.pos);
  if (h - r >= margin) return;
  push(out, s.pos - r * n, s.pos - h * n, n, r, 0.0);
}

void capsule_plane(const GeomPose& c, double r, double half, const GeomPose& p, double margin, Points& out) {
  Vec3 e0, e1;
  capsule_ends(c, half, e0, e1);
  sphere_plane({e0, c.rot}, r, p, margin, out);
  sphere_plane({e1, c.rot}, r, p, margin, out);
}

void box_plane(const GeomPose& b, const Vec3& half, const GeomPose& p, double margin, Points& out) {
  const Vec3 n = p.rot.col(2);
  const size_t first = out.size();
  for (int i = 0; i < 8; ++i) {
    const Vec3 corner = b.pos + b.rot * Vec3((i & 1 ? 1 : -1) * half[0], (i & 2 ? 1 : -1) * half[1],
                                            (i & 4 ? 1 : -1) * half[2]);
    const double h = n.dot(corner - p.pos);
    if (h < margin) push(out, corner, corner - h * n, n);
  }
  reduce_manifold(out, first);
}

void ellipsoid_plane(const GeomPose& e, const Vec3& size, const GeomPose& p, double margin, Points& out) {
  // the ellipsoid's support point against the plane's normal: its deepest (or nearest) point
  Shape s;
  s.kind = CoreKind::Ellipsoid;
  s.pos = e.pos;
  s.rot = e.rot;
  s.size = size;
  const Vec3 n = p.rot.col(2), pt = s.support(-n);
  const double h = n.dot(pt - p.pos);
  if (h < margin) push(out, pt, pt - h * n, n);
}

void cylinder_plane(const GeomPose& c, double r, double half, const GeomPose& p, double margin, Points& out) {
  // True cylinder: the lowest rim point of each cap (exact support points, so a cylinder on
  // its side rests on both cap rims), plus the rim of the lower cap when the cylinder stands
  // within 3 degrees of upright. A rim point is written as its cap centre (the core point,
  // fixed in the body) minus r sin(axis, n) along n: it has the rim's gap, and a rolling
  // cylinder keeps its contact at the bottom during the step, as capsules and spheres do,
  // instead of carrying a material rim point forward (which pumps energy into the roll).
  const Vec3 n = p.rot.col(2), axis = c.rot.col(2);
  const Vec3 radial = n - n.dot(axis) * axis;  // the cap-plane direction most along n
  const double rl = radial.norm();                // sin of the angle between axis and n
  const size_t first = out.size();
  if (rl > 1e-9) {
    const double rr = r * rl;
    for (const double cap : {-half, half}) {
      const Vec3 core = c.pos + cap * axis, pt = core - rr * n;
      const double h = n.dot(pt - p.pos);
      if (h < margin) push(out, pt, pt - h * n, n, rr, 0.0);
    }
  }
  if (rl < std::sin(3 * M_PI / 180)) {
    const double side = n.dot(axis) > 0 ? -half : half;  // the cap facing the plane
    for (int k = 0; k < 8; ++k) {
      const double th = k * M_PI / 4;
      const Vec3 pt = c.pos + c.rot * Vec3(r * std::cos(th), r * std::sin(th), side);
      const double h = n.dot(pt - p.pos);
      if (h < margin) push(out, pt, pt - h * n, n);
    }
  }
  reduce_manifold(out, first);
}

// The hull's lowest vertex and the face around it that faces the plane most squarely. Not
// every vertex within the margin: on a rounded hull (a rock, a robot link) those spread
// points would win the manifold reduction over the face the hull is settling onto.
void mesh_plane(const GeomPose& m, const ConvexHull& hull, const GeomPose& p, double margin, Points& out) {
  const Vec3 n = p.rot.col(2);
  const Vec3 down = -(m.rot.transpose() * n);  // towards the plane, in the mesh frame
  const int low = hull.support_index(down);
  const size_t first = out.size();
  for (int v : hull.faces[hull.face_around(low, down)].verts) {
    const Vec3 pt = m.pos + m.rot * hull.vert[v];
    const double h = n.dot(pt - p.pos);
    if (h < margin) push(out, pt, pt - h * n, n);
  }
  reduce_manifold(out, first);
}

void sphere_sphere(const GeomPose& a, double ra, const GeomPose& b, double rb, double margin, Points& out) {
  spheres(a.pos, ra, b.pos, rb, margin, out);
}

void sphere_capsule(const GeomPose& a, double ra, const GeomPose& b, double rb, double hb, double margin, Points& out) {
  Vec3 e0, e1;
  capsule_ends(b, hb, e0, e1);
  spheres(a.pos, ra, closest_on_segment(a.pos, e0, e1), rb, margin, out);
}

void capsule_capsule(const GeomPose& a, double ra, double ha, const GeomPose& b, double rb, double hb,
                     double margin, Points& out) {
  Vec3 a0, a1, b0, b1, pa, pb;
  capsule_ends(a, ha, a0, a1);
  capsule_ends(b, hb, b0, b1);
  const Vec3 da = (a1 - a0).normalized(), db = (b1 - b0).normalized();
  if (std::abs(da.dot(db)) > 0.999) {
    // (Nearly) parallel: support the overlap at both of its ends.
    const size_t first = out.size();
    for (const Vec3& e : {a0, a1}) spheres(e, ra, closest_on_segment(e, b0, b1), rb, margin, out);
    for (const Vec3& e : {b0, b1}) spheres(closest_on_segment(e, a0, a1), ra, e, rb, margin, out);
    // drop duplicates (an endpoint pair found from both sides)
    for (size_t i = first; i < out.size(); ++i)
      for (size_t j = out.size() - 1; j > i; --j)
        if ((out[i].a - out[j].a).norm() < 1e-9) out.erase(out.begin() + j);
    reduce_manifold(out, first);
    return;
  }
  closest_segments(a0, a1, b0, b1, pa, pb);
  spheres(pa, ra, pb, rb, margin, out);
}

void sphere_box(const GeomPose& a, double ra, const GeomPose& b, const Vec3& hb, double margin, Points& out) {
  sphere_box_point(a.pos, ra, b, hb, margin, out);
}

void capsule_box(const GeomPose& a, double ra, double ha, const GeomPose& b, const Vec3& hb, double margin,
                 Points& out) {
  // The end spheres (a capsule lying on a face rests on both), plus the segment point
  // closest to the box when it lies strictly between the ends (alternating projections).
  Vec3 e0, e1;
  capsule_ends(a, ha, e0, e1);
  const size_t first = out.size();
  sphere_box_point(e0, ra, b, hb, margin, out);
  sphere_box_point(e1, ra, b, hb, margin, out);
  Vec3 p = a.pos;
  for (int it = 0; it < 8; ++it) {
    const Vec3 local = b.rot.transpose() * (p - b.pos);
    const Vec3 q = b.pos + b.rot * local.cwiseMax(-hb).cwiseMin(hb);
    p = closest_on_segment(q, e0, e1);
  }
  if ((p - e0).norm() > 1e-6 * (1 + ha) && (p - e1).norm() > 1e-6 * (1 + ha))
    sphere_box_point(p, ra, b, hb, margin, out);
  reduce_manifold(out, first);
}

void box_box(const GeomPose& A, const Vec3& ha, const GeomPose& B, const Vec3& hb, double margin, Points& out) {
  // Separating-axis test over the 15 candidate axes; keep the axis of least penetration,
  // preferring face axes unless an edge axis separates clearly more.
  const Vec3 d = A.pos - B.pos;
  double best_face = -1e300, best_edge = -1e300;
  int face_axis = -1, edge_i = -1, edge_j = -1;
  Vec3 face_n, edge_n;
  auto separation = [&](const Vec3& L) {
    double ra = 0, rb = 0;
    for (int k = 0; k < 3; ++k) {
      ra += ha[k] * std::abs(L.dot(A.rot.col(k)));
      rb += hb[k] * std::abs(L.dot(B.rot.col(k)));
    }
    return std::abs(L.dot(d)) - ra - rb;
  };
  for (int k = 0; k < 6; ++k) {
    const Vec3 L = k < 3 ? Vec3(A.rot.col(k)) : Vec3(B.rot.col(k - 3));
    const double s = separation(L);
    if (s >= margin) return;
    if (s > best_face) {
      best_face = s;
      face_axis = k;
      face_n = L.dot(d) >= 0 ? L : Vec3(-L);
    }
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      Vec3 L = A.rot.col(i).cross(B.rot.col(j));
      const double len = L.norm();
      if (len < 1e-6) continue;
      L /= len;
      const double s = separation(L);
      if (s >= margin) return;
      if (s > best_edge) {
        best_edge = s;
        edge_i = i;
        edge_j = j;
        edge_n = L.dot(d) >= 0 ? L : Vec3(-L);
      }
    }
  }

  if (edge_i >= 0 && best_edge > best_face + 1e-4 * (1 + ha.maxCoeff() + hb.maxCoeff())) {
    // Edge-edge: the edges of A and B nearest to each other along n.
    const Vec3 n = edge_n;  // from B to A
    Vec3 ca = A.pos, cb = B.pos;
    for (int k = 0; k < 3; ++k) {
      if (k != edge_i) ca -= ha[k] * (n.dot(A.rot.col(k)) > 0 ? 1.0 : -1.0) * A.rot.col(k);
      if (k != edge_j) cb += hb[k] * (n.dot(B.rot.col(k)) > 0 ? 1.0 : -1.0) * B.rot.col(k);
    }
    Vec3 pa, pb;
    closest_segments(ca - ha[edge_i] * A.rot.col(edge_i), ca + ha[edge_i] * A.rot.col(edge_i),
                     cb - hb[edge_j] * B.rot.col(edge_j), cb + hb[edge_j] * B.rot.col(edge_j), pa, pb);
    push(out, pa, pb, n);
    return;
  }

  // Face contact: clip the incident face of the other box against the reference face.
  const bool ref_is_a = face_axis < 3;
  const GeomPose& R = ref_is_a ? A : B;
  const GeomPose& I = ref_is_a ? B : A;
  const Vec3& hr = ref_is_a ? ha : hb;
  const Vec3& hi = ref_is_a ? hb : ha;
  const Vec3 n = face_n;                  // from B to A
  const Vec3 m = ref_is_a ? Vec3(-n) : n;  // reference face outward normal, towards the other box
  const int rk = face_axis % 3;
  const Vec3 fc = R.pos + hr[rk] * m;
  const int ru = (rk + 1) % 3, rv = (rk + 2) % 3;
  const Vec3 u = R.rot.col(ru), v = R.rot.col(rv);

  // incident face: the face of I whose normal is most opposite to m
  int ik = 0;
  for (int k = 1; k < 3; ++k)
    if (std::abs(I.rot.col(k).dot(m)) > std::abs(I.rot.col(ik).dot(m))) ik = k;
  const Vec3 inormal = I.rot.col(ik).dot(m) > 0 ? Vec3(-I.rot.col(ik)) : Vec3(I.rot.col(ik));
  const Vec3 ic = I.pos + hi[ik] * inormal;
  const int iu = (ik + 1) % 3, iv = (ik + 2) % 3;
  const Vec3 eu = hi[iu] * I.rot.col(iu), ev = hi[iv] * I.rot.col(iv);
  thread_local std::vector<Vec3> poly = reserved<std::vector<Vec3>>(kScratchPoly);
  thread_local std::vector<std::pair<Vec3, double>> sides = reserved<std::vector<std::pair<Vec3, double>>>(kScratchPoly);
  poly.assign({ic + eu + ev, ic - eu + ev, ic - eu - ev, ic + eu - ev});
  // the four side planes of the reference face
  sides.assign(
      {{u, u.dot(fc) + hr[ru]}, {-u, -u.dot(fc) + hr[ru]}, {v, v.dot(fc) + hr[rv]}, {-v, -v.dot(fc) + hr[rv]}});
  clip_face(poly, sides, m, m.dot(fc), ref_is_a, n, margin, out);
}

namespace {
// Closest point on the surface of a convex polyhedron (world pose g) to point c, with the
// outward normal there; inside points report the face of least penetration (signed
// distance negative).
void closest_on_poly(const Vec3& c, const GeomPose& g, const ConvexHull& P, Vec3& point, Vec3& normal,
                     double& signed_dist) {
  const Vec3 cl = g.rot.transpose() * (c - g.pos);  // work in the geom frame
  const auto& F = P.faces;
  const auto& V = P.vert;
  int best = 0;
  double smax = -1e300;
  for (size_t f = 0; f < F.size(); ++f) {
    const double sd = F[f].normal.dot(cl) - F[f].offset;
    if (sd > smax) {
      smax = sd;
      best = static_cast<int>(f);
    }
  }
  if (smax <= 0) {  // inside: the face of least penetration
    point = g.pos + g.rot * (cl - smax * F[best].normal);
    normal = g.rot * F[best].normal;
    signed_dist = smax;
    return;
  }
  double dmin = 1e300;
  Vec3 pmin = cl;
  for (const auto& f : F) {
    const double sd = f.normal.dot(cl) - f.offset;
    if (sd <= 0) continue;
    const Vec3 pr = cl - sd * f.normal;  // projection inside the polygon: a face point
    bool inside = true;
    for (size_t i = 0; i < f.verts.size() && inside; ++i) {
      const Vec3& a = V[f.verts[i]];
      const Vec3& b2 = V[f.verts[(i + 1) % f.verts.size()]];
      inside = (b2 - a).cross(f.normal).dot(pr - a) <= 0;
    }
    if (inside && sd < dmin) {
      dmin = sd;
      pmin = pr;
    }
    for (size_t i = 0; i < f.verts.size(); ++i) {  // edges (and through them, vertices)
      const Vec3 q = closest_on_segment(cl, V[f.verts[i]], V[f.verts[(i + 1) % f.verts.size()]]);
      const double dq = (cl - q).norm();
      if (dq < dmin) {
        dmin = dq;
        pmin = q;
      }
    }
  }
  point = g.pos + g.rot * pmin;
  normal = (c - point).normalized();
  signed_dist = dmin;
}
}  // namespace

void sphere_poly(const GeomPose& a, double ra, const GeomPose& b, const ConvexHull& pb, double margin, Points& out) {
  Vec3 p, n;
  double d;
  closest_on_poly(a.pos, b, pb, p, n, d);
  if (d - ra >= margin) return;
  push(out, a.pos - ra * n, p, n, ra, 0.0);
}

}  // namespace ncpgym::collision
