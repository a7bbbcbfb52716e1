// Broad phase (written for ncpgym): sweep and prune over world-axis-aligned boxes, so a
// world with n geoms costs O(n log n + pairs) instead of all n^2/2 pairs.
#pragma once

#include <utility>
#include <vector>

#include "ncpgym/dynamics/data.hpp"

namespace ncpgym {

// Candidate pairs (g1 < g2) at the poses in d: pairs the model lets collide whose boxes,
// grown by margin/2 + sweep[g] each, overlap; every pair with a plane. Sorted by (g1, g2)
// whatever the geoms' positions, so the contacts built from them come in the same order
// as an all-pairs loop would give (trajectories stay bitwise reproducible).
void candidate_pairs(const Model& m, const Data& d, double margin, const double* sweep,
                     std::vector<std::pair<int, int>>& pairs);

// Half-extents of geom g's world box at rotation R (infinite for planes).
Vec3 geom_half_extents(const Model& m, int g, const Mat3& R);

}  // namespace ncpgym
