// Data: the per-world scratch of the dynamics algorithms, sized once from the Model so
// that no algorithm allocates (the role of MuJoCo's mjData / Pinocchio's Data). Results
// land here: aba writes qacc, crba writes M, and the O(n) factorisation (IA, U, Dinv, uu)
// stays available for the Implicit Inversion Method afterwards.
#pragma once

#include <vector>

#include "ncpgym/math/spatial.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

struct Data {
  explicit Data(const Model& m);

  // kinematics (nbody unless noted), world frame
  std::vector<Vec3> xpos;      // body frame origin
  std::vector<Mat3> xmat;      // body frame orientation
  std::vector<Vec3> xipos;     // centre of mass
  std::vector<Vec3> xanchor;   // joint anchors (njnt)
  std::vector<Vec3> site_xpos;  // (nsite)
  std::vector<Mat3> site_xmat;  // (nsite)
  Mat6X cdof;                  // motion subspace: world twist of each dof (6 x nv)

  // velocities
  std::vector<Vec6> cvel;    // body spatial velocity v_i (eq. 8: y_i = T_ip y_p + F_i q_i)
  Mat6X cdofdot;             // per-dof velocity-product term dS_d/dt qdot_d (6 x nv)
  std::vector<Vec6> cbias;   // body velocity-product acceleration c_i = sum of its cdofdot
  std::vector<Vec6> cacc0;   // spatial acceleration at qacc = 0 without gravity (for J-dot u)

  // inertias and the articulated-body factorisation (iwim-on-dynamics.txt eqs. 10-11)
  std::vector<Mat6> cinert;  // body spatial inertia M_i about the world origin
  std::vector<Mat6> IA;      // articulated inertia M*_i
  std::vector<Vec6> pA;      // articulated bias force h*_i
  // Factorisation per dof (a body with k dofs is eliminated as a chain of k single-dof
  // steps, see aba.cpp): U_d = M* S_d with M* projected past the deeper dofs of the body.
  Mat6X U;                   // (6 x nv)
  VecX dinv;                 // 1 / (S_d^T U_d + armature_d)  (nv)
  VecX uu;                   // tau_d - S_d^T h* (nv)
  std::vector<Vec6> acc;     // body spatial acceleration (third recursion)
  std::vector<Vec6> force;   // RNEA body forces

  VecX qacc;     // (nv)
  VecX tau;      // total generalised force used by the last aba call (nv)
  MatX M;        // mass matrix from crba (nv x nv)
  MatX iim_buf;  // IIM scratch, ncols x (6 * nbody), grows on demand
  std::vector<int> iim_lo, iim_hi;  // IIM: columns of B touching each subtree (nbody)
  std::vector<Vec6> iim_p, iim_a;   // single-column IIM: bias and acceleration per body
};

}  // namespace ncpgym
