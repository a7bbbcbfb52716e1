// The constraint-row driver: one call lays out a step's rows (blocks in the fixed order of
// RowBlock, sized from the contacts and limits found this step) and one call evaluates
// every row kind at a Newton iterate. The Newton loop and the Delassus operator read the
// rows and never name a kind. Adding a kind: a file here with its count and its rows, a
// RowBlock entry, and one line in layout() and evaluate().
#pragma once

#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/constraints/limit_rows.hpp"
#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/constraints/spring_rows.hpp"
#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/model/model.hpp"
#include "ncpgym/model/state.hpp"

namespace ncpgym {

class Constraints {
 public:
  // springs_folded: joint springs and servo stiffness live in H (implicit_springs), not here.
  Constraints(const Model& m, bool springs_folded, double thickness);

  // Rows whose number is fixed for the model (springs as rows, distances, attachments,
  // equalities, elements): the bilateral rows of every step.
  int fixed_rows() const { return fixed_; }
  // Lays out this step's rows in `rows` (block starts, kinds; compliance zeroed) and grows
  // its buffers; returns the row count.
  int layout(const std::vector<Contact>& contacts, const LimitSet& limits, Rows& rows) const;
  // The step's control-dependent data (servo targets of springs kept as rows).
  void begin_step(const State& s);
  // The equalities' violations at the step's start beyond reach (d: kinematics at q-; reach
  // <= 0: no bound), left for later steps by every evaluate() of the step (equality_slack).
  void equality_recovery(const Data& d, const VecX& q, double reach);
  // Every row at (q, x): d receives the kinematics at q of the bodies the rows read (and
  // their parents) when a kind needs body poses; other bodies' poses in d are left stale.
  void evaluate(Data& d, const VecX& q, const VecX& x, const std::vector<Contact>& contacts, const LimitSet& limits,
                const VecX& act, Rows& rows);

 private:
  // Flags in posed_ the bodies the contact, attachment and equality rows read, and their
  // parents; false when there are none.
  bool flag_posed_bodies(const std::vector<Contact>& contacts);

  const Model& m_;
  SpringRows springs_;
  double thickness_;
  int fixed_ = 0;
  std::vector<unsigned char> posed_;  // nbody flags (flag_posed_bodies)
  VecX eq_slack_;                     // per equality row (equality_recovery)
  std::vector<double> tendon_length0_;  // the tendons' lengths at qpos0 (equality_rows.hpp)
  bool eq_slack_used_ = false;        // a row's violation exceeds its reach this step
  Rows eq_scratch_;
};

}  // namespace ncpgym
