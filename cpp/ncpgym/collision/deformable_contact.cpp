// Contacts between deformable pieces of different kinds, and of a shell with itself (written
// for ncpgym; the seed handles them by the IMC penalty energy, dismech-rods-shells.txt §4,
// ncpgym by the solver's hard contact rows, nonsmooth-newton-ncp.txt eq. 9 with each side a
// weighted sum of particles, a(q) = sum_i w_i x_i).
//
// Primitives: points (rod nodes, shell vertices, boundary vertices of tetrahedral bodies),
// edges (rod edges, shell and boundary edges, each reported by its owner triangle) and
// triangles (shell triangles, two-sided and grown by the half thickness; boundary
// triangles, one-sided and outward). The usual split of cloth and shell collision:
//   point-triangle  (PT) closest point inside the triangle or on an edge it owns; per point
//                   and piece the closest triangle only,
//   edge-edge       (EE) closest points inside both edges,
//   point-rod edge  (PE) shell and boundary vertices against a rod edge's interior.
// Vertex-vertex touches are left to the neighbouring features. Pairs other files already
// handle are skipped: rod against rod (rod_contact.cpp) and tetrahedral against tetrahedral
// (soft_contact.cpp). Within one piece (soft/components.hpp), pairs closer at rest than two
// element lengths plus the contact reach are neighbours by construction, not a fold, and
// are skipped; so are pairs that share a particle.
//
// Broad phase: sweep and prune over the primitives' boxes along x, sorted by (lower bound,
// index), so the contacts come in the same order in every run.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ncpgym/collision/closest.hpp"
#include "ncpgym/collision/detect.hpp"

namespace ncpgym {

namespace {

using collision::closest_on_segment;
using collision::closest_on_triangle;
using collision::closest_segments;
using collision::param_of;
using collision::region;

enum Src : unsigned char { kRod = 1, kShell = 2, kTet = 4 };
enum Cls : unsigned char { kPoint, kEdge, kTri };
constexpr double kEnd = 1e-6;  // an edge parameter this close to 0 or 1 is the edge's end

struct Prim {
  Vec3 lo, hi;
  int index;          // position in the primitive list (ties in the sort)
  Cls cls;
  unsigned char src;  // Src bits (a point may be a rod node and a shell vertex)
  int n;              // particles: 1, 2 or 3
  int p[3];
  int item;           // the shell or boundary triangle (kTri), the owner bit's triangle (kEdge)
  double radius;      // contact radius (a triangle's and edge's are per particle, below)
  double sweep;       // largest particle sweep
};

// A point-triangle contact waiting for the choice of the closest triangle.
struct Candidate {
  int point, piece, tri;
  Contact k;
};

struct Scene {
  const Model& m;
  const VecX& x;
  const CollisionOptions& opt;
  std::vector<Contact>& out;
  std::vector<Candidate>& candidates;

