#include "ncpgym/constraints/limit_rows.hpp"

#include <cmath>

namespace ncpgym {

void collect_limits(const Model& m, const VecX& q, const VecX& u_tilde, double margin, double h, LimitSet& out) {
  out.joint.clear();
  out.kind.clear();
  for (int j = 0; j < m.njnt; ++j) {
    if (!m.jnt_limited[j]) continue;
    const double qj = q[m.jnt_qposadr[j]];
    const double reach = margin + h * std::abs(u_tilde[m.jnt_dofadr[j]]);
    if (qj - m.jnt_range[2 * j] < reach) {
      out.joint.push_back(j);
      out.kind.push_back(RowKind::LimitLower);
    }
    if (m.jnt_range[2 * j + 1] - qj < reach) {
      out.joint.push_back(j);
      out.kind.push_back(RowKind::LimitUpper);
    }
  }
}

void limit_rows(const Model& m, const VecX& q, const LimitSet& limits, Rows& rows) {
  int r = rows.J.rows();
  for (int l = 0; l < limits.count(); ++l, ++r) {
    const int j = limits.joint[l];
    const double qj = q[m.jnt_qposadr[j]];
    const bool lower = limits.kind[l] == RowKind::LimitLower;
    rows.C[r] = lower ? qj - m.jnt_range[2 * j] : m.jnt_range[2 * j + 1] - qj;
    rows.J.push(m.jnt_dofadr[j], lower ? 1.0 : -1.0);
    rows.J.end_row();
  }
}

}  // namespace ncpgym
