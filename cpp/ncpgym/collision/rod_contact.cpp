// Contacts of rod edges (capsules of the rod's radius between two nodes) against rigid geoms
// and against each other (written for ncpgym; the seed handles rod contact by the IMC
// penalty energy, dismech-rods-shells.txt §4, ncpgym by the solver's hard contact rows).
//
// An edge point is a contact side with the weights (1 - t, t) on the edge's two particles, so
// its rows are w_i n^T on each (nonsmooth-newton-ncp.txt eq. 9 with a(q) = sum_i w_i x_i), as
// for soft surface triangles. Against rigid geoms, points at an edge's ends are left to the
// node's own sphere contact (same radius); planes meet edges only at their ends, so they are
// skipped. Edge pairs that share a node (they meet at it) or lie within kNeighbours edges on
// one rod are skipped.
#include <algorithm>
#include <cmath>

#include "ncpgym/collision/closest.hpp"
#include "ncpgym/collision/convex_contact.hpp"
#include "ncpgym/collision/detect.hpp"
#include "ncpgym/collision/filter.hpp"
#include "ncpgym/collision/geom.hpp"

namespace ncpgym {

namespace {

constexpr double kEnd = 1e-6;  // edge parameter within this of 0 or 1: the node's contact
// Edges of one rod fewer than this many edges apart do not collide: touching them would take
// a bend tighter than the rod's elasticity allows (the seed's IMC skips neighbours the same
// way), and the 1 cm speculative margin would otherwise pair every edge with its neighbours.
constexpr int kNeighbours = 4;

// Edges e < f lie on one rod within kNeighbours edges of each other.
bool near_on_rod(const Model& m, int e, int f) {
  if (f - e >= kNeighbours) return false;
  for (int i = e; i < f; ++i)
    if (m.rodedge_p[i][1] != m.rodedge_p[i + 1][0]) return false;
  return true;
}

// Side A (side_a) or B of contact k: the point (1 - t) x_a + t x_b of edge (a, b), grown by
// the edge's radius.
void edge_side(Contact& k, bool side_a, int a, int b, double t, double radius) {
  (side_a ? k.n1 : k.n2) = 2;
  int* p = side_a ? k.p1 : k.p2;
  double* w = side_a ? k.w1 : k.w2;
  p[0] = a;
  p[1] = b;
  w[0] = 1 - t;
  w[1] = t;
  (side_a ? k.geom1 : k.geom2) = -1;
  (side_a ? k.body1 : k.body2) = 0;
  (side_a ? k.radius1 : k.radius2) = radius;
}

}  // namespace

void detect_rod_contacts(const Model& m, const Data& d, const VecX& x, const CollisionOptions& opt,
                         std::vector<Contact>& out, const double* psweep, const double* gsweep) {
  thread_local collision::Points pts = [] {
    collision::Points p;
    p.reserve(16);
    return p;
  }();
  auto sweep = [&](int p) { return psweep ? psweep[p] : 0.0; };
  // 1. edges against rigid geoms (not planes: an edge meets a plane at its ends only)
  for_each_solid_geom(m, d, [&](const SolidGeom& sg) {
    for (int e = 0; e < m.nrodedge; ++e) {
      const int a = m.rodedge_p[e][0], b = m.rodedge_p[e][1];
      const Vec3 xa = x.segment<3>(3 * a), xb = x.segment<3>(3 * b);
      const double r = m.rodedge_radius[e], len = (xb - xa).norm();
      const double margin = opt.margin + std::max(sweep(a), sweep(b)) + (gsweep ? gsweep[sg.g] : 0.0);
      const Vec3 mid = 0.5 * (xa + xb);
      if ((mid - sg.pose.pos).norm() > 0.5 * len + r + sg.rbound + margin || len <= 0) continue;
      collision::Shape seg;
      seg.kind = collision::CoreKind::Segment;
      seg.pos = mid;
      seg.rot = Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), (xb - xa) / len).toRotationMatrix();
      seg.size[1] = 0.5 * len;
      seg.radius = r;
      pts.clear();
      collision::convex_pair(seg, sg.shape, margin, pts);
      for (const auto& c : pts) {
        const Vec3 core = c.a + c.ra * c.n;  // on the edge's axis
        const double t = collision::param_of(core, xa, xb);
        if (t < kEnd || t > 1 - kEnd) continue;
        Contact k;
        edge_side(k, true, a, b, t, c.ra);
        set_geom_side(k, sg, c, d);
        k.normal = c.n;
        k.pos = 0.5 * (c.a + c.b);
        k.dist = c.dist;
        k.friction =
            combine_friction(std::max(m.particle_friction[a], m.particle_friction[b]), m.geom_friction[sg.g][0]);
        set_tangents(k);
        out.push_back(k);
      }
    }
  });
  // 2. edges against edges (of any rods, the same one included) that share no node
  for (int e = 0; e < m.nrodedge; ++e) {
    const int a = m.rodedge_p[e][0], b = m.rodedge_p[e][1];
    const Vec3 xa = x.segment<3>(3 * a), xb = x.segment<3>(3 * b);
    const double ra = m.rodedge_radius[e];
    for (int f = e + 1; f < m.nrodedge; ++f) {
      const int c0 = m.rodedge_p[f][0], c1 = m.rodedge_p[f][1];
      if (c0 == a || c0 == b || c1 == a || c1 == b || near_on_rod(m, e, f)) continue;
      const Vec3 xc = x.segment<3>(3 * c0), xd = x.segment<3>(3 * c1);
      const double rc = m.rodedge_radius[f];
      const double margin = opt.margin + std::max(sweep(a), sweep(b)) + std::max(sweep(c0), sweep(c1));
      // bounding boxes first
      const Vec3 lo1 = xa.cwiseMin(xb), hi1 = xa.cwiseMax(xb), lo2 = xc.cwiseMin(xd), hi2 = xc.cwiseMax(xd);
      const double reach = ra + rc + margin;
      if (((lo1.array() - hi2.array()) > reach).any() || ((lo2.array() - hi1.array()) > reach).any()) continue;
      Vec3 p, q;
      collision::closest_segments(xa, xb, xc, xd, p, q);
      const double s = collision::param_of(p, xa, xb), t = collision::param_of(q, xc, xd);
      const double dist = (p - q).norm();
      if (dist - ra - rc >= margin || dist <= 1e-12) continue;
      Contact k;
      edge_side(k, true, a, b, s, ra);
      edge_side(k, false, c0, c1, t, rc);
      k.normal = (p - q) / dist;
      k.pos = 0.5 * (p + q);
      k.dist = dist - ra - rc;
      k.friction = combine_friction(std::max(m.particle_friction[a], m.particle_friction[b]),
                                    std::max(m.particle_friction[c0], m.particle_friction[c1]));
      set_tangents(k);
      out.push_back(k);
    }
  }
}

}  // namespace ncpgym
