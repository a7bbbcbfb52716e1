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

void contact_rows(const Model& m, const Data& d, const VecX& x, const std::vector<Contact>& contacts,
                  double thickness, Rows& rows) {
  int r = rows.J.rows();
  for (const Contact& k : contacts) {
    Vec3 a, b;
    contact_witnesses(d, x, k, a, b);
    rows.C[r] = k.normal.dot(a - b) - thickness;  // eq. 9
    const Vec3 dirs[3] = {k.normal, k.tangent1, k.tangent2};
    for (int i = 0; i < 3; ++i, ++r) {
      if (k.n1) {
        for (int j = 0; j < k.n1; ++j) add_particle_row(m, k.p1[j], dirs[i], k.w1[j], rows.J);
      } else {
        add_point_row(m, d, k.body1, a, dirs[i], 1.0, rows.J);
      }
      if (k.n2) {
        for (int j = 0; j < k.n2; ++j) add_particle_row(m, k.p2[j], dirs[i], -k.w2[j], rows.J);
      } else {
        add_point_row(m, d, k.body2, b, dirs[i], -1.0, rows.J);
      }
      rows.J.end_row();
    }
  }
}

}  // namespace ncpgym
