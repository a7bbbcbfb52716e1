// GJK and EPA on the cores of two convex shapes (see convex.hpp). Everything lives on the
// stack in fixed-size arrays: a time step never touches the heap.
#include "ncpgym/collision/convex.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#ifdef CONVEX_DEBUG
#include <cstdio>
#endif

namespace ncpgym::collision {

Vec3 Shape::support(const Vec3& d) const {
  switch (kind) {
    case CoreKind::Point:
      return pos;
    case CoreKind::Segment:
      return pos + (rot.col(2).dot(d) >= 0 ? size[1] : -size[1]) * rot.col(2);
    case CoreKind::Box: {
      const Vec3 l = rot.transpose() * d;
      return pos + rot * Vec3(l.x() >= 0 ? size.x() : -size.x(), l.y() >= 0 ? size.y() : -size.y(),
                              l.z() >= 0 ? size.z() : -size.z());
    }
    case CoreKind::Cylinder: {
      // true support: the rim point in the direction's radial part, on the cap it points to
      const Vec3 l = rot.transpose() * d;
      const double rad = std::hypot(l.x(), l.y());
      Vec3 p(0, 0, l.z() >= 0 ? size[1] : -size[1]);
      if (rad > 1e-300) p.head<2>() = size[0] / rad * l.head<2>();
      return pos + rot * p;
    }
    case CoreKind::Ellipsoid: {
      // the point of x^T S^-2 x = 1 whose normal S^-2 x is along l: x = S^2 l / |S l|
      const Vec3 l = rot.transpose() * d;
      const Vec3 sl = size.cwiseProduct(l);
      const double n = sl.norm();
      return n > 1e-300 ? Vec3(pos + rot * (size.cwiseProduct(sl) / n)) : pos;
    }
    case CoreKind::Hull: {
      hint = hull->support_index(rot.transpose() * d, hint);
      return pos + rot * hull->vert[hint];
    }
  }
  return pos;
}

namespace {

double extent(const Shape& s) {
  switch (s.kind) {
    case CoreKind::Point: return 0;
    case CoreKind::Segment: return s.size[1];
    case CoreKind::Box: return s.size.norm();
    case CoreKind::Cylinder: return std::hypot(s.size[0], s.size[1]);
    case CoreKind::Ellipsoid: return s.size.maxCoeff();
    case CoreKind::Hull: return s.hull->rbound;
  }
  return 0;
}

// A vertex of the Minkowski difference A - B with the two support points that made it.
struct SV {
  Vec3 w, a, b;
};

SV support(const Shape& A, const Shape& B, const Vec3& d) {
  const Vec3 a = A.support(d), b = B.support(-d);
  return {a - b, a, b};
}

// ---------------------------------------------------------------- GJK
// The simplex closest to the origin: its vertices (reduced to the smallest face that holds
// the closest point) and their barycentric weights.
struct Simplex {
  std::array<SV, 4> v;
  std::array<double, 4> l{};
  int n = 0;
  Vec3 point() const {
    Vec3 p = Vec3::Zero();
    for (int i = 0; i < n; ++i) p += l[i] * v[i].w;
    return p;
  }
  void keep(std::initializer_list<int> ids, std::initializer_list<double> ws) {
    std::array<SV, 4> nv = v;
    int k = 0;
    for (int i : ids) nv[k++] = v[i];
    k = 0;
    for (double w : ws) l[k++] = w;
    v = nv;
    n = static_cast<int>(ids.size());
  }
};

void closest_segment(Simplex& s) {
  const Vec3 A = s.v[0].w, AB = s.v[1].w - A;
  const double dd = AB.squaredNorm();
  const double t = dd > 0 ? -A.dot(AB) / dd : 0.0;
  if (t <= 0) s.keep({0}, {1});
  else if (t >= 1) s.keep({1}, {1});
  else s.keep({0, 1}, {1 - t, t});
}

// Closest point of triangle s.v[i], s.v[j], s.v[k] to the origin (Ericson §5.1.5, with the
// query point at the origin). Writes the reduced simplex into `out`.
void closest_triangle(const Simplex& s, int i, int j, int k, Simplex& out) {
  const Vec3 &A = s.v[i].w, &B = s.v[j].w, &C = s.v[k].w;
  const Vec3 ab = B - A, ac = C - A;
  out.v = s.v;
  out.n = 4;
  const double d1 = -ab.dot(A), d2 = -ac.dot(A);
  if (d1 <= 0 && d2 <= 0) return out.keep({i}, {1});
  const double d3 = -ab.dot(B), d4 = -ac.dot(B);
  if (d3 >= 0 && d4 <= d3) return out.keep({j}, {1});
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double t = d1 / (d1 - d3);
    return out.keep({i, j}, {1 - t, t});
  }
  const double d5 = -ab.dot(C), d6 = -ac.dot(C);
  if (d6 >= 0 && d5 <= d6) return out.keep({k}, {1});
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double t = d2 / (d2 - d6);
    return out.keep({i, k}, {1 - t, t});
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return out.keep({j, k}, {1 - t, t});
  }
  const double den = 1.0 / (va + vb + vc);
  out.keep({i, j, k}, {va * den, vb * den, vc * den});
}

