#include "ncpgym/batch/batch.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "ncpgym/batch/rng.hpp"
#include "ncpgym/batch/threads.hpp"
#include "ncpgym/batch/sensors.hpp"
#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/dynamics/actuation.hpp"
#include "ncpgym/model/mocap.hpp"
#include "ncpgym/soft/pressure.hpp"

namespace ncpgym {

Batch::Workspace::Workspace(const std::shared_ptr<Model>& m, const SolverOptions& o)
    : model(m), stepper(std::make_unique<Stepper>(m, o)), state(*m), data(*m), cfrc(m->nbody) {}

Batch::Batch(std::shared_ptr<const Model> model, int nworld, const SolverOptions& options, int nthread)
    : base_(std::move(model)), n_(nworld), nthread_(0) {
  if (!base_) throw std::invalid_argument("Batch needs a model");
  opt_ = resolve(*base_, options);
  if (nworld < 1) throw std::invalid_argument("Batch needs at least one world, got " + std::to_string(nworld));
  if (nthread < 0)
    throw std::invalid_argument("num_threads must be >= 0 (0: OpenMP's default), got " + std::to_string(nthread));
  const Model& m = *base_;
  h_ = opt_.timestep;
  const size_t N = static_cast<size_t>(n_);
  q_.resize(N * m.nq);
  u_.assign(N * m.nv, 0.0);
  ctrl_.assign(N * m.nu, 0.0);
  x_.resize(N * 3 * m.nparticle);
  v_.assign(N * 3 * m.nparticle, 0.0);
  act_.assign(N * m.nactgroup, 0.0);
  actuator_act_.assign(N * m.na, 0.0);
  pforce_.assign(N * 3 * m.nparticle, 0.0);
  for (size_t i = 0; i < N; ++i) {
    std::copy(m.qpos0.data(), m.qpos0.data() + m.nq, q_.begin() + i * m.nq);
    for (int p = 0; p < m.nparticle; ++p)
      for (int k = 0; k < 3; ++k) x_[(i * m.nparticle + p) * 3 + k] = m.particle_pos0[p][k];
  }
  mocap_body_ = mocap_bodies(m);
  mocap_pos_.resize(N * 3 * m.nmocap);
  mocap_quat_.resize(N * 4 * m.nmocap);
  eq_active_.resize(N * m.neq);
  for (int i = 0; i < n_; ++i) reset_parameters(i);
  status_.assign(N, 0);
  warm_.resize(N);  // each world's last impulses (option warm_start), empty at the start
  friction_scale_.assign(N, 1.0);
  mass_scale_.assign(N, 1.0);
  stiffness_scale_.assign(N, 1.0);
  gravity_.resize(3 * N);
  for (size_t i = 0; i < N; ++i)
    for (int k = 0; k < 3; ++k) gravity_[3 * i + k] = m.gravity[k];
  medium_.resize(3 * N);
  for (size_t i = 0; i < N; ++i) {
    medium_[3 * i] = m.medium_density;
    medium_[3 * i + 1] = m.drag_coefficient;
    medium_[3 * i + 2] = m.viscosity;
  }
  key_.resize(N);
  counter_.assign(N, 0);
  for (size_t i = 0; i < N; ++i) key_[i] = world_key(0, i);
  xpos_.assign(N * 3 * m.nbody, 0.0);
  xquat_.assign(N * 4 * m.nbody, 0.0);
  xipos_.assign(N * 3 * m.nbody, 0.0);
  cinert_.assign(N * 10 * m.nbody, 0.0);
  cvel_.assign(N * 6 * m.nbody, 0.0);
  cfrc_ext_.assign(N * 6 * m.nbody, 0.0);
  qfrc_act_.assign(N * m.nv, 0.0);
  sensordata_.assign(N * m.nsensordata, 0.0);
  site_xpos_.assign(N * 3 * m.nsite, 0.0);
  site_xmat_.assign(N * 9 * m.nsite, 0.0);
  geom_contact_.assign(N * m.ngeom, 0);
  geom_static_.assign(N * m.ngeom, 0);
  geom_dynamic_.assign(N * m.ngeom, 0);
  geom_force_.assign(N * m.ngeom, 0.0);
  ncontact_.assign(N, 0);
  contact_depth_.assign(N, 0.0);
  mass_centre_.assign(N * 3, 0.0);
  soft_volume_.assign(N * m.nsoft, 0.0);
  chamber_volume_.assign(N * m.nchamber, 0.0);
  root_ = body_trees(m);
  set_num_threads(nthread > 0 ? nthread : omp_get_max_threads());
  forward();
}

void Batch::set_num_threads(int nthread) {
  if (nthread < 1) throw std::invalid_argument("num_threads must be >= 1, got " + std::to_string(nthread));
  while (static_cast<int>(work_.size()) < nthread)
    work_.push_back(std::make_unique<Workspace>(std::make_shared<Model>(*base_), opt_));
  nthread_ = nthread;
}

void Batch::apply_parameters(Workspace& w, int i) const {
  // The thread's Model copy takes world i's parameters (O(nbody + ngeom), no allocation).
  Model& m = *w.model;
  const Model& b = *base_;
  const double ms = mass_scale_[i], fs = friction_scale_[i];
  for (int k = 0; k < b.nbody; ++k) {
    m.body_mass[k] = ms * b.body_mass[k];
    m.body_inertia[k] = ms * b.body_inertia[k];
  }
  for (int p = 0; p < b.nparticle; ++p) {
    m.particle_mass[p] = ms * b.particle_mass[p];
    m.particle_density[p] = ms * b.particle_density[p];  // same volume, so buoyancy follows the mass
    m.particle_friction[p] = fs * b.particle_friction[p];
  }
  for (int g = 0; g < b.ngeom; ++g) m.geom_friction[g] = fs * b.geom_friction[g];
  const double ss = stiffness_scale_[i];  // E scales, nu stays: both Lame parameters scale
  for (int t = 0; t < b.ntet; ++t) {
    m.tet_mu[t] = ss * b.tet_mu[t];
    m.tet_lambda[t] = ss * b.tet_lambda[t];
  }
  // rods and shells: every elastic compliance is 1 / (E x geometry)
  for (int k = 0; k < b.nstretch; ++k) m.stretch_compliance[k] = b.stretch_compliance[k] / ss;
  for (int k = 0; k < b.nrodnode; ++k) m.rodnode_compliance[k] = b.rodnode_compliance[k] / ss;
  for (int k = 0; k < b.nhinge; ++k) m.hinge_compliance[k] = b.hinge_compliance[k] / ss;
  m.gravity = Vec3(gravity_[3 * i], gravity_[3 * i + 1], gravity_[3 * i + 2]);
  m.medium_density = medium_[3 * i];
  m.drag_coefficient = medium_[3 * i + 1];
  m.viscosity = medium_[3 * i + 2];
  const size_t I = static_cast<size_t>(i);
  for (int k = 0; k < b.nmocap; ++k)  // kinematic bodies at the world's mocap pose
    set_mocap_pose(m, mocap_body_[k], &mocap_pos_[(I * b.nmocap + k) * 3], &mocap_quat_[(I * b.nmocap + k) * 4]);
  for (int e = 0; e < b.neq; ++e) m.eq_active[e] = eq_active_[I * b.neq + e] != 0;
}

void Batch::reset_parameters(int i) {
  const Model& m = *base_;
  const size_t I = static_cast<size_t>(i);
  for (int k = 0; k < m.nmocap; ++k)
    mocap_pose(m, mocap_body_[k], &mocap_pos_[(I * m.nmocap + k) * 3], &mocap_quat_[(I * m.nmocap + k) * 4]);
  std::copy(m.eq_active.begin(), m.eq_active.end(), eq_active_.begin() + I * m.neq);
}

void Batch::check_mocap() const {
  const Model& m = *base_;
  for (int i = 0; i < n_; ++i)
    for (int k = 0; k < m.nmocap; ++k) {
      const size_t o = static_cast<size_t>(i) * m.nmocap + k;
      if (!valid_mocap_pose(&mocap_pos_[3 * o], &mocap_quat_[4 * o]))
        throw std::invalid_argument("mocap pose of world " + std::to_string(i) + ", mocap body " + std::to_string(k) +
                                    ": non-finite position or zero/non-finite quaternion");
    }
}

void Batch::load(Workspace& w, int i) {
  const Model& m = *base_;
  State& s = w.state;
  s.q = Eigen::Map<const VecX>(q_.data() + static_cast<size_t>(i) * m.nq, m.nq);
  s.u = Eigen::Map<const VecX>(u_.data() + static_cast<size_t>(i) * m.nv, m.nv);
  s.ctrl = Eigen::Map<const VecX>(ctrl_.data() + static_cast<size_t>(i) * m.nu, m.nu);
  s.x = Eigen::Map<const VecX>(x_.data() + static_cast<size_t>(i) * 3 * m.nparticle, 3 * m.nparticle);
  s.v = Eigen::Map<const VecX>(v_.data() + static_cast<size_t>(i) * 3 * m.nparticle, 3 * m.nparticle);
  s.act = Eigen::Map<const VecX>(act_.data() + static_cast<size_t>(i) * m.nactgroup, m.nactgroup);
  s.f = Eigen::Map<const VecX>(pforce_.data() + static_cast<size_t>(i) * 3 * m.nparticle, 3 * m.nparticle);
  s.actuator_act = Eigen::Map<const VecX>(actuator_act_.data() + static_cast<size_t>(i) * m.na, m.na);
}

void Batch::store(Workspace& w, int i) {
  const Model& m = *base_;
  const State& s = w.state;
  Eigen::Map<VecX>(q_.data() + static_cast<size_t>(i) * m.nq, m.nq) = s.q;
  Eigen::Map<VecX>(u_.data() + static_cast<size_t>(i) * m.nv, m.nv) = s.u;
  Eigen::Map<VecX>(x_.data() + static_cast<size_t>(i) * 3 * m.nparticle, 3 * m.nparticle) = s.x;
  Eigen::Map<VecX>(v_.data() + static_cast<size_t>(i) * 3 * m.nparticle, 3 * m.nparticle) = s.v;
  Eigen::Map<VecX>(actuator_act_.data() + static_cast<size_t>(i) * m.na, m.na) = s.actuator_act;
}

void Batch::derive(Workspace& w, int i, bool with_contacts) {
  const Model& m = *w.model;
  Data& d = w.data;
  const State& s = w.state;
  const size_t I = static_cast<size_t>(i);
  if (const Data* posed = w.stepper->poses_at(s.q))  // the step's refresh posed the bodies here
    copy_poses(*posed, d);
  else
    kinematics(m, d, s.q.data(), false);  // com quantities are formed below
  velocities(m, d, s.u.data());
  // centre of mass of each tree (MuJoCo's subtree_com of the root), kept in cfrc as scratch
  std::vector<Vec6>& acc = w.cfrc;
  for (int b = 0; b < m.nbody; ++b) acc[b].setZero();
  for (int b = 1; b < m.nbody; ++b) {
    acc[root_[b]].head<3>() += m.body_mass[b] * d.xipos[b];
    acc[root_[b]][3] += m.body_mass[b];
  }
  Vec3 total = Vec3::Zero();  // the whole world's centre of mass, from the trees' sums
  double mass = 0;
  for (int b = 1; b < m.nbody; ++b)
    if (root_[b] == b) {
      total += acc[b].head<3>();
      mass += acc[b][3];
    }
  Eigen::Map<Vec3>{&mass_centre_[3 * I]} = mass > 0 ? Vec3(total / mass) : Vec3::Zero();
  auto com_of = [&](int b) -> Vec3 {
    const int r = root_[b];
    return (r == 0 || acc[r][3] <= 0) ? Vec3::Zero() : Vec3(acc[r].head<3>() / acc[r][3]);
  };
  for (int b = 0; b < m.nbody; ++b) {
    Eigen::Map<Vec3>{&xpos_[(I * m.nbody + b) * 3]} = d.xpos[b];
    Eigen::Map<Vec3>{&xipos_[(I * m.nbody + b) * 3]} = d.xipos[b];
    const Quat qb(d.xmat[b]);
    double* xq = &xquat_[(I * m.nbody + b) * 4];
    xq[0] = qb.w();
    xq[1] = qb.x();
    xq[2] = qb.y();
    xq[3] = qb.z();
    const Vec3 c = com_of(b);
    // cinert: inertia about c in world axes (xx yy zz xy xz yz), m (xipos - c), m
    const Vec3 dv = d.xipos[b] - c;
    const double mb = m.body_mass[b];
    const Mat3 Ic = d.xmat[b] * m.body_inertia[b] * d.xmat[b].transpose() +
                    mb * (dv.squaredNorm() * Mat3::Identity() - dv * dv.transpose());
    double* ci = &cinert_[(I * m.nbody + b) * 10];
    if (b == 0) {
      std::fill(ci, ci + 10, 0.0);
    } else {
      ci[0] = Ic(0, 0), ci[1] = Ic(1, 1), ci[2] = Ic(2, 2), ci[3] = Ic(0, 1), ci[4] = Ic(0, 2), ci[5] = Ic(1, 2);
      ci[6] = mb * dv[0], ci[7] = mb * dv[1], ci[8] = mb * dv[2], ci[9] = mb;
    }
    // cvel: angular velocity, and the velocity of the body-fixed point at c
    const Vec6& v = d.cvel[b];
    double* cv = &cvel_[(I * m.nbody + b) * 6];
    Eigen::Map<Vec3>{cv} = v.head<3>();
    Eigen::Map<Vec3>{cv + 3} = v.tail<3>() + v.head<3>().cross(c);
  }
  for (int k = 0; k < m.nsite; ++k) {
    Eigen::Map<Vec3>{&site_xpos_[(I * m.nsite + k) * 3]} = d.site_xpos[k];
    Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>{&site_xmat_[(I * m.nsite + k) * 9]} = d.site_xmat[k];
  }
  // actuator forces in joint space (MuJoCo's qfrc_actuator), from the held controls
  double* qa = qfrc_act_.data() + I * m.nv;  // (nv, ngeom, nsoft may be 0: no &v[k] of an empty vector)
  std::fill(qa, qa + m.nv, 0.0);
  for (int a = 0; a < m.nu; ++a) {
    const double f = actuator_force(m, a, actuator_input(m, a, s.ctrl.data(), s.actuator_act.data()),
                                    actuated_coordinate(m, d, a, s.q.data()), actuated_rate(m, d, a, s.u.data()));
    add_actuator_force(m, d, a, f, qa);
  }
  // contact summaries: wrench on each body about its tree's c, per-geom flags and forces
  double* fe = &cfrc_ext_[I * 6 * m.nbody];
  std::fill(fe, fe + 6 * m.nbody, 0.0);
  uint8_t* gc = geom_contact_.data() + I * m.ngeom;
  uint8_t* gs = geom_static_.data() + I * m.ngeom;
  uint8_t* gd = geom_dynamic_.data() + I * m.ngeom;
  double* gf = geom_force_.data() + I * m.ngeom;
  std::fill(gc, gc + m.ngeom, 0);
  std::fill(gs, gs + m.ngeom, 0);
  std::fill(gd, gd + m.ngeom, 0);
  std::fill(gf, gf + m.ngeom, 0.0);
  int active = 0;
  double deepest = 0;
  if (with_contacts) {
    const auto& cs = w.stepper->contacts();
    const auto lam = w.stepper->contact_forces();
    // the contacts detected at the step's start (not the refresh's: their dist is not a depth)
    for (int k = 0; k < w.stepper->contacts_detected(); ++k) deepest = std::max(deepest, -cs[k].dist);
    for (size_t k = 0; k < cs.size(); ++k) {
      const Contact& ct = cs[k];
      const double ln = lam[3 * k];
      if (!(ln > 0)) continue;
      ++active;
      const Vec3 f = ln * ct.normal + lam[3 * k + 1] * ct.tangent1 + lam[3 * k + 2] * ct.tangent2;  // on body1
      auto add = [&](int b, const Vec3& force) {
        if (b <= 0) return;
        const Vec3 c = com_of(b);
        Eigen::Map<Vec3>{fe + 6 * b} += (ct.pos - c).cross(force);
        Eigen::Map<Vec3>{fe + 6 * b + 3} += force;
      };
      if (ct.n1 == 0) add(ct.body1, f);
      if (ct.n2 == 0) add(ct.body2, -f);
      if (ct.condim > 3) {  // torsional and rolling friction: a couple on the two bodies
        const Vec3 t = w.stepper->contact_torque(static_cast<int>(k));
        if (ct.body1 > 0) Eigen::Map<Vec3>{fe + 6 * ct.body1} += t;
        if (ct.body2 > 0) Eigen::Map<Vec3>{fe + 6 * ct.body2} -= t;
      }
      const bool static1 = ct.n1 == 0 && m.body_lastdof[ct.body1] < 0;
      const bool static2 = ct.n2 == 0 && m.body_lastdof[ct.body2] < 0;
      if (ct.geom1 >= 0) {
        gc[ct.geom1] = 1;
        gs[ct.geom1] |= static2;
        gd[ct.geom1] |= !static2;
        gf[ct.geom1] += ln;
      }
      if (ct.geom2 >= 0) {
        gc[ct.geom2] = 1;
        gs[ct.geom2] |= static1;
        gd[ct.geom2] |= !static1;
        gf[ct.geom2] += ln;
      }
    }
  }
  ncontact_[i] = active;
  contact_depth_[i] = deepest;
  double* sv = soft_volume_.data() + I * m.nsoft;
  std::fill(sv, sv + m.nsoft, 0.0);
  for (int t = 0; t < m.ntet; ++t) {
    const auto& p = m.tet_p[t];
    const Vec3 x0 = s.x.segment<3>(3 * p[0]);
    Mat3 D;
    for (int k = 0; k < 3; ++k) D.col(k) = s.x.segment<3>(3 * p[k + 1]) - x0;
    sv[m.particle_soft[p[0]]] += D.determinant() / 6.0;
  }
  if (m.nchamber) chamber_volumes(m, s.x, chamber_volume_.data() + I * m.nchamber);
  if (m.nsensor) {
    // touch, force and torque sensors read the last step's contacts and acceleration; after
    // forward() there are none, and the acceleration is the free one (aba with the actuators)
    const double* qacc = nullptr;
    if (with_contacts) {
      qacc = w.stepper->step_acceleration().data();
    } else if (has_acceleration_sensors(m)) {
      aba(m, d, s.q.data(), s.u.data(), qa, Passive::All);
      qacc = d.qacc.data();
    }
    compute_sensors(m, d, s, qacc, with_contacts ? w.stepper.get() : nullptr, sensordata_.data() + I * m.nsensordata);
  }
}

void Batch::step(int substeps, double* obs_out) {
  if (substeps < 1) throw std::invalid_argument("substeps must be >= 1, got " + std::to_string(substeps));
  check_mocap();
  const size_t dim = static_cast<size_t>(obs_dim_);
#pragma omp parallel for schedule(dynamic) num_threads(team_size(nthread_))
  for (int i = 0; i < n_; ++i) {
    Workspace& w = *work_[omp_get_thread_num()];
    apply_parameters(w, i);
    load(w, i);
    status_[i] = static_cast<int8_t>(WorldStatus::Ok);
    bool ok = true;
    WarmStart& warm = w.stepper->warm_start();
    warm.swap(warm_[i]);  // the world's own memory: independent of the thread and its history
    try {
      for (int k = 0; k < substeps; ++k) w.stepper->step(w.state);
    } catch (const std::exception&) {
      ok = false;
      warm.clear();  // the state goes back to before the step: forget the impulses as well
    }
    warm.swap(warm_[i]);
    if (ok) {
      store(w, i);
      derive(w, i, true);
      if (dim > 0) gather_observation(i);
    } else {
      // non-finite state or a diverged solve: keep the pre-step state, flag the world; its
      // observation row keeps the last one gathered (the last finite observation)
      status_[i] = static_cast<int8_t>(WorldStatus::Diverged);
      load(w, i);
      derive(w, i, false);
    }
    // the caller's copy of the row, written while the world's data are in this core's cache
    if (obs_out && dim > 0) std::copy_n(obs_.data() + i * dim, dim, obs_out + i * dim);
  }
}

void Batch::forward(const uint8_t* mask) {
  check_mocap();
#pragma omp parallel for schedule(dynamic) num_threads(team_size(nthread_))
  for (int i = 0; i < n_; ++i) {
    if (mask && !mask[i]) continue;
    Workspace& w = *work_[omp_get_thread_num()];
    apply_parameters(w, i);
    load(w, i);
    if (!w.state.q.allFinite() || !w.state.u.allFinite()) continue;  // derived data left as is
    derive(w, i, false);
    if (obs_dim_ > 0) gather_observation(i);
  }
}

void Batch::reset(const uint8_t* mask, const double* q, const double* u) {
  const Model& m = *base_;
  int row = 0;
  for (int i = 0; i < n_; ++i) {
    if (mask && !mask[i]) continue;
    const size_t I = static_cast<size_t>(i);
    std::copy(q + static_cast<size_t>(row) * m.nq, q + static_cast<size_t>(row + 1) * m.nq, q_.begin() + I * m.nq);
    std::copy(u + static_cast<size_t>(row) * m.nv, u + static_cast<size_t>(row + 1) * m.nv, u_.begin() + I * m.nv);
    std::fill(ctrl_.begin() + I * m.nu, ctrl_.begin() + (I + 1) * m.nu, 0.0);
    std::fill(actuator_act_.begin() + I * m.na, actuator_act_.begin() + (I + 1) * m.na, 0.0);
    std::fill(pforce_.begin() + I * 3 * m.nparticle, pforce_.begin() + (I + 1) * 3 * m.nparticle, 0.0);
    for (int p = 0; p < m.nparticle; ++p)
      for (int k = 0; k < 3; ++k) {
        x_[(I * m.nparticle + p) * 3 + k] = m.particle_pos0[p][k];
        v_[(I * m.nparticle + p) * 3 + k] = 0.0;
      }
    status_[i] = 0;
    warm_[i].clear();
    ++row;
  }
  forward(mask);
}

void Batch::uniform(const int* worlds, int nworlds, int ncol, double lo, double hi, double* out) {
  for (int k = 0; k < nworlds; ++k) {
    const int i = worlds[k];
    if (i < 0 || i >= n_) throw std::out_of_range("world index " + std::to_string(i) + " out of range");
    for (int j = 0; j < ncol; ++j) out[static_cast<size_t>(k) * ncol + j] = lo + (hi - lo) * random_unit(key_[i], counter_[i]++);
  }
}

void Batch::normal(const int* worlds, int nworlds, int ncol, double* out) {
  for (int k = 0; k < nworlds; ++k) {
    const int i = worlds[k];
    if (i < 0 || i >= n_) throw std::out_of_range("world index " + std::to_string(i) + " out of range");
    for (int j = 0; j < ncol; ++j) {
      const double u1 = 1.0 - random_unit(key_[i], counter_[i]++);  // (0, 1]
      const double u2 = random_unit(key_[i], counter_[i]++);
      out[static_cast<size_t>(k) * ncol + j] = std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2);
    }
  }
}

}  // namespace ncpgym
