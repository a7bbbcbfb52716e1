// Stretching of rod and shell edges (dismech-rods-shells.txt eqs. 9-10): U = 1/2 k_s eps^2 l
// as a compliant row c = |x1 - x2| - l with E = l / k_s. Kept apart from the distance rows
// (which may be hard) so that the primal soft solve can eliminate every one of them.
#pragma once

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

inline int stretch_row_count(const Model& m) { return m.nstretch; }

void stretch_rows(const Model& m, const VecX& x, Rows& rows);

}  // namespace ncpgym