// Tetrahedron: the closest point over the faces whose plane separates the origin from the
// opposite vertex; false when the origin is inside (the shapes overlap).
bool closest_tetra(Simplex& s) {
  static constexpr int F[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};  // face, opposite
  Simplex best, cand;
  double bd = 1e300;
  bool outside_any = false;
  // A flat tetrahedron (four support points on one plane, or nearly: a sliver on a curved
  // surface) holds no volume, so it cannot hold the origin: take its best face. Without
  // this, noise in the side tests can skip every face and report a false overlap.
  const Vec3 e1 = s.v[1].w - s.v[0].w, e2 = s.v[2].w - s.v[0].w, e3 = s.v[3].w - s.v[0].w;
  const double vol = e1.cross(e2).dot(e3);
  const bool flat = vol * vol <= 1e-20 * e1.squaredNorm() * e2.squaredNorm() * e3.squaredNorm();
  for (const auto& f : F) {
    const Vec3 &a = s.v[f[0]].w, &b = s.v[f[1]].w, &c = s.v[f[2]].w, &o = s.v[f[3]].w;
    const Vec3 nrm = (b - a).cross(c - a);
    const double sp = -nrm.dot(a), so = nrm.dot(o - a);
    if (!flat && sp * so > 0) continue;  // origin on the opposite vertex's side of this face
    outside_any = true;
    closest_triangle(s, f[0], f[1], f[2], cand);
    const double d = cand.point().squaredNorm();
    if (d < bd) {
      bd = d;
      best = cand;
    }
  }
  if (!outside_any) return false;
  s = best;
  return true;
}

