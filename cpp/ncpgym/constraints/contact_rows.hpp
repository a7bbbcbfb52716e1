// Contact rows: per contact one normal row (eq. 9, C_n = n^T (a - b) - d) and two friction
// rows along the contact's tangents (eqs. 35-37), in that order.
#pragma once

#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

inline int contact_row_count(const std::vector<Contact>& contacts) { return 3 * static_cast<int>(contacts.size()); }

// Appends the rows of every contact at the iterate (d: kinematics at q; x: particle
// positions); thickness is d of eq. 9.
void contact_rows(const Model& m, const Data& d, const VecX& x, const std::vector<Contact>& contacts,
                  double thickness, Rows& rows);

}  // namespace ncpgym
