// Collision detection for one world: broad phase (bounding spheres, planes always
// candidates), filtering (same body, parent-child, static-static, MuJoCo's
// contype/conaffinity) and dispatch to the narrow phase.
#pragma once

#include <string>
#include <vector>

#include "ncpgym/collision/contact.hpp"

namespace ncpgym {

struct CollisionOptions {
  double margin = 0.01;  // pairs closer than this become contacts (inactive while apart)
};

// Whether geoms g1 and g2 may collide under the model's filtering rules.
bool geoms_may_collide(const Model& m, int g1, int g2);

// Geom type pairs that may collide in this model but have no narrow phase yet, as
// readable "type-type" strings (empty when every pair is supported).
std::vector<std::string> unsupported_pairs(const Model& m);

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

// Whether a geom collides with particles and soft bodies (conaffinity bit 1).
bool accepts_particles(const Model& m, int g);

// Bounding-sphere radius of a geom (infinite for planes).
double geom_rbound(const Model& m, int g);

}  // namespace ncpgym
