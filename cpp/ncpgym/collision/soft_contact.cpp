// Contacts on soft bodies' boundary triangles (written for ncpgym; the closest point on a
// triangle is the projection onto its plane when inside, else the nearest edge's).
//
// A triangle point is side A of a contact with weights w (its barycentric coordinates),
// so the row's Jacobian on the three particles is w_i n^T (nonsmooth-newton-ncp.txt
// eq. 9 with a(q) = sum_i w_i x_i). Vertex-region closest points are skipped (the vertex's
// particle contact has them) and a shared edge is reported by its owner triangle only.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ncpgym/collision/closest.hpp"
#include "ncpgym/collision/convex.hpp"
#include "ncpgym/collision/detect.hpp"
#include "ncpgym/collision/convex_contact.hpp"

namespace ncpgym {

namespace {

using collision::closest_on_triangle;
using collision::param_of;
using collision::region;


// Closest points of segment [p, q] and a triangle: the point on the segment (returned) and
// on the triangle (y, weights w).
Vec3 segment_triangle(const Vec3& p, const Vec3& q, const Vec3 T[3], Vec3& y, double w[3]) {
  double best = std::numeric_limits<double>::infinity();
  Vec3 on_seg = p;
  double wt[3];
  for (const Vec3* e : {&p, &q}) {  // the segment's ends against the triangle
    const Vec3 z = closest_on_triangle(*e, T[0], T[1], T[2], wt);
    const double dist = (*e - z).squaredNorm();
    if (dist < best) {
      best = dist, on_seg = *e, y = z;
      std::copy(wt, wt + 3, w);
    }
  }
  for (int k = 0; k < 3; ++k) {  // the triangle's edges against the segment
    Vec3 a, b;
    collision::closest_segments(p, q, T[k], T[(k + 1) % 3], a, b);
    const double t = param_of(b, T[k], T[(k + 1) % 3]);
    const double dist = (a - b).squaredNorm();
    if (dist < best) {
      best = dist, on_seg = a, y = b;
      w[k] = 1 - t, w[(k + 1) % 3] = t, w[(k + 2) % 3] = 0;
    }
  }
  // the segment through the triangle's interior
  const Vec3 n = (T[1] - T[0]).cross(T[2] - T[0]);
  const double dp = n.dot(p - T[0]), dq = n.dot(q - T[0]);
  if (dp * dq < 0) {
    const Vec3 x = p + dp / (dp - dq) * (q - p);
    const Vec3 z = closest_on_triangle(x, T[0], T[1], T[2], wt);
    if ((z - x).squaredNorm() < 1e-24) {
      on_seg = y = x;
      std::copy(wt, wt + 3, w);
    }
  }
  return on_seg;
}

struct Box3 {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 hi = -Vec3::Constant(std::numeric_limits<double>::infinity());
  void add(const Vec3& p) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  bool near(const Vec3& c, double r) const {  // a ball of radius r around c touches the box
    return ((c - hi).cwiseMax(lo - c)).maxCoeff() <= r;
  }
  bool overlaps(const Box3& o, double r) const {
    return ((o.lo - hi).cwiseMax(lo - o.hi)).maxCoeff() <= r;
  }
};

// The soft surfaces of a world at particle positions x: each soft body's bounding box, the
// largest particle sweep, and what every soft contact reads of a triangle.
struct Surfaces {
  const Model& m;
  const VecX& x;
  std::vector<Box3>& boxes;
  double max_sweep = 0;

  Surfaces(const Model& model, const VecX& pos, const double* psweep, std::vector<Box3>& b)
      : m(model), x(pos), boxes(b) {
    boxes.assign(m.nsoft, Box3());
    for (int s = 0; s < m.nsoft; ++s)
      for (int k = m.soft_vertex_start[s]; k < m.soft_vertex_start[s + 1]; ++k) {
        const int p = m.soft_vertex[k];
        boxes[s].add(P(p));
        max_sweep = std::max(max_sweep, (psweep ? psweep[p] : 0.0) + m.particle_radius[p]);
      }
  }
  Vec3 P(int p) const { return x.segment<3>(3 * p); }
  // Triangle t's corners and bounding box.
  Box3 corners(int t, Vec3 T[3]) const {
    Box3 tb;
    for (int i = 0; i < 3; ++i) tb.add(T[i] = P(m.tri_p[t][i]));
    return tb;
  }
  // Makes side A (side_a) or B of contact k the point of triangle t with weights w;
  // returns that point's radius (the weighted particle radii).
  double soft_side(Contact& k, int t, const double w[3], bool side_a) const {
    double r = 0;
    for (int i = 0; i < 3; ++i) {
      (side_a ? k.p1 : k.p2)[i] = m.tri_p[t][i];
      (side_a ? k.w1 : k.w2)[i] = w[i];
      r += w[i] * m.particle_radius[m.tri_p[t][i]];
    }
    (side_a ? k.n1 : k.n2) = 3;
    return r;
  }
  double friction_of(int t) const {
    double f = 0;
    for (int i = 0; i < 3; ++i) f = combine_friction(f, m.particle_friction[m.tri_p[t][i]]);
    return f;
  }
};

// One rigid geom against one triangle: the triangle's corners T, outward normal nt, and
// where the contacts go.
struct RigidOnTriangle {
  const Surfaces& S;
  const Data& d;
  int g, t;
  const Vec3* T;
  Vec3 nt;
  double margin;
  std::vector<Contact>& out;

