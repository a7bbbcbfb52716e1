// Dry friction of joints and tendons (MJCF joint/@frictionloss, tendon/@frictionloss): one
// row per dof with a frictionloss f, the dof's velocity (J = e_dof), then one per fixed tendon
// with one, its rate (J = J_t, dynamics/tendon.hpp). The row's force is box-bounded,
// |lambda| <= f, by the complementarity of one friction direction whose bound is fixed
// instead of mu lambda_n (RowKind::DryFriction; the solver's row is eq. 36 with W of
// Appendix A.2 at mu lambda_n = f, stepper.cpp): the joint sticks while the other forces on
// it stay within f and slides against f otherwise, MuJoCo's frictionloss without its
// softening.
#pragma once

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

int dry_friction_row_count(const Model& m);

// Appends the rows: dofs in order, then tendons in order (spatial ones at d's poses).
void dry_friction_rows(const Model& m, const Data& d, Rows& rows);

// The force bound of each row, in the rows' order (dry_friction_rows).
void dry_friction_bounds(const Model& m, double* bound);

}  // namespace ncpgym
