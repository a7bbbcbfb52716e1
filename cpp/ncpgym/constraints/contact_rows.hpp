// Contact rows: per contact one normal row (eq. 9, C_n = n^T (a - b) - d) and two friction
// rows along the contact's tangents (eqs. 35-37), in that order.
#pragma once

#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

inline int contact_row_count(const std::vector<Contact>& contacts) { return 3 * static_cast<int>(contacts.size()); }

// The witness points of contact k at the poses in d and particle positions x: each side's
// core point (a body-fixed point, a particle, or a point of a soft triangle) grown by its
// radius along the normal; the contact's gap is normal . (a - b).
void contact_witnesses(const Data& d, const VecX& x, const Contact& k, Vec3& a, Vec3& b);

// Appends the rows of every contact at the iterate (d: kinematics at q; x: particle
// positions); thickness is d of eq. 9.
void contact_rows(const Model& m, const Data& d, const VecX& x, const std::vector<Contact>& contacts,
                  double thickness, Rows& rows);

}  // namespace ncpgym
