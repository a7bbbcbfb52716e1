#include "ncpgym/constraints/tet_rows.hpp"
#include "ncpgym/soft/tet.hpp"

namespace ncpgym {

void tet_neohookean_rows(const Model& m, int t, const VecX& x, double a, Rows& rows) {
  // stable Neo-Hookean: six stretch-tensor rows, compliance re-evaluated at this iterate
  // (App. B's energy; six rows, not its three, so that Newton sees the shear stiffness:
  // soft/tet.hpp)
  Vec3 xt[4];
  tet_vertices(m, t, x, xt);
  TetRowsNH6 nh;
  tet_rows_neohookean6(xt, m.tet_Dminv[t], m.tet_volume[t], NeoHookean(m.tet_mu[t], m.tet_lambda[t]), nh, a);
  int r = append_tet_jacobians(m, t, nh.grad, rows);
  for (int k = 0; k < 6; ++k, ++r) {
    rows.C[r] = nh.c[k];
    rows.E[r] = nh.E[k];
  }
}

}  // namespace ncpgym
