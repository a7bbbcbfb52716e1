// Torsional and rolling friction rows (MJCF condim 4 and 6): per condim-4 contact one row of
// the relative angular velocity about the contact normal, n^T (w1 - w2); a condim-6 contact
// adds the two tangent directions t1^T (w1 - w2), t2^T (w1 - w2). They are friction rows of
// the contact: the solver bounds them with its sliding rows by the one normal impulse in
// MuJoCo's elliptic cone, sum_i (lambda_i / mu_i)^2 <= lambda_n^2 (stepper.cpp, ncp.hpp
// elliptic_friction), mu_i the contact's slide, spin and roll coefficients.
#pragma once

#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

// The rows this step's contacts add, and each contact's first row within the block
// (spin_start, nc + 1 entries, from 0).
int spin_roll_layout(const std::vector<Contact>& contacts, std::vector<int>& spin_start);

// Appends the rows of every condim-4 and -6 contact at the iterate (d: kinematics at q).
void spin_roll_rows(const Model& m, const Data& d, const std::vector<Contact>& contacts, Rows& rows);

}  // namespace ncpgym
