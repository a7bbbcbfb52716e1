#include "ncpgym/solver/stepper.hpp"

#include <Eigen/Cholesky>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ncpgym/collision/detect.hpp"
#include "ncpgym/constraints/ncp.hpp"
#include "ncpgym/soft/tet.hpp"

namespace ncpgym {

namespace {

// Adds sign * dir^T J_p(u) to `row`, where J_p is the Jacobian of the world point p fixed
// to `body` (columns: the world twists [w; v_O] of the dofs on its path, v = v_O + w x p).
void add_point_row(const Model& m, const Data& d, int body, const Vec3& p, const Vec3& dir,
                   double sign, SparseRows& out) {
  for (int j = m.body_lastdof[body]; j >= 0; j = m.dof_parent[j]) {
    const auto S = d.cdof.col(j);
    const Vec3 w = S.head<3>();
    const Vec3 v = S.tail<3>() + w.cross(p);
    out.push(j, sign * dir.dot(v));  // duplicates (shared dofs) are summed
  }
}

int tet_rows_count(const Model& m) {
  int n = 0;
  for (int t = 0; t < m.ntet; ++t) n += m.tet_model[t] == 0 ? 6 : 3;
  return n;
}

template <class V>
void grow(V& v, Eigen::Index n) {  // capacity only grows: a smaller system reuses the head
  if (v.size() < n) v.resize(n);
}

using VMap = Eigen::Map<VecX>;

}  // namespace

MatX SparseRows::dense(int ncols) const {
  MatX J = MatX::Zero(rows(), ncols);
  for (int r = 0; r < rows(); ++r)
    for (int k = start[r]; k < start[r + 1]; ++k) J(r, col[k]) += val[k];
  return J;
}

Stepper::Stepper(std::shared_ptr<const Model> model, const SolverOptions& options)
    : m_(std::move(model)), opt_(options), dH_(*m_), dk_(*m_) {
  const Model& m = *m_;
  if (opt_.newton_iterations < 1 || opt_.linear_iterations < 1)
    throw std::invalid_argument("newton_iterations and linear_iterations must be >= 1");
  if (!(opt_.step > 0 && opt_.step <= 1)) throw std::invalid_argument("step must be in (0, 1]");
  if (!(opt_.regularization >= 0)) throw std::invalid_argument("regularization must be >= 0");
  if (!(opt_.timestep >= 0)) throw std::invalid_argument("timestep must be >= 0 (0: the model's)");
  const auto bad = unsupported_pairs(m);
  if (!bad.empty()) {
    std::string s;
    for (const auto& b : bad) s += (s.empty() ? "" : ", ") + b;
    throw std::invalid_argument("collision between these geom types is not supported yet: " + s +
                                " (exclude them with contype/conaffinity)");
  }
  nvall_ = m.nv + 3 * m.nparticle;
  tau_.setZero(m.nv);
  extra_arm_.setZero(m.nv);
  u_tilde_.setZero(nvall_);
  u_.setZero(nvall_);
  du_.setZero(nvall_);
  qn_.setZero(m.nq);
  sweep_.setZero(m.ngeom);
  xn_.setZero(3 * m.nparticle);
  psweep_.setZero(m.nparticle);
  pminv_.setZero(3 * m.nparticle);
  scale_.setOnes(nvall_);
  f_prev_.setZero(3 * m.nparticle);
  du_prev_.setZero(3 * m.nparticle);
  f_now_.setZero(3 * m.nparticle);
  act_.setZero(m.nactgroup);
  Hg_.setZero(nvall_);
  tmp_.setZero(nvall_);
  tmp2_.setZero(nvall_);
  for (int j = 0; j < m.njnt && !opt_.implicit_springs; ++j) {
    if (m.jnt_stiffness[j] == 0) continue;  // the Builder allows it on hinge/slide only
    comp_dof_.push_back(m.jnt_dofadr[j]);
    comp_qadr_.push_back(m.jnt_qposadr[j]);
    comp_act_.push_back(-1);
    comp_E_.push_back(1.0 / m.jnt_stiffness[j]);
    comp_ref_.push_back(m.jnt_springref[j]);
  }
  for (int a = 0; a < m.nu && !opt_.implicit_springs; ++a) {
    if (m.act_type[a] != ActuatorType::Position) continue;
    const int j = m.act_joint[a];
    comp_dof_.push_back(m.jnt_dofadr[j]);
    comp_qadr_.push_back(m.jnt_qposadr[j]);
    comp_act_.push_back(a);
    comp_E_.push_back(1.0 / (m.act_kp[a] * m.act_gear[a] * m.act_gear[a]));
    comp_ref_.push_back(0.0);
  }
  // Capacity for a typical step (it grows if a step needs more, then stays): contacts
  // for four points per geom plus 32, every limit, every bilateral row.
  const int ncap = 4 * m.ngeom + 32 + 4 * m.nparticle;
  int nlim = 0;
  for (int j = 0; j < m.njnt; ++j) nlim += 2 * m.jnt_limited[j];
  const int nbil = static_cast<int>(comp_dof_.size()) + m.ndistance + 3 * m.nattach + tet_rows_count(m);
  contacts_.reserve(ncap);
  previous_.reserve(ncap);
  limit_joint_.reserve(nlim);
  limit_kind_.reserve(nlim);
  reserve_rows(3 * ncap + nlim + nbil);
  Js_.start.reserve(3 * ncap + nlim + nbil + 1);
  Js_.col.reserve(8 * (3 * ncap + nlim + nbil) + 2 * m.nv);
  Js_.val.reserve(Js_.col.capacity());
  const int nd = std::min(opt_.dense_max_rows, 3 * ncap + nlim + nbil);
  J_.setZero(nd, nvall_);
  JHinv_.setZero(nd, nvall_);
  A_.setZero(nd, nd);
  if (m.nv > 0) {
    // the IIM scratch at its widest (dense rows, or the identity of matrix-free mode)
    MatX probe = MatX::Zero(std::max(nd, m.nv), m.nv), out(std::max(nd, m.nv), m.nv);
    minv_times_transposed(m, dH_, probe, out);
  }
  stats_.residual.reserve(opt_.newton_iterations);
  stats_.linear_iterations.reserve(opt_.newton_iterations);
  stats_.linear_residual.reserve(opt_.newton_iterations);
  stats_.step_size.reserve(opt_.newton_iterations);
  lin_.reserve(3 * ncap + nlim + nbil);
}

void Stepper::reserve_rows(int nrow) {
  for (VecX* v : {&C_, &lambda_, &erow_, &jhj_, &opdiag_, &alpha_, &cdiag_, &hvec_, &rfac_, &Jg_, &b_, &dl_})
    grow(*v, nrow);
  grow(contact_force_, nrow);
  if (kind_.capacity() < static_cast<size_t>(nrow)) kind_.reserve(nrow);
}

void Stepper::apply_hinv(const double* w, double* out) {
  const Model& m = *m_;
  minv_times_vector(m, dH_, w, out);
  for (int k = 0; k < 3 * m.nparticle; ++k) out[m.nv + k] = pminv_[k] * w[m.nv + k];
}

double Stepper::row_hinv_row(int r1, int r2) const {
  const int nv = m_->nv;
  double acc = 0;
  for (int a = Js_.start[r1]; a < Js_.start[r1 + 1]; ++a)
    for (int c = Js_.start[r2]; c < Js_.start[r2 + 1]; ++c) {
      const int i = Js_.col[a], j = Js_.col[c];
      if (i < nv && j < nv) {
        acc += Js_.val[a] * Hinv_(i, j) * Js_.val[c];
      } else if (i == j) {
        acc += Js_.val[a] * pminv_[i - nv] * Js_.val[c];
      }
    }
  return acc;
}

void Stepper::collect_limits(const State& s, double h) {
  const Model& m = *m_;
  limit_joint_.clear();
  limit_kind_.clear();
  for (int j = 0; j < m.njnt; ++j) {
    if (!m.jnt_limited[j]) continue;
    const double q = s.q[m.jnt_qposadr[j]];
    const double margin = opt_.collision.margin + h * std::abs(u_tilde_[m.jnt_dofadr[j]]);
    if (q - m.jnt_range[2 * j] < margin) {
      limit_joint_.push_back(j);
      limit_kind_.push_back(RowKind::LimitLower);
    }
    if (m.jnt_range[2 * j + 1] - q < margin) {
      limit_joint_.push_back(j);
      limit_kind_.push_back(RowKind::LimitUpper);
    }
  }
}

void Stepper::evaluate_rows(const VecX& q, const VecX& x) {
  const Model& m = *m_;
  const int nc = static_cast<int>(contacts_.size());
  // poses and twists at the iterate (limit and joint rows read q alone)
  if (nc > 0 || m.nattach > 0) kinematics(m, dk_, q.data(), false);
  Js_.clear();
  auto particle_row = [&](int p, const Vec3& dir, double sign) {
    for (int i = 0; i < 3; ++i) Js_.push(m.nv + 3 * p + i, sign * dir[i]);
  };
  auto soft_point = [&](const int* p, const double* w, int n) {
    Vec3 y = Vec3::Zero();
    for (int i = 0; i < n; ++i) y += w[i] * x.segment<3>(3 * p[i]);
    return y;
  };
  for (int c = 0; c < nc; ++c) {
    const Contact& k = contacts_[c];
    // a side is a body point, a particle, or a point of a soft surface triangle
    const Vec3 core1 = k.n1 ? soft_point(k.p1, k.w1, k.n1) : Vec3(dk_.xpos[k.body1] + dk_.xmat[k.body1] * k.local1);
    const Vec3 core2 = k.n2 ? soft_point(k.p2, k.w2, k.n2) : Vec3(dk_.xpos[k.body2] + dk_.xmat[k.body2] * k.local2);
    const Vec3 a = core1 - k.radius1 * k.normal;
    const Vec3 b = core2 + k.radius2 * k.normal;
    C_[3 * c] = k.normal.dot(a - b) - opt_.thickness;  // eq. 9
    const Vec3 dirs[3] = {k.normal, k.tangent1, k.tangent2};
    for (int r = 0; r < 3; ++r) {
      if (k.n1) {
        for (int i = 0; i < k.n1; ++i) particle_row(k.p1[i], dirs[r], k.w1[i]);
      } else {
        add_point_row(m, dk_, k.body1, a, dirs[r], 1.0, Js_);
      }
      if (k.n2) {
        for (int i = 0; i < k.n2; ++i) particle_row(k.p2[i], dirs[r], -k.w2[i]);
      } else {
        add_point_row(m, dk_, k.body2, b, dirs[r], -1.0, Js_);
      }
      Js_.end_row();
    }
  }
  for (size_t l = 0; l < limit_joint_.size(); ++l) {
    const int j = limit_joint_[l], r = 3 * nc + static_cast<int>(l);
    const double qj = q[m.jnt_qposadr[j]];
    const bool lower = limit_kind_[l] == RowKind::LimitLower;
    C_[r] = lower ? qj - m.jnt_range[2 * j] : m.jnt_range[2 * j + 1] - qj;
    Js_.push(m.jnt_dofadr[j], lower ? 1.0 : -1.0);
    Js_.end_row();
  }
  int r = 3 * nc + static_cast<int>(limit_joint_.size());
  for (size_t k = 0; k < comp_dof_.size(); ++k, ++r) {
    C_[r] = q[comp_qadr_[k]] - comp_ref_[k];
    erow_[r] = comp_E_[k];
    Js_.push(comp_dof_[k], 1.0);
    Js_.end_row();
  }
  for (int k = 0; k < m.ndistance; ++k, ++r) {
    // |x1 - x2| - rest + E lambda = 0, gradient +n at particle 1 and -n at particle 2
    const int p1 = m.dist_p1[k], p2 = m.dist_p2[k];
    const Vec3 d = x.segment<3>(3 * p1) - x.segment<3>(3 * p2);
    const double len = d.norm();
    const Vec3 n = len > 1e-12 ? Vec3(d / len) : Vec3::UnitZ();
    C_[r] = len - m.dist_rest[k];
    erow_[r] = m.dist_compliance[k];
    particle_row(p1, n, 1.0);
    particle_row(p2, n, -1.0);
    Js_.end_row();
  }
  for (int k = 0; k < m.nattach; ++k) {
    // particle pinned to a body point: three hard rows along the world axes
    const int p = m.att_particle[k], body = m.att_body[k];
    const Vec3 P = dk_.xpos[body] + dk_.xmat[body] * m.att_local[k];
    for (int i = 0; i < 3; ++i, ++r) {
      C_[r] = x[3 * p + i] - P[i];
      erow_[r] = 0.0;
      particle_row(p, Vec3::Unit(i), 1.0);
      add_point_row(m, dk_, body, P, Vec3::Unit(i), -1.0, Js_);
      Js_.end_row();
    }
  }
  for (int t = 0; t < m.ntet; ++t) {
    // six compliant strain rows (soft/tet.hpp): c_k + E_k lambda_k = 0, E_0 = 1/(3 K V),
    // E_1..5 = 1/(2 mu V) (§9.2.1 with the compliance block diagonalised)
    const auto& p = m.tet_p[t];
    const double a = m.tet_group[t] >= 0 ? act_[m.tet_group[t]] : 0.0;  // active strain
    Vec3 xt[4];
    for (int a = 0; a < 4; ++a) xt[a] = x.segment<3>(3 * p[a]);
    if (m.tet_model[t] == 1) {
      // stable Neo-Hookean: three rows, compliance re-evaluated at this iterate (App. B)
      TetRowsNH nh;
      tet_rows_neohookean(xt, m.tet_Dminv[t], m.tet_volume[t], NeoHookean(m.tet_mu[t], m.tet_lambda[t]), nh, a);
      for (int k = 0; k < 3; ++k, ++r) {
        C_[r] = nh.c[k];
        erow_[r] = nh.E[k];
        for (int a = 0; a < 4; ++a)
          for (int d = 0; d < 3; ++d) Js_.push(m.nv + 3 * p[a] + d, nh.grad[k][a][d]);
        Js_.end_row();
      }
      continue;
    }
    TetRows tr;
    tet_rows(xt, m.tet_Dminv[t], tr);
    const double V = m.tet_volume[t], mu = m.tet_mu[t], K = m.tet_lambda[t] + 2.0 * mu / 3.0;
    for (int k = 0; k < 6; ++k, ++r) {
      // the volumetric row aims at the active strain a I: <a I, B_0> = sqrt(3) a
      C_[r] = k == 0 ? tr.c[0] - std::sqrt(3.0) * a : tr.c[k];
      erow_[r] = k == 0 ? 1.0 / (3.0 * K * V) : 1.0 / (2.0 * mu * V);
      for (int a = 0; a < 4; ++a)
        for (int d = 0; d < 3; ++d) Js_.push(m.nv + 3 * p[a] + d, tr.grad[k][a][d]);
      Js_.end_row();
    }
  }
}

int Stepper::prepare(const State& s, double h) {
  const Model& m = *m_;
  if (s.act.size() != m.nactgroup) throw std::invalid_argument("state: activation has the wrong size");
  act_ = s.act;  // same size every step: no allocation
  // 1. Unconstrained velocity u~ = u- + h H^-1 (tau + spring - B u- - bias), H = M + h B
  //    (joint damping implicit), from the O(n) forward dynamics; this also leaves the
  //    factorisation of H at q- in dH_ for the IIM below.
  //    Springs and servo stiffness are compliant constraints (eq. 8) on one joint
  //    coordinate, c = q - ref with E = 1/k. With implicit_springs their Schur complement
  //    is folded into H exactly: with q+ = q- + h u+ the row's force is -k (q+ - ref), so
  //    (M + h B + h^2 K)(u~ - u-) = h (tau - B u- - K (q- + h u- - ref) - bias), the
  //    compliant row's own solution because the row is linear in q. Otherwise
  //    they stay rows of the Newton system (the seed's form; both are tested).
  tau_.setZero();
  add_passive_damping(m, s.u.data(), tau_.data());
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
  for (int a = 0; a < m.nu; ++a) {
    double c = s.ctrl[a];
    if (m.act_ctrllimited[a]) c = std::clamp(c, m.act_ctrlrange[2 * a], m.act_ctrlrange[2 * a + 1]);
    const int dof = m.jnt_dofadr[m.act_joint[a]];
    if (m.act_type[a] == ActuatorType::Motor) {
      tau_[dof] += m.act_gear[a] * c;  // explicit torque gear * ctrl
    } else {
      const double g = m.act_gear[a];
      const double kv = m.act_kv[a] * g * g;  // implicit servo damping
      tau_[dof] -= kv * s.u[dof];
      extra_arm_[dof] += h * kv;
      if (opt_.implicit_springs) {  // servo stiffness folded into H, as the springs above
        tau_[dof] += g * m.act_kp[a] * (c - g * (s.q[m.jnt_qposadr[m.act_joint[a]]] + h * s.u[dof]));
        extra_arm_[dof] += h * h * m.act_kp[a] * g * g;
      }
    }
  }
  for (size_t k = 0; k < comp_act_.size(); ++k) {
    const int a = comp_act_[k];
    if (a < 0) continue;
    double c = s.ctrl[a];
    if (m.act_ctrllimited[a]) c = std::clamp(c, m.act_ctrlrange[2 * a], m.act_ctrlrange[2 * a + 1]);
    comp_ref_[k] = c / m.act_gear[a];  // servo target on the joint coordinate
  }
  aba(m, dH_, s.q.data(), s.u.data(), tau_.data(), false, extra_arm_.data());
  u_tilde_.head(m.nv) = s.u + h * dH_.qacc;
  for (int p = 0; p < m.nparticle; ++p) {  // particles: M diagonal, gravity only
    u_tilde_.segment<3>(m.nv + 3 * p) = s.v.segment<3>(3 * p) + h * m.gravity;
    psweep_[p] = h * std::max(s.v.segment<3>(3 * p).norm(), u_tilde_.segment<3>(m.nv + 3 * p).norm());
  }

  // 2. Collision detection once per step, at q-, with each geom's sweep over the step
  //    under the unconstrained velocity as extra margin (speculative contacts).
  //    Both the velocity at the start and the unconstrained one bound the sweep: a
  //    contact elsewhere may push a geom along its current velocity rather than u~.
  kinematics(m, dk_, s.q.data(), false);
  for (int pass = 0; pass < 2; ++pass) {
    velocities(m, dk_, pass == 0 ? u_tilde_.data() : s.u.data());
    for (int g = 0; g < m.ngeom; ++g) {
      const int b = m.geom_body[g];
      const Vec6& v = dk_.cvel[b];
      const Vec3 c = dk_.xpos[b] + dk_.xmat[b] * m.geom_pos[g];
      const double r = m.geom_type[g] == GeomType::Plane ? 0.0 : geom_rbound(m, g);
      const double sw = h * ((v.tail<3>() + v.head<3>().cross(c)).norm() + v.head<3>().norm() * r);
      sweep_[g] = pass == 0 ? sw : std::max(sweep_[g], sw);
    }
  }
  if (opt_.warm_start) {
    previous_.assign(contacts_.begin(), contacts_.end());
    grow(previous_force_, contact_force_.size());
    previous_force_.head(contact_force_.size()) = contact_force_;
  }
  detect_contacts(m, dk_, opt_.collision, contacts_, sweep_.data());
  if (m.nparticle > 0)
    detect_particle_contacts(m, dk_, s.x, opt_.collision, contacts_, psweep_.data(), sweep_.data());
  if (m.nsoft > 0 && (opt_.soft_triangle_contacts || opt_.soft_soft_contacts))
    detect_soft_surface_contacts(m, dk_, s.x, opt_.collision, contacts_, psweep_.data(), sweep_.data(),
                                 opt_.soft_triangle_contacts, opt_.soft_soft_contacts);
  collect_limits(s, h);
  const int nc = static_cast<int>(contacts_.size());
  const int nbil = static_cast<int>(comp_dof_.size()) + m.ndistance + 3 * m.nattach + tet_rows_count(m);
  const int nrow = 3 * nc + static_cast<int>(limit_joint_.size()) + nbil;
  tet_row0_ = nrow - tet_rows_count(m);  // the element rows come last (evaluate_rows)
  kind_.assign(nrow, RowKind::Friction);
  for (int c = 0; c < nc; ++c) kind_[3 * c] = RowKind::Normal;
  for (size_t l = 0; l < limit_joint_.size(); ++l) {
    kind_[3 * nc + l] = limit_kind_[l];
  }
  for (int k = 0; k < nbil; ++k) kind_[3 * nc + limit_joint_.size() + k] = RowKind::Compliant;
  reserve_rows(nrow);
  erow_.head(nrow).setZero();
  return nrow;
}

ConstraintRows Stepper::constraint_rows(const State& s) {
  const Model& m = *m_;
  const double h = opt_.timestep > 0 ? opt_.timestep : m.timestep;
  const int nrow = prepare(s, h);
  evaluate_rows(s.q, s.x);
  return {Js_.dense(nvall_), C_.head(nrow), kind_};
}

ConstraintRows Stepper::constraint_rows_at(const VecX& q, const VecX& x) {
  evaluate_rows(q, x);
  return {Js_.dense(nvall_), C_.head(Js_.rows()), kind_};
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
    if (kind_[r] == RowKind::Friction) continue;
    if (kind_[r] == RowKind::Compliant) return false;  // bilateral rows carry force in general
    if (C_[r] < 0) return false;
  }
  stats_.residual.push_back(0.0);
  return true;
}

