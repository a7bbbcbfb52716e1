// Implicit gyroscopic term for lone free bodies (a departure from the seed).
//
// nonsmooth-newton-ncp.txt (below eq. 56) takes u~ = u- + h G^T M^-1 f(q-, u-) with the
// gyroscopic forces integrated explicitly, as MuJoCo's Euler integrator does. For a body
// tumbling about a non-principal axis that step gains energy every step: a free capsule
// (inertia 0.01, 0.01, 0.002) spun at 22 rad/s ends 2 s later (h = 1/120) with 38x its
// kinetic energy and 85 rad/s, and at 72 rad/s it diverges within a second, in ncpgym as in
// MuJoCo's Euler. In the 50-body pile a capsule thrown into a tumble by a contact spun up
// from 100 to 9,000 rad/s in free flight (docs/architecture.md, "Implicit gyroscopic term").
//
// The fix, for a body whose free joint hangs from the world and carries no other body: the
// angular velocity about the centre of mass solves the implicit midpoint rule of Euler's
// equations (body axes, about the com)
//   I (w - w-) + h m x I m = h tau,   m = (w + w-) / 2,
// which keeps both quadratic invariants of torque-free motion, the kinetic energy
// w.I w / 2 and |I w|, exactly (implicit midpoint preserves quadratic invariants; Hairer,
// Lubich & Wanner, Geometric Numerical Integration, IV.2). Newton on the 3 x 3 equation from
// the implicit Euler point w_ie = w- + J^-1 I (w_e - w-), J = I + h (skew(w-) I - skew(I w-))
// (one Newton step of I (w - w-) + h w x I w = h tau from w-: the rule Catto gives for game
// engines, GDC 2015, and what MuJoCo's implicit integrators give on this body); if Newton
// has not converged after kMidpointIterations, w_ie is kept: stable, but it damps the
// tumble (the capsule above keeps 0.45x its energy after 2 s). Here w_e is the explicit
// step's velocity (I (w_e - w-) = h (tau - w- x I w-), so the applied torque tau is kept).
// The com: its velocity v_c = v + R (w x c) changes by the applied force alone, v_c+ = v_c-
// + h f / m (read off the explicit step, whose origin-based update also carries the
// centripetal term R (w- x (w- x c)) with the rotation frozen), and the origin's velocity is
// set from it at the rotation the step ends with, v = v_c+ - R+ (w x c) (R+ from
// integrate()'s quaternion update), so that the next step reads the same v_c: in free
// flight the linear momentum is exact. Taking R- there left a tumbling capsule's com 0.13
// m/s off after 2 s (MuJoCo's implicit integrator: 0.06 m/s). Articulated trees keep the
// explicit bias of the forward dynamics. Written by hand: 3 x 3 solves inside our own
// integrator.
#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/math/spatial.hpp"

namespace ncpgym {

namespace {
constexpr int kMidpointIterations = 8;
}  // namespace

std::vector<int> lone_free_bodies(const Model& m) {
  std::vector<int> out;
  std::vector<int> children(m.nbody, 0);
  for (int b = 1; b < m.nbody; ++b) ++children[m.body_parent[b]];
  for (int b = 1; b < m.nbody; ++b) {
    if (m.body_parent[b] != 0 || children[b] != 0 || m.body_jntnum[b] != 1) continue;
    const int j = m.body_jntadr[b];
    if (m.jnt_type[j] != JointType::Free) continue;
    // armature or damping on the free dofs would change the angular equation above
    bool plain = true;
    for (int k = 0; k < 6; ++k) {
      const int dof = m.jnt_dofadr[j] + k;
      plain = plain && m.dof_armature[dof] == 0.0 && m.dof_damping[dof] == 0.0;
    }
    if (plain) out.push_back(b);
  }
  return out;
}

void implicit_gyroscopic(const Model& m, const Data& d, const std::vector<int>& bodies, const double* q,
                         const double* u, double h, double* u_tilde) {
  for (int b : bodies) {
    const int j = m.body_jntadr[b], a = m.jnt_dofadr[j];
    const Mat3& I = m.body_inertia[b];  // about the com, body axes (a uniform mass scale cancels)
    const Mat3& R = d.xmat[b];
    const Vec3& c = m.body_com[b];
    const Vec3 v0(u[a], u[a + 1], u[a + 2]), w0(u[a + 3], u[a + 4], u[a + 5]);
    Eigen::Map<Vec3> v(u_tilde + a), w(u_tilde + a + 3);
    // the com's velocity change h f / m: the explicit step's, less its centripetal term
    const Vec3 dvc = (v - v0) + R * (w - w0).cross(c) + h * (R * w0.cross(w0.cross(c)));
    // h tau, from the explicit step: I (w_e - w-) + h w- x I w-
    const Vec3 htau = I * (w - w0) + h * w0.cross(I * w0);
    const Mat3 Jie = I + h * (skew(w0) * I - skew(I * w0));
    const Vec3 w_ie = w0 + Jie.partialPivLu().solve(I * (w - w0));
    if (!w_ie.allFinite()) continue;  // a singular inertia: the explicit step stands
    Vec3 x = w_ie;  // Newton on the midpoint rule
    const double scale = (I * w0).norm() + htau.norm();
    bool converged = false;
    for (int it = 0; it <= kMidpointIterations; ++it) {
      const Vec3 mid = 0.5 * (x + w0);
      const Vec3 f = I * (x - w0) + h * mid.cross(I * mid) - htau;
      converged = f.norm() <= 1e-13 * scale;
      if (converged || it == kMidpointIterations) break;
      const Mat3 Jm = I + 0.5 * h * (skew(mid) * I - skew(I * mid));
      x -= Jm.partialPivLu().solve(f);
    }
    w = converged && x.allFinite() ? x : w_ie;
    const Vec3 vc = v0 + R * w0.cross(c) + dvc;
    const Vec4 t1 = quat_step(q + m.jnt_qposadr[j] + 3, w, h);
    const Mat3 R1 = quat_wxyz(t1.data()).toRotationMatrix();
    v = vc - R1 * w.cross(c);
  }
}

}  // namespace ncpgym
