// Rows of discrete elastic shells (dismech-rods-shells.txt §3.3.1, eq. 17; soft/shell.hpp has
// the hinge angle): one compliant row per hinge, c = phi - phi_bar with E = 1 / k_b, where
// phi_bar is the rest angle plus the hinge's activation (rad) when it belongs to a group.
// Stretching of shell edges is a distance row (Builder::add_shell adds it).
#pragma once

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

inline int shell_row_count(const Model& m) { return m.nhinge; }

void shell_rows(const Model& m, const VecX& x, const VecX& act, Rows& rows);

}  // namespace ncpgym
