#include "ncpgym/constraints/limit_rows.hpp"

#include <cmath>

#include "ncpgym/dynamics/tendon.hpp"

namespace ncpgym {

void collect_limits(const Model& m, const VecX& q, const VecX& u_tilde, double margin, double h, LimitSet& out) {
  out.joint.clear();
  out.tendon.clear();
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
  for (int t = 0; t < m.ntendon; ++t) {
    if (!m.tendon_limited[t]) continue;
    const double L = tendon_length(m, t, q.data());
    const double reach = margin + h * std::abs(tendon_rate(m, t, u_tilde.data()));
    if (L - m.tendon_range[2 * t] < reach) {
      out.tendon.push_back(t);
      out.kind.push_back(RowKind::LimitLower);
    }
    if (m.tendon_range[2 * t + 1] - L < reach) {
      out.tendon.push_back(t);
      out.kind.push_back(RowKind::LimitUpper);
    }
  }
}

void limit_rows(const Model& m, const VecX& q, const LimitSet& limits, Rows& rows) {
  int r = rows.J.rows();
  const int nj = static_cast<int>(limits.joint.size());
  for (int l = 0; l < nj; ++l, ++r) {
    const int j = limits.joint[l];
    const double qj = q[m.jnt_qposadr[j]];
    const bool lower = limits.kind[l] == RowKind::LimitLower;
    rows.C[r] = lower ? qj - m.jnt_range[2 * j] : m.jnt_range[2 * j + 1] - qj;
    rows.J.push(m.jnt_dofadr[j], lower ? 1.0 : -1.0);
    rows.J.end_row();
  }
  for (int l = nj; l < limits.count(); ++l, ++r) {
    const int t = limits.tendon[l - nj];
    const double L = tendon_length(m, t, q.data());
    const bool lower = limits.kind[l] == RowKind::LimitLower;
    rows.C[r] = lower ? L - m.tendon_range[2 * t] : m.tendon_range[2 * t + 1] - L;
    for (int k = m.tendon_adr[t]; k < m.tendon_adr[t] + m.tendon_num[t]; ++k)
      rows.J.push(m.tendon_dof[k], lower ? m.tendon_coef[k] : -m.tendon_coef[k]);
    rows.J.end_row();
  }
}

}  // namespace ncpgym