  Vec3 X(int p) const { return x.segment<3>(3 * p); }
  Vec3 X0(int p) const { return m.particle_pos0[p]; }
  double friction(const Prim& a) const {
    double f = 0;
    for (int i = 0; i < a.n; ++i) f = combine_friction(f, m.particle_friction[a.p[i]]);
    return f;
  }
  bool share(const Prim& a, const Prim& b) const {
    for (int i = 0; i < a.n; ++i)
      for (int j = 0; j < b.n; ++j)
        if (a.p[i] == b.p[j]) return true;
    return false;
  }
  bool same_piece(const Prim& a, const Prim& b) const {
    return m.particle_component[a.p[0]] == m.particle_component[b.p[0]];
  }
  // Longest rest length among a primitive's edges (0 for a point).
  double rest_size(const Prim& a) const {
    double l = 0;
    for (int i = 0; i < a.n; ++i) l = std::max(l, (X0(a.p[i]) - X0(a.p[(i + 1) % a.n])).norm());
    return l;
  }
  // Within one piece, primitives closer at rest than this are neighbours, not a fold.
  double neighbour_reach(const Prim& a, const Prim& b) const {
    return a.radius + b.radius + opt.margin + 2 * std::max(rest_size(a), rest_size(b));
  }
  void side(Contact& k, bool side_a, const Prim& a, const double* w) const {
    (side_a ? k.n1 : k.n2) = a.n;
    for (int i = 0; i < a.n; ++i) {
      (side_a ? k.p1 : k.p2)[i] = a.p[i];
      (side_a ? k.w1 : k.w2)[i] = w[i];
    }
    (side_a ? k.radius1 : k.radius2) = a.radius;
    if (side_a && a.n == 1) k.particle1 = a.p[0];
  }
  // The contact between a (weights wa) and b, if within the margin.
  bool make(const Prim& a, const double* wa, const Prim& b, const double* wb, const Vec3& n, double gap,
            const Vec3& pos, Contact& k) const {
    if (gap > opt.margin + a.sweep + b.sweep) return false;
    k = Contact();
    k.geom1 = k.geom2 = -1;
    k.body1 = k.body2 = 0;
    side(k, true, a, wa);
    side(k, false, b, wb);
    k.normal = n;
    k.dist = gap;
    k.pos = pos;
    k.friction = combine_friction(friction(a), friction(b));
    set_tangents(k);
    return true;
  }
  void emit(const Prim& a, const double* wa, const Prim& b, const double* wb, const Vec3& n, double gap,
            const Vec3& pos) const {
    Contact k;
    if (make(a, wa, b, wb, n, gap, pos, k)) out.push_back(k);
  }

  // A point against a triangle. A boundary triangle is one-sided: the point must be in
  // front, or at most a quarter edge behind and over its interior; a shell
  // triangle pushes the point away from its mid-surface on whichever side it is.
  void point_triangle(const Prim& a, const Prim& t) const {
    const Vec3 P = X(a.p[0]);
    const Vec3 T[3] = {X(t.p[0]), X(t.p[1]), X(t.p[2])};
    double w[3];
    const Vec3 y = closest_on_triangle(P, T[0], T[1], T[2], w);
    const int reg = region(w);
    const bool shell = t.src == kShell;
    const auto& owner = shell ? m.shell_tri_edge_owner[t.item] : m.tri_edge_owner[t.item];
    if (reg < 0 || (reg < 3 && !owner[reg])) return;
    if (same_piece(a, t)) {
      double w0[3];
      const Vec3 y0 = closest_on_triangle(X0(a.p[0]), X0(t.p[0]), X0(t.p[1]), X0(t.p[2]), w0);
      if ((X0(a.p[0]) - y0).norm() < neighbour_reach(a, t)) return;
    }
    const Vec3 v = P - y;
    const double len = v.norm();
    Vec3 n;
    double h;
    if (shell) {
      if (len < 1e-12) return;  // on the mid-surface: no side to push towards
      n = v / len;
      h = len;
    } else {
      n = (T[1] - T[0]).cross(T[2] - T[0]).normalized();
      h = n.dot(v);
      const double edge = std::max({(T[1] - T[0]).norm(), (T[2] - T[1]).norm(), (T[0] - T[2]).norm()});
      if (h < -0.25 * edge || len > std::abs(h) + 1e-9 + opt.margin + a.sweep + t.sweep) return;
      // behind the plane and off the face: under a neighbouring face of the body, not in this
      // one (a vertex under a block's bottom face is behind the side faces too)
      if (h < 0 && reg != 3) return;
    }
    Prim tb = t;
    tb.radius = 0;
    for (int i = 0; i < 3; ++i) tb.radius += w[i] * m.particle_radius[t.p[i]];
    const double one = 1.0;
    Contact k;
    if (make(a, &one, tb, w, n, h - a.radius - tb.radius, 0.5 * (P + y), k))
      candidates.push_back({a.p[0], m.particle_component[t.p[0]], t.src == kShell ? t.item : ~t.item, k});
  }

