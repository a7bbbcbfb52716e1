#include "ncpgym/soft/medium.hpp"

#include <cmath>

namespace ncpgym {

void drag_forces(const Model& m, const VecX& x, Eigen::Ref<const VecX> v, VecX& f, std::vector<Mat3>& D) {
  f.setZero(3 * m.nparticle);
  D.assign(m.nparticle, Mat3::Zero());
  const double k = 0.5 * m.medium_density * m.drag_coefficient;
  const double kf = m.medium_density * m.skin_friction;  // 1/2 rho C_f over both faces
  for (const auto& t : m.shell_tri) {
    const Vec3 a = x.segment<3>(3 * t[0]), b = x.segment<3>(3 * t[1]), c = x.segment<3>(3 * t[2]);
    const Vec3 cr = (b - a).cross(c - a);
    const double area2 = cr.norm();  // twice the area
    if (area2 <= 0) continue;
    const Vec3 n = cr / area2;
    const double w = k * area2 / 6.0;  // rho C_D / 2 * A / 3
    for (int i = 0; i < 3; ++i) {
      const double vn = v.segment<3>(3 * t[i]).dot(n);
      f.segment<3>(3 * t[i]) -= w * vn * std::abs(vn) * n;
      D[t[i]] += 2 * w * std::abs(vn) * n * n.transpose();
      if (kf <= 0) continue;
      const Vec3 vt = v.segment<3>(3 * t[i]) - vn * n;
      const double s = vt.norm();
      if (s <= 0) continue;
      const double wf = kf * area2 / 6.0;  // rho C_f A / 3
      f.segment<3>(3 * t[i]) -= wf * s * vt;
      D[t[i]] += wf * (s * (Mat3::Identity() - n * n.transpose()) + vt * vt.transpose() / s);
    }
  }
}

}  // namespace ncpgym
