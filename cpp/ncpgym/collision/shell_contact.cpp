// Contacts of shell triangles against rigid geoms (written for ncpgym): each triangle is a
// flat convex shape grown by half the shell's thickness (a two-sided "hull" of its three
// corners and its two faces), met by the geom through GJK/EPA and face clipping, so a rigid
// feature smaller than the triangles is held by the shell between its vertices. A point of
// the triangle is the contact's side A with its barycentric weights on the three particles
// (nonsmooth-newton-ncp.txt eq. 9 with a(q) = sum_i w_i x_i). Points in a vertex region are
// the vertex's own particle contact; an edge shared by two triangles is reported by its
// owner. Planes meet a flat triangle at its corners only and are skipped.
#include <algorithm>
#include <cmath>

#include "ncpgym/collision/closest.hpp"
#include "ncpgym/collision/convex_contact.hpp"
#include "ncpgym/collision/detect.hpp"
#include "ncpgym/collision/filter.hpp"
#include "ncpgym/collision/geom.hpp"

namespace ncpgym {

namespace {

// A triangle as a convex hull: three vertices, the front and back faces, every vertex
// adjacent to the other two and on both faces. Reused per thread (no allocation after the
// first call); set() moves it to a triangle, in a frame centred on its centroid.
struct TriangleHull {
  ConvexHull h;
  TriangleHull() {
    h.vert.assign(3, Vec3::Zero());
    h.faces.assign(2, HullFace{Vec3::UnitZ(), 0.0, {0, 1, 2}});
    h.faces[1].verts = {0, 2, 1};
    h.adj_start = {0, 2, 4, 6};
    h.adj = {1, 2, 0, 2, 0, 1};
    h.vface_start = {0, 2, 4, 6};
    h.vface = {0, 1, 0, 1, 0, 1};
  }
  void set(const Vec3 (&T)[3], const Vec3& centre, const Vec3& n) {
    h.rbound = 0;
    for (int i = 0; i < 3; ++i) {
      h.vert[i] = T[i] - centre;
      h.rbound = std::max(h.rbound, h.vert[i].norm());
    }
    h.faces[0].normal = n;
    h.faces[0].offset = n.dot(h.vert[0]);
    h.faces[1].normal = -n;
    h.faces[1].offset = -n.dot(h.vert[0]);
  }
};

}  // namespace

void detect_shell_contacts(const Model& m, const Data& d, const VecX& x, const CollisionOptions& opt,
                           std::vector<Contact>& out, const double* psweep, const double* gsweep) {
  thread_local TriangleHull tri;
  thread_local collision::Points pts = [] {
    collision::Points p;
    p.reserve(16);
    return p;
  }();
  for_each_solid_geom(m, d, [&](const SolidGeom& sg) {
    for (size_t t = 0; t < m.shell_tri.size(); ++t) {
      const auto& p = m.shell_tri[t];
      Vec3 T[3];
      double sweep = 0;
      for (int i = 0; i < 3; ++i) {
        T[i] = x.segment<3>(3 * p[i]);
        sweep = std::max(sweep, psweep ? psweep[p[i]] : 0.0);
      }
      const Vec3 centre = (T[0] + T[1] + T[2]) / 3.0;
      const double r = m.particle_radius[p[0]];
      const double margin = opt.margin + sweep + (gsweep ? gsweep[sg.g] : 0.0);
      const double reach = std::max({(T[0] - centre).norm(), (T[1] - centre).norm(), (T[2] - centre).norm()});
      if ((sg.pose.pos - centre).norm() > reach + r + sg.rbound + margin) continue;
      const Vec3 cr = (T[1] - T[0]).cross(T[2] - T[0]);
      if (cr.norm() <= 0) continue;
      tri.set(T, centre, cr.normalized());
      // the bare triangle (radius 0), its half thickness added to the results: when the
      // triangle is the reference face, the face clipping measures from its bare plane
      collision::Shape ts;
      ts.kind = collision::CoreKind::Hull;
      ts.pos = centre;
      ts.hull = &tri.h;
      pts.clear();
      collision::convex_pair(ts, sg.shape, margin + r, pts);
      for (const auto& c : pts) {
        double w[3];
        collision::closest_on_triangle(c.a + c.ra * c.n, T[0], T[1], T[2], w);  // the core point's weights
        const int reg = collision::region(w);
        if (reg < 0 || (reg < 3 && !m.shell_tri_edge_owner[t][reg])) continue;
        Contact k;
        k.n1 = 3;
        double friction = 0;
        for (int i = 0; i < 3; ++i) {
          k.p1[i] = p[i];
          k.w1[i] = w[i];
          friction = std::max(friction, m.particle_friction[p[i]]);
        }
        k.geom1 = -1;
        k.body1 = 0;
        k.radius1 = c.ra + r;
        set_geom_side(k, sg, c, d);
        k.normal = c.n;
        k.pos = 0.5 * (c.a - r * c.n + c.b);
        k.dist = c.dist - r;
        k.friction = combine_friction(friction, m.geom_friction[sg.g][0]);
        set_tangents(k);
        out.push_back(k);
      }
    }
  });
}

}  // namespace ncpgym