  // Contact between the triangle point y (weights w) and the geom's body-fixed core point,
  // grown by `radius` along n (from the geom to the surface), at signed distance `dist`.
  // Closest points in a vertex region, or on an edge this triangle does not own, belong to
  // the particle contact or the neighbour; `clipped` points (a feature clipped to this
  // triangle) are kept wherever they lie on it: on a boundary edge of the surface no
  // neighbour across the edge would find them.
  void emit(const Vec3& core, double radius, const Vec3& y, const double w[3], const Vec3& n, double dist,
            bool clipped) const {
    const int reg = region(w);
    if (!clipped && (reg < 0 || (reg < 3 && !S.m.tri_edge_owner[t][reg]))) return;
    const int b = S.m.geom_body[g];
    Contact k;
    k.geom2 = g;
    k.body2 = b;
    const double ra = S.soft_side(k, t, w, true);
    k.normal = n;
    k.dist = dist - ra;
    if (k.dist > margin) return;
    k.radius1 = ra;
    k.local2 = d.xmat[b].transpose() * (core - d.xpos[b]);
    k.radius2 = radius;
    k.pos = y;
    k.friction = combine_friction(S.friction_of(t), S.m.geom_friction[g][0]);
    set_tangents(k);
    out.push_back(k);
  }

  // Box, cylinder or hull: its feature facing the triangle (a face, an edge, a cylinder's
  // side or cap, a corner) clipped to the triangle's prism, as a box on a box face
  // (convex_contact.cpp), so an edge pressed across a face holds at both ends. Points
  // deeper than `deep` are on a far-side face.
  void clipped(const collision::Shape& shape, double deep) const {
    thread_local std::vector<Vec3> tri, cores;  // per-thread scratch
    tri.assign(T, T + 3);  // counter-clockwise about nt
    double rad, w[3];
    collision::clip_to_face(shape, tri, nt, cores, rad);
    for (const Vec3& X : cores) {
      const double h = nt.dot(X - T[0]);  // the core point's height over the face
      if (h - rad < -deep) continue;
      const Vec3 y = closest_on_triangle(X - h * nt, T[0], T[1], T[2], w);
      emit(X, rad, y, w, -nt, h - rad, true);
    }
  }