// Runs GJK; returns true when the cores overlap (s then holds the last simplex, which
// contains the origin or touches it).
bool gjk(const Shape& A, const Shape& B, double scale, Simplex& s) {
  Vec3 d = A.pos - B.pos;
  if (d.squaredNorm() < 1e-24 * scale * scale) d = Vec3::UnitX();
  s.v[0] = support(A, B, -d);
  s.l[0] = 1;
  s.n = 1;
  Vec3 v = s.v[0].w;
  const double tiny = 1e-22 * scale * scale;
  for (int it = 0; it < 128; ++it) {
    const double vv = v.squaredNorm();
    if (vv <= tiny) return true;  // touching: treat as overlap of depth ~0
    const SV w = support(A, B, -v);
    if (vv - v.dot(w.w) <= 1e-13 * vv) return false;  // no further progress: converged
    for (int i = 0; i < s.n; ++i)
      if ((s.v[i].w - w.w).squaredNorm() <= tiny) return false;  // repeated vertex
    const Simplex prev = s;
    s.v[s.n] = w;
    ++s.n;
    if (s.n == 2) {
      closest_segment(s);
    } else if (s.n == 3) {
      Simplex t;
      closest_triangle(s, 0, 1, 2, t);
      s = t;
    } else if (!closest_tetra(s)) {
      return true;
    }
    const Vec3 vn = s.point();
    if (vn.squaredNorm() >= vv) {
      // The subalgorithm lost precision (a sliver simplex on a curved surface, as where two
      // cylinder rims face each other): step to the closest point of segment [v, w]
      // instead, which always descends (a Frank-Wolfe step). v becomes a virtual vertex
      // whose witness points are prev's convex combinations of support points.
      const Vec3 vw = w.w - v;
      const double t = std::min(1.0, -v.dot(vw) / vw.squaredNorm());
      if (!(t > 0)) {  // w adds nothing: v is the closest point
        s = prev;
        return false;
      }
      s.v[0] = SV{v, Vec3::Zero(), Vec3::Zero()};
      for (int i = 0; i < prev.n; ++i) {
        s.v[0].a += prev.l[i] * prev.v[i].a;
        s.v[0].b += prev.l[i] * prev.v[i].b;
      }
      s.v[1] = w;
      s.l[0] = 1 - t;
      s.l[1] = t;
      s.n = 2;
      v = s.point();
      continue;
    }
    v = vn;
  }
  return false;
}

// ---------------------------------------------------------------- EPA
constexpr int kMaxVerts = 128, kMaxFaces = 2 * kMaxVerts + 8;

// A triangle of the polytope, counter-clockwise about its outward normal; adj[k] is the
// face across edge k (from v[k] to v[k+1]) and adj_edge[k] that edge's index there.
struct Face {
  int v[3];
  int adj[3];
  int adj_edge[3];
  Vec3 n;
  double d;  // distance of the plane from the origin (n . vertex)
  bool alive;
};

struct Polytope {
  std::array<SV, kMaxVerts> v;
  std::array<Face, kMaxFaces> f;
  std::array<int, kMaxFaces> horizon;  // new faces in the order they close the horizon loop
  std::array<int, kMaxFaces> free;     // slots of faces removed before this expansion
  int nv = 0, nf = 0, nh = 0, nfree = 0;
  bool failed = false;

  // Slots of dead faces may be reused, but only those dead before the current expansion:
  // the walk still reads the faces it removes.
  void collect_free() {
    nfree = 0;
    for (int i = 0; i < nf; ++i)
      if (!f[i].alive) free[nfree++] = i;
  }
  int new_face(int a, int b, int c) {
    int slot;
    if (nfree > 0) {
      slot = free[--nfree];
    } else {
      if (nf >= kMaxFaces) return -1;
      slot = nf++;
    }
    Vec3 n = (v[b].w - v[a].w).cross(v[c].w - v[a].w);
    const double len = n.norm();
    if (!(len > 0)) return -1;
    n /= len;
    f[slot] = {{a, b, c}, {-1, -1, -1}, {0, 0, 0}, n, n.dot(v[a].w), true};
    return slot;
  }
  static void link(Face& fa, int ia, int ea, Face& fb, int ib, int eb) {
    fa.adj[ea] = ib;
    fa.adj_edge[ea] = eb;
    fb.adj[eb] = ia;
    fb.adj_edge[eb] = ea;
  }
  // Face h was reached across its edge e from a removed face: remove it too if w sees it,
  // else its edge e is on the horizon and gets a new face with the vertex iw.
  void expand(int h, int e, int iw, const Vec3& w) {
    if (failed || !f[h].alive) return;
    Face& F = f[h];
    if (F.n.dot(w - v[F.v[0]].w) > 0) {
      F.alive = false;
      const int e1 = (e + 1) % 3, e2 = (e + 2) % 3;
      const int h1 = F.adj[e1], g1 = F.adj_edge[e1], h2 = F.adj[e2], g2 = F.adj_edge[e2];
      expand(h1, g1, iw, w);
      expand(h2, g2, iw, w);
      return;
    }
    const int nfid = new_face(F.v[(e + 1) % 3], F.v[e], iw);
    if (nfid < 0 || nh >= kMaxFaces) {
      failed = true;
      return;
    }
    link(f[nfid], nfid, 0, f[h], h, e);
    horizon[nh++] = nfid;
  }
};

