#include "ncpgym/collision/detect.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "ncpgym/collision/broadphase.hpp"
#include "ncpgym/collision/contact_params.hpp"
#include "ncpgym/collision/convex.hpp"
#include "ncpgym/collision/convex_contact.hpp"
#include "ncpgym/collision/narrowphase.hpp"

namespace ncpgym {

namespace {

// Pairs are tested in the order rank(type 1) <= rank(type 2).
int rank(GeomType t) {
  switch (t) {
    case GeomType::Sphere: return 0;
    case GeomType::Capsule: return 1;
    case GeomType::Box: return 2;
    case GeomType::Cylinder: return 3;
    case GeomType::Ellipsoid: return 4;
    case GeomType::Mesh: return 5;
    case GeomType::Plane: return 6;
  }
  return 7;
}

// Narrow phase for an ordered pair (rank(t1) <= rank(t2) above): closed-form tests where
// they exist, closest points on a hull for spheres, and support functions (GJK/EPA and
// face clipping) for every other convex pair.
void narrow(const Model& m, int g1, const GeomPose& p1, int g2, const GeomPose& p2, double margin,
            collision::Points& out) {
  using namespace collision;
  const GeomType t1 = m.geom_type[g1], t2 = m.geom_type[g2];
  const Vec3 &s1 = m.geom_size[g1], &s2 = m.geom_size[g2];
  if (t2 == GeomType::Plane) {
    switch (t1) {
      case GeomType::Sphere: return sphere_plane(p1, s1[0], p2, margin, out);
      case GeomType::Capsule: return capsule_plane(p1, s1[0], s1[1], p2, margin, out);
      case GeomType::Box: return box_plane(p1, s1, p2, margin, out);
      case GeomType::Cylinder: return cylinder_plane(p1, s1[0], s1[1], p2, margin, out);
      case GeomType::Ellipsoid: return ellipsoid_plane(p1, s1, p2, margin, out);
      case GeomType::Mesh: return mesh_plane(p1, m.mesh_hull[m.geom_mesh[g1]], p2, margin, out);
      case GeomType::Plane: return;
    }
  }
  if (t1 == GeomType::Sphere && t2 == GeomType::Sphere) return sphere_sphere(p1, s1[0], p2, s2[0], margin, out);
  if (t1 == GeomType::Sphere && t2 == GeomType::Capsule) return sphere_capsule(p1, s1[0], p2, s2[0], s2[1], margin, out);
  if (t1 == GeomType::Sphere && t2 == GeomType::Box) return sphere_box(p1, s1[0], p2, s2, margin, out);
  if (t1 == GeomType::Capsule && t2 == GeomType::Capsule) return capsule_capsule(p1, s1[0], s1[1], p2, s2[0], s2[1], margin, out);
  if (t1 == GeomType::Capsule && t2 == GeomType::Box) return capsule_box(p1, s1[0], s1[1], p2, s2, margin, out);
  if (t1 == GeomType::Box && t2 == GeomType::Box) return box_box(p1, s1, p2, s2, margin, out);
  if (t2 == GeomType::Mesh && t1 == GeomType::Sphere) return sphere_poly(p1, s1[0], p2, m.mesh_hull[m.geom_mesh[g2]], margin, out);
  convex_pair(geom_shape(m, g1, p1), geom_shape(m, g2, p2), margin, out);
}

}  // namespace

double geom_distance(const Model& m, const Data& d, int g1, int g2, double distmax, Vec3& p1, Vec3& p2) {
  p1.setZero();
  p2.setZero();
  const bool plane1 = m.geom_type[g1] == GeomType::Plane, plane2 = m.geom_type[g2] == GeomType::Plane;
  if (plane1 && plane2) throw std::invalid_argument("geom_distance: both geoms are planes");
  const GeomPose a = geom_pose(m, d, g1), b = geom_pose(m, d, g2);
  if (!plane1 && !plane2) {
    const auto r = collision::convex_distance(geom_shape(m, g1, a), geom_shape(m, g2, b));
    if (r.dist > distmax) return distmax;
    p1 = r.a;
    p2 = r.b;
    return r.dist;
  }
  // against a plane: the deepest point of the narrow phase run with margin distmax
  const bool swap = plane1;
  collision::Points pts;
  narrow(m, swap ? g2 : g1, swap ? b : a, swap ? g1 : g2, swap ? a : b, distmax, pts);
  double best = distmax;
  for (const auto& p : pts)
    if (p.dist < best) {
      best = p.dist;
      p1 = swap ? p.b : p.a;
      p2 = swap ? p.a : p.b;
    }
  return best;
}

namespace {

// How far geoms a and b of one tree may approach over the step (detect.hpp, GeomMotion)
double approach(const GeomMotion& a, const GeomMotion& b) {
  double s = 0.0;
  for (int k = 0; k < 2; ++k) s = std::max(s, (a.shift[k] - b.shift[k]).norm() + a.turn[k] + b.turn[k]);
  return s;
}

}  // namespace

void detect_contacts(const Model& m, const Data& d, const CollisionOptions& opt, std::vector<Contact>& out,
                     const double* sweep, const GeomMotion* motion) {
  out.clear();
  thread_local collision::Points pts = [] {  // per-thread scratch, reserved on first use
    collision::Points p;
    p.reserve(64);
    return p;
  }();
  thread_local std::vector<std::pair<int, int>> pairs;  // per-thread scratch, grows once
  thread_local std::vector<GeomPose> pose;                // every geom's, once per call
  if (pose.size() < static_cast<size_t>(m.ngeom)) pose.resize(m.ngeom);
  for (int g = 0; g < m.ngeom; ++g) pose[g] = geom_pose(m, d, g);
  candidate_pairs(m, pose.data(), opt.margin + m.max_geom_margin, sweep, pairs);
  // geom pairs by the filtering rules, then the model's explicit pairs (contact_params.hpp)
  const int ndynamic = static_cast<int>(pairs.size());
  for (int p = 0; p < m.npair; ++p) pairs.emplace_back(m.pair_geom[p][0], m.pair_geom[p][1]);
  for (int i = 0; i < static_cast<int>(pairs.size()); ++i) {
    auto [a, b] = pairs[i];
    const ContactParams cp = i < ndynamic ? geom_pair_params(m, a, b) : pair_params(m, i - ndynamic);
    if (rank(m.geom_type[a]) > rank(m.geom_type[b])) std::swap(a, b);
    const GeomPose &pa = pose[a], &pb = pose[b];
    const bool one_tree = motion && motion[a].tree == motion[b].tree;
    const double margin = opt.margin + cp.margin +
                          (one_tree ? approach(motion[a], motion[b]) : sweep ? sweep[a] + sweep[b] : 0.0);
    // bounding spheres (planes always pass): what the narrow phase would reject anyway
    if (m.geom_type[b] != GeomType::Plane &&
        (pa.pos - pb.pos).norm() > geom_rbound(m, a) + geom_rbound(m, b) + margin)
      continue;
    pts.clear();
    narrow(m, a, pa, b, pb, margin, pts);
    const int ba = m.geom_body[a], bb = m.geom_body[b];
    for (const auto& p : pts) {
      Contact c;
      c.geom1 = a;
      c.geom2 = b;
      c.body1 = ba;
      c.body2 = bb;
      c.normal = p.n;
      c.pos = 0.5 * (p.a + p.b);
      c.dist = p.dist;
      c.friction = cp.condim == 1 ? 0.0 : cp.slide;
      c.condim = cp.condim;
      c.spin = cp.condim >= 4 ? cp.spin : 0.0;  // the coefficients that act
      c.roll = cp.condim == 6 ? cp.roll : 0.0;
      c.margin = cp.margin;
      c.local1 = d.xmat[ba].transpose() * (p.a + p.ra * p.n - d.xpos[ba]);
      c.local2 = d.xmat[bb].transpose() * (p.b - p.rb * p.n - d.xpos[bb]);
      c.radius1 = p.ra;
      c.radius2 = p.rb;
      set_tangents(c);
      out.push_back(c);
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
    const GeomPose pg = geom_pose(m, d, g);
    const Vec3& sz = m.geom_size[g];
    const double rb = geom_rbound(m, g);
    for (int p = 0; p < m.nparticle; ++p) {
      if (m.particle_ghost[p]) continue;  // a rod's twist marker, not matter
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
        case GeomType::Ellipsoid: {
          collision::Shape ball;
          ball.pos = pp.pos;
          ball.radius = r;
          collision::convex_pair(ball, geom_shape(m, g, pg), margin, pts);
          break;
        }
        case GeomType::Mesh: collision::sphere_poly(pp, r, pg, m.mesh_hull[m.geom_mesh[g]], margin, pts); break;
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
