// Per-geom geometry in the world (see geom.hpp).
#include "ncpgym/collision/geom.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ncpgym/dynamics/kinematics.hpp"

namespace ncpgym {

GeomPose geom_pose(const Model& m, const Data& d, int g) { return GeomPose{geom_xpos(m, d, g), geom_xmat(m, d, g)}; }

collision::Shape geom_shape(const Model& m, int g, const GeomPose& p) {
  using collision::CoreKind;
  collision::Shape s;
  s.pos = p.pos;
  s.rot = p.rot;
  const Vec3& z = m.geom_size[g];
  switch (m.geom_type[g]) {
    case GeomType::Sphere: s.kind = CoreKind::Point; s.radius = z[0]; break;
    case GeomType::Capsule: s.kind = CoreKind::Segment; s.size = Vec3(0, z[1], 0); s.radius = z[0]; break;
    case GeomType::Box: s.kind = CoreKind::Box; s.size = z; s.hull = &m.geom_hull[g]; break;
    case GeomType::Cylinder: s.kind = CoreKind::Cylinder; s.size = Vec3(z[0], z[1], 0); break;
    case GeomType::Ellipsoid: s.kind = CoreKind::Ellipsoid; s.size = z; break;
    case GeomType::Mesh: s.kind = CoreKind::Hull; s.hull = &m.mesh_hull[m.geom_mesh[g]]; break;
    case GeomType::Plane: break;
  }
  return s;
}

double inner_radius(const Model& m, int g) {
  const Vec3& s = m.geom_size[g];
  switch (m.geom_type[g]) {
    case GeomType::Plane: return 0;
    case GeomType::Sphere: return s[0];
    case GeomType::Capsule: return s[0];
    case GeomType::Box: return s.minCoeff();
    case GeomType::Cylinder: return std::min(s[0], s[1]);
    case GeomType::Ellipsoid: return s.minCoeff();
    case GeomType::Mesh: {
      double r = std::numeric_limits<double>::infinity();
      for (const auto& f : m.mesh_hull[m.geom_mesh[g]].faces) r = std::min(r, f.offset);
      return std::max(r, 0.0);
    }
  }
  return 0;
}

double geom_rbound(const Model& m, int g) {
  const Vec3& s = m.geom_size[g];
  switch (m.geom_type[g]) {
    case GeomType::Plane: return std::numeric_limits<double>::infinity();
    case GeomType::Sphere: return s[0];
    case GeomType::Capsule: return s[0] + s[1];
    case GeomType::Cylinder: return std::hypot(s[0], s[1]);
    case GeomType::Ellipsoid: return s.maxCoeff();
    case GeomType::Box: return s.norm();
    case GeomType::Mesh: return m.mesh_hull[m.geom_mesh[g]].rbound;
  }
  return 0;
}

}  // namespace ncpgym
