// Equality constraints as bilateral rows of the Newton solve (nonsmooth-newton-ncp.txt
// eq. 8: c(q) + E lambda = 0, position rows, E = 0 for rigid): connect (3 rows), weld (6)
// and joint coupling (1), as MJCF declares them (model.hpp). An inactive equality keeps its
// rows with J = 0, c = 0 and E = 1, which drives its multiplier to 0 without changing the
// row layout (as eq. 106 does for inactive friction).
#pragma once

#include <vector>

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

inline int equality_row_count(const Model& m, int e) {
  return m.eq_type[e] == EqualityType::Connect ? 3 : m.eq_type[e] == EqualityType::Weld ? 6 : 1;
}
inline int equality_row_count(const Model& m) {
  int n = 0;
  for (int e = 0; e < m.neq; ++e) n += equality_row_count(m, e);
  return n;
}

// Appends every equality's rows at q (d: kinematics at q); slack (one per row, or null) is
// subtracted from their values: the violation left for later steps (equality_slack).
// length0: the tendons' lengths at qpos0 (tendon_lengths0), read by tendon couplings.
void equality_rows(const Model& m, const Data& d, const VecX& q, Rows& rows, const double* slack,
                   const double* length0);

// Each tendon's length at qpos0 (MuJoCo's tendon_length0), from one kinematics pass.
std::vector<double> tendon_lengths0(const Model& m);

// Per equality row, the part of its value at q (d: its kinematics) beyond +-reach on rigid
// rows (0 on compliant and inactive ones): a violation found at a step's start is corrected
// by at most reach in the step (option equality_recovery_speed). scratch: row storage reused.
void equality_slack(const Model& m, const Data& d, const VecX& q, double reach, Rows& scratch, VecX& slack,
                    const double* length0);

// The inverse of the left Jacobian of SO(3) at the rotation vector e: d(log R)/dt =
// J_l^-1(e) w for dR/dt = [w] R.
Mat3 so3_left_jacobian_inverse(const Vec3& e);
// Rotation vector (axis * angle, angle in [0, pi]) of R.
Vec3 so3_log(const Mat3& R);

}  // namespace ncpgym
