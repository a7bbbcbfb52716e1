#include "ncpgym/collision/detect.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "ncpgym/collision/narrowphase.hpp"

namespace ncpgym {

namespace {

const char* type_name(GeomType t) {
  switch (t) {
    case GeomType::Plane: return "plane";
    case GeomType::Sphere: return "sphere";
    case GeomType::Capsule: return "capsule";
    case GeomType::Box: return "box";
    case GeomType::Cylinder: return "cylinder";
    case GeomType::Mesh: return "mesh";
  }
  return "?";
}

// Narrow phase for an ordered pair (t1 <= t2 in the rank below); false when unsupported.
int rank(GeomType t) {
  switch (t) {
    case GeomType::Sphere: return 0;
    case GeomType::Capsule: return 1;
    case GeomType::Box: return 2;
    case GeomType::Cylinder: return 3;
    case GeomType::Mesh: return 4;
    case GeomType::Plane: return 5;
  }
  return 6;
}

bool narrow(const Model& m, int g1, const GeomPose& p1, int g2, const GeomPose& p2, double margin,
            collision::Points& out) {
  using namespace collision;
  const GeomType t1 = m.geom_type[g1], t2 = m.geom_type[g2];
  const Vec3 &s1 = m.geom_size[g1], &s2 = m.geom_size[g2];
  if (t2 == GeomType::Plane) {
    switch (t1) {
      case GeomType::Sphere: sphere_plane(p1, s1[0], p2, margin, out); return true;
      case GeomType::Capsule: capsule_plane(p1, s1[0], s1[1], p2, margin, out); return true;
      case GeomType::Box: box_plane(p1, s1, p2, margin, out); return true;
      case GeomType::Cylinder: cylinder_plane(p1, s1[0], s1[1], p2, margin, out); return true;
      case GeomType::Mesh: mesh_plane(p1, m.mesh_vert[m.geom_mesh[g1]], p2, margin, out); return true;
      default: return false;
    }
  }
  if (t1 == GeomType::Sphere && t2 == GeomType::Sphere) { sphere_sphere(p1, s1[0], p2, s2[0], margin, out); return true; }
  if (t1 == GeomType::Sphere && t2 == GeomType::Capsule) { sphere_capsule(p1, s1[0], p2, s2[0], s2[1], margin, out); return true; }
  if (t1 == GeomType::Sphere && t2 == GeomType::Box) { sphere_box(p1, s1[0], p2, s2, margin, out); return true; }
  if (t1 == GeomType::Capsule && t2 == GeomType::Capsule) { capsule_capsule(p1, s1[0], s1[1], p2, s2[0], s2[1], margin, out); return true; }
  if (t1 == GeomType::Capsule && t2 == GeomType::Box) { capsule_box(p1, s1[0], s1[1], p2, s2, margin, out); return true; }
  if (t1 == GeomType::Box && t2 == GeomType::Box) { box_box(p1, s1, p2, s2, margin, out); return true; }
  // convex polyhedra: meshes with a computed hull, cylinders as prisms, and boxes when
  // paired with either; spheres and capsules against them by closest points
  auto poly = [&](int g) -> Polyhedron {
    switch (m.geom_type[g]) {
      case GeomType::Mesh: return {&m.mesh_vert[m.geom_mesh[g]], &m.mesh_faces[m.geom_mesh[g]]};
      case GeomType::Cylinder: return {&m.geom_poly_vert[g], &m.geom_poly_faces[g]};
      case GeomType::Box: return {&m.geom_poly_vert[g], &m.geom_poly_faces[g]};  // built with the Model
      default: return {nullptr, nullptr};
    }
  };
  if (t2 == GeomType::Mesh || t2 == GeomType::Cylinder) {
    const Polyhedron P2 = poly(g2);
    if (P2.faces->empty()) return false;
    if (t1 == GeomType::Sphere) { sphere_poly(p1, s1[0], p2, P2, margin, out); return true; }
    if (t1 == GeomType::Capsule) { capsule_poly(p1, s1[0], s1[1], p2, P2, margin, out); return true; }
    const Polyhedron P1 = poly(g1);
    if (P1.faces == nullptr || P1.faces->empty()) return false;
    poly_poly(p1, P1, p2, P2, margin, out);
    return true;
  }
  return false;
}

bool is_static(const Model& m, int body) { return m.body_lastdof[body] < 0; }

bool ancestor(const Model& m, int a, int b) {  // a is the parent of b
  return m.body_parent[b] == a;
}

}  // namespace

double geom_rbound(const Model& m, int g) {
  const Vec3& s = m.geom_size[g];
  switch (m.geom_type[g]) {
    case GeomType::Plane: return std::numeric_limits<double>::infinity();
    case GeomType::Sphere: return s[0];
    case GeomType::Capsule: return s[0] + s[1];
    case GeomType::Cylinder: return std::hypot(s[0], s[1]);
    case GeomType::Box: return s.norm();
    case GeomType::Mesh: {
      double r = 0;
      for (const Vec3& v : m.mesh_vert[m.geom_mesh[g]]) r = std::max(r, v.norm());
      return r;
    }
  }
  return 0;
}

bool geoms_may_collide(const Model& m, int g1, int g2) {
  const int b1 = m.geom_body[g1], b2 = m.geom_body[g2];
  if (b1 == b2) return false;
  if (is_static(m, b1) && is_static(m, b2)) return false;
  // MuJoCo's parent-child filter, which never applies to the world body
  if ((b1 != 0 && ancestor(m, b1, b2)) || (b2 != 0 && ancestor(m, b2, b1))) return false;
  if (m.geom_type[g1] == GeomType::Plane && m.geom_type[g2] == GeomType::Plane) return false;
  const std::array<int, 2> pair{std::min(b1, b2), std::max(b1, b2)};  // <contact><exclude>
  if (std::find(m.exclude_pairs.begin(), m.exclude_pairs.end(), pair) != m.exclude_pairs.end()) return false;
  return (m.geom_contype[g1] & m.geom_conaffinity[g2]) || (m.geom_contype[g2] & m.geom_conaffinity[g1]);
}

bool accepts_particles(const Model& m, int g) { return (m.geom_conaffinity[g] & 1) != 0; }

std::vector<std::string> unsupported_pairs(const Model& m) {
  std::vector<std::string> bad;
  if (m.nparticle > 0) {
    for (int g = 0; g < m.ngeom; ++g) {
      const GeomType t = m.geom_type[g];
      if (accepts_particles(m, g) && t == GeomType::Mesh && m.mesh_faces[m.geom_mesh[g]].empty()) {
        const std::string s = std::string("particle-") + type_name(t);
        if (std::find(bad.begin(), bad.end(), s) == bad.end()) bad.push_back(s);
      }
    }
  }
  collision::Points scratch;
  const GeomPose far1{Vec3(0, 0, 1e9), Mat3::Identity()}, far2{Vec3(0, 0, -1e9), Mat3::Identity()};
  for (int g1 = 0; g1 < m.ngeom; ++g1) {
    for (int g2 = g1 + 1; g2 < m.ngeom; ++g2) {
      if (!geoms_may_collide(m, g1, g2)) continue;
      int a = g1, b = g2;
      if (rank(m.geom_type[a]) > rank(m.geom_type[b])) std::swap(a, b);
      if (!narrow(m, a, far1, b, far2, 0.0, scratch)) {
        std::string s = std::string(type_name(m.geom_type[a])) + "-" + type_name(m.geom_type[b]);
        bool seen = false;
        for (const auto& x : bad) seen = seen || x == s;
        if (!seen) bad.push_back(s);
      }
    }
  }
  return bad;
}

void detect_contacts(const Model& m, const Data& d, const CollisionOptions& opt, std::vector<Contact>& out,
                     const double* sweep) {
  out.clear();
  thread_local collision::Points pts = [] {  // per-thread scratch, reserved on first use
    collision::Points p;
    p.reserve(64);
    return p;
  }();
  auto pose = [&](int g) {
    const int b = m.geom_body[g];
    return GeomPose{d.xpos[b] + d.xmat[b] * m.geom_pos[g], d.xmat[b] * m.geom_quat[g].toRotationMatrix()};
  };
  for (int g1 = 0; g1 < m.ngeom; ++g1) {
    for (int g2 = g1 + 1; g2 < m.ngeom; ++g2) {
      if (!geoms_may_collide(m, g1, g2)) continue;
      int a = g1, b = g2;
      if (rank(m.geom_type[a]) > rank(m.geom_type[b])) std::swap(a, b);
      const GeomPose pa = pose(a), pb = pose(b);
      const double margin = opt.margin + (sweep ? sweep[a] + sweep[b] : 0.0);
      // broad phase: bounding spheres (planes always pass)
      if (m.geom_type[b] != GeomType::Plane &&
          (pa.pos - pb.pos).norm() > geom_rbound(m, a) + geom_rbound(m, b) + margin)
        continue;
      pts.clear();
      if (!narrow(m, a, pa, b, pb, margin, pts)) continue;  // rejected at Simulator creation
      const int ba = m.geom_body[a], bb = m.geom_body[b];
      const double mu = combine_friction(m.geom_friction[a][0], m.geom_friction[b][0]);
      for (const auto& p : pts) {
        Contact c;
        c.geom1 = a;
        c.geom2 = b;
        c.body1 = ba;
        c.body2 = bb;
        c.normal = p.n;
        c.pos = 0.5 * (p.a + p.b);
        c.dist = p.dist;
        c.friction = mu;
        c.local1 = d.xmat[ba].transpose() * (p.a + p.ra * p.n - d.xpos[ba]);
        c.local2 = d.xmat[bb].transpose() * (p.b - p.rb * p.n - d.xpos[bb]);
        c.radius1 = p.ra;
        c.radius2 = p.rb;
        set_tangents(c);
        out.push_back(c);
      }
    }
  }
}

}  // namespace ncpgym

