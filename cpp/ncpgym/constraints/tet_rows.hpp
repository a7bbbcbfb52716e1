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

// Appends element t's six rows' Jacobians (grad[k][vertex][axis]) in place, 12 entries per
// row over the vertices' coordinates; returns the first row (the caller sets C and E).
inline int append_tet_jacobians(const Model& m, int t, const double (&grad)[6][4][3], Rows& rows) {
  const int r = rows.J.rows();
  const auto& p = m.tet_p[t];
  const int e0 = rows.J.append_rows(6, 12);
  int* col = rows.J.col.data() + e0;
  double* val = rows.J.val.data() + e0;
  for (int k = 0; k < 6; ++k)
    for (int v = 0; v < 4; ++v)
      for (int d = 0; d < 3; ++d, ++col, ++val) {
        *col = m.nv + 3 * p[v] + d;
        *val = grad[k][v][d];
      }
  return r;
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
