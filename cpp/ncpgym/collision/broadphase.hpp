// Broad phase (written for ncpgym) over world-axis-aligned boxes. A model whose filtering
// rules leave few pairs (an articulated robot on a floor: parent-child and same-body pairs
// never collide) has them listed at build, and each step tests just those boxes, in
// order; otherwise sweep and prune, O(n log n + pairs) instead of all n^2/2 pairs.
#pragma once

#include <utility>
#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/dynamics/data.hpp"

namespace ncpgym {

// Candidate pairs (g1 < g2) at the geoms' world poses (pose[g], every geom): pairs the
// model lets collide whose boxes, grown by margin/2 + sweep[g] each, overlap; every pair
// with a plane. Sorted by (g1, g2) whatever the geoms' positions, so the contacts built
// from them come in the same order as an all-pairs loop would give (trajectories stay
// bitwise reproducible). Listed pairs when the model has them, else sweep and prune; the
// two give the same pairs (tested).
void candidate_pairs(const Model& m, const GeomPose* pose, double margin, const double* sweep,
                     std::vector<std::pair<int, int>>& pairs);
void candidate_pairs_sweep(const Model& m, const GeomPose* pose, double margin, const double* sweep,
                           std::vector<std::pair<int, int>>& pairs);
void candidate_pairs_listed(const Model& m, const GeomPose* pose, double margin, const double* sweep,
                            std::vector<std::pair<int, int>>& pairs);

// At build: list the pairs geoms_may_collide admits in m.geom_pairs when there are at most
// 8 per geom (Gymnasium's humanoid has 7: 128 pairs of 18 geoms; a pile of n free bodies
// has n/2); otherwise leave it empty.
void list_geom_pairs(Model& m);

// Half-extents of geom g's world box at rotation R (infinite for planes).
Vec3 geom_half_extents(const Model& m, int g, const Mat3& R);

}  // namespace ncpgym