// Grow the GJK simplex into a tetrahedron around the origin (the origin lies on or inside
// it). false when the Minkowski difference is flat.
bool initial_tetra(const Shape& A, const Shape& B, Simplex& s, double scale) {
  const double tiny = 1e-20 * scale * scale;
  auto distinct = [&](const SV& w) {
    for (int i = 0; i < s.n; ++i)
      if ((s.v[i].w - w.w).squaredNorm() <= tiny) return false;
    return true;
  };
  static const Vec3 axes[6] = {Vec3::UnitX(), -Vec3::UnitX(), Vec3::UnitY(), -Vec3::UnitY(), Vec3::UnitZ(), -Vec3::UnitZ()};
  if (s.n == 1)
    for (const Vec3& d : axes) {
      const SV w = support(A, B, d);
      if (distinct(w)) {
        s.v[s.n++] = w;
        break;
      }
    }
  if (s.n == 2) {
    const Vec3 e = (s.v[1].w - s.v[0].w).normalized();
    const Vec3 axis = std::abs(e.x()) > 0.57 ? Vec3::UnitY() : Vec3::UnitX();
    Vec3 p = e.cross(axis).normalized();
    for (int k = 0; k < 6 && s.n == 2; ++k) {
      const SV w = support(A, B, p);
      if ((w.w - s.v[0].w).cross(e).squaredNorm() > tiny) s.v[s.n++] = w;
      p = Eigen::AngleAxisd(M_PI / 3, e) * p;
    }
  }
  if (s.n == 3) {
    const Vec3 n = (s.v[1].w - s.v[0].w).cross(s.v[2].w - s.v[0].w);
    for (const Vec3& d : {n, Vec3(-n)}) {
      const SV w = support(A, B, d);
      if (std::abs(n.dot(w.w - s.v[0].w)) > 1e-12 * scale * n.norm()) {
        s.v[s.n++] = w;
        break;
      }
    }
  }
  return s.n == 4;
}

