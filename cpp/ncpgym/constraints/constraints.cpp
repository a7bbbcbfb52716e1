#include "ncpgym/constraints/constraints.hpp"

#include "ncpgym/constraints/contact_rows.hpp"
#include "ncpgym/constraints/dry_friction_rows.hpp"
#include "ncpgym/constraints/equality_rows.hpp"
#include "ncpgym/constraints/particle_rows.hpp"
#include "ncpgym/constraints/rod_rows.hpp"
#include "ncpgym/constraints/shell_rows.hpp"
#include "ncpgym/constraints/spin_roll_rows.hpp"
#include "ncpgym/constraints/stretch_rows.hpp"
#include "ncpgym/constraints/tet_rows.hpp"
#include "ncpgym/dynamics/kinematics.hpp"

namespace ncpgym {

namespace {
template <class V>
void grow(V& v, Eigen::Index n) {  // capacity only grows: a smaller system reuses the head
  if (v.size() < n) v.resize(n);
}
}  // namespace

Constraints::Constraints(const Model& m, bool springs_folded, double thickness)
    : m_(m), springs_(m, springs_folded), thickness_(thickness), posed_(m.nbody, 0),
      tendon_length0_(tendon_lengths0(m)) {
  fixed_ = dry_friction_row_count(m) + springs_.count() + distance_row_count(m) + attachment_row_count(m) + equality_row_count(m) +
           rod_frame_row_count(m) + stretch_row_count(m) + rod_bend_row_count(m) +
           shell_row_count(m) + element_row_count(m);
}

int Constraints::layout(const std::vector<Contact>& contacts, const LimitSet& limits, Rows& rows) const {
  const int sizes[kRowBlocks] = {contact_row_count(contacts), spin_roll_layout(contacts, rows.spin_start),
                                 limits.count(),              dry_friction_row_count(m_),
                                 springs_.count(),
                                 distance_row_count(m_),      attachment_row_count(m_),
                                 equality_row_count(m_),      rod_frame_row_count(m_),
                                 stretch_row_count(m_),       rod_bend_row_count(m_),
                                 shell_row_count(m_),         element_row_count(m_)};
  rows.start[0] = 0;
  for (int b = 0; b < kRowBlocks; ++b) rows.start[b + 1] = rows.start[b] + sizes[b];
  const int nrow = rows.count();
  grow(rows.C, nrow);
  grow(rows.E, nrow);
  rows.E.head(nrow).setZero();
  rows.kind.assign(nrow, RowKind::Compliant);  // every block after the limits is bilateral
  for (int c = 0; c < rows.end(RowBlock::Contact); ++c) rows.kind[c] = c % 3 == 0 ? RowKind::Normal : RowKind::Friction;
  for (int r = rows.begin(RowBlock::SpinRoll); r < rows.end(RowBlock::SpinRoll); ++r) rows.kind[r] = RowKind::Friction;
  for (int l = 0; l < limits.count(); ++l) rows.kind[rows.begin(RowBlock::Limit) + l] = limits.kind[l];
  for (int r = rows.begin(RowBlock::DryFriction); r < rows.end(RowBlock::DryFriction); ++r) rows.kind[r] = RowKind::DryFriction;
  return nrow;
}

void Constraints::begin_step(const State& s) { springs_.set_targets(m_, s); }

void Constraints::equality_recovery(const Data& d, const VecX& q, double reach) {
  eq_slack_used_ = false;
  if (m_.neq == 0 || !(reach > 0)) return;
  equality_slack(m_, d, q, reach, eq_scratch_, eq_slack_, tendon_length0_.data());
  eq_slack_used_ = (eq_slack_.array() != 0).any();
}

bool Constraints::flag_posed_bodies(const std::vector<Contact>& contacts) {
  std::fill(posed_.begin(), posed_.end(), 0);
  bool any = false;
  auto flag = [&](int b) {
    if (b < 0) return;
    posed_[b] = 1;
    any = true;
  };
  for (const Contact& k : contacts) {
    if (k.n1 == 0) flag(k.body1);  // a body side (soft sides are particles)
    if (k.n2 == 0) flag(k.body2);
  }
  for (int a = 0; a < m_.nattach; ++a) flag(m_.att_body[a]);
  for (int e = 0; e < m_.neq; ++e)
    if (m_.eq_type[e] != EqualityType::Joint && m_.eq_type[e] != EqualityType::Tendon) {  // couplings read q alone
      flag(m_.eq_obj1[e]);
      flag(m_.eq_obj2[e]);
    }
  const auto flag_path = [&](int t) {  // the bodies a spatial tendon's path reads
    for (int k = m_.tendon_adr[t]; k < m_.tendon_adr[t] + m_.tendon_num[t]; ++k) {
      const TendonWrap w = m_.tendon_wrap[k];
      if (w == TendonWrap::Site) flag(m_.site_body[m_.tendon_obj[k]]);
      if (w == TendonWrap::Sphere || w == TendonWrap::Cylinder) {
        flag(m_.geom_body[m_.tendon_obj[k]]);
        if (m_.tendon_side[k] >= 0) flag(m_.site_body[m_.tendon_side[k]]);
      }
    }
  };
  for (int t = 0; t < m_.ntendon; ++t)  // spatial tendons' limit and friction rows
    if (spatial_tendon(m_, t) && (m_.tendon_limited[t] || m_.tendon_frictionloss[t] > 0)) flag_path(t);
  for (int e = 0; e < m_.neq; ++e)  // couplings of spatial tendons
    if (m_.eq_type[e] == EqualityType::Tendon)
      for (const int t : {m_.eq_obj1[e], m_.eq_obj2[e]})
        if (t >= 0 && spatial_tendon(m_, t)) flag_path(t);
  for (int b = m_.nbody - 1; b > 0; --b)  // parents come first (parent < child)
    if (posed_[b]) posed_[m_.body_parent[b]] = 1;
  return any;
}

void Constraints::evaluate(Data& d, const VecX& q, const VecX& x, const std::vector<Contact>& contacts,
                           const LimitSet& limits, const VecX& act, Rows& rows) {
  // Poses and twists at the iterate, of the bodies the rows read: a humanoid on its feet
  // leaves its arms out (4 of 13 bodies). Limit, spring and joint-coupling rows read q.
  if (flag_posed_bodies(contacts)) kinematics(m_, d, q.data(), false, posed_.data());
  rows.J.clear();
  contact_rows(m_, d, x, contacts, thickness_, rows);
  spin_roll_rows(m_, d, contacts, rows);
  limit_rows(m_, d, q, limits, rows);
  dry_friction_rows(m_, d, rows);
  springs_.append(q, rows);
  distance_rows(m_, x, rows);
  attachment_rows(m_, d, x, rows);
  equality_rows(m_, d, q, rows, eq_slack_used_ ? eq_slack_.data() : nullptr, tendon_length0_.data());
  rod_frame_rows(m_, x, rows);
  stretch_rows(m_, x, rows);
  rod_bend_rows(m_, x, act, rows);
  shell_rows(m_, x, act, rows);
  element_rows(m_, x, act, rows);
}

}  // namespace ncpgym
