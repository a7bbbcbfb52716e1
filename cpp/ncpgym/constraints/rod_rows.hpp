// Rows of discrete elastic rods (dismech-rods-shells.txt §3; soft/rod.hpp has the strains):
// per edge, two hard rows that keep its ghost particle on the edge's mid-plane at its rest
// distance from the midpoint; per interior node, three compliant rows (eq. 8 form,
// U = 1/2 c^2 / E): the material curvatures kappa1, kappa2 and the twist tau minus their
// natural values. Stretching is a stretch row (stretch_rows.hpp).
#pragma once

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

constexpr int kRodNodeRows = 3;  // kappa1, kappa2, tau
inline int rod_frame_row_count(const Model& m) { return 2 * m.nrodedge; }
inline int rod_bend_row_count(const Model& m) { return kRodNodeRows * m.nrodnode; }

// The natural (kappa1, kappa2, tau) of node k with activations act: the rest values, plus on
// kappa1 the integrated curvature of the circle of curvature act[group] (1/m) when the node
// belongs to an activation group (soft/rod.hpp rod_integrated_curvature).
Vec3 rod_natural_strains(const Model& m, int k, const VecX& act);

// Appends the two hard ghost rows of every edge (RodFrame block).
void rod_frame_rows(const Model& m, const VecX& x, Rows& rows);
// Appends the three bend-twist rows of every interior node (RodBend block).
void rod_bend_rows(const Model& m, const VecX& x, const VecX& act, Rows& rows);

}  // namespace ncpgym