// EPA from a tetrahedron holding the origin: fills depth (>= 0), the outward normal n of
// A - B at the closest face and the witness core points. The visible faces are found by a
// walk over face adjacency from the closest face, so the horizon is one closed loop.
bool epa(const Shape& A, const Shape& B, const Simplex& s, double scale, double& depth, Vec3& n, Vec3& pa, Vec3& pb) {
  Polytope P;
  for (int i = 0; i < 4; ++i) P.v[i] = s.v[i];
  P.nv = 4;
  // the tetrahedron's faces, outwards; T[i] and its neighbours across edges 0, 1, 2
  const bool flip = (P.v[1].w - P.v[0].w).cross(P.v[2].w - P.v[0].w).dot(P.v[3].w - P.v[0].w) > 0;
  static constexpr int T[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
  for (const auto& t : T)
    if ((flip ? P.new_face(t[0], t[2], t[1]) : P.new_face(t[0], t[1], t[2])) < 0) return false;
  // adjacency by matching reversed edges (12 directed edges)
  for (int i = 0; i < 4; ++i)
    for (int e = 0; e < 3; ++e)
      for (int j = 0; j < 4; ++j)
        for (int g = 0; g < 3; ++g)
          if (P.f[i].v[e] == P.f[j].v[(g + 1) % 3] && P.f[i].v[(e + 1) % 3] == P.f[j].v[g]) {
            P.f[i].adj[e] = j;
            P.f[i].adj_edge[e] = g;
          }
  const double tol = 1e-10 * scale;
  int best = -1;
  for (;;) {
    best = -1;
    for (int i = 0; i < P.nf; ++i)
      if (P.f[i].alive && (best < 0 || P.f[i].d < P.f[best].d)) best = i;
    const Face F = P.f[best];
    if (P.nv >= kMaxVerts) break;
    const SV w = support(A, B, F.n);
    if (F.n.dot(w.w) - F.d <= tol) break;  // the face is on the boundary: converged
    const int iw = P.nv++;
    P.v[iw] = w;
    P.nh = 0;
    P.collect_free();
    P.f[best].alive = false;
    for (int e = 0; e < 3; ++e) P.expand(F.adj[e], F.adj_edge[e], iw, w.w);
    if (P.failed || P.nh < 3) return false;
    for (int i = 0; i < P.nh; ++i) {  // close the fan: edge 1 (b -> w) meets the next face's edge 2
      const int a = P.horizon[i], b = P.horizon[(i + 1) % P.nh];
      Polytope::link(P.f[a], a, 1, P.f[b], b, 2);
    }
  }
  const Face& F = P.f[best];
  // barycentric coordinates of the origin's projection on the face
  const Vec3 p = F.d * F.n;
  const Vec3 &a = P.v[F.v[0]].w, &b = P.v[F.v[1]].w, &c = P.v[F.v[2]].w;
  const Vec3 v0 = b - a, v1 = c - a, v2 = p - a;
  const double d00 = v0.dot(v0), d01 = v0.dot(v1), d11 = v1.dot(v1), d20 = v2.dot(v0), d21 = v2.dot(v1);
  const double den = d00 * d11 - d01 * d01;
  const double l1 = den != 0 ? (d11 * d20 - d01 * d21) / den : 0, l2 = den != 0 ? (d00 * d21 - d01 * d20) / den : 0;
  const double l0 = 1 - l1 - l2;
  depth = std::max(F.d, 0.0);
  n = F.n;
  pa = l0 * P.v[F.v[0]].a + l1 * P.v[F.v[1]].a + l2 * P.v[F.v[2]].a;
  pb = l0 * P.v[F.v[0]].b + l1 * P.v[F.v[1]].b + l2 * P.v[F.v[2]].b;
  return true;
}

}  // namespace

ConvexResult convex_distance(const Shape& A, const Shape& B) {
  ConvexResult r;
  const double scale = 1e-6 + extent(A) + extent(B) + (A.pos - B.pos).norm();
  Simplex s;
  if (!gjk(A, B, scale, s)) {
    // separated cores: the closest points from the simplex's weights
    Vec3 pa = Vec3::Zero(), pb = Vec3::Zero();
    for (int i = 0; i < s.n; ++i) {
      pa += s.l[i] * s.v[i].a;
      pb += s.l[i] * s.v[i].b;
    }
    const Vec3 v = pa - pb;
    const double d = v.norm();
    r.n = v / d;
    r.a_core = pa;
    r.b_core = pb;
    r.dist = d - A.radius - B.radius;
  } else {
    double depth = 0;
    Vec3 n, pa, pb;
    if (!initial_tetra(A, B, s, scale) || !epa(A, B, s, scale, depth, n, pa, pb)) {
      // flat Minkowski difference or degenerate polytope: cores touch at the simplex point
      r.ok = false;
      Vec3 qa = Vec3::Zero(), qb = Vec3::Zero();
      for (int i = 0; i < s.n; ++i) {
        qa += s.v[i].a / s.n;
        qb += s.v[i].b / s.n;
      }
      const Vec3 dd = A.pos - B.pos;
      r.n = dd.norm() > 0 ? Vec3(dd.normalized()) : Vec3::UnitZ();
      r.a_core = qa;
      r.b_core = qb;
      r.dist = -A.radius - B.radius;
    } else {
      r.n = -n;  // A moves along -n to separate: the normal from B to A
      r.a_core = pa;
      r.b_core = pb;
      r.dist = -depth - A.radius - B.radius;
    }
  }
  r.a = r.a_core - A.radius * r.n;
  r.b = r.b_core + B.radius * r.n;
  return r;
}

}  // namespace ncpgym::collision
