// Collision detection for one world: the broad phase's candidate pairs (broadphase.hpp,
// filtered by filter.hpp), dispatch to the narrow phase (closed forms in narrowphase.hpp,
// support functions in convex_contact.hpp), contacts with particles and soft surfaces,
// and the distance between two geoms.
#pragma once

#include <string>
#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/collision/filter.hpp"
#include "ncpgym/collision/geom.hpp"

namespace ncpgym {

struct CollisionOptions {
  double margin = 0.01;  // pairs closer than this become contacts (inactive while apart)
};

// How a geom moves over one step under each of the velocities that bound its motion (the
// step's start and the unconstrained one): its centre's displacement h v_c and h |w| r
// (r its bounding radius), which bounds how far any of its points turns about the centre;
// and its body's tree (body_trees), which decides whether the bound is relative.
struct GeomMotion {
  Vec3 shift[2];
  double turn[2];
  int tree = 0;
};

// Contacts at the poses in d (after kinematics()), written to `out` (cleared first).
// `sweep` (ngeom, optional) is how far each geom may travel during the step; a pair is
// tested with margin + sweep1 + sweep2, so fast bodies get their contacts before they
// reach the surface (speculative contacts: C_n > 0 with lambda_n = 0 until they touch).
// With `motion` (ngeom) a pair of geoms of one articulated tree is tested with margin plus
// how far the two may approach: max over the two velocities of |shift1 - shift2| + turn1 +
// turn2 (at most sweep1 + sweep2): a falling or running robot's own links get no
// speculative contacts from their common motion. Pairs of different trees keep the sum of
// the sweeps: a contact with a third body may stop one of them within the step (a box
// landing under another), and the piles held worse with the relative bound there
// (docs/architecture.md, "Speculative contacts from relative motion").
void detect_contacts(const Model& m, const Data& d, const CollisionOptions& opt,
                     std::vector<Contact>& out, const double* sweep = nullptr,
                     const GeomMotion* motion = nullptr);

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

// Contacts of rod edges (collision/rod_contact.cpp), appended to `out`: each edge as a
// capsule of its nodes' radius against the non-plane geoms that accept particles (points
// at the edge's ends are the nodes' own contacts), and against every edge of any rod that
// shares no node with it.
void detect_rod_contacts(const Model& m, const Data& d, const VecX& x, const CollisionOptions& opt,
                         std::vector<Contact>& out, const double* psweep, const double* gsweep);

// Contacts of shell triangles (collision/shell_contact.cpp), appended to `out`: each
// triangle grown by the shell's half thickness against the non-plane geoms that accept
// particles (vertex-region points are the vertices' own contacts; a shared edge is reported
// by its owner triangle).
void detect_shell_contacts(const Model& m, const Data& d, const VecX& x, const CollisionOptions& opt,
                           std::vector<Contact>& out, const double* psweep, const double* gsweep);

// Contacts between deformable pieces (collision/deformable_contact.cpp), appended to
// `out`: rods against shells and tetrahedral bodies, shells against shells (themselves
// included: a folded shell) and tetrahedral bodies; points against triangles, edges against
// edges, shell and boundary vertices against rod edges. Rod-rod and tetrahedral-tetrahedral
// pairs are the other functions' (above).
void detect_deformable_contacts(const Model& m, const VecX& x, const CollisionOptions& opt,
                                std::vector<Contact>& out, const double* psweep);

// Signed distance between geoms g1 and g2 at the poses in d (negative: penetration depth),
// with the witness points on each (world); distmax when they are farther apart than that
// (MuJoCo's mj_geomDistance contract). Non-plane pairs use GJK/EPA on the true shapes.
double geom_distance(const Model& m, const Data& d, int g1, int g2, double distmax, Vec3& p1, Vec3& p2);

}  // namespace ncpgym
