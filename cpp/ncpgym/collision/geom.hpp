// The geometry of one geom at a world state: its pose, its shape for support-function
// queries (collision/convex.hpp) and two radii the broad and narrow phases bound it by.
// Shared by detection, the broad phase, soft-surface contacts and the solver's refresh.
#pragma once

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/collision/convex.hpp"
#include "ncpgym/collision/filter.hpp"
#include "ncpgym/dynamics/data.hpp"

namespace ncpgym {

// A geom's world pose, and its shape for support-function queries.
GeomPose geom_pose(const Model& m, const Data& d, int g);
collision::Shape geom_shape(const Model& m, int g, const GeomPose& p);

// Radius of the largest ball about the geom's origin inside it (0 for planes).
double inner_radius(const Model& m, int g);

// Bounding-sphere radius of a geom (infinite for planes).
double geom_rbound(const Model& m, int g);

// A geom that rod edges, shell triangles and soft surface triangles meet, posed at d.
struct SolidGeom {
  int g, body;
  GeomPose pose;
  collision::Shape shape;
  double rbound;
};

// Side B of contact k is geom s at witness c (a ContactPoint from a narrow-phase test with
// s on side b): its body, its body-fixed core point and radius.
inline void set_geom_side(Contact& k, const SolidGeom& s, const ContactPoint& c, const Data& d) {
  k.geom2 = s.g;
  k.body2 = s.body;
  k.local2 = d.xmat[s.body].transpose() * (c.b - c.rb * c.n - d.xpos[s.body]);
  k.radius2 = c.rb;
}

// f(const SolidGeom&) for every geom that accepts particles (filter.hpp) except planes: a
// plane meets a flat or straight feature only at its corners, the particles' own contacts.
template <class F>
void for_each_solid_geom(const Model& m, const Data& d, F&& f) {
  for (int g = 0; g < m.ngeom; ++g) {
    if (!accepts_particles(m, g) || m.geom_type[g] == GeomType::Plane) continue;
    const GeomPose pose = geom_pose(m, d, g);
    f(SolidGeom{g, m.geom_body[g], pose, geom_shape(m, g, pose), geom_rbound(m, g)});
  }
}

}  // namespace ncpgym
