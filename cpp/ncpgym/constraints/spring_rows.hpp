// Joint springs and position-servo stiffness as compliant rows of the Newton system (eq. 8,
// c = q - ref with E = 1/k), used when they are not folded into H (implicit_springs off).
#pragma once

#include <vector>

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/model/model.hpp"
#include "ncpgym/model/state.hpp"

namespace ncpgym {

class SpringRows {
 public:
  // The rows of the model's springs and servos (none when `folded`, i.e. when they are
  // folded into H).
  SpringRows(const Model& m, bool folded);
  int count() const { return static_cast<int>(dof_.size()); }
  // Servo targets on the joint coordinate from this step's (clamped) controls or activations.
  void set_targets(const Model& m, const State& s);
  void append(const VecX& q, Rows& rows) const;

 private:
  std::vector<int> dof_, qadr_, act_;  // act_: the servo of the row, -1 for a joint spring
  std::vector<double> E_, ref_;
};

}  // namespace ncpgym
