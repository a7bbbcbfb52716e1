// Extended unit force method (iwim-on-dynamics.txt §4, eqs. 14-15): column i of M^-1 B is
// qdd_[i] - qdd_[0], where qdd_[i] is the O(n) forward dynamics with the extra input
// B e_i. It costs ncols + 1 full O(n) passes; kept as the baseline the seed compares the
// Implicit Inversion Method against.
#include "ncpgym/dynamics/algorithms.hpp"

namespace ncpgym {

void eufm(const Model& m, Data& d, const double* q, const double* u, const double* tau,
          const Eigen::Ref<const MatX>& B, Eigen::Ref<MatX> out) {
  const int nv = m.nv;
  VecX tau_i = Eigen::Map<const VecX>(tau, nv);
  aba(m, d, q, u, tau_i.data());
  const VecX qdd0 = d.qacc;  // qdd_[0] (eq. 14)
  for (Eigen::Index i = 0; i < B.cols(); ++i) {
    tau_i = Eigen::Map<const VecX>(tau, nv) + B.col(i);
    aba(m, d, q, u, tau_i.data());
    out.col(i) = d.qacc - qdd0;  // eq. 15
  }
  d.qacc = qdd0;
}

}  // namespace ncpgym
