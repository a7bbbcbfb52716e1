#include "ncpgym/solver/stepper.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "ncpgym/collision/contact_params.hpp"
#include "ncpgym/collision/detect.hpp"
#include "ncpgym/constraints/dry_friction_rows.hpp"
#include "ncpgym/constraints/ncp.hpp"
#include "ncpgym/dynamics/actuation.hpp"
#include "ncpgym/dynamics/tendon.hpp"
#include "ncpgym/soft/medium.hpp"
#include "ncpgym/soft/pressure.hpp"

namespace ncpgym {

namespace {

template <class V>
void grow(V& v, Eigen::Index n) {  // capacity only grows: a smaller system reuses the head
  if (v.size() < n) v.resize(n);
}

using VMap = Eigen::Map<VecX>;

// Rows a typical step needs (buffers grow beyond if a step needs more, then stay):
// contacts for four points per geom plus 32, every limit, every bilateral row.
int typical_rows(const Model& m, const Constraints& c) {
  int nlim = 0;
  for (int j = 0; j < m.njnt; ++j) nlim += 2 * m.jnt_limited[j];
  for (int t = 0; t < m.ntendon; ++t) nlim += 2 * m.tendon_limited[t];
  return 3 * (4 * m.ngeom + 32 + 4 * m.nparticle) + nlim + c.fixed_rows();
}

}  // namespace

Stepper::Stepper(std::shared_ptr<const Model> model, const SolverOptions& options)
    : m_(std::move(model)),
      opt_(resolve(*m_, options)),
      dH_(*m_),
      dk_(*m_),
      cons_(*m_, opt_.implicit_springs, opt_.thickness),
      nvall_(m_->nv + 3 * m_->nparticle),
      del_(*m_, dH_, rows_.J, std::min(opt_.dense_max_rows, typical_rows(*m_, cons_))) {
  const Model& m = *m_;
  lone_free_ = lone_free_bodies(m);
  if (!opt_.implicit_springs)
    for (int a = 0; a < m.nu; ++a)
      if (m.act_forcelimited[a] && m.act_type[a] == ActuatorType::Position)
        throw std::invalid_argument("actuator '" + m.act_name[a] +
                                    "': a force range on a position servo needs implicit_springs (a servo's "
                                    "stiffness row has no force bound)");
  dry_bound_.setZero(dry_friction_row_count(m));
  dry_friction_bounds(m, dry_bound_.data());
  tau_.setZero(m.nv);
  qacc_.setZero(m.nv);
  extra_arm_.setZero(m.nv);
  u_tilde_.setZero(nvall_);
  u_.setZero(nvall_);
  du_.setZero(nvall_);
  qn_.setZero(m.nq);
  posed_q_.setZero(m.nq);
  sweep_.setZero(m.ngeom);
  motion_.resize(m.ngeom);
  const std::vector<int> tree = body_trees(m);
  for (int g = 0; g < m.ngeom; ++g) motion_[g].tree = tree[m.geom_body[g]];
  dof_tree_.resize(m.nv);
  for (int d = 0; d < m.nv; ++d) dof_tree_[d] = tree[m.dof_body[d]];
  tree_speed_.assign(m.nbody, 0.0);
  tree_rows_.assign(m.nbody, 0);
  xn_.setZero(3 * m.nparticle);
  psweep_.setZero(m.nparticle);
  pmass_.setZero(m.nparticle);
  iterate_f_.setZero(3 * m.nparticle);
  drag_D_.assign(m.nparticle, Mat3::Zero());
  scale_.setOnes(nvall_);
  f_prev_.setZero(3 * m.nparticle);
  du_prev_.setZero(3 * m.nparticle);
  f_now_.setZero(3 * m.nparticle);
  act_.setZero(m.nactgroup);
  Hg_.setZero(nvall_);
  tmp_.setZero(nvall_);
  jtl_.setZero(nvall_);
  u_base_.setZero(nvall_);
  u_keep_.setZero(nvall_);
  const int nrow = typical_rows(m, cons_);
  const int ncap = 4 * m.ngeom + 32 + 4 * m.nparticle;
  contacts_.reserve(ncap);
  warm_.reserve(ncap);
  fresh_.reserve(ncap);
  limits_.joint.reserve(m.njnt * 2);
  limits_.tendon.reserve(m.ntendon * 2);
  limits_.kind.reserve(m.njnt * 2 + m.ntendon * 2);
  reserve_rows(nrow);
  rows_.J.start.reserve(nrow + 1);
  // entries: 8 per row, whole paths for equality rows, and room for the trees
  rows_.J.col.reserve(8 * nrow + 2 * m.nv + 2 * m.nv * (6 * m.neq));
  rows_.J.val.reserve(rows_.J.col.capacity());
  // a refreshed step solves twice; line_search evaluates the last iterate too
  const int per_step = 2 * (opt_.newton_iterations + 1);
  stats_.residual.reserve(per_step);
  stats_.linear_iterations.reserve(per_step);
  stats_.linear_residual.reserve(per_step);
  stats_.step_size.reserve(per_step);
  stats_.momentum_residual.reserve(per_step);
  lin_.reserve(nrow);
}

void Stepper::reserve_rows(int nrow) {
  for (VecX* v : {&rows_.C, &rows_.E, &lambda_, &jhj_, &opdiag_, &alpha_, &cdiag_, &hvec_, &rfac_, &Jg_, &b_, &dl_, &lambda_base_})
    grow(*v, nrow);
  grow(contact_force_, nrow);
  // kept across a refresh's reserve_rows (step()): it holds the last solve's multipliers
  if (carried_.size() < nrow) carried_.conservativeResize(nrow);
  if (rows_.kind.capacity() < static_cast<size_t>(nrow)) rows_.kind.reserve(nrow);
}

void Stepper::actuator_forces(const State& s, double h) {
  // The actuators' part of free_velocity: explicit forces into tau_, implicit servo and damper
  // terms into tau_ and extra_arm_ (dH_ holds the poses at q-).
  const Model& m = *m_;
  for (int a = 0; a < m.nu; ++a) {
    const double c = actuator_input(m, a, s.ctrl.data(), s.actuator_act.data());
    if (m.act_tendon[a] >= 0) {  // on a tendon: its force at the step's start, explicit
      const double L = actuated_coordinate(m, dH_, a, s.q.data()), V = actuated_rate(m, dH_, a, s.u.data());
      add_actuator_force(m, dH_, a, actuator_force(m, a, c, L, V), tau_.data());
      continue;
    }
    const int dof = m.jnt_dofadr[m.act_joint[a]];
    if (m.act_forcelimited[a]) {
      // forcerange: an actuator whose force at the step's start lies outside it acts with
      // the bound, explicitly, as MuJoCo's clamped actuator force does (its servo terms then
      // stay out of H this step); one within it stays implicit (a departure: MuJoCo clamps
      // its explicit force, and the implicit servo may end the step beyond the bound)
      const double f = unlimited_actuator_force(m, a, c, s.q[m.jnt_qposadr[m.act_joint[a]]], s.u[dof]);
      const double lo = m.act_forcerange[2 * a], hi = m.act_forcerange[2 * a + 1];
      if (f < lo || f > hi) {
        tau_[dof] += m.act_gear[a] * std::clamp(f, lo, hi);
        continue;
      }
    }
    if (m.act_type[a] == ActuatorType::Damper) {  // damping kv c, implicit like the joint's own
      const double g = m.act_gear[a], kv = m.act_kv[a] * c * g * g;
      tau_[dof] -= kv * s.u[dof];
      extra_arm_[dof] += h * kv;
    } else if (m.act_type[a] == ActuatorType::Motor) {
      tau_[dof] += m.act_gear[a] * c;  // explicit torque gear * ctrl
    } else {
      const double g = m.act_gear[a];
      const double kv = m.act_kv[a] * g * g;  // implicit servo damping
      tau_[dof] -= kv * s.u[dof];
      extra_arm_[dof] += h * kv;
      if (m.act_kp[a] == 0) {  // an affine actuator without stiffness: its control force, explicit
        tau_[dof] += g * (m.act_ctrlgain[a] * c + m.act_bias0[a]);
      } else if (opt_.implicit_springs) {  // servo stiffness folded into H, as the springs above
        tau_[dof] += g * m.act_kp[a] * (servo_target(m, a, c) - g * (s.q[m.jnt_qposadr[m.act_joint[a]]] + h * s.u[dof]));
        extra_arm_[dof] += h * h * m.act_kp[a] * g * g;
      }
    }
  }
}

void Stepper::free_velocity(const State& s, double h) {
  // Unconstrained velocity u~ = u- + h H^-1 (tau + spring - B u- - bias), H = M + h B
  // (joint damping implicit), from the O(n) forward dynamics; this also leaves the
  // factorisation of H at q- in dH_ for the IIM.
  // Springs and servo stiffness are compliant constraints (eq. 8) on one joint coordinate,
  // c = q - ref with E = 1/k. With implicit_springs their Schur complement is folded into
  // H exactly: with q+ = q- + h u+ the row's force is -k (q+ - ref), so
  // (M + h B + h^2 K)(u~ - u-) = h (tau - B u- - K (q- + h u- - ref) - bias), the compliant
  // row's own solution because the row is linear in q. Otherwise they stay rows of the
  // Newton system (constraints/spring_rows.cpp, the seed's form; both are tested).
  const Model& m = *m_;
  tau_.setZero();
  add_passive_damping(m, s.u.data(), tau_.data());
  add_tendon_passive(m, s.q.data(), s.u.data(), tau_.data());
  extra_arm_ = h * Eigen::Map<const VecX>(m.dof_damping.data(), m.nv);
  if (opt_.implicit_springs) {
    for (int j = 0; j < m.njnt; ++j) {
      const double k = m.jnt_stiffness[j];
      if (k == 0) continue;
      const int dof = m.jnt_dofadr[j];
      tau_[dof] -= k * (s.q[m.jnt_qposadr[j]] + h * s.u[dof] - m.jnt_springref[j]);
      extra_arm_[dof] += h * h * k;
    }
  }
  if (const Data* posed = poses_at(s.q)) {  // the last step's refresh posed the bodies at q-
    copy_poses(*posed, dH_);
    body_inertias(m, dH_);
  } else {
    kinematics(m, dH_, s.q.data());  // what aba() does before aba_posed()
  }
  actuator_forces(s, h);  // after the poses: a spatial tendon's J_t reads them
  aba_posed(m, dH_, s.q.data(), s.u.data(), tau_.data(), Passive::GravcompOnly, extra_arm_.data());
  u_tilde_.head(m.nv) = s.u + h * dH_.qacc;
  implicit_gyroscopic(m, dH_, lone_free_, s.q.data(), s.u.data(), h, u_tilde_.data());
  for (int p = 0; p < m.nparticle; ++p) {
    // particles: M diagonal; gravity with buoyancy, the external force, and linear viscous
    // friction taken implicitly: (m + h c) u = m v + h (m g' + f) (soft/medium.hpp)
    const double mp = m.particle_mass[p], c = viscous_coefficient(m, p);
    pmass_[p] = mp + h * c;
    // written so that with c = 0 and f = 0 it is bitwise v + h g (mp / mp = 1, x + 0 = x)
    u_tilde_.segment<3>(m.nv + 3 * p) =
        (mp / pmass_[p]) * (s.v.segment<3>(3 * p) + h * buoyancy_factor(m, p) * m.gravity +
                            (h / mp) * s.f.segment<3>(3 * p));
    psweep_[p] = h * std::max(s.v.segment<3>(3 * p).norm(), u_tilde_.segment<3>(m.nv + 3 * p).norm());
  }
}

void Stepper::detect(const State& s, double h) {
  // Collision detection once per step, at q-, with how far each pair of geoms may approach
  // over the step under the unconstrained velocity as extra margin (speculative contacts;
  // the broad phase's boxes take each geom's own sweep). Both the velocity at the start and
  // the unconstrained one bound the motion: a contact elsewhere may push a geom along its
  // current velocity rather than u~. Within one articulated tree the approach is relative
  // (detect.hpp, GeomMotion): a falling humanoid's own links took ~75 speculative contacts
  // per step from their common velocity when each pair was tested with the sum of both
  // sweeps, which pairs of different trees keep.
  const Model& m = *m_;
  posed_valid_ = false;
  copy_poses(dH_, dk_);  // free_velocity's forward dynamics posed the bodies at q- already
  for (int pass = 0; pass < 2; ++pass) {
    body_velocities(m, dk_, pass == 0 ? u_tilde_.data() : s.u.data());
    for (int g = 0; g < m.ngeom; ++g) {
      const int b = m.geom_body[g];
      const Vec6& v = dk_.cvel[b];
      const Vec3 c = geom_xpos(m, dk_, g);
      const double r = m.geom_type[g] == GeomType::Plane ? 0.0 : geom_rbound(m, g);
      GeomMotion& gm = motion_[g];
      gm.shift[pass] = h * (v.tail<3>() + v.head<3>().cross(c));
      gm.turn[pass] = h * v.head<3>().norm() * r;
      const double sw = gm.shift[pass].norm() + gm.turn[pass];
      sweep_[g] = pass == 0 ? sw : std::max(sweep_[g], sw);
    }
  }
  // The margin is measured from the contact surface, which sits `thickness` out (eq. 9):
  // without it a thickness beyond the margin would hide every resting contact.
  CollisionOptions coll = opt_.collision;
  coll.margin += opt_.thickness;
  detect_contacts(m, dk_, coll, contacts_, sweep_.data(), motion_.data());
  if (m.nparticle > 0)
    detect_particle_contacts(m, dk_, s.x, coll, contacts_, psweep_.data(), sweep_.data());
  if (m.nrodedge > 0) detect_rod_contacts(m, dk_, s.x, coll, contacts_, psweep_.data(), sweep_.data());
  if (!m.shell_tri.empty()) detect_shell_contacts(m, dk_, s.x, coll, contacts_, psweep_.data(), sweep_.data());
  if (opt_.deformable_contacts && (m.nrodedge > 0 || !m.shell_tri.empty()))
    detect_deformable_contacts(m, s.x, coll, contacts_, psweep_.data());
  if (m.nsoft > 0 && (opt_.soft_triangle_contacts || opt_.soft_soft_contacts))
    detect_soft_surface_contacts(m, dk_, s.x, coll, contacts_, psweep_.data(), sweep_.data(),
                                 opt_.soft_triangle_contacts, opt_.soft_soft_contacts);
  // violated limits and equalities are corrected at a bounded speed (options.hpp)
  collect_limits(m, dk_, s.q, u_tilde_, opt_.collision.margin, h, h * opt_.limit_recovery_speed, limits_);
  cons_.equality_recovery(dk_, s.q, h * opt_.equality_recovery_speed);
  if (opt_.depenetration_speed > 0) {  // options.hpp: deep contacts separate at a bounded speed
    const double reach = h * opt_.depenetration_speed;
    for (Contact& c : contacts_) {
      const double depth = opt_.thickness + c.margin - c.dist;
      if (depth > reach) c.slack = depth - reach;
    }
  }
}

int Stepper::prepare(const State& s, double h) {
  const Model& m = *m_;
  if (s.act.size() != m.nactgroup) throw std::invalid_argument("state: activation has the wrong size");
  if (s.actuator_act.size() != m.na) throw std::invalid_argument("state: actuator_act has the wrong size");
  if (s.f.size() != 3 * m.nparticle) throw std::invalid_argument("state: particle forces have the wrong size");
  act_ = s.act;  // same size every step: no allocation
  cons_.begin_step(s);
  free_velocity(s, h);
  detect(s, h);
  const int nrow = cons_.layout(contacts_, limits_, rows_);
  reserve_rows(nrow);
  return nrow;
}

const Data* Stepper::poses_at(const VecX& q) const {
  const bool same = posed_valid_ && m_->nmocap == 0 && q.size() == posed_q_.size() &&
                    std::memcmp(q.data(), posed_q_.data(), sizeof(double) * q.size()) == 0;
  return same ? &dk_ : nullptr;
}

ConstraintRows Stepper::constraint_rows(const State& s) {
  const int nrow = prepare(s, opt_.timestep);
  evaluate_rows(s.q, s.x);
  return {rows_.J.dense(nvall_), rows_.C.head(nrow), rows_.kind, rows_.E.head(nrow)};
}

ConstraintRows Stepper::constraint_rows_at(const VecX& q, const VecX& x) {
  evaluate_rows(q, x);
  return {rows_.J.dense(nvall_), rows_.C.head(rows_.J.rows()), rows_.kind, rows_.E.head(rows_.J.rows())};
}

bool Stepper::unconstrained_solves(const State& s, double h, int nrow) {
  // (u~, lambda = 0) solves the whole system when no row is violated at q(u~): g = 0, the
  // friction rows are inactive, and the NCP functions of eqs. 9-10 vanish where C >= 0
  // with lambda = 0 (FB: C - |C|; min-map: min(C, 0)). Then it is the exact answer and the
  // Newton iterations, which start from u = 0 (eq. 67), are skipped; this also avoids the
  // (1 - t)^k remainder damped steps leave on the unconstrained motion.
  const Model& m = *m_;
  integrate(m, s.q.data(), u_tilde_.data(), h, qn_.data());
  if (m.nparticle) xn_ = s.x + h * u_tilde_.tail(3 * m.nparticle);
  evaluate_rows(qn_, xn_);
  for (int r = 0; r < nrow; ++r) {
    if (rows_.kind[r] == RowKind::Friction) continue;
    if (rows_.kind[r] == RowKind::DryFriction) {  // its value is the dof's slip at u~
      if (rows_.J.dot(r, u_tilde_.data()) != 0) return false;
      continue;
    }
    if (rows_.kind[r] == RowKind::Compliant) return false;  // bilateral rows carry force in general
    if (rows_.C[r] < 0) return false;
  }
  stats_.residual.push_back(0.0);
  stats_.momentum_residual.push_back(0.0);
  return true;
}

void Stepper::particle_forces(int nrow, VecX& f) {
  // (J^T lambda) over rows [0, nrow), its particle coordinates
  rows_.J.transpose_times(nrow, nullptr, lambda_.data(), tmp_.data(), nvall_);
  f = tmp_.tail(3 * m_->nparticle);
}

void Stepper::geometric_stiffness(double h, int it, int nrow) {
  // Geometric stiffness (eqs. 70-74): K = d(J^T lambda)/dq at fixed lambda (eq. 70), which
  // the Newton matrix H = M leaves out, approximated per particle coordinate by a secant
  // between the last two iterates: c_k = h [J(q^n)^T lambda - J(q^{n-1})^T lambda]_k / du_k,
  // both products with this iterate's lambda (f_prev_ comes from evaluate_iterate, through
  // the rows of the previous evaluation), and H_kk = M_kk - min(0, c_k) (eq. 74): a chain
  // under tension gets H = M + h^2 T/L (I - n n^T). Two departures from the printed eqs.
  // 71-73, which take the secant of g (eq. 57) itself: (1) eq. 73 adds (M du)_k inside the
  // bracket, which would count M twice (g(u') - g(u) = M du - h d(J^T lambda)); (2) the
  // secant of g also contains J^T dlambda, the change of the multipliers, which the Newton
  // system already carries exactly in its J^T block: counted again on the diagonal it made
  // H stiffer than the system it preconditions, and Newton converged only linearly on
  // stiff soft bodies (a foam block under a plate: momentum residual 1.6e-3 after 16
  // iterations with the old secant, 3e-7 with this one; docs/architecture.md, "One set of
  // solver defaults"). With stress_stiffness the element rows' share is exact in the primal
  // Newton matrix and is left out here (nrow stops before them).
  const Model& m = *m_;
  const int np3 = 3 * m.nparticle;
  if (it == 0) return;
  particle_forces(nrow, f_now_);
  VecX& pminv = del_.particle_hinv();
  for (int k = 0; k < np3; ++k) {
    if (std::abs(du_prev_[k]) < 1e-12) continue;
    const double c = h * (f_now_[k] - f_prev_[k]) / du_prev_[k];  // eq. 73 at fixed lambda
    const double mk = pmass_[k / 3];
    const double Hkk = mk - std::min(0.0, c);  // eq. 74
    pminv[k] = 1.0 / Hkk;
    scale_[m.nv + k] = mk / Hkk;  // H^-1 M on the diagonal
  }
}

void Stepper::element_multipliers(int nrow) {
  // The primal path eliminates the compliant element rows (soft_kkt.cpp), so their
  // multipliers are functions of the positions: eq. 8, c(x) + E lambda = 0, solved for
  // lambda at this iterate's x (the elements' elastic forces), instead of carrying the
  // linearised Newton update of the last direction. A departure from the seed's zero start
  // (eq. 68) on these rows, whose value then stays exactly zero in the NCP residual and whose
  // error moves into the momentum residual, the implicit-Euler balance the primal Newton
  // iteration solves. Why: from lambda = 0 the damped update (t = 0.75) leaves (1 - t)^k of
  // the elastic force unconverged in every step, which on a Neo-Hookean finger at rest
  // (pivot-scaled rows, tet_neohookean.cpp) reads as NCP residuals of 480-944 after 8
  // iterations; with the multipliers taken from x the same finger ends every step at 1e-9
  // (docs/architecture.md, "Element multipliers from the positions"). Rows with E = 0 (a
  // stretch added with compliance 0) have no such function and keep the Newton update.
  // Option element_multipliers_from_x (on by default).
  const VecX& C = rows_.C;
  const VecX& E = rows_.E;
  for (int r = rows_.begin(kFirstElementBlock); r < nrow; ++r)
    if (rows_.kind[r] == RowKind::Compliant && E[r] > 0) lambda_[r] = -C[r] / E[r];
}

void Stepper::ncp_terms(double h, int nrow) {
  // Per row: the r-factor (eq. 66), the NCP derivative alpha = dphi/dC, the compliance
  // block (eq. 55) and the value hvec (eq. 58).
  VMap lambda(lambda_.data(), nrow), jhj(jhj_.data(), nrow), alpha(alpha_.data(), nrow),
      cdiag(cdiag_.data(), nrow), hvec(hvec_.data(), nrow), rfac(rfac_.data(), nrow);
  const auto& kind = rows_.kind;
  const VecX& C = rows_.C;
  const RScaling rs = opt_.rscale;
  const SparseRows& J = rows_.J;
  for (int r = 0; r < nrow; ++r) {
    if (kind[r] == RowKind::Compliant) continue;  // eq. 8 rows take no r
    const bool fric = kind[r] == RowKind::Friction || kind[r] == RowKind::DryFriction;  // velocity rows
    bool eff = rs == RScaling::EffectiveMass || rs == RScaling::Mixed;
    if (rs == RScaling::Mixed && m_->nparticle > 0)  // the time-step r where a row moves a particle (options.hpp)
      for (int k = J.start[r]; k < J.start[r + 1] && eff; ++k) eff = J.col[k] < m_->nv;
    double rr = rs == RScaling::Identity ? 1.0 : (fric ? h : h * h);
    if (eff) rr *= jhj[r];  // eq. 66
    rfac[r] = std::max(rr, 1e-300);
  }
  for (int r = 0; r < nrow; ++r) {
    if (kind[r] == RowKind::Compliant) {
      // eq. 8 / 58: h_b = (c + E lambda) / h, compliance block E / h^2
      const double E = rows_.E[r];
      alpha[r] = 1.0;
      cdiag[r] = E / (h * h);
      hvec[r] = (C[r] + E * lambda[r]) / h;
    }
    if (kind[r] == RowKind::Friction || kind[r] == RowKind::Compliant || kind[r] == RowKind::DryFriction) continue;
    // Normal contact and joint-limit rows (eqs. 9-10 through eqs. 93-98).
    const ncp::Value v = opt_.ncp == NcpFunction::FischerBurmeister ? ncp::fischer_burmeister(C[r], lambda[r], rfac[r])
                                                                    : ncp::minimum_map(C[r], lambda[r], rfac[r]);
    alpha[r] = v.dC;
    cdiag[r] = v.dlambda / (h * h);  // S / h^2 (eq. 55)
    hvec[r] = v.phi / h;             // eq. 58
  }
  const int nc = static_cast<int>(contacts_.size());
  // cone_return's return to the cone's boundary (ncp.hpp) needs eq. 105's form of W outside
  // the cone (minimum map, or bounded_friction_w)
  const bool returns = opt_.cone_return && (opt_.ncp == NcpFunction::MinimumMap || opt_.bounded_friction_w);
  for (int c = 0; c < nc; ++c) {
    // Friction (eqs. 35-37, Appendix A.2): two tangent rows per contact.
    const int r1 = 3 * c + 1, r2 = 3 * c + 2;
    const double mu_ln = contacts_[c].friction * lambda[3 * c];
    const Vec2d slip(rows_.J.dot(r1, u_.data()), rows_.J.dot(r2, u_.data()));
    // cone_return (options.hpp): a contact whose normal row separates at this iterate
    // (C > r lambda_n, where the minimum map of eq. 96 sets lambda_n to 0) has no friction,
    // as it has none at any solution where C > 0; the damped update leaves it (1 - t)^k of its
    // normal impulse, and eq. 105's W ~ s / mu_ln then grows without bound
    const bool separates = opt_.cone_return && C[3 * c] > rfac[3 * c] * lambda[3 * c];
    if (rows_.spin_start[c] < rows_.spin_start[c + 1]) {  // condim 4 or 6: the elliptic cone
      elliptic_cone(c, h, separates, returns);
      continue;
    }
    if (mu_ln <= 0 || separates) {
      // inactive (eq. 106): rows zeroed, W = 1 drives lambda_f to zero
      alpha[r1] = alpha[r2] = 0.0;
      cdiag[r1] = cdiag[r2] = 1.0 / h;
      hvec[r1] = lambda[r1];
      hvec[r2] = lambda[r2];
      continue;
    }
    const double rf = 0.5 * (rfac[r1] + rfac[r2]);
    const double lf = std::hypot(lambda[r1], lambda[r2]);
    const double W = opt_.ncp == NcpFunction::FischerBurmeister
                         ? ncp::friction_w_fb(slip.norm(), lf, mu_ln, rf, opt_.bounded_friction_w)
                         : ncp::friction_w_min(slip.norm(), lf, mu_ln, rf);
    alpha[r1] = alpha[r2] = 1.0;
    cdiag[r1] = cdiag[r2] = W / h;        // W / h (eq. 55)
    // phi_f (eq. 36), less cone_return's offset outside the cone
    const ncp::Offset ret = returns ? ncp::friction_return(lambda[r1], lambda[r2], slip[0], slip[1], mu_ln, rf)
                                    : ncp::Offset{0.0, 0.0};
    hvec[r1] = slip[0] + W * lambda[r1] - ret.x;
    hvec[r2] = slip[1] + W * lambda[r2] - ret.y;
  }
  // Dry joint friction (constraints/dry_friction_rows.hpp): eq. 36 for one direction with
  // the fixed bound frictionloss in place of mu lambda_n
  const int d0 = rows_.begin(RowBlock::DryFriction);
  for (int r = d0; r < rows_.end(RowBlock::DryFriction); ++r) {
    const double one = 1.0, slip = rows_.J.dot(r, u_.data());
    double W, phi;
    ncp::elliptic_friction(1, &one, &lambda[r], &slip, &rfac[r], dry_bound_[r - d0],
                           opt_.ncp == NcpFunction::FischerBurmeister, opt_.bounded_friction_w, returns, &W, &phi);
    alpha[r] = 1.0;
    cdiag[r] = W / h;
    hvec[r] = phi;
  }
  ncp_norm_ = hvec.lpNorm<Eigen::Infinity>();  // the residual of eq. 58 and its square (line_search)
  ncp_norm2_ = hvec.squaredNorm();
}

void Stepper::elliptic_cone(int c, double h, bool separates, bool returns) {
  // A condim-4 or -6 contact's friction rows (sliding, torsion, rolling) in MuJoCo's
  // elliptic cone (ncp.hpp, elliptic_friction). A row whose coefficient is 0 is frictionless
  // and, as every row of an inactive contact (eq. 106), zeroed with W = 1.
  const Contact& k = contacts_[c];
  const int e0 = rows_.begin(RowBlock::SpinRoll) + rows_.spin_start[c];
  const int ne = rows_.spin_start[c + 1] - rows_.spin_start[c];
  int row[5] = {3 * c + 1, 3 * c + 2, e0, e0 + 1, e0 + 2};
  const double coef[5] = {k.friction, k.friction, k.spin, k.roll, k.roll};
  double mu[5], lam[5], slip[5], rf[5], W[5], phi[5];
  const double ln = lambda_[3 * c];
  int n = 0;
  for (int i = 0; i < 2 + ne; ++i) {
    const int r = row[i];
    if (coef[i] <= 0 || ln <= 0 || separates) {
      alpha_[r] = 0.0;
      cdiag_[r] = 1.0 / h;
      hvec_[r] = lambda_[r];
      continue;
    }
    row[n] = r;
    mu[n] = coef[i];
    lam[n] = lambda_[r];
    slip[n] = rows_.J.dot(r, u_.data());
    rf[n] = rfac_[r];
    ++n;
  }
  if (n == 0) return;
  ncp::elliptic_friction(n, mu, lam, slip, rf, ln, opt_.ncp == NcpFunction::FischerBurmeister, opt_.bounded_friction_w,
                    returns, W, phi);
  for (int i = 0; i < n; ++i) {
    alpha_[row[i]] = 1.0;
    cdiag_[row[i]] = W[i] / h;  // W / h (eq. 55)
    hvec_[row[i]] = phi[i];
  }
}

Vec3 Stepper::contact_torque(int c) const {
  const Contact& k = contacts_[c];
  const int ne = extra_friction_rows(k.condim);
  const double* l = contact_force_.data() + 3 * static_cast<int>(contacts_.size()) + rows_.spin_start[c];
  Vec3 t = Vec3::Zero();
  const Vec3* dirs[3] = {&k.normal, &k.tangent1, &k.tangent2};
  for (int i = 0; i < ne; ++i) t += l[i] * *dirs[i];
  return t;
}

void Stepper::dual_rhs(double h, int nrow) {
  // Effective rows J_eff = diag(alpha) J; system A = J_eff H^-1 J_eff^T + C + eps I.
  VMap jhj(jhj_.data(), nrow), opdiag(opdiag_.data(), nrow), alpha(alpha_.data(), nrow), cdiag(cdiag_.data(), nrow),
      hvec(hvec_.data(), nrow), Jg(Jg_.data(), nrow), b(b_.data(), nrow);
  for (int r = 0; r < nrow; ++r) opdiag[r] = (1.0 + opt_.proximal) * alpha[r] * alpha[r] * jhj[r] + cdiag[r] + opt_.regularization;
  del_.set_row_scaling(alpha.data(), opdiag.data());
  // H^-1 g = (u - u~) - h H^-1 J_eff^T lambda  (eq. 57, without forming H)
  del_.hinv_jt(alpha.data(), lambda_.data(), Hg_.data());
  Hg_ = scale_.cwiseProduct(u_ - u_tilde_) - h * Hg_;
  stats_.momentum_residual.push_back(Hg_.lpNorm<Eigen::Infinity>());
  momentum2_ = Hg_.squaredNorm();
  for (int r = 0; r < nrow; ++r) Jg[r] = alpha[r] * rows_.J.dot(r, Hg_.data());
  b = (Jg - hvec) / h;  // eq. 59
}

LinearResult Stepper::dual_direction(double h, int it) {
  const RowCoefficients k{alpha_.data(), opdiag_.data(), jhj_.data()};
  const LinearResult lr =
      del_.solve(opt_, static_cast<int>(contacts_.size()), k, b_.data(), dl_.data(), it == 0, lin_);
  // eq. 60: du = H^-1 (h J^T dlambda - g)
  del_.hinv_jt(alpha_.data(), dl_.data(), du_.data());
  du_ = h * du_ - Hg_;
  return lr;
}

void Stepper::momentum_residual(double h) {
  // max |H^-1 g| with g = M (u - u~) - h J_eff^T lambda (eq. 57), for the primal path's stats
  del_.apply_hinv(jtl_.data(), tmp_.data());
  // with drag g also has -h F_drag on the particles (as soft_direction solves); H^-1 is
  // diagonal there
  const int np3 = 3 * m_->nparticle;
  if (has_iterate_forces(*m_)) tmp_.tail(np3) += del_.particle_hinv().cwiseProduct(iterate_f_);
  tmp_ = scale_.cwiseProduct(u_ - u_tilde_) - h * tmp_;
  stats_.momentum_residual.push_back(tmp_.lpNorm<Eigen::Infinity>());
  momentum2_ = tmp_.squaredNorm();
}

void Stepper::damped_update(int nrow, int it) {
  // Damped Newton update of both paths (eqs. 61-62) with the direction (du_, dl_).
  const double t = t_;
  lambda_.head(nrow) += t * dl_.head(nrow);
  u_ += t * du_;
  if (opt_.project_impulses) clip_impulses(nrow);
  const int np3 = 3 * m_->nparticle;
  if (np3) du_prev_ = t * du_.tail(np3);
  stats_.step_size.push_back(t * du_.lpNorm<Eigen::Infinity>());
  stats_.newton_iterations = it + 1;
}

double Stepper::evaluate_iterate(const State& s, double h, int nrow, int it, bool primal) {
  // Everything of the iterate (u_, lambda_) the next direction needs: the constraint rows at
  // q^n = q- + h G u^n (eq. 63), x^n = x- + h v^n, the geometric-stiffness shift, the NCP
  // terms, the residuals (stats) and the right-hand side (dual: b of eq. 59; primal: J_eff^T
  // lambda and the iterate's forces). Returns the merit |(hvec, H^-1 g)|_2 of line_search.
  const Model& m = *m_;
  const int np3 = 3 * m.nparticle;
  integrate(m, s.q.data(), u_.data(), h, qn_.data());
  if (np3) xn_ = s.x + h * u_.tail(np3);
  // the shift's secant (geometric_stiffness) at fixed lambda: the forces of this iterate's
  // multipliers through the rows of the last evaluation, before evaluate_rows replaces them
  const bool shift = np3 && opt_.geometric_stiffness;
  const int gs_rows = opt_.stress_stiffness && primal ? rows_.begin(kFirstElementBlock) : nrow;
  if (shift && it > 0) particle_forces(gs_rows, f_prev_);
  evaluate_rows(qn_, xn_);
  if (shift) geometric_stiffness(h, it, gs_rows);
  if (primal && opt_.element_multipliers_from_x) element_multipliers(nrow);
  // the primal path needs diag J H^-1 J^T only for the rows it keeps dual
  del_.rows_changed(it, primal ? rows_.begin(kFirstElementBlock) : nrow, jhj_.data());
  ncp_terms(h, nrow);
  stats_.residual.push_back(ncp_norm_);
  if (primal) {
    rows_.J.transpose_times(nrow, alpha_.data(), lambda_.data(), jtl_.data(), nvall_);  // J_eff^T lambda
    if (has_iterate_forces(m)) {  // at this iterate (soft/medium.hpp, soft/pressure.hpp)
      if (has_drag(m)) {
        drag_forces(m, xn_, u_.tail(np3), iterate_f_, drag_D_);
      } else {
        iterate_f_.setZero();
      }
      add_pressure_forces(m, xn_, act_, iterate_f_);
    }
    momentum_residual(h);  // stats (and the early exit), as dual_rhs does
  } else {
    dual_rhs(h, nrow);
  }
  return iterate_merit();
}

void Stepper::set_iterate(int nrow, double t) {
  // The line search's trial point: the last accepted iterate plus t times the direction, with
  // damped_update's impulse clipping.
  lambda_.head(nrow) = lambda_base_.head(nrow) + t * dl_.head(nrow);
  u_ = u_base_ + t * du_;
  if (opt_.project_impulses) clip_impulses(nrow);
}

void Stepper::clip_impulses(int nrow) {
  // Normal contact and joint-limit multipliers are impulses that only push (eq. 10): clip
  // the iterate at 0 (option project_impulses; see options.hpp).
  for (int r = 0; r < nrow; ++r)
    if (rows_.kind[r] != RowKind::Friction && rows_.kind[r] != RowKind::Compliant && rows_.kind[r] != RowKind::DryFriction)
      lambda_[r] = std::max(lambda_[r], 0.0);
}

void Stepper::start_from_motion(const State& s) {
  // Option start_from_motion (options.hpp): trees moving faster than the threshold start from
  // their velocity u-, the others from rest (u = 0, eq. 67). The damped update leaves
  // (1 - t)^k of the start's distance to the answer, which from rest is the whole velocity.
  const Model& m = *m_;
  std::fill(tree_speed_.begin(), tree_speed_.end(), 0.0);
  for (int d = 0; d < m.nv; ++d) tree_speed_[dof_tree_[d]] = std::max(tree_speed_[dof_tree_[d]], std::abs(s.u[d]));
  for (int d = 0; d < m.nv; ++d) u_[d] = tree_speed_[dof_tree_[d]] > opt_.start_from_motion ? s.u[d] : 0.0;
}

bool Stepper::balanced_exit(const State& s, double h, int nrow, int it) {
  // Option momentum_exit (options.hpp). At an iterate whose NCP residual is below tolerance
  // but whose momentum residual is not, try the velocity that balances momentum at the
  // iterate's impulses: eq. 57 solved for u at fixed lambda, u~ + h H^-1 J_eff^T lambda, i.e.
  // u - H^-1 g. The step ends there if both residuals are then below tolerance; otherwise
  // Newton goes on from it if its NCP residual is, else the iterate is restored (its rows
  // evaluated again) and Newton goes on as without the option.
  // Only the momentum residual's size gates the try: below momentum_exit the damped updates'
  // drag on it is negligible, and projected creeps of ~1e-8 m/s kept a resting arch's later
  // steps from exiting at iterate 0.
  if (!(stats_.momentum_residual.back() > opt_.momentum_exit)) return false;
  u_keep_ = u_;
  u_ -= Hg_;
  evaluate_iterate(s, h, nrow, std::max(it, 1), false);  // it > 0: the step's setup is done
  if (stats_.residual.back() < opt_.tolerance && stats_.momentum_residual.back() < opt_.tolerance) {
    stats_.momentum_exit = 1;
    return true;
  }
  // Not converged, but the NCP residual still within tolerance: the momentum residual left is
  // the rows' change over the move (1-3e-9 m/s on the 50-body pile), so Newton goes on from
  // this iterate (its rows are evaluated already): 8 % of the pile's time saved, outcomes
  // equal. (Its momentum residual was below the iterate's in every such try on the piles.)
  if (stats_.residual.back() < opt_.tolerance) {
    ++stats_.momentum_exit_kept;
    stats_.residual.erase(stats_.residual.end() - 2);  // the iterate it replaces
    stats_.momentum_residual.erase(stats_.momentum_residual.end() - 2);
    return false;
  }
  ++stats_.momentum_exit_rejected;
  u_ = u_keep_;
  for (int k = 0; k < 2; ++k) {  // this trial's and the restored iterate's entries
    stats_.residual.pop_back();
    stats_.momentum_residual.pop_back();
  }
  evaluate_iterate(s, h, nrow, std::max(it, 1), false);
  return false;
}

bool Stepper::free_rowless_trees(int nrow) {
  // Trees that no row of the step touches (a box in flight while another lies on the
  // floor): with no J^T lambda on them, eq. 57's balance is u = u~ exactly, and their
  // rows of the Newton system are empty, so the iteration would only carry them from the
  // start u = 0 towards u~ by 1 - (1 - t)^k, a drag on bodies in flight (a box thrown
  // beside a resting one kept 0.977 of its speed after 0.5 s at 4 iterations) and a
  // momentum residual of their whole velocity, which kept the early exit from firing. They
  // take u~ after the first evaluation (the rows never read their positions), and their
  // momentum residual is zero.
  const Model& m = *m_;
  const SparseRows& J = rows_.J;
  std::fill(tree_rows_.begin(), tree_rows_.end(), 0);
  for (int k = J.start[0]; k < J.start[nrow]; ++k)
    if (J.col[k] < m.nv) tree_rows_[dof_tree_[J.col[k]]] = 1;
  bool any = false;
  for (int d = 0; d < m.nv; ++d)
    if (!tree_rows_[dof_tree_[d]]) {
      u_[d] = u_tilde_[d];
      Hg_[d] = 0.0;
      any = true;
    }
  if (!any) return false;
  stats_.momentum_residual.back() = Hg_.lpNorm<Eigen::Infinity>();
  momentum2_ = Hg_.squaredNorm();
  return true;
}

void Stepper::newton(const State& s, double h, int nrow, int carried) {
  const Model& m = *m_;
  const int np3 = 3 * m.nparticle;
  const int elem_row0 = rows_.begin(kFirstElementBlock);
  // the step has element rows to eliminate, or every direction is asked of the KKT system
  const bool elements = elem_row0 < nrow;
  const bool primal = (opt_.soft_primal && elements) || opt_.linear == LinearSolverType::KKT;
  VMap lambda(lambda_.data(), nrow);
  lambda.setZero();
  // the last step's impulse of each contact found again (warm_start.hpp); with
  // start_from_motion within each geom's reach over the step
  const bool from_motion = opt_.start_from_motion > 0 && opt_.warm_start && carried == 0 && !primal;
  if (opt_.warm_start) warm_.apply(contacts_, lambda_.data(), from_motion ? sweep_.data() : nullptr);
  // a refreshed step's solve continues from the last solve's contact multipliers (step())
  if (carried > 0) lambda_.head(carried) = carried_.head(carried);
  // eq. 67 (lambda^0 = 0, eq. 68, unless warm-started); a refreshed step's solve continues
  // from the last solve's velocity, which its carried multipliers balance
  if (carried == 0) u_.setZero();
  if (from_motion) start_from_motion(s);
  VecX& pminv = del_.particle_hinv();
  for (int p = 0; p < m.nparticle; ++p) pminv.segment<3>(3 * p).setConstant(1.0 / pmass_[p]);
  scale_.setOnes();
  f_prev_.setZero();
  du_prev_.setZero();
  step_primal_ = primal && opt_.newton_iterations > 0;
  if (!primal && has_iterate_forces(m))
    throw std::invalid_argument(
        "aerodynamic drag and pressure chambers are solved only by the primal soft solver (soft_solver='primal')");
  const bool dense = !primal && (nrow <= opt_.dense_max_rows || opt_.linear == LinearSolverType::GaussSeidel ||
                                 opt_.linear == LinearSolverType::LDLT);
  del_.begin_step(nrow, dense, opt_.newton_iterations,
                  opt_.linear == LinearSolverType::GaussSeidel || opt_.linear == LinearSolverType::LDLT ||
                      opt_.linear == LinearSolverType::SparseLDLT,  // dense: the dense LDL^T
                  !primal && opt_.linear != LinearSolverType::SparseLDLT, opt_.linear_iterations,
                  /*choose=*/true);
  // Full steps on a smooth system of the trees (options.hpp, smooth_full_step): springs and
  // equalities only; particle rows keep the damping (their H is the quasi-Newton one of eqs.
  // 71-74, and full steps let a whipping chain overshoot: 7 mm stretch against 3 mm).
  const bool smooth = rows_.end(RowBlock::DryFriction) == 0 && rows_.begin(RowBlock::Distance) == rows_.begin(RowBlock::Equality) &&
                      rows_.end(RowBlock::Equality) == nrow;
  t_ = opt_.smooth_full_step && smooth ? 1.0 : opt_.step;
  // soft steps (line_search) and smooth steps of the trees (smooth_search; options.hpp)
  const bool search = (opt_.line_search == 1 && primal && elements) || (opt_.smooth_search && smooth && !primal);
  double merit = 0.0;
  for (int it = 0;; ++it) {
    double trial = evaluate_iterate(s, h, nrow, it, primal);
    // the merit of line searches (smooth steps) as evaluate_iterate returns it, with those trees freed
    if (it == 0 && carried == 0 && !primal && free_rowless_trees(nrow)) trial = iterate_merit();
    if (search && it > 0) {
      // Backtracking on the merit |(hvec, H^-1 g)|_2 (Armijo with sigma = 1e-4, t halved at
      // most kMaxBacktracks times, the last trial then kept): the Newton direction descends
      // on it wherever the Newton matrix is exact. Not in the seed, which damps every step.
      int k = 0;
      while (!(trial <= (1.0 - 1e-4 * t_) * merit) && k < kMaxBacktracks) {
        ++k;
        t_ *= 0.5;
        stats_.residual.pop_back();
        stats_.momentum_residual.pop_back();
        set_iterate(nrow, t_);
        // the shift's secant runs from the rejected trial (2 t), whose rows are the last
        // evaluated, to this one (t)
        if (np3) du_prev_ = -t_ * du_.tail(np3);
        stats_.step_size.back() = t_ * du_.lpNorm<Eigen::Infinity>();
        trial = evaluate_iterate(s, h, nrow, it, primal);
      }
      stats_.backtracks += k;
      // A smooth step whose search found no decrease has stalled (the Newton matrix lacks
      // the rows' geometric stiffness, options.hpp line_search): it ends with that trial
      // instead of paying the remaining iterates' evaluations for no progress (the hanging
      // loop of contact_scenes.py: 191 -> 110 us per step, its gap 1.7e-5 -> 2.0e-5 m).
      if (smooth && !(trial <= (1.0 - 1e-4 * t_) * merit)) break;
    }
    merit = trial;
    if (it == opt_.newton_iterations) break;  // line_search's check of the last update
    // on the dual path checked from iterate 0 on: a warm-started step that starts converged
    // (a pile at rest) takes no update and no linear solve. The primal path factorises at
    // least once: Simulator.particle_response reads the step's factorisation.
    if (opt_.tolerance > 0 && (it > 0 || !primal) && stats_.residual.back() < opt_.tolerance) {
      if (stats_.momentum_residual.back() < opt_.tolerance) break;
      if (opt_.momentum_exit > 0 && !primal && !search && np3 == 0 && balanced_exit(s, h, nrow, it)) break;
    }
    const LinearResult lr = primal ? soft_direction(nrow, elem_row0, h, alpha_, cdiag_, hvec_, dl_, it == 0, s.q.data())
                                   : dual_direction(h, it);
    stats_.linear_iterations.push_back(lr.iterations);
    stats_.linear_residual.push_back(lr.residual);
    if (search) {
      u_base_ = u_;
      lambda_base_.head(nrow) = lambda_.head(nrow);
      t_ = 1.0;
    }
    damped_update(nrow, it);
    if (!search && it + 1 == opt_.newton_iterations) break;
  }
  last_dense_ = del_.dense();  // the form the first iterate chose (Delassus::dense_pays)
}

void Stepper::step(State& s) {
  const Model& m = *m_;
  const double h = opt_.timestep;
  last_primal_ = false;  // set again when this step succeeds
  if (!s.q.allFinite() || !s.u.allFinite() || !s.x.allFinite() || !s.v.allFinite())
    throw std::runtime_error("state is not finite");
  if (!s.f.allFinite()) throw std::invalid_argument("particle forces are not finite");

  int nrow = prepare(s, h);
  const int np3 = 3 * m.nparticle;

  stats_.newton_iterations = 0;
  stats_.residual.clear();
  stats_.linear_iterations.clear();
  stats_.linear_residual.clear();
  stats_.step_size.clear();
  stats_.momentum_residual.clear();
  stats_.refreshed = 0;
  stats_.backtracks = 0;
  stats_.momentum_exit = stats_.momentum_exit_rejected = stats_.momentum_exit_kept = 0;
  stats_.projected = 0;
  if (nrow == 0 || unconstrained_solves(s, h, nrow)) {
    step_primal_ = false;
    u_ = u_tilde_;
    lambda_.head(nrow).setZero();
  } else {
    newton(s, h, nrow);
  }
  // Features missed at q- found at q+ join the step, which is solved again with them
  // (refresh.cpp); the new solve can sink another feature, so up to kRefreshRounds times
  // (the piles never needed more than 2). Each solve continues from the last one's iterate:
  // its velocity and its multipliers on the contacts detected at q- (contact rows come
  // first, in contact order; contacts that move a particle start from 0, as warm_start's
  // do), the added contacts from 0. From u = 0, lambda = 0 the second solve of a violent
  // step was as unconverged as the first: the rocks' deepest state in the first 2 s over
  // five starts 0.96-1.16 mm against 1.8 mm, the table pile's over 6 s 1.6-3.5 mm against
  // 2.3-13.4 with the multipliers alone carried; carrying the added contacts' multipliers too
  // was worse. docs/architecture.md "Contacts within a step".
  const int detected = static_cast<int>(contacts_.size());
  for (int round = 0; round < kRefreshRounds; ++round) {
    if (!refresh_contacts(s, h)) break;
    stats_.refreshed = static_cast<int>(contacts_.size()) - detected;
    // carried_ holds 3 * detected: reserve_rows sized it for the first solve's rows
    carried_.head(3 * detected) = lambda_.head(3 * detected);
    for (int c = 0; c < detected; ++c)
      if (moves_particle(contacts_[c])) carried_.segment<3>(3 * c).setZero();
    nrow = cons_.layout(contacts_, limits_, rows_);
    reserve_rows(nrow);
    newton(s, h, nrow, 3 * detected);
  }
  // eq. 63 with renormalised quaternions
  integrate(m, s.q.data(), u_.data(), h, qn_.data());
  if (np3) xn_ = s.x + h * u_.tail(np3);
  if (!qn_.allFinite() || !u_.allFinite() || !xn_.allFinite())
    throw std::runtime_error("the solver diverged: the new state is not finite (state left unchanged)");
  // A world that blows up can stay finite for many steps (velocities of 1e50 were seen on a
  // humanoid hit by a thrown cube) and feed absurd rewards to a learner: beyond max_speed
  // it is treated as diverged like a non-finite one.
  if (opt_.max_speed > 0 && u_.lpNorm<Eigen::Infinity>() > opt_.max_speed)
    throw std::runtime_error("the solver diverged: a velocity exceeds max_speed (state left unchanged)");
  s.q = qn_;
  for (int a = 0; a < m.nu; ++a)  // activations: from the step's start, as MuJoCo's Euler step
    if (m.act_actadr[a] >= 0) {
      double& x = s.actuator_act[m.act_actadr[a]];
      x = next_activation(m, a, clamped_ctrl(m, a, s.ctrl[a]), x, h);
    }
  qacc_ = (u_.head(m.nv) - s.u) / h;
  s.u = u_.head(m.nv);
  s.x = xn_;
  s.v = u_.tail(np3);
  nforce_ = rows_.end(RowBlock::SpinRoll);  // the contact rows, then their torsion and rolling rows
  contact_force_.head(nforce_) = lambda_.head(nforce_);
  last_primal_ = step_primal_;
  if (opt_.warm_start) warm_.record(contacts_, lambda_.data());
}

}  // namespace ncpgym