namespace ncpgym {

void detect_particle_contacts(const Model& m, const Data& d, const VecX& x, const CollisionOptions& opt,
                              std::vector<Contact>& out, const double* psweep, const double* gsweep) {
  thread_local collision::Points pts = [] {  // per-thread scratch, reserved on first use
    collision::Points p;
    p.reserve(64);
    return p;
  }();
  for (int g = 0; g < m.ngeom; ++g) {
    if (!accepts_particles(m, g)) continue;
    const int b = m.geom_body[g];
    const GeomPose pg{d.xpos[b] + d.xmat[b] * m.geom_pos[g], d.xmat[b] * m.geom_quat[g].toRotationMatrix()};
    const Vec3& sz = m.geom_size[g];
    const double rb = geom_rbound(m, g);
    for (int p = 0; p < m.nparticle; ++p) {
      const double r = m.particle_radius[p];
      const double margin = opt.margin + (psweep ? psweep[p] : 0.0) + (gsweep ? gsweep[g] : 0.0);
      const GeomPose pp{x.segment<3>(3 * p), Mat3::Identity()};
      if (m.geom_type[g] != GeomType::Plane && (pp.pos - pg.pos).norm() > rb + r + margin) continue;
      pts.clear();
      switch (m.geom_type[g]) {
        case GeomType::Plane: collision::sphere_plane(pp, r, pg, margin, pts); break;
        case GeomType::Sphere: collision::sphere_sphere(pp, r, pg, sz[0], margin, pts); break;
        case GeomType::Capsule: collision::sphere_capsule(pp, r, pg, sz[0], sz[1], margin, pts); break;
        case GeomType::Box: collision::sphere_box(pp, r, pg, sz, margin, pts); break;
        case GeomType::Cylinder:
          collision::sphere_poly(pp, r, pg, {&m.geom_poly_vert[g], &m.geom_poly_faces[g]}, margin, pts);
          break;
        case GeomType::Mesh: {
          const auto& faces = m.mesh_faces[m.geom_mesh[g]];
          if (!faces.empty())
            collision::sphere_poly(pp, r, pg, {&m.mesh_vert[m.geom_mesh[g]], &faces}, margin, pts);
          break;
        }
        default: break;
      }
      for (const auto& c : pts) {
        Contact k;
        k.particle1 = p;
        k.n1 = 1;
        k.p1[0] = p;
        k.w1[0] = 1.0;
        k.geom1 = -1;
        k.geom2 = g;
        k.body1 = 0;
        k.body2 = b;
        k.normal = c.n;
        k.pos = 0.5 * (c.a + c.b);
        k.dist = c.dist;
        k.friction = combine_friction(m.particle_friction[p], m.geom_friction[g][0]);
        k.local1 = Vec3::Zero();  // the particle itself is the core point
        k.radius1 = c.ra;
        k.local2 = d.xmat[b].transpose() * (c.b - c.rb * c.n - d.xpos[b]);
        k.radius2 = c.rb;
        set_tangents(k);
        out.push_back(k);
      }
    }
  }
}

}  // namespace ncpgym
