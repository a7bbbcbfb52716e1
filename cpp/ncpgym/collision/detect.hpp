// Collision detection for one world: broad phase (bounding spheres, planes always
// candidates), filtering (same body, parent-child, static-static, MuJoCo's
// contype/conaffinity) and dispatch to the narrow phase.
#pragma once

#include <string>
#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/collision/convex.hpp"

namespace ncpgym {

struct CollisionOptions {
  double margin = 0.01;  // pairs closer than this become contacts (inactive while apart)
};

// Whether geoms g1 and g2 may collide under the model's filtering rules.
bool geoms_may_collide(const Model& m, int g1, int g2);

// Contacts at the poses in d (after kinematics()), written to `out` (cleared first).
// `sweep` (ngeom, optional) is how far each geom may travel during the step; a pair is
// tested with margin + sweep1 + sweep2, so fast bodies get their contacts before they
// reach the surface (speculative contacts: C_n > 0 with lambda_n = 0 until they touch).
void detect_contacts(const Model& m, const Data& d, const CollisionOptions& opt,
                     std::vector<Contact>& out, const double* sweep = nullptr);

// Contacts of particles (spheres of their radius at positions x, 3 nparticle) against
// the geoms that accept them (conaffinity bit 1 set), appended to `out`. psweep/gsweep
// (optional) are per-particle and per-geom sweeps added to the margin.
void detect_particle_contacts(const Model& m, const Data& d, const VecX& x, const CollisionOptions& opt,
                              std::vector<Contact>& out, const double* psweep = nullptr,
                              const double* gsweep = nullptr);

// Contacts of soft surfaces (collision/soft_contact.cpp), appended to `out`: the boundary
// triangles of soft bodies against spheres, capsules and box corners of the geoms that
// accept particles, and boundary vertices of one soft body against the triangles of
// another. Contacts whose closest point is a triangle's vertex are left to the vertex's
// own particle contact; an edge shared by two triangles is reported by one of them.
void detect_soft_surface_contacts(const Model& m, const Data& d, const VecX& x, const CollisionOptions& opt,
                                  std::vector<Contact>& out, const double* psweep, const double* gsweep,
                                  bool rigid_triangles, bool soft_soft);

// Signed distance between geoms g1 and g2 at the poses in d (negative: penetration depth),
// with the witness points on each (world); distmax when they are farther apart than that
// (MuJoCo's mj_geomDistance contract). Non-plane pairs use GJK/EPA on the true shapes.
double geom_distance(const Model& m, const Data& d, int g1, int g2, double distmax, Vec3& p1, Vec3& p2);

// Whether a geom collides with particles and soft bodies (conaffinity bit 1).
bool accepts_particles(const Model& m, int g);

// A geom's world pose, and its shape for support-function queries (collision/convex.hpp).
GeomPose geom_pose(const Model& m, const Data& d, int g);
collision::Shape geom_shape(const Model& m, int g, const GeomPose& p);

// Radius of the largest ball about the geom's origin inside it (0 for planes).
double inner_radius(const Model& m, int g);

// Bounding-sphere radius of a geom (infinite for planes).
double geom_rbound(const Model& m, int g);

}  // namespace ncpgym
