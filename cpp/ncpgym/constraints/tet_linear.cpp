#include <cmath>

#include "ncpgym/constraints/tet_rows.hpp"
#include "ncpgym/soft/tet.hpp"

namespace ncpgym {

void tet_linear_rows(const Model& m, int t, const VecX& x, double a, Rows& rows) {
  // six compliant strain rows (soft/tet.hpp): c_k + E_k lambda_k = 0, E_0 = 1/(3 K V),
  // E_1..5 = 1/(2 mu V) (§9.2.1 with the compliance block diagonalised)
  Vec3 xt[4];
  tet_vertices(m, t, x, xt);
  TetRows tr;
  tet_rows(xt, m.tet_Dminv[t], tr);
  const double V = m.tet_volume[t], mu = m.tet_mu[t], K = m.tet_lambda[t] + 2.0 * mu / 3.0;
  int r = append_tet_jacobians(m, t, tr.grad, rows);
  for (int k = 0; k < 6; ++k, ++r) {
    // the volumetric row aims at the active strain a I: <a I, B_0> = sqrt(3) a
    rows.C[r] = k == 0 ? tr.c[0] - std::sqrt(3.0) * a : tr.c[k];
    rows.E[r] = k == 0 ? 1.0 / (3.0 * K * V) : 1.0 / (2.0 * mu * V);
  }
}

}  // namespace ncpgym
