// Pressure chambers (written for ncpgym; the actuator of inverse-qp-soft-robots.txt, SOFA's
// SurfacePressureConstraint): a closed triangle surface on particles, oriented out of the
// cavity, encloses the volume V(x) = 1/6 sum_t y0 . (y1 x y2) (y = x - the chamber's vertex
// mean; V does not depend on the origin for a closed surface). A pressure p is a follower
// load whose forces are the gradient of the work p V:
//   F = p dV/dx,   dV/dx_0 = 1/6 y1 x y2 (cyclic over each triangle's corners),
// i.e. p A n / 3 on each corner of each triangle, summed. It is conservative, so its
// stiffness is the symmetric p d2V/dx2, with per-triangle blocks (i != j)
//   d2V/dx_0 dx_1 = -1/6 [y2]x,  d2V/dx_0 dx_2 = 1/6 [y1]x,  d2V/dx_1 dx_2 = -1/6 [y0]x
// and zero diagonal blocks. The Newton system (soft_kkt.cpp) takes -h^2 p d2V/dx2 into the
// particle block: the load follows the walls within the step (implicit).
#pragma once

#include "ncpgym/model/model.hpp"

namespace ncpgym {

// Each chamber's enclosed volume at positions x (3 nparticle): into volume[nchamber], or
// into a VecX resized to nchamber.
void chamber_volumes(const Model& m, const VecX& x, double* volume);
void chamber_volumes(const Model& m, const VecX& x, VecX& volume);

// f (3 nparticle) += sum_c p_c dV_c/dx, p_c = act[chamber_group[c]].
void add_pressure_forces(const Model& m, const VecX& x, const VecX& act, VecX& f);

// The origin the chamber's formulas use at positions x (the mean of its triangles' corners;
// any point would do for a closed surface, a near one keeps the round-off small).
Vec3 chamber_origin(const Model& m, const VecX& x, int chamber);

// The blocks p d2V/dx_i dx_j of chamber triangle t at positions x about `origin`
// (chamber_origin), for its corners (i, j), i != j (the diagonal blocks are zero):
// block(i, j) = H[3 * i + j].
void pressure_hessian(const Model& m, const VecX& x, const Vec3& origin, int t, double p, Mat3 H[9]);

}  // namespace ncpgym
