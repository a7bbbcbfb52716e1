#include "ncpgym/constraints/shell_rows.hpp"

#include <unsupported/Eigen/AutoDiff>

#include "ncpgym/soft/shell.hpp"

namespace ncpgym {

void shell_rows(const Model& m, const VecX& x, const VecX& act, Rows& rows) {
  // forward-mode derivatives over the hinge's 12 coordinates (Eigen's AutoDiffScalar)
  using AD = Eigen::AutoDiffScalar<Eigen::Matrix<double, 12, 1>>;
  constexpr double kPi = 3.14159265358979323846;
  int r = rows.J.rows();
  for (int k = 0; k < m.nhinge; ++k, ++r) {
    const auto& p = m.hinge_p[k];
    Eigen::Matrix<AD, 3, 1> xa[4];
    for (int v = 0; v < 4; ++v)
      for (int i = 0; i < 3; ++i) xa[v][i] = AD(x[3 * p[v] + i], 12, 3 * v + i);
    const AD phi = hinge_angle<AD>(xa);
    const double bar = m.hinge_rest[k] + (m.hinge_group[k] >= 0 ? act[m.hinge_group[k]] : 0.0);
    double c = phi.value() - bar;
    c -= 2 * kPi * std::round(c / (2 * kPi));  // the angle difference in (-pi, pi]
    rows.C[r] = c;
    rows.E[r] = m.hinge_compliance[k];
    for (int v = 0; v < 4; ++v)
      for (int i = 0; i < 3; ++i) rows.J.push(m.nv + 3 * p[v] + i, phi.derivatives()[3 * v + i]);
    rows.J.end_row();
  }
}

}  // namespace ncpgym