LinearResult Stepper::solve_sparse(int nrow, const Eigen::Ref<const VecX>& alpha, const Eigen::Ref<const VecX>& opdiag,
                                   const Eigen::Ref<const VecX>& b, Eigen::Ref<VecX> x, bool first) {
  if (!sparse_ldlt_) sparse_ldlt_ = std::make_unique<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>>();
  // A = diag(alpha) J H^-1 J^T diag(alpha) with the diagonal opdiag (compliance and
  // regularisation included). Particle columns: H^-1 diagonal, so their part is a sparse
  // product. Tree columns: only the rows touching trees couple, through the dense Hinv_.
  const Model& m = *m_;
  using Sp = Eigen::SparseMatrix<double>;
  std::vector<Eigen::Triplet<double>> jp, jt;
  std::vector<int> tree_rows;
  for (int r = 0; r < nrow; ++r) {
    bool tree = false;
    for (int k = Js_.start[r]; k < Js_.start[r + 1]; ++k) {
      const int c = Js_.col[k];
      if (c >= m.nv) {
        jp.emplace_back(r, c - m.nv, alpha[r] * Js_.val[k] * std::sqrt(pminv_[c - m.nv]));
      } else {
        tree = true;
      }
    }
    if (tree) tree_rows.push_back(r);
  }
  Sp Jp(nrow, 3 * m.nparticle);
  Jp.setFromTriplets(jp.begin(), jp.end());
  Sp A = Jp * Jp.transpose();  // structural pattern kept: the same in every iteration of a step
  if (!tree_rows.empty()) {
    const int k = static_cast<int>(tree_rows.size());
    MatX Jt = MatX::Zero(k, m.nv);
    for (int i = 0; i < k; ++i) {
      const int r = tree_rows[i];
      for (int e = Js_.start[r]; e < Js_.start[r + 1]; ++e)
        if (Js_.col[e] < m.nv) Jt(i, Js_.col[e]) += alpha[r] * Js_.val[e];
    }
    const MatX At = Jt * Hinv_ * Jt.transpose();
    std::vector<Eigen::Triplet<double>> tt;
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) tt.emplace_back(tree_rows[i], tree_rows[j], At(i, j));
    Sp T(nrow, nrow);
    T.setFromTriplets(tt.begin(), tt.end());
    A += T;
  }
  for (int r = 0; r < nrow; ++r) A.coeffRef(r, r) = opdiag[r];
  // the ordering and symbolic factorisation once per step, numeric factorisation per iterate
  auto& ldlt = *sparse_ldlt_;
  if (first) ldlt.analyzePattern(A);
  ldlt.factorize(A);
  if (ldlt.info() != Eigen::Success) throw std::runtime_error("sparse LDLT factorisation failed");
  x = ldlt.solve(b);
  return {1, (b - A * x).norm()};
}

