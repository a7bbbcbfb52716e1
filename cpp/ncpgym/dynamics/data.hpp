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
  std::vector<Vec6> cbias;   // velocity-product acceleration c_i = dF_i/dt qdot_i
  std::vector<Vec6> cacc0;   // spatial acceleration at qacc = 0 without gravity (for J-dot u)

  // inertias and the articulated-body factorisation (iwim-on-dynamics.txt eqs. 10-11)
  std::vector<Mat6> cinert;  // body spatial inertia M_i about the world origin
  std::vector<Mat6> IA;      // articulated inertia M*_i
  std::vector<Vec6> pA;      // articulated bias force h*_i
  Mat6X U;                   // M*_i F_i (6 x nv)
  std::vector<Mat6> Dinv;    // M_Ri^-1 = (F_i^T M*_i F_i + armature)^-1, top-left k x k
  VecX uu;                   // tau_i - F_i^T h*_i (nv)
  std::vector<Vec6> acc;     // body spatial acceleration (third recursion)
  std::vector<Vec6> force;   // RNEA body forces

  VecX qacc;     // (nv)
  VecX tau;      // total generalised force used by the last aba call (nv)
  MatX M;        // mass matrix from crba (nv x nv)
  MatX iim_buf;  // IIM scratch, ncols x (6 * nbody), grows on demand
  MatX iim_tmp;  // IIM scratch, ncols x 6
  std::vector<int> iim_lo, iim_hi;  // IIM: columns of B touching each subtree (nbody)
};

}  // namespace ncpgym
