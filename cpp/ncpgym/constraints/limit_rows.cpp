#include "ncpgym/constraints/limit_rows.hpp"

#include <cmath>

#include "ncpgym/constraints/jacobian_rows.hpp"
#include "ncpgym/dynamics/tendon.hpp"

namespace ncpgym {

namespace {

// A row for each bound of `range` (lo, hi) that `value` is within `reach` of, with the part
// of a violation beyond `recover` as its slack.
void near_bounds(double value, const double* range, double reach, double recover, int id, std::vector<int>& ids,
                 LimitSet& out) {
  for (const bool lower : {true, false}) {
    const double c = lower ? value - range[0] : range[1] - value;  // the row's value, < 0 violated
    if (!(c < reach)) continue;
    ids.push_back(id);
    out.kind.push_back(lower ? RowKind::LimitLower : RowKind::LimitUpper);
    out.slack.push_back(recover > 0 && -c > recover ? -c - recover : 0.0);
  }
}

}  // namespace

void collect_limits(const Model& m, const Data& d, const VecX& q, const VecX& u_tilde, double margin, double h,
                    double reach, LimitSet& out) {
  out.joint.clear();
  out.tendon.clear();
  out.kind.clear();
  out.slack.clear();
  for (int j = 0; j < m.njnt; ++j)
    if (m.jnt_limited[j])
      near_bounds(q[m.jnt_qposadr[j]], &m.jnt_range[2 * j], margin + h * std::abs(u_tilde[m.jnt_dofadr[j]]), reach, j,
                  out.joint, out);
  for (int t = 0; t < m.ntendon; ++t)
    if (m.tendon_limited[t])
      near_bounds(tendon_length(m, d, t, q.data()), &m.tendon_range[2 * t],
                  margin + h * std::abs(tendon_rate(m, d, t, u_tilde.data())), reach, t, out.tendon, out);
}

void limit_rows(const Model& m, const Data& d, const VecX& q, const LimitSet& limits, Rows& rows) {
  int r = rows.J.rows();
  const int nj = static_cast<int>(limits.joint.size());
  for (int l = 0; l < nj; ++l, ++r) {
    const int j = limits.joint[l];
    const double qj = q[m.jnt_qposadr[j]];
    const bool lower = limits.kind[l] == RowKind::LimitLower;
    rows.C[r] = (lower ? qj - m.jnt_range[2 * j] : m.jnt_range[2 * j + 1] - qj) + limits.slack[l];
    rows.J.push(m.jnt_dofadr[j], lower ? 1.0 : -1.0);
    rows.J.end_row();
  }
  for (int l = nj; l < limits.count(); ++l, ++r) {
    const int t = limits.tendon[l - nj];
    const double L = tendon_length(m, d, t, q.data());
    const bool lower = limits.kind[l] == RowKind::LimitLower;
    rows.C[r] = (lower ? L - m.tendon_range[2 * t] : m.tendon_range[2 * t + 1] - L) + limits.slack[l];
    add_tendon_row(m, d, t, lower ? 1.0 : -1.0, rows.J);
    rows.J.end_row();
  }
}

}  // namespace ncpgym
