// Joint-limit rows: one-sided NCP rows on a hinge or slide coordinate (C = q - lo or
// hi - q >= 0), for the limits within reach this step; and the same on a fixed tendon's
// length L (dynamics/tendon.hpp; J = +-J_t).
#pragma once

#include <vector>

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

// The limits with a row this step: joints first, then tendons (rows in that order).
struct LimitSet {
  std::vector<int> joint;      // limited joints with a row this step
  std::vector<int> tendon;     // limited tendons with a row this step
  std::vector<RowKind> kind;   // LimitLower or LimitUpper, per joint entry then per tendon entry
  // per entry, the violation at q- beyond the step's reach, left for later steps: added to
  // the row's value (option limit_recovery_speed), 0 for a limit met or violated within reach
  std::vector<double> slack;
  int count() const { return static_cast<int>(kind.size()); }
};

// Limits within margin + h |u~| of their bound at q (u~: the unconstrained velocity); d holds
// the poses at q (spatial tendons read their sites). A limit violated by more than reach
// (> 0; else no bound) keeps the excess as its slack.
void collect_limits(const Model& m, const Data& d, const VecX& q, const VecX& u_tilde, double margin, double h,
                    double reach, LimitSet& out);

// Appends the rows of `limits` at q (d: the poses at q of the bodies spatial tendons read).
void limit_rows(const Model& m, const Data& d, const VecX& q, const LimitSet& limits, Rows& rows);

}  // namespace ncpgym
