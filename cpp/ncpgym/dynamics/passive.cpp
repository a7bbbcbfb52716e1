#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/dynamics/fluid.hpp"
#include "ncpgym/dynamics/kinematics.hpp"

namespace ncpgym {

void add_passive_spring(const Model& m, const double* q, double* out) {
  for (int j = 0; j < m.njnt; ++j) {
    const double k = m.jnt_stiffness[j];
    if (k == 0) continue;  // the Builder allows springs on hinge and slide joints only
    out[m.jnt_dofadr[j]] -= k * (q[m.jnt_qposadr[j]] - m.jnt_springref[j]);
  }
}

void add_passive_damping(const Model& m, const double* u, double* out) {
  for (int i = 0; i < m.nv; ++i) out[i] -= m.dof_damping[i] * u[i];
}

namespace {

// out += J^T F for the spatial forces d.force[b] (about the world origin, the frame of cdof)
// on every body: accumulated inward over subtrees, each dof takes cdof . F of its body's
// subtree (the transpose of the Jacobian, O(n)); d.force is consumed.
void add_body_forces(const Model& m, Data& d, double* out) {
  for (int b = m.nbody - 1; b > 0; --b) {
    for (int r = m.body_dofadr[b]; r < m.body_dofadr[b] + m.body_dofnum[b]; ++r)
      out[r] += d.cdof.col(r).dot(d.force[b]);
    if (m.body_parent[b] > 0) d.force[m.body_parent[b]] += d.force[b];
  }
}

}  // namespace

void add_passive_gravcomp(const Model& m, Data& d, double* out) {
  if (m.body_gravcomp.empty()) return;
  // The compensating force f = -w m g acts at the centre of mass: as a spatial force about
  // the world origin (the frame of cdof) it is (c x f, f).
  for (int b = 1; b < m.nbody; ++b) {
    const Vec3 f = -m.body_gravcomp[b] * m.body_mass[b] * m.gravity;
    d.force[b] << d.xipos[b].cross(f), f;
  }
  add_body_forces(m, d, out);
}

void add_passive_fluid(const Model& m, Data& d, double* out) {
  if (m.fluid_density == 0 && m.fluid_viscosity == 0) return;
  // MuJoCo's inertia-box model (dynamics/fluid.hpp) at each body's centre of mass, in its
  // principal frame, from the body's twist
  for (int b = 0; b < m.nbody; ++b) d.force[b].setZero();
  for (int b = 1; b < m.nbody; ++b) {
    if (m.body_mass[b] < kFluidMinVal) continue;  // MuJoCo skips massless bodies
    if (!m.body_fluid_ellipsoid.empty() && m.body_fluid_ellipsoid[b]) continue;  // its geoms' model below
    const Vec6& v = d.cvel[b];  // angular velocity and the velocity of the point at the origin
    const Vec3 w = v.head<3>(), vc = v.tail<3>() + w.cross(d.xipos[b]);
    const Mat3 R = d.xmat[b] * m.body_iquat[b].toRotationMatrix();
    Vec3 torque, force;
    inertia_box_wrench(inertia_box_size(m.body_mass[b], m.body_iprincipal[b]), R, w, vc, m.fluid_density,
                       m.fluid_viscosity, m.fluid_wind, torque, force);
    d.force[b] << d.xipos[b].cross(force) + torque, force;
  }
  // the ellipsoid model on the geoms that ask for it, each at its centre in its own frame
  for (size_t k = 0; k < m.fluid_geom.size(); ++k) {
    const int g = m.fluid_geom[k], b = m.geom_body[g];
    if (b == 0 || m.body_mass[b] < kFluidMinVal) continue;  // the world does not move; MuJoCo skips massless bodies
    const Vec3 p = geom_xpos(m, d, g);
    const Vec3 w = d.cvel[b].head<3>(), vp = d.cvel[b].tail<3>() + w.cross(p);
    Vec3 torque, force;
    ellipsoid_wrench(m.fluid_axes[k], m.fluid_coef[k], m.fluid_added_mass[k], m.fluid_added_inertia[k],
                     geom_xmat(m, d, g), w, vp, m.fluid_density, m.fluid_viscosity, m.fluid_wind, torque, force);
    d.force[b].head<3>() += p.cross(force) + torque;
    d.force[b].tail<3>() += force;
  }
  add_body_forces(m, d, out);
}

}  // namespace ncpgym