  // Per point and piece, the closest triangle's contact only (its neighbours' edge regions
  // are within the margin too, and would add rows for the same touch).
  void closest_triangles() const {
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      if (a.point != b.point) return a.point < b.point;
      if (a.piece != b.piece) return a.piece < b.piece;
      if (a.k.dist != b.k.dist) return a.k.dist < b.k.dist;
      return a.tri < b.tri;
    });
    for (size_t i = 0; i < candidates.size(); ++i)
      if (i == 0 || candidates[i].point != candidates[i - 1].point || candidates[i].piece != candidates[i - 1].piece)
        out.push_back(candidates[i].k);
  }

  // Two edges, closest points inside both (an end is a point the triangles or the rod
  // edges next to it answer for). Nearly parallel edges (within 6 degrees) have no single
  // closest pair; their ends' point-triangle contacts hold them (two stacked layers of one
  // mesh would otherwise get a row per overlapping edge pair on top of those).
  void edge_edge(const Prim& a, const Prim& b) const {
    const Vec3 A0 = X(a.p[0]), A1 = X(a.p[1]), B0 = X(b.p[0]), B1 = X(b.p[1]);
    if ((A1 - A0).cross(B1 - B0).norm() < 0.1 * (A1 - A0).norm() * (B1 - B0).norm()) return;
    Vec3 p, q;
    closest_segments(A0, A1, B0, B1, p, q);
    const double s = param_of(p, A0, A1), t = param_of(q, B0, B1);
    if (s < kEnd || s > 1 - kEnd || t < kEnd || t > 1 - kEnd) return;
    const double len = (p - q).norm();
    if (len < 1e-12) return;
    if (same_piece(a, b)) {
      Vec3 p0, q0;
      closest_segments(X0(a.p[0]), X0(a.p[1]), X0(b.p[0]), X0(b.p[1]), p0, q0);
      if ((p0 - q0).norm() < neighbour_reach(a, b)) return;
    }
    const double wa[2] = {1 - s, s}, wb[2] = {1 - t, t};
    Prim ea = a, eb = b;
    ea.radius = (1 - s) * m.particle_radius[a.p[0]] + s * m.particle_radius[a.p[1]];
    eb.radius = (1 - t) * m.particle_radius[b.p[0]] + t * m.particle_radius[b.p[1]];
    if (a.src == kRod) ea.radius = a.radius;
    if (b.src == kRod) eb.radius = b.radius;
    emit(ea, wa, eb, wb, (p - q) / len, len - ea.radius - eb.radius, 0.5 * (p + q));
  }

  // A shell or boundary vertex against a rod edge's interior.
  void point_rod_edge(const Prim& a, const Prim& e) const {
    const Vec3 P = X(a.p[0]), E0 = X(e.p[0]), E1 = X(e.p[1]);
    const Vec3 y = closest_on_segment(P, E0, E1);
    const double t = param_of(y, E0, E1);
    if (t < kEnd || t > 1 - kEnd) return;
    const double len = (P - y).norm();
    if (len < 1e-12) return;
    if (same_piece(a, e) && (X0(a.p[0]) - closest_on_segment(X0(a.p[0]), X0(e.p[0]), X0(e.p[1]))).norm() <
                                neighbour_reach(a, e))
      return;
    const double one = 1.0, we[2] = {1 - t, t};
    emit(a, &one, e, we, (P - y) / len, len - a.radius - e.radius, 0.5 * (P + y));
  }

  // Dispatch one candidate pair (a before b in the sweep).
  void pair(const Prim& a, const Prim& b) const {
    const Prim* u = &a;
    const Prim* v = &b;
    if (u->cls > v->cls) std::swap(u, v);  // point < edge < triangle
    if (share(*u, *v)) return;
    if (u->cls == kPoint && v->cls == kTri) {
      if (v->src == kTet && !(u->src & (kRod | kShell))) return;  // soft_contact.cpp's
      point_triangle(*u, *v);
    } else if (u->cls == kEdge && v->cls == kEdge) {
      if (u->src == v->src && u->src != kShell) return;  // rod-rod, tet-tet: elsewhere
      edge_edge(*u, *v);
    } else if (u->cls == kPoint && v->cls == kEdge && v->src == kRod) {
      if (u->src & kRod) return;  // a rod node: rod_contact.cpp's
      point_rod_edge(*u, *v);
    }
  }
};

}  // namespace