  // Sphere or capsule by closest points. Core points: a sphere's centre; a capsule's two
  // axis ends (two contacts hold a capsule lying on a face steady) and, when it lies inside
  // the axis, the axis point closest to the triangle (an edge under the axis).
  void round(const GeomPose& pose) const {
    const Vec3& sz = S.m.geom_size[g];
    const Vec3& c = pose.pos;
    Vec3 cores[3] = {c, c, c};
    int ncore = 1;
    double w[3];
    if (S.m.geom_type[g] == GeomType::Capsule) {
      const Vec3 axis = pose.rot.col(2) * sz[1];
      cores[0] = c - axis;
      cores[1] = c + axis;
      ncore = 2;
      Vec3 y;
      const Vec3 mid = segment_triangle(c - axis, c + axis, T, y, w);
      if ((mid - cores[0]).norm() > 1e-9 * sz[1] && (mid - cores[1]).norm() > 1e-9 * sz[1]) cores[ncore++] = mid;
    }
    const double radius = sz[0];
    for (int i = 0; i < ncore; ++i) {
      const Vec3& core = cores[i];
      const Vec3 y = closest_on_triangle(core, T[0], T[1], T[2], w);
      Vec3 v = y - core;  // from the geom's core to the surface (B to A)
      double len = v.norm();
      Vec3 n = len > 1e-12 ? Vec3(v / len) : Vec3(-nt);
      if (n.dot(nt) > 0) {
        // the core is behind the face's plane: sunk into the soft body through this face
        // (push it out along -nt) if only a little, else this is a far-side face
        const double depth = std::abs(nt.dot(y - core));
        if (depth > 0.5 * radius || region(w) != 3) continue;
        n = -nt;
        len = -depth;
      }
      emit(core, radius, y, w, n, len - radius, false);
    }
  }
};

// 1. rigid geoms (those that take particles) against every soft body's triangles
void rigid_triangle_contacts(const Surfaces& S, const Data& d, const CollisionOptions& opt, const double* gsweep,
                             std::vector<Contact>& out) {
  const Model& m = S.m;
  for_each_solid_geom(m, d, [&](const SolidGeom& sg) {
    const int g = sg.g;
    const GeomType type = m.geom_type[g];
    const GeomPose& pose = sg.pose;
    const double margin = opt.margin + (gsweep ? gsweep[g] : 0.0) + S.max_sweep;
    const double reach = sg.rbound + margin;
    const bool round = type == GeomType::Sphere || type == GeomType::Capsule;
    const double deep = 0.5 * inner_radius(m, g);
    for (int s = 0; s < m.nsoft; ++s) {
      if (!S.boxes[s].near(pose.pos, reach)) continue;
      for (int t = m.soft_tri_start[s]; t < m.soft_tri_start[s + 1]; ++t) {
        Vec3 T[3];
        if (!S.corners(t, T).near(pose.pos, reach)) continue;
        const RigidOnTriangle pair{S, d, g, t, T, (T[1] - T[0]).cross(T[2] - T[0]).normalized(), margin, out};
        if (round) {
          pair.round(pose);
        } else {
          pair.clipped(sg.shape, deep);
        }
      }
    }
  });
}

// 2. boundary vertices of one soft body against the triangles of another: per vertex the
// closest triangle in front of it
void soft_soft_contacts(const Surfaces& S, const CollisionOptions& opt, const double* psweep,
                        std::vector<Contact>& out) {
  const Model& m = S.m;
  for (int sa = 0; sa < m.nsoft; ++sa)
    for (int sb = 0; sb < m.nsoft; ++sb) {
      if (sa == sb || m.soft_exclude[static_cast<size_t>(sa) * m.nsoft + sb] ||
          !S.boxes[sa].overlaps(S.boxes[sb], opt.margin + 2 * S.max_sweep))
        continue;
      for (int k = m.soft_vertex_start[sa]; k < m.soft_vertex_start[sa + 1]; ++k) {
        const int p = m.soft_vertex[k];
        const Vec3 X = S.P(p);
        const double margin = opt.margin + (psweep ? psweep[p] : 0.0) + S.max_sweep;
        if (!S.boxes[sb].near(X, margin + m.particle_radius[p])) continue;
        Contact best;
        double best_gap = std::numeric_limits<double>::infinity();
        for (int t = m.soft_tri_start[sb]; t < m.soft_tri_start[sb + 1]; ++t) {
          Vec3 T[3];
          if (!S.corners(t, T).near(X, margin + m.particle_radius[p])) continue;
          double w[3];
          const Vec3 y = closest_on_triangle(X, T[0], T[1], T[2], w);
          const int reg = region(w);
          if (reg < 0 || (reg < 3 && !m.tri_edge_owner[t][reg])) continue;
          const Vec3 nt = (T[1] - T[0]).cross(T[2] - T[0]).normalized();
          const double edge = std::max({(T[1] - T[0]).norm(), (T[2] - T[1]).norm(), (T[0] - T[2]).norm()});
          const double h = nt.dot(X - y);
          if (h < -0.25 * edge || (X - y).norm() > std::abs(h) + 1e-9 + margin) continue;  // behind, or beside
          if ((X - y).norm() >= best_gap) continue;
          best_gap = (X - y).norm();
          Contact c;
          c.particle1 = p;
          c.n1 = 1;
          c.p1[0] = p;
          c.w1[0] = 1.0;
          c.radius1 = m.particle_radius[p];
          const double rb = S.soft_side(c, t, w, false);
          c.radius2 = rb;
          c.normal = nt;  // from B's surface to A's vertex
          c.dist = h - c.radius1 - rb;
          c.pos = 0.5 * (X + y);
          c.friction = combine_friction(m.particle_friction[p], S.friction_of(t));
          best = c;
        }
        if (best_gap < std::numeric_limits<double>::infinity() && best.dist <= margin) {
          set_tangents(best);
          out.push_back(best);
        }
      }
    }
}

}  // namespace

void detect_soft_surface_contacts(const Model& m, const Data& d, const VecX& x, const CollisionOptions& opt,
                                  std::vector<Contact>& out, const double* psweep, const double* gsweep,
                                  bool rigid_triangles, bool soft_soft) {
  if (m.nsoft == 0) return;
  thread_local std::vector<Box3> boxes;  // per-thread scratch
  const Surfaces S(m, x, psweep, boxes);
  if (rigid_triangles) rigid_triangle_contacts(S, d, opt, gsweep, out);
  if (soft_soft) soft_soft_contacts(S, opt, psweep, out);
}

}  // namespace ncpgym