void Stepper::jt_times_rows(int nrow, const double* w, const double* x, double* y) const {
  std::fill(y, y + nvall_, 0.0);
  for (int r = 0; r < nrow; ++r) Js_.add_scaled_row(r, w ? w[r] * x[r] : x[r], y);
}

void Stepper::damped_update(int nrow, int it) {
  // Damped Newton update of both paths (eqs. 61-62) with the direction (du_, dl_).
  const double t = opt_.step;
  lambda_.head(nrow) += t * dl_.head(nrow);
  u_ += t * du_;
  // Normal contact and joint-limit multipliers are impulses that only push (eq. 10): clip
  // the iterate at 0 (option project_impulses; see options.hpp).
  if (opt_.project_impulses)
    for (int r = 0; r < nrow; ++r)
      if (kind_[r] != RowKind::Friction && kind_[r] != RowKind::Compliant) lambda_[r] = std::max(lambda_[r], 0.0);
  const int np3 = 3 * m_->nparticle;
  if (np3) du_prev_ = t * du_.tail(np3);
  stats_.step_size.push_back(t * du_.lpNorm<Eigen::Infinity>());
  stats_.newton_iterations = it + 1;
}

void Stepper::step(State& s) {
  const Model& m = *m_;
  const double h = opt_.timestep > 0 ? opt_.timestep : m.timestep;
  if (!s.q.allFinite() || !s.u.allFinite() || !s.x.allFinite() || !s.v.allFinite())
    throw std::runtime_error("state is not finite");

  const int nrow = prepare(s, h);
  const int nc = static_cast<int>(contacts_.size());
  const int np3 = 3 * m.nparticle;

  stats_.newton_iterations = 0;
  stats_.residual.clear();
  stats_.linear_iterations.clear();
  stats_.linear_residual.clear();
  stats_.step_size.clear();
  if (nrow == 0 || unconstrained_solves(s, h, nrow)) {
    u_ = u_tilde_;
    lambda_.head(nrow).setZero();
  } else {
    // the per-row buffers seen at this step's size
    VMap C(C_.data(), nrow), lambda(lambda_.data(), nrow), jhj(jhj_.data(), nrow),
        opdiag(opdiag_.data(), nrow), alpha(alpha_.data(), nrow), cdiag(cdiag_.data(), nrow),
        hvec(hvec_.data(), nrow), rfac(rfac_.data(), nrow), Jg(Jg_.data(), nrow), b(b_.data(), nrow),
        dl(dl_.data(), nrow), erow(erow_.data(), nrow);
    lambda.setZero();
    if (opt_.warm_start && !previous_.empty()) {
      // reuse the impulse of a contact between the same geoms at (nearly) the same place
      for (int c = 0; c < nc; ++c)
        for (size_t p = 0; p < previous_.size(); ++p)
          if (previous_[p].geom1 == contacts_[c].geom1 && previous_[p].geom2 == contacts_[c].geom2 &&
              (previous_[p].pos - contacts_[c].pos).norm() < 1e-3)
            lambda.segment<3>(3 * c) = previous_force_.segment<3>(3 * p);
    }
    u_.setZero();  // eq. 67 (lambda^0 = 0, eq. 68, unless warm-started)
    for (int p = 0; p < m.nparticle; ++p) pminv_.segment<3>(3 * p).setConstant(1.0 / m.particle_mass[p]);
    scale_.setOnes();
    f_prev_.setZero();
    du_prev_.setZero();
    const bool primal = opt_.soft_primal && m.ntet > 0;
    const bool dense = !primal && (nrow <= opt_.dense_max_rows || opt_.linear == LinearSolverType::GaussSeidel ||
                                   opt_.linear == LinearSolverType::LDLT);
    last_dense_ = dense;
    if (dense && J_.rows() < nrow) {  // only with Gauss-Seidel/LDLT beyond dense_max_rows
      J_.resize(nrow, nvall_);
      JHinv_.resize(nrow, nvall_);
      A_.resize(nrow, nrow);
    }
    auto Jd = J_.topRows(nrow);
    auto JHinv = JHinv_.topRows(nrow);
    auto A = A_.topLeftCorner(nrow, nrow);
    // y = J^T diag(w) x over all rows (velocity-space vector of length nvall)
    auto jt_times = [&](const double* w, const double* x, double* y) { jt_times_rows(nrow, w, x, y); };
    for (int it = 0; it < opt_.newton_iterations; ++it) {
      // Constraint rows at the iterate q^n = q- + h G u^n (eq. 63), x^n = x- + h v^n.
      integrate(m, s.q.data(), u_.data(), h, qn_.data());
      if (np3) xn_ = s.x + h * u_.tail(np3);
      evaluate_rows(qn_, xn_);
      if (np3 && opt_.geometric_stiffness) {
        // Geometric stiffness (eqs. 71-74): the change of the constraint force J^T lambda
        // between iterates, per particle coordinate, gives c_k; H_kk = M_kk - min(0, c_k).
        // With g = M (u - u~) - h J^T lambda (eq. 57), g(u') - g(u) = M du - h d(J^T lambda),
        // so the part of dg/du beyond M is -h d(J^T lambda)/du. The printed eq. 73 adds
        // (M du)_k inside the bracket, which would double-count M; we follow the derivation:
        // c_k = h d(J^T lambda)_k / du_k, so that H_kk grows by -c_k when the constraint
        // forces stiffen (a chain under tension: H = M + h^2 T/L (I - n n^T)).
        jt_times(nullptr, lambda.data(), tmp_.data());
        f_now_ = tmp_.tail(np3);
        if (it > 0) {
          for (int k = 0; k < np3; ++k) {
            if (std::abs(du_prev_[k]) < 1e-12) continue;
            const double c = h * (f_now_[k] - f_prev_[k]) / du_prev_[k];  // eq. 73, see above
            const double mk = m.particle_mass[k / 3];
            const double Hkk = mk - std::min(0.0, c);                        // eq. 74
            pminv_[k] = 1.0 / Hkk;
            scale_[m.nv + k] = mk / Hkk;  // H^-1 M on the diagonal
          }
        }
        f_prev_ = f_now_;
      }
      if (dense) {
        // J H^-1 (= (H^-1 J^T)^T): the Implicit Inversion Method on the trees'
        // factorisation of H, and the diagonal H^-1 of the particles.
        Jd.setZero();
        for (int r = 0; r < nrow; ++r)
          for (int k = Js_.start[r]; k < Js_.start[r + 1]; ++k) Jd(r, Js_.col[k]) += Js_.val[k];
        if (m.nv > 0) minv_times_transposed(m, dH_, Jd.leftCols(m.nv), JHinv.leftCols(m.nv));
        if (np3) JHinv.rightCols(np3) = Jd.rightCols(np3) * pminv_.asDiagonal();
        for (int r = 0; r < nrow; ++r) jhj[r] = Jd.row(r).dot(JHinv.row(r));  // diag J H^-1 J^T
        A.noalias() = JHinv * Jd.transpose();
      } else {
        // Matrix-free: H is fixed for the step, so its tree part is inverted once (IIM on
        // the identity) and each row's diagonal entry costs nnz^2 instead of a sweep per row.
        if (it == 0 && m.nv > 0) {
          if (eye_.rows() != m.nv) eye_ = MatX::Identity(m.nv, m.nv);
          if (Hinv_.rows() != m.nv) Hinv_.resize(m.nv, m.nv);
          minv_times_transposed(m, dH_, eye_, Hinv_);
        }
        for (int r = 0; r < (primal ? tet_row0_ : nrow); ++r) jhj[r] = row_hinv_row(r, r);
      }
      // r-factors (eq. 66) and NCP values/derivatives per row.
      for (int r = 0; r < nrow; ++r) {
        const bool fric = kind_[r] == RowKind::Friction;
        double rr = 1.0;
        if (opt_.rscale == RScaling::TimeStep) rr = fric ? h : h * h;
        if (opt_.rscale == RScaling::EffectiveMass) rr = (fric ? h : h * h) * jhj[r];
        rfac[r] = std::max(rr, 1e-300);
      }
      for (int r = 0; r < nrow; ++r) {
        if (kind_[r] == RowKind::Compliant) {
          // eq. 8 / 58: h_b = (c + E lambda) / h, compliance block E / h^2
          const double E = erow[r];
          alpha[r] = 1.0;
          cdiag[r] = E / (h * h);
          hvec[r] = (C[r] + E * lambda[r]) / h;
        }
        if (kind_[r] == RowKind::Friction || kind_[r] == RowKind::Compliant) continue;
        // Normal contact and joint-limit rows (eqs. 9-10 through eqs. 93-98).
        const ncp::Value v = opt_.ncp == NcpFunction::FischerBurmeister
                                 ? ncp::fischer_burmeister(C[r], lambda[r], rfac[r])
                                 : ncp::minimum_map(C[r], lambda[r], rfac[r]);
        alpha[r] = v.dC;
        cdiag[r] = v.dlambda / (h * h);  // S / h^2 (eq. 55)
        hvec[r] = v.phi / h;             // eq. 58
      }
      for (int c = 0; c < nc; ++c) {
        // Friction (eqs. 35-37, Appendix A.2): two tangent rows per contact.
        const int r1 = 3 * c + 1, r2 = 3 * c + 2;
        const double mu_ln = contacts_[c].friction * lambda[3 * c];
        const Vec2d slip(Js_.dot(r1, u_.data()), Js_.dot(r2, u_.data()));
        if (mu_ln <= 0) {
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
        cdiag[r1] = cdiag[r2] = W / h;          // W / h (eq. 55)
        hvec[r1] = slip[0] + W * lambda[r1];    // phi_f (eq. 36)
        hvec[r2] = slip[1] + W * lambda[r2];
      }
      stats_.residual.push_back(hvec.lpNorm<Eigen::Infinity>());
      if (opt_.tolerance > 0 && stats_.residual.back() < opt_.tolerance && it > 0) break;
      if (primal) {
        const LinearResult lr = soft_direction(nrow, tet_row0_, h, alpha_, cdiag_, hvec_, lambda_, dl_, it == 0, s.q.data());
        stats_.linear_iterations.push_back(lr.iterations);
        stats_.linear_residual.push_back(lr.residual);
        damped_update(nrow, it);
        continue;
      }

      // Effective rows J_eff = diag(alpha) J; system A = J_eff H^-1 J_eff^T + C + eps I.
      for (int r = 0; r < nrow; ++r) {
        if (dense) JHinv.row(r) *= alpha[r];
        opdiag[r] = alpha[r] * alpha[r] * jhj[r] + cdiag[r] + opt_.regularization;
      }
      if (dense) {
        for (int r = 0; r < nrow; ++r) {
          A.row(r) *= alpha[r];
          A.col(r) *= alpha[r];
        }
        A.diagonal() = opdiag;
      }
      // H^-1 g = (u - u~) - h H^-1 J_eff^T lambda  (eq. 57, without forming H)
      if (dense) {
        Hg_.noalias() = JHinv.transpose() * lambda;
      } else {
        jt_times(alpha.data(), lambda.data(), tmp2_.data());
        apply_hinv(tmp2_.data(), Hg_.data());
      }
      Hg_ = scale_.cwiseProduct(u_ - u_tilde_) - h * Hg_;
      for (int r = 0; r < nrow; ++r) Jg[r] = alpha[r] * Js_.dot(r, Hg_.data());
      b = (Jg - hvec) / h;  // eq. 59
      LinearOperator op;
      op.n = nrow;
      op.diagonal = opdiag.data();
      // y = J_eff H^-1 J_eff^T x + (C + eps) x, with one O(n) sweep for H^-1
      auto apply = [&](const double* x, double* y) {
        jt_times(alpha.data(), x, tmp2_.data());
        apply_hinv(tmp2_.data(), tmp_.data());
        for (int r = 0; r < nrow; ++r)
          y[r] = alpha[r] * Js_.dot(r, tmp_.data()) + (opdiag[r] - alpha[r] * alpha[r] * jhj[r]) * x[r];
      };
      if (dense) {
        op.A = &A_;
      } else {
        op.apply = apply;
      }
      auto block_precondition = [&](const double* r, double* z) {
        for (int k = 0; k < nrow; ++k) z[k] = r[k] / std::max(std::abs(opdiag[k]), 1e-300);
        for (int c = 0; c < nc; ++c)
          Eigen::Map<Vec3>(z + 3 * c) = blocks_[c] * Eigen::Map<const Vec3>(r + 3 * c);
      };
      if (opt_.block_preconditioner && nc > 0) {
        // inverse 3 x 3 blocks of the contacts (normal and friction rows coupled)
        if (blocks_.size() < static_cast<size_t>(nc)) blocks_.resize(nc);
        for (int c = 0; c < nc; ++c) {
          Mat3 B;
          // JHinv rows already carry alpha: B_ij = alpha_i J_i . (alpha_j H^-1 J_j^T)
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              B(i, j) = dense ? alpha[3 * c + i] * Jd.row(3 * c + i).dot(JHinv.row(3 * c + j))
                              : alpha[3 * c + i] * alpha[3 * c + j] * row_hinv_row(3 * c + i, 3 * c + j);
          for (int i = 0; i < 3; ++i) B(i, i) = opdiag[3 * c + i];
          B = 0.5 * (B + B.transpose()).eval();
          Eigen::LDLT<Mat3> f(B);
          blocks_[c] = f.info() == Eigen::Success ? f.solve(Mat3::Identity())
                                                  : Mat3(opdiag.segment<3>(3 * c).cwiseInverse().asDiagonal());
        }
        op.precondition = block_precondition;
      }
      const LinearResult lr = !dense && opt_.linear == LinearSolverType::SparseLDLT
                                  ? solve_sparse(nrow, alpha, opdiag, b, dl, it == 0)
                                  : solve_linear(opt_.linear, op, b.data(), dl.data(), opt_.linear_iterations, 0.0, lin_);
      stats_.linear_iterations.push_back(lr.iterations);
      stats_.linear_residual.push_back(lr.residual);
      // eq. 60: du = H^-1 (h J^T dlambda - g); damped update (eqs. 61-62)
      if (dense) {
        du_.noalias() = JHinv.transpose() * dl;
      } else {
        jt_times(alpha.data(), dl.data(), tmp2_.data());
        apply_hinv(tmp2_.data(), du_.data());
      }
      du_ = h * du_ - Hg_;
      damped_update(nrow, it);
    }
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
  s.u = u_.head(m.nv);
  s.x = xn_;
  s.v = u_.tail(np3);
  nforce_ = 3 * nc;
  contact_force_.head(3 * nc) = lambda_.head(3 * nc);
}

}  // namespace ncpgym
