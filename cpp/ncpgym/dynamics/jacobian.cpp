// Site Jacobians. Column j of the world twist of dof j, [w; v_O], moves the site point p
// with linear velocity v_O + w x p and angular velocity w. J-dot u follows from the
// spatial acceleration at qacc = 0: a_p = a0_v + a0_w x p + omega x v_p.
#include "ncpgym/dynamics/algorithms.hpp"

namespace ncpgym {

void site_jacobian(const Model& m, const Data& d, int site, Eigen::Ref<MatX> J) {
  J.setZero();
  const Vec3& p = d.site_xpos[site];
  for (int j = m.body_lastdof[m.site_body[site]]; j >= 0; j = m.dof_parent[j]) {
    const Vec3 w = d.cdof.col(j).head<3>();
    J.col(j).head<3>() = d.cdof.col(j).tail<3>() + w.cross(p);
    J.col(j).tail<3>() = w;
  }
}

Vec6 site_jdot_u(const Model& m, const Data& d, int site) {
  const int b = m.site_body[site];
  const Vec3& p = d.site_xpos[site];
  const Vec6& v = d.cvel[b];
  const Vec6& a0 = d.cacc0[b];
  const Vec3 w = v.head<3>();
  const Vec3 vp = v.tail<3>() + w.cross(p);
  Vec6 r;
  r.head<3>() = a0.tail<3>() + a0.head<3>().cross(p) + w.cross(vp);
  r.tail<3>() = a0.head<3>();
  return r;
}

}  // namespace ncpgym