void detect_deformable_contacts(const Model& m, const VecX& x, const CollisionOptions& opt,
                                std::vector<Contact>& out, const double* psweep) {
  thread_local std::vector<Prim> prims;       // per-thread scratch, grows once
  thread_local std::vector<unsigned char> src;
  thread_local std::vector<Candidate> candidates;
  prims.clear();
  candidates.clear();
  src.assign(m.nparticle, 0);
  for (const auto& e : m.rodedge_p) src[e[0]] |= kRod, src[e[1]] |= kRod;
  for (const auto& t : m.shell_tri)
    for (int p : t) src[p] |= kShell;
  for (int p : m.soft_vertex) src[p] |= kTet;
  const auto sweep = [&](int p) { return psweep ? psweep[p] : 0.0; };
  const auto add = [&](Cls cls, unsigned char s, int n, const int* p, int item, double radius) {
    Prim a;
    a.index = static_cast<int>(prims.size());
    a.cls = cls;
    a.src = s;
    a.n = n;
    a.item = item;
    a.radius = radius;
    a.sweep = 0;
    a.lo = a.hi = x.segment<3>(3 * p[0]);
    double grow = 0;
    for (int i = 0; i < n; ++i) {
      a.p[i] = p[i];
      const Vec3 y = x.segment<3>(3 * p[i]);
      a.lo = a.lo.cwiseMin(y);
      a.hi = a.hi.cwiseMax(y);
      a.sweep = std::max(a.sweep, sweep(p[i]));
      grow = std::max(grow, m.particle_radius[p[i]]);
    }
    grow = std::max(grow, radius) + a.sweep + 0.5 * opt.margin;
    a.lo.array() -= grow;
    a.hi.array() += grow;
    prims.push_back(a);
  };
  for (int p = 0; p < m.nparticle; ++p)
    if (src[p] && !m.particle_ghost[p]) add(kPoint, src[p], 1, &p, -1, m.particle_radius[p]);
  for (int e = 0; e < m.nrodedge; ++e) add(kEdge, kRod, 2, m.rodedge_p[e].data(), e, m.rodedge_radius[e]);
  const auto triangles = [&](const std::vector<std::array<int, 3>>& tri,
                             const std::vector<std::array<char, 3>>& owner, unsigned char s) {
    for (size_t t = 0; t < tri.size(); ++t) {
      add(kTri, s, 3, tri[t].data(), static_cast<int>(t), 0.0);
      for (int k = 0; k < 3; ++k)
        if (owner[t][k]) {
          const int e[2] = {tri[t][k], tri[t][(k + 1) % 3]};
          add(kEdge, s, 2, e, static_cast<int>(t), 0.0);
        }
    }
  };
  triangles(m.shell_tri, m.shell_tri_edge_owner, kShell);
  if (m.nsoft > 0) triangles(m.tri_p, m.tri_edge_owner, kTet);

  std::sort(prims.begin(), prims.end(), [](const Prim& a, const Prim& b) {
    return a.lo.x() < b.lo.x() || (a.lo.x() == b.lo.x() && a.index < b.index);
  });
  const Scene S{m, x, opt, out, candidates};
  for (size_t i = 0; i < prims.size(); ++i) {
    const Prim& A = prims[i];
    for (size_t j = i + 1; j < prims.size() && prims[j].lo.x() <= A.hi.x(); ++j) {
      const Prim& B = prims[j];
      if (B.lo.y() > A.hi.y() || A.lo.y() > B.hi.y() || B.lo.z() > A.hi.z() || A.lo.z() > B.hi.z()) continue;
      if (A.cls == kPoint && B.cls == kPoint) continue;
      S.pair(A, B);
    }
  }
  S.closest_triangles();
}

}  // namespace ncpgym
