// Contacts produced by collision detection, once per time step. The normal n is fixed in
// the world for the step and points from geom 2 (body B) to geom 1 (body A); the witness
// points are stored in the body frames, so the gap C_n(q) = n^T (a(q) - b(q)) - d of
// nonsmooth-newton-ncp.txt eq. 9 can be re-evaluated at every Newton iterate.
#pragma once

#include <cmath>
#include <vector>

#include "ncpgym/dynamics/data.hpp"

namespace ncpgym {

struct Contact {
  int geom1 = -1, geom2 = -1;  // geom ids (A, B)
  int body1 = 0, body2 = 0;    // body ids (A, B)
  int particle1 = -1;          // side A is this particle instead of a geom (geom1 = -1)
  // Soft sides: side A (B) is the point sum_i w_i x_{p_i} of n1 (n2) particles instead of a
  // body point: n = 1 for a particle, 3 for a point of a soft surface triangle; 0: a body.
  int n1 = 0, n2 = 0;
  int p1[3] = {-1, -1, -1}, p2[3] = {-1, -1, -1};
  double w1[3] = {0, 0, 0}, w2[3] = {0, 0, 0};
  Vec3 pos = Vec3::Zero();     // world position (midpoint of the witness points)
  Vec3 normal = Vec3::UnitZ(); // unit, world, from B to A
  Vec3 tangent1 = Vec3::UnitX(), tangent2 = Vec3::UnitY();  // world tangent basis (friction directions)
  // Witness points are "core point - radius n": the core point is fixed in the body (a
  // sphere's centre, a point of a capsule's axis, a box corner) and the radius is 0 for
  // flat geometry. Rolling and spinning round bodies then keep their contact on the
  // surface along n instead of carrying a material surface point around (which would
  // apply the normal force off-centre and pump energy into the spin).
  Vec3 local1 = Vec3::Zero(), local2 = Vec3::Zero();  // core points in the frames of body A and body B
  double radius1 = 0, radius2 = 0;
  double dist = 0;             // signed distance at detection (negative: penetration)
  double friction = 0;         // Coulomb coefficient mu of the pair (0 for condim 1)
  // Geom contacts (contact_params.hpp): condim 4 adds a torsional friction row (coefficient
  // spin, m), condim 6 also two rolling rows (roll, m); both bounded with the sliding rows by
  // the one normal impulse (constraints/spin_roll_rows.hpp). Soft sides are condim 3.
  int condim = 3;
  double spin = 0, roll = 0;
  double margin = 0;           // the pair's margin: the contact holds at gap `margin` (eq. 9's d grows by it)
  double slack = 0;            // depth left for later steps (option depenetration_speed): added to C
};

// A contact that moves a particle: a particle or a soft-surface point on either side. Such
// contacts start every solve from 0 (warm_start.cpp, a refresh's re-solve in stepper.cpp)
// and are not judged by their row's depth in the refresh (refresh.cpp).
inline bool moves_particle(const Contact& k) { return k.particle1 >= 0 || k.n1 > 0 || k.n2 > 0; }

// Friction coefficient of a pair: the larger of the two (MuJoCo's rule for geom pairs; also
// used for particles and soft triangles, whose coefficient is the largest of its vertices).
inline double combine_friction(double mu1, double mu2) { return mu1 > mu2 ? mu1 : mu2; }

// The contact's friction directions: t1 perpendicular to the normal, built from the world
// axis least aligned with it (x unless |n_x| > 0.57), and t2 = n x t1.
inline void set_tangents(Contact& k) {
  const Vec3 axis = std::abs(k.normal.x()) > 0.57 ? Vec3::UnitY() : Vec3::UnitX();
  k.tangent1 = k.normal.cross(axis).normalized();
  k.tangent2 = k.normal.cross(k.tangent1);
}

// One world-space witness pair from a narrow-phase test: a on geom 1, b on geom 2,
// normal n from geom 2 to geom 1, dist = n^T (a - b).
struct ContactPoint {
  Vec3 a, b, n;
  double dist;
  double ra = 0, rb = 0;  // core points are a + ra n and b - rb n
};

// Collision geometry of a geom in world coordinates.
struct GeomPose {
  Vec3 pos;
  Mat3 rot;
};

}  // namespace ncpgym

namespace ncpgym::collision {
using Points = std::vector<ContactPoint>;  // what a narrow-phase test appends to
}  // namespace ncpgym::collision
