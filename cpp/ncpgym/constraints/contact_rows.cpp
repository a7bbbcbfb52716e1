#include "ncpgym/constraints/contact_rows.hpp"

#include "ncpgym/constraints/jacobian_rows.hpp"

namespace ncpgym {

void contact_witnesses(const Data& d, const VecX& x, const Contact& k, Vec3& a, Vec3& b) {
  auto soft_point = [&](const int* p, const double* w, int n) {
    Vec3 y = Vec3::Zero();
    for (int i = 0; i < n; ++i) y += w[i] * x.segment<3>(3 * p[i]);
    return y;
  };
  // a side is a body point, a particle, or a point of a soft surface triangle
  const Vec3 core1 = k.n1 ? soft_point(k.p1, k.w1, k.n1) : Vec3(d.xpos[k.body1] + d.xmat[k.body1] * k.local1);
  const Vec3 core2 = k.n2 ? soft_point(k.p2, k.w2, k.n2) : Vec3(d.xpos[k.body2] + d.xmat[k.body2] * k.local2);
  a = core1 - k.radius1 * k.normal;
  b = core2 + k.radius2 * k.normal;
}

namespace {

int path_length(const Model& m, int body) {
  int n = 0;
  for (int j = m.body_lastdof[body]; j >= 0; j = m.dof_parent[j]) ++n;
  return n;
}

// One side of a contact in its three rows (row i from entry e0 + i len, this side's
// entries from offset off): add_point_row / add_particle_row (jacobian_rows.hpp) for the
// three directions, with each dof's point velocity formed once instead of once per row
// (same bits).
void fill_side(const Model& m, const Data& d, const Contact& k, int side, const Vec3& p, const Vec3 (&dirs)[3],
               int e0, int len, int off, SparseRows& J) {
  const double sign = side == 1 ? 1.0 : -1.0;
  const int np = side == 1 ? k.n1 : k.n2;
  if (np) {
    const int* pid = side == 1 ? k.p1 : k.p2;
    const double* w = side == 1 ? k.w1 : k.w2;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < np; ++j)
        for (int c = 0; c < 3; ++c) {
          const int e = e0 + i * len + off + 3 * j + c;
          J.col[e] = m.nv + 3 * pid[j] + c;
          J.val[e] = sign * w[j] * dirs[i][c];
        }
    return;
  }
  int e = e0 + off;
  for (int j = m.body_lastdof[side == 1 ? k.body1 : k.body2]; j >= 0; j = m.dof_parent[j], ++e) {
    const Vec3 v = point_velocity(d, j, p);
    for (int i = 0; i < 3; ++i) {
      J.col[e + i * len] = j;
      J.val[e + i * len] = sign * dirs[i].dot(v);
    }
  }
}

}  // namespace

void contact_rows(const Model& m, const Data& d, const VecX& x, const std::vector<Contact>& contacts,
                  double thickness, Rows& rows) {
  int r = rows.J.rows();
  for (const Contact& k : contacts) {
    Vec3 a, b;
    contact_witnesses(d, x, k, a, b);
    rows.C[r] = k.normal.dot(a - b) - thickness - k.margin + k.slack;  // eq. 9, d grown by the margin
    const Vec3 dirs[3] = {k.normal, k.tangent1, k.tangent2};
    const int len1 = k.n1 ? 3 * k.n1 : path_length(m, k.body1);
    const int len2 = k.n2 ? 3 * k.n2 : path_length(m, k.body2);
    const int e0 = rows.J.append_rows(3, len1 + len2);
    fill_side(m, d, k, 1, a, dirs, e0, len1 + len2, 0, rows.J);
    fill_side(m, d, k, 2, b, dirs, e0, len1 + len2, len1, rows.J);
    r += 3;
  }
}

}  // namespace ncpgym
