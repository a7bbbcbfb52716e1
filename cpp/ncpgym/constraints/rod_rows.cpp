#include "ncpgym/constraints/rod_rows.hpp"

#include <unsupported/Eigen/AutoDiff>

#include "ncpgym/soft/rod.hpp"

namespace ncpgym {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Forward-mode derivatives over the 15 coordinates of a node's five particles (Eigen's
// AutoDiffScalar: a maintained library does the chain rule through normalisations, cross
// products and atan2).
using Grad15 = Eigen::Matrix<double, 15, 1>;
using AD = Eigen::AutoDiffScalar<Grad15>;

void ghost_rows(const Model& m, int e, const VecX& x, Rows& rows, int r) {
  // axial offset of the ghost from the mid-plane (scaled by the edge length, so the row is
  // a length) and its distance from the midpoint; both exactly 0 at rest
  const auto& p = m.rodedge_p[e];
  const Vec3 a = x.segment<3>(3 * p[0]), b = x.segment<3>(3 * p[1]), g = x.segment<3>(3 * p[2]);
  const Vec3 ab = b - a, d = g - 0.5 * (a + b);
  const double l = ab.norm(), dn = d.norm();
  const Vec3 t = ab / l, n = dn > 0 ? Vec3(d / dn) : Vec3::UnitZ();
  const double ad = d.dot(t);
  // c_axial = d . t: d/dg = t; d/db = -t/2 + (I - t t^T) d / l; d/da = -t/2 - (I - t t^T) d / l
  const Vec3 dperp = (d - ad * t) / l;
  rows.C[r] = ad;
  rows.E[r] = 0.0;
  for (int i = 0; i < 3; ++i) rows.J.push(m.nv + 3 * p[0] + i, -0.5 * t[i] - dperp[i]);
  for (int i = 0; i < 3; ++i) rows.J.push(m.nv + 3 * p[1] + i, -0.5 * t[i] + dperp[i]);
  for (int i = 0; i < 3; ++i) rows.J.push(m.nv + 3 * p[2] + i, t[i]);
  rows.J.end_row();
  rows.C[r + 1] = dn - m.rodedge_ghost[e];
  rows.E[r + 1] = 0.0;
  for (int i = 0; i < 3; ++i) rows.J.push(m.nv + 3 * p[0] + i, -0.5 * n[i]);
  for (int i = 0; i < 3; ++i) rows.J.push(m.nv + 3 * p[1] + i, -0.5 * n[i]);
  for (int i = 0; i < 3; ++i) rows.J.push(m.nv + 3 * p[2] + i, n[i]);
  rows.J.end_row();
}

}  // namespace

Vec3 rod_natural_strains(const Model& m, int k, const VecX& act) {
  Vec3 bar = m.rodnode_rest[k];
  const int g = m.rodnode_group[k];
  if (g >= 0) bar[0] += rod_integrated_curvature(act[g], m.rodnode_len[k][0], m.rodnode_len[k][1]);
  return bar;
}

void rod_frame_rows(const Model& m, const VecX& x, Rows& rows) {
  int r = rows.J.rows();
  for (int e = 0; e < m.nrodedge; ++e, r += 2) ghost_rows(m, e, x, rows, r);
}

void rod_bend_rows(const Model& m, const VecX& x, const VecX& act, Rows& rows) {
  int r = rows.J.rows();
  for (int k = 0; k < m.nrodnode; ++k) {
    const auto& ed = m.rodnode_edge[k];
    const int pid[5] = {m.rodedge_p[ed[0]][0], m.rodedge_p[ed[0]][1], m.rodedge_p[ed[1]][1], m.rodedge_p[ed[0]][2],
                        m.rodedge_p[ed[1]][2]};
    V3<AD> xa[5];
    for (int v = 0; v < 5; ++v)
      for (int i = 0; i < 3; ++i) xa[v][i] = AD(x[3 * pid[v] + i], 15, 3 * v + i);
    AD s[3];
    rod_node_strains<AD>(xa, s);
    const Vec3 bar = rod_natural_strains(m, k, act);
    for (int j = 0; j < 3; ++j, ++r) {
      double c = s[j].value() - bar[j];
      if (j == 2) c -= 2 * kPi * std::round(c / (2 * kPi));  // twist difference in (-pi, pi]
      rows.C[r] = c;
      rows.E[r] = m.rodnode_compliance[k][j];
      for (int v = 0; v < 5; ++v)
        for (int i = 0; i < 3; ++i) rows.J.push(m.nv + 3 * pid[v] + i, s[j].derivatives()[3 * v + i]);
      rows.J.end_row();
    }
  }
}

}  // namespace ncpgym
