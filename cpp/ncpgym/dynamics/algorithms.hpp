// Rigid-body dynamics algorithms on a Model, one per source file. Each reads the Model,
// writes its results into Data (or the output argument named in its comment) and never
// allocates once Data exists (except minv_times/eufm growing their scratch to a new
// column count). Shapes: q (nq), u (nv), tau (nv), B (nv x m).
#pragma once

#include <vector>

#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/dynamics/kinematics.hpp"

namespace ncpgym {

// Passive joint forces (nv): springs -k (q - q_spring) and damping -b u, as two separate
// terms so that the solver can treat damping implicitly. Both add into out (nv).
void add_passive_spring(const Model& m, const double* q, double* out);
void add_passive_damping(const Model& m, const double* u, double* out);
// Gravity compensation (Model::body_gravcomp): J_com^T (-w m g) summed over bodies, added
// into out (nv). Needs kinematics() on d; uses d.force as scratch. Nothing when empty.
void add_passive_gravcomp(const Model& m, Data& d, double* out);
// MuJoCo's fluid forces (Model::fluid_*, dynamics/fluid.hpp) J^T wrench summed over bodies,
// added into out (nv). Needs kinematics() and velocities() on d; uses d.force as scratch.
void add_passive_fluid(const Model& m, Data& d, double* out);

// Which passive forces aba adds to tau: all (springs, damping, tendons, gravity compensation,
// fluid), none, or only those the solver takes explicitly (gravity compensation, fluid: the
// solver treats springs and damping implicitly and adds the tendons' itself).
enum class Passive { All, None, GravcompOnly };

// O(n) forward dynamics (aba.cpp): qacc = M^-1 (tau + passive - bias), the three
// recursions of iwim-on-dynamics.txt eqs. 8, 10-12. Writes d.qacc and keeps the
// articulated factorisation (IA, U, Dinv) for minv_times.
// `extra_armature` (nv, optional) is added to the joint-space inertia: the solver uses it
// for H = M + h B, implicit joint damping.
void aba(const Model& m, Data& d, const double* q, const double* u, const double* tau,
         Passive passive = Passive::All, const double* extra_armature = nullptr);
// The same when d holds kinematics(q) with inertias already (q is read for the springs).
void aba_posed(const Model& m, Data& d, const double* q, const double* u, const double* tau,
               Passive passive = Passive::All, const double* extra_armature = nullptr);

// Implicit gyroscopic term (gyroscopic.cpp): the bodies whose free joint hangs from the
// world and carries no other body (no armature or damping on it), and, for those, u~
// (nv, the explicit step u + h qacc at the poses in d) corrected so that the angular
// velocity solves the implicit midpoint rule of Euler's equations, I (w - w-) + h m x I m =
// h tau with m = (w + w-) / 2, and the origin's velocity set so that the com's velocity
// changes by the applied force alone. A departure from the seed's explicit gyroscopic
// forces; why in gyroscopic.cpp.
std::vector<int> lone_free_bodies(const Model& m);
void implicit_gyroscopic(const Model& m, const Data& d, const std::vector<int>& bodies, const double* q,
                         const double* u, double h, double* u_tilde);

// Only the configuration-dependent part of aba (kinematics + articulated inertias):
// what minv_times needs.
void factorize(const Model& m, Data& d, const double* q, const double* extra_armature = nullptr);

// Implicit Inversion Method (iim.cpp): out = M^-1 B (nv x ncols) for the configuration of
// the last aba()/factorize(), iwim-on-dynamics.txt §5, eqs. 16-27. No M is formed.
void minv_times(const Model& m, Data& d, const Eigen::Ref<const MatX>& B, Eigen::Ref<MatX> out);
// The same on transposed operands, Bt = B^T (ncols x nv) and Xt = (M^-1 B)^T: the native
// layout of the recursion (no copies, no allocation once d.iim_buf has grown).
void minv_times_transposed(const Model& m, Data& d, const Eigen::Ref<const MatX>& Bt,
                           Eigen::Ref<MatX> Xt);
// The same on B = I for the trees' diagonal blocks only: Xt(i, j) = (M^-1)(j, i) for dofs i,
// j of one tree (Xt nv x nv; entries coupling two trees, which are zero, are not written).
// eye: an identity at least as large as the largest tree.
void minv_tree_blocks(const Model& m, Data& d, const Eigen::Ref<const MatX>& eye, Eigen::Ref<MatX> Xt);
// The same for one column: out = M^-1 w (nv), the two sweeps on 6-vectors (what
// matrix-free solvers call once per product).
void minv_times_vector(const Model& m, Data& d, const double* w, double* out);

// Extended unit force method (eufm.cpp), the §4 baseline: runs aba ncols + 1 times,
// eq. 15. out = M^-1 B (nv x ncols).
void eufm(const Model& m, Data& d, const double* q, const double* u, const double* tau,
          const Eigen::Ref<const MatX>& B, Eigen::Ref<MatX> out);

// Recursive Newton-Euler inverse dynamics (rnea.cpp): out = M qacc + C(q,u) u + g(q)
// (nv), armature included in M, passive forces excluded (as Pinocchio's rnea and
// MuJoCo's qfrc_bias + M qacc).
void rnea(const Model& m, Data& d, const double* q, const double* u, const double* qacc,
          double* out);
// RNEA's outward pass at the last kinematics() (with inertias) and velocities(): d.acc[b] =
// each body's spatial acceleration with gravity as the base's (MuJoCo's cacc), d.force[b] =
// M_b a_b + v_b x* M_b v_b, the force the body needs, not yet summed over its subtree.
void body_forces(const Model& m, Data& d, const double* qacc);

// Composite rigid-body algorithm (crba.cpp): d.M = mass matrix incl. armature (nv x nv).
void crba(const Model& m, Data& d, const double* q);

// Site Jacobian (jacobian.cpp), at the last kinematics(): J (6 x nv) maps u to the site's
// [linear velocity; angular velocity] in world axes (Pinocchio's LOCAL_WORLD_ALIGNED).
void site_jacobian(const Model& m, const Data& d, int site, Eigen::Ref<MatX> J);
// dJ/dt u for the same site (6), at the last kinematics() and velocities().
Vec6 site_jdot_u(const Model& m, const Data& d, int site);

// Quaternion kinematic map G (nq x nv) of nonsmooth-newton-ncp.txt eqs. 88-89, in
// MuJoCo's convention (integrate.cpp): qdot = G(q) u.
void kinematic_map(const Model& m, const double* q, Eigen::Ref<MatX> G);
// One joint quaternion t (wxyz, 4 numbers) advanced by the body-axes angular velocity w:
// normalise(t + h/2 Q(t) w), as integrate() moves free and ball joints.
Vec4 quat_step(const double* t, const Vec3& w, double h);
// q_out = q + h G(q) u with quaternions renormalised (the seed's §9.4 integration).
void integrate(const Model& m, const double* q, const double* u, double h, double* q_out);

}  // namespace ncpgym
