#include "ncpgym/constraints/limit_rows.hpp"

#include <cmath>

#include "ncpgym/constraints/jacobian_rows.hpp"
#include "ncpgym/dynamics/tendon.hpp"

namespace ncpgym {

namespace {

// A row for each bound of `range` (lo, hi) that `value` is within `reach` of.
void near_bounds(double value, const double* range, double reach, int id, std::vector<int>& ids,
                 std::vector<RowKind>& kind) {
  if (value - range[0] < reach) {
    ids.push_back(id);
    kind.push_back(RowKind::LimitLower);
  }
  if (range[1] - value < reach) {
    ids.push_back(id);
    kind.push_back(RowKind::LimitUpper);
  }
}

}  // namespace

void collect_limits(const Model& m, const Data& d, const VecX& q, const VecX& u_tilde, double margin, double h, LimitSet& out) {
  out.joint.clear();
  out.tendon.clear();
  out.kind.clear();
  for (int j = 0; j < m.njnt; ++j)
    if (m.jnt_limited[j])
      near_bounds(q[m.jnt_qposadr[j]], &m.jnt_range[2 * j], margin + h * std::abs(u_tilde[m.jnt_dofadr[j]]), j,
                  out.joint, out.kind);
  for (int t = 0; t < m.ntendon; ++t)
    if (m.tendon_limited[t])
      near_bounds(tendon_length(m, d, t, q.data()), &m.tendon_range[2 * t],
                  margin + h * std::abs(tendon_rate(m, d, t, u_tilde.data())), t, out.tendon, out.kind);
}

void limit_rows(const Model& m, const Data& d, const VecX& q, const LimitSet& limits, Rows& rows) {
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
    const double L = tendon_length(m, d, t, q.data());
    const bool lower = limits.kind[l] == RowKind::LimitLower;
    rows.C[r] = lower ? L - m.tendon_range[2 * t] : m.tendon_range[2 * t + 1] - L;
    add_tendon_row(m, d, t, lower ? 1.0 : -1.0, rows.J);
    rows.J.end_row();
  }
}

}  // namespace ncpgym
