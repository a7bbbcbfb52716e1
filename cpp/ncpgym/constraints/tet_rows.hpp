// Element rows of tetrahedral soft bodies (nonsmooth-newton-ncp.txt §9.2.1): six compliant
// strain rows per linear co-rotational element (tet_linear.cpp) or six stretch-tensor rows
// per stable Neo-Hookean element (tet_neohookean.cpp, App. B's energy), in element order.
#pragma once

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

inline int tet_row_count(const Model&, int) { return 6; }  // both models: six rows
inline int element_row_count(const Model& m) {
  int n = 0;
  for (int t = 0; t < m.ntet; ++t) n += tet_row_count(m, t);
  return n;
}

// The four vertex positions of element t.
inline void tet_vertices(const Model& m, int t, const VecX& x, Vec3 (&xt)[4]) {
  for (int v = 0; v < 4; ++v) xt[v] = x.segment<3>(3 * m.tet_p[t][v]);
}

// Appends element t's rows at particle positions x with active strain a.
void tet_linear_rows(const Model& m, int t, const VecX& x, double a, Rows& rows);
void tet_neohookean_rows(const Model& m, int t, const VecX& x, double a, Rows& rows);

// Every element's rows in element order; act: the activation of each group.
inline void element_rows(const Model& m, const VecX& x, const VecX& act, Rows& rows) {
  for (int t = 0; t < m.ntet; ++t) {
    const double a = m.tet_group[t] >= 0 ? act[m.tet_group[t]] : 0.0;
    if (m.tet_model[t] == 1) {
      tet_neohookean_rows(m, t, x, a, rows);
    } else {
      tet_linear_rows(m, t, x, a, rows);
    }
  }
}

}  // namespace ncpgym
