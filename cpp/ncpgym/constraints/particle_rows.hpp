// Rows on particles: compliant distance constraints between two particles (eq. 8,
// |x1 - x2| - rest + E lambda = 0) and attachments of a particle to a body point (three
// hard rows along the world axes).
#pragma once

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

inline int distance_row_count(const Model& m) { return m.ndistance; }
inline int attachment_row_count(const Model& m) { return 3 * m.nattach; }

void distance_rows(const Model& m, const VecX& x, Rows& rows);

// Appends one row |x1 - x2| - rest with compliance E between particles p1 and p2 (gradient
// +n at p1, -n at p2): the distance rows and the rods' and shells' stretch rows.
void particle_distance_row(const Model& m, int p1, int p2, double rest, double compliance, const VecX& x,
                           Rows& rows);
// d: kinematics at the iterate
void attachment_rows(const Model& m, const Data& d, const VecX& x, Rows& rows);

}  // namespace ncpgym
