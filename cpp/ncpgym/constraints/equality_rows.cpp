#include "ncpgym/constraints/equality_rows.hpp"

#include <algorithm>
#include <cmath>

#include "ncpgym/constraints/jacobian_rows.hpp"
#include "ncpgym/dynamics/kinematics.hpp"
#include "ncpgym/dynamics/tendon.hpp"

namespace ncpgym {

Vec3 so3_log(const Mat3& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

Mat3 so3_left_jacobian_inverse(const Vec3& e) {
  // J_l^-1 = I - [e]/2 + (1/t^2 - (1 + cos t) / (2 t sin t)) [e]^2, t = |e|; series near 0
  const double t = e.norm();
  const Mat3 E = skew(e);
  const double c = t < 1e-4 ? 1.0 / 12.0 + t * t / 720.0 : 1.0 / (t * t) - (1 + std::cos(t)) / (2 * t * std::sin(t));
  return Mat3::Identity() - 0.5 * E + c * E * E;
}

namespace {

// Rows of a point p1 fixed to body b1 coinciding with p2 fixed to b2, along the world axes.
void point_rows(const Model& m, const Data& d, int b1, const Vec3& p1, int b2, const Vec3& p2, double E,
                Rows& rows, int& r) {
  for (int i = 0; i < 3; ++i, ++r) {
    rows.C[r] = p1[i] - p2[i];
    rows.E[r] = E;
    add_point_row(m, d, b1, p1, Vec3::Unit(i), 1.0, rows.J);
    add_point_row(m, d, b2, p2, Vec3::Unit(i), -1.0, rows.J);
    rows.J.end_row();
  }
}

// Three rows holding R2 = R1 Rrel: c = log(R1 Rrel R2^T), a rotation vector in the world
// frame. With world angular velocities w1, w2, d/dt (R1 Rrel R2^T) = [w1 - Re w2] Re, so
// dc/dt = J_l^-1(c) (w1 - Re w2): the rows are exact derivatives, not small-angle ones.
void orientation_rows(const Model& m, const Data& d, int b1, int b2, const Quat& rel, double E, Rows& rows, int& r) {
  const Mat3 Re = d.xmat[b1] * rel.toRotationMatrix() * d.xmat[b2].transpose();
  const Vec3 c = so3_log(Re);
  const Mat3 Jinv = so3_left_jacobian_inverse(c);
  const Mat3 J2 = Jinv * Re;
  for (int i = 0; i < 3; ++i, ++r) {
    rows.C[r] = c[i];
    rows.E[r] = E;
    add_rotation_row(m, d, b1, Jinv.row(i).transpose(), 1.0, rows.J);
    add_rotation_row(m, d, b2, J2.row(i).transpose(), -1.0, rows.J);
    rows.J.end_row();
  }
}

// A coupling's polynomial sum_k c_k x^k and its slope at x (with no second object, c_0 alone).
double coupling(const std::array<double, 5>& c, bool second, double x, double& slope) {
  double poly = c[0];
  slope = 0;
  if (!second) return poly;
  double xk = 1;
  for (int k = 1; k < 5; ++k) {
    slope += k * c[k] * xk;  // d poly / dx
    xk *= x;
    poly += c[k] * xk;
  }
  return poly;
}

void inactive_rows(int n, Rows& rows, int& r) {
  for (int i = 0; i < n; ++i, ++r) {
    rows.C[r] = 0.0;
    rows.E[r] = 1.0;
    rows.J.end_row();
  }
}

}  // namespace

std::vector<double> tendon_lengths0(const Model& m) {
  std::vector<double> out(m.ntendon, 0.0);
  if (m.ntendon == 0) return out;
  Data d0(m);
  kinematics(m, d0, m.qpos0.data());
  for (int t = 0; t < m.ntendon; ++t) out[t] = tendon_length(m, d0, t, m.qpos0.data());
  return out;
}

void equality_rows(const Model& m, const Data& d, const VecX& q, Rows& rows, const double* slack,
                   const double* length0) {
  const int r0 = rows.J.rows();
  int r = r0;
  for (int e = 0; e < m.neq; ++e) {
    const double E = m.eq_compliance[e];
    if (!m.eq_active[e]) {
      inactive_rows(equality_row_count(m, e), rows, r);
      continue;
    }
    const int o1 = m.eq_obj1[e], o2 = m.eq_obj2[e];
    switch (m.eq_type[e]) {
      case EqualityType::Connect:
      case EqualityType::Weld: {
        const Vec3 p1 = d.xpos[o1] + d.xmat[o1] * m.eq_anchor1[e];
        const Vec3 p2 = d.xpos[o2] + d.xmat[o2] * m.eq_anchor2[e];
        point_rows(m, d, o1, p1, o2, p2, E, rows, r);
        if (m.eq_type[e] == EqualityType::Weld) orientation_rows(m, d, o1, o2, m.eq_relquat[e], E, rows, r);
        break;
      }
      case EqualityType::Joint: {
        // q1 - q1_0 - poly(q2 - q2_0): the reference values are the joints' qpos0 (MuJoCo's)
        double slope = 0;
        const double poly = coupling(m.eq_polycoef[e], o2 >= 0, o2 >= 0 ? q[m.jnt_qposadr[o2]] - m.qpos0[m.jnt_qposadr[o2]] : 0.0, slope);
        rows.C[r] = q[m.jnt_qposadr[o1]] - m.qpos0[m.jnt_qposadr[o1]] - poly;
        rows.E[r] = E;
        rows.J.push(m.jnt_dofadr[o1], 1.0);
        if (o2 >= 0) rows.J.push(m.jnt_dofadr[o2], -slope);
        rows.J.end_row();
        ++r;
        break;
      }
      case EqualityType::Tendon: {
        // L1 - L1_0 - poly(L2 - L2_0) (dynamics/tendon.hpp), L_0 the lengths at qpos0 (MuJoCo's
        // tendon_length0): J = J_t1 - poly' J_t2
        const auto dL = [&](int t) { return tendon_length(m, d, t, q.data()) - length0[t]; };
        double slope = 0;
        const double poly = coupling(m.eq_polycoef[e], o2 >= 0, o2 >= 0 ? dL(o2) : 0.0, slope);
        rows.C[r] = dL(o1) - poly;
        rows.E[r] = E;
        add_tendon_row(m, d, o1, 1.0, rows.J);
        if (o2 >= 0) add_tendon_row(m, d, o2, -slope, rows.J);
        rows.J.end_row();
        ++r;
        break;
      }
    }
  }
  if (slack)
    for (int k = 0; r0 + k < r; ++k) rows.C[r0 + k] -= slack[k];
}

void equality_slack(const Model& m, const Data& d, const VecX& q, double reach, Rows& scratch, VecX& slack,
                    const double* length0) {
  const int n = equality_row_count(m);
  if (scratch.C.size() < n) scratch.C.resize(n);
  if (scratch.E.size() < n) scratch.E.resize(n);
  if (slack.size() != n) slack.resize(n);
  scratch.J.clear();
  equality_rows(m, d, q, scratch, nullptr, length0);
  for (int k = 0; k < n; ++k)
    slack[k] = scratch.E[k] == 0 ? scratch.C[k] - std::clamp(scratch.C[k], -reach, reach) : 0.0;
}

}  // namespace ncpgym
