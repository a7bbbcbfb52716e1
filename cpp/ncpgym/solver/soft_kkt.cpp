// The Newton direction for worlds with soft elements (tetrahedra, rods, shells), solved in
// primal form.
//
// The seed (nonsmooth-newton-ncp.txt §9) keeps the elements as compliant rows of the dual
// system (eq. 59) and solves it with PCR. With 6 rows per tetrahedron that dual system is
// larger than the particles' 3 n velocities and badly conditioned (stiff and soft rows,
// particles shared by ~24 elements): 50 Jacobi-preconditioned PCR iterations leave linear
// residuals ~1e4 and visibly wrong deformations, and a sparse factorisation of it fills in.
// The compliant element rows have an invertible compliance block D_s = E/h^2 + eps, so they
// can be eliminated instead (the standard implicit-FEM stiffness): writing mu = h dlambda,
// the Newton system of eqs. 57-60 is the symmetric quasi-definite KKT system
//
//   [ H   -J^T ] [du]   [ -g   ]
//   [ -J  -D   ] [mu] = [ hvec ],        g = M (u - u~) - h J^T lambda,
//
// and with mu_s = -D_s^-1 (hvec_s + J_s du) for the element rows the particle block
// becomes K = H_p + J_s^T D_s^-1 J_s. The other rows r (contacts, limits, attachments,
// distances) stay dual, and the articulated trees stay primal with their dense H_t (from
// the CRBA; eliminating them instead would couple every row touching a grasped ball
// densely). Left is
//
//   [ -D_r     -J_rt   -J_rp ] [mu_r]   [ hvec_r                       ]
//   [ -J_rt^T   H_t     0    ] [du_t] = [ -g_t                         ]
//   [ -J_rp^T   0       K    ] [du_p]   [ -g_p - J_sp^T D_s^-1 hvec_s  ]
//
// which is quasi-definite, so an LDL^T factorisation exists for any symmetric ordering
// (Vanderbei 1995); a supernodal LDL^T without pivoting (supernodal_ldlt.hpp) factorises
// it. K's pattern is fixed by the mesh and is set up once; the row block is rebuilt each
// step. H_t keeps the CRBA's sparsity (a dof couples only with its ancestors), so
// independent bodies stay independent: with linear = KKT rigid worlds without elements
// (nr = nrow, no particles) are solved this way too, a direct solve whose cost follows the
// contact graph.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <type_traits>

#include "ncpgym/constraints/rod_rows.hpp"
#include "ncpgym/constraints/tet_rows.hpp"
#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/soft/medium.hpp"
#include "ncpgym/soft/pressure.hpp"
#include "ncpgym/soft/tet.hpp"
#include "ncpgym/solver/stepper.hpp"

namespace ncpgym {

namespace {
// Element groups in the row order of constraints.cpp's element blocks (Stretch, RodBend,
// Hinge, Element): particles as the rows list their columns (particle-major, xyz).
template <class F>
void for_each_element(const Model& m, F&& f) {
  for (int k = 0; k < m.nstretch; ++k) f(1, std::initializer_list<int>{m.stretch_p[k][0], m.stretch_p[k][1]});
  for (int k = 0; k < m.nrodnode; ++k) {
    const auto& e0 = m.rodedge_p[m.rodnode_edge[k][0]];
    const auto& e1 = m.rodedge_p[m.rodnode_edge[k][1]];
    f(kRodNodeRows, std::initializer_list<int>{e0[0], e0[1], e1[1], e0[2], e1[2]});
  }
  for (int k = 0; k < m.nhinge; ++k) {
    const auto& p = m.hinge_p[k];
    f(1, std::initializer_list<int>{p[0], p[1], p[2], p[3]});
  }
  for (int t = 0; t < m.ntet; ++t) {
    const auto& p = m.tet_p[t];
    f(tet_row_count(m, t), std::initializer_list<int>{p[0], p[1], p[2], p[3]});
  }
}
}  // namespace

void Stepper::build_soft_pattern() {
  // Lower triangle of K in compressed columns over the 3 n particle coordinates, and for
  // each element group the slot of every (i, j) entry of its dense block (-1: upper).
  const Model& m = *m_;
  const int n = 3 * m.nparticle;
  spans_.clear();
  int nslot = 0;
  for_each_element(m, [&](int rows, std::initializer_list<int> ps) {
    ElementSpan e{rows, static_cast<int>(ps.size()), nslot, {}};
    std::copy(ps.begin(), ps.end(), e.p);
    nslot += 9 * e.np * e.np;
    spans_.push_back(e);
  });
  std::vector<std::vector<int>> cols(n);
  for (int i = 0; i < n; ++i) cols[i].push_back(i);
  auto coord = [](const ElementSpan& e, int i) { return 3 * e.p[i / 3] + i % 3; };
  // pressure chambers couple the corners of each triangle (soft/pressure.hpp)
  auto tcoord = [&](int t, int i) { return 3 * m.chamber_tri[t][i / 3] + i % 3; };
  const int ntri = static_cast<int>(m.chamber_tri.size());
  for (int t = 0; t < ntri; ++t)
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 9; ++j)
        if (i / 3 != j / 3 && tcoord(t, i) > tcoord(t, j)) cols[tcoord(t, j)].push_back(tcoord(t, i));
  for (const auto& e : spans_)
    for (int i = 0; i < 3 * e.np; ++i)
      for (int j = 0; j < 3 * e.np; ++j) {
        const int gi = coord(e, i), gj = coord(e, j);
        if (gi > gj) cols[gj].push_back(gi);
      }
  kouter_.assign(n + 1, 0);
  kinner_.clear();
  for (int j = 0; j < n; ++j) {
    auto& c = cols[j];
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    kinner_.insert(kinner_.end(), c.begin(), c.end());
    kouter_[j + 1] = static_cast<int>(kinner_.size());
  }
  auto slot = [&](int i, int j) {  // i >= j
    const auto b = kinner_.begin() + kouter_[j], e = kinner_.begin() + kouter_[j + 1];
    return static_cast<int>(std::lower_bound(b, e, i) - kinner_.begin());
  };
  kslot_.assign(nslot, -1);
  for (const auto& e : spans_) {
    const int w = 3 * e.np;
    for (int i = 0; i < w; ++i)
      for (int j = 0; j < w; ++j) {
        const int gi = coord(e, i), gj = coord(e, j);
        if (gi >= gj) kslot_[e.slot + w * i + j] = slot(gi, gj);
      }
  }
  chamber_slot_.assign(81 * ntri, -1);
  for (int t = 0; t < ntri; ++t)
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 9; ++j)
        if (i / 3 != j / 3 && tcoord(t, i) > tcoord(t, j))
          chamber_slot_[81 * t + 9 * i + j] = slot(tcoord(t, i), tcoord(t, j));
  kdiag_.resize(n);
  for (int i = 0; i < n; ++i) kdiag_[i] = slot(i, i);
  kpslot_.assign(9 * m.nparticle, -1);
  for (int p = 0; p < m.nparticle; ++p)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j <= i; ++j) {
        const int sl = slot(3 * p + i, 3 * p + j);
        if (sl < kouter_[3 * p + j + 1] && kinner_[sl] == 3 * p + i) kpslot_[9 * p + 3 * i + j] = sl;
      }
  kval_.resize(kinner_.size());
  // H_t: entries only between a dof and its ancestors (the rest of the CRBA's matrix is
  // structurally zero), so that separate trees and branches stay uncoupled in the KKT matrix
  std::vector<std::vector<int>> hcols(m.nv);
  for (int i = 0; i < m.nv; ++i)
    for (int j = i; j >= 0; j = m.dof_parent[j]) hcols[j].push_back(i);
  hout_.assign(m.nv + 1, 0);
  hin_.clear();
  for (int j = 0; j < m.nv; ++j) {
    std::sort(hcols[j].begin(), hcols[j].end());
    hin_.insert(hin_.end(), hcols[j].begin(), hcols[j].end());
    hout_[j + 1] = static_cast<int>(hin_.size());
  }
}

void Stepper::soft_stiffness(int nr, const VecX& cdiag, const VecX& hvec, double h, bool project) {
  // K = H_p + J_s^T D_s^-1 J_s on the fixed pattern, and the element rows' part of the
  // particle right-hand side (rhs_ is sized and its particle block set by the caller).
  const Model& m = *m_;
  const int np3 = 3 * m.nparticle;
  const double eps = opt_.regularization;
  std::fill(kval_.begin(), kval_.end(), 0.0);
  const VecX& pminv = del_.particle_hinv();
  resp_shift_.resize(np3);
  for (int k = 0; k < np3; ++k) {
    kval_[kdiag_[k]] += 1.0 / pminv[k];
    resp_shift_[k] = 1.0 / pminv[k] - pmass_[k / 3];  // the geometric-stiffness shift in this matrix
  }
  // per element group: the dense block G^T diag(w) G of its rows, then a scatter of its lower
  // triangle into K's fixed slots. Tetrahedra (6 rows on 12 coordinates) use fixed-size
  // matrices as before rods and shells came (their arithmetic, and so every soft world's
  // trajectory, stays bitwise the same); the other groups (at most 3 rows on 15) use
  // fixed-capacity ones: no allocation either way.
  Eigen::Matrix<double, 6, 12> Gt;
  Eigen::Matrix<double, 12, 12> Bt;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 15> Gd;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 15, 15> Bd;
  int r = nr;
  const int tet0 = static_cast<int>(spans_.size()) - m.ntet;  // tetrahedra are the last groups
  auto accumulate = [&](const ElementSpan& e, auto& G, auto& B, int tet) {
    const int w = 3 * e.np;
    const int r0 = r;
    const int* slots = kslot_.data() + e.slot;
    const int* gc = rows_.J.col.data() + rows_.J.start[r];  // the same columns for every row of the group
    G.setZero(e.rows, w);
    for (int k = 0; k < e.rows; ++k, ++r) {
      const double D = cdiag[r] + eps;
      const double wt = std::isfinite(D) ? 1.0 / D : 0.0;
      const double sw = std::sqrt(wt);
      const double* gv = rows_.J.val.data() + rows_.J.start[r];  // particle-major, xyz
      for (int i = 0; i < w; ++i) {
        rhs_[nr + gc[i]] -= gv[i] * wt * hvec[r];
        G(k, i) = sw * gv[i];
      }
    }
    bool stressed = false;
    if constexpr (std::is_same_v<std::decay_t<decltype(B)>, Eigen::Matrix<double, 12, 12>>)
      stressed = tet >= 0 && tet_block(tet, r0, cdiag, h, project, B);
    if (!stressed) B.noalias() = G.transpose() * G;
    for (int j = 0; j < w; ++j)
      for (int i = 0; i < w; ++i) {
        const int sl = slots[w * i + j];
        if (sl >= 0) kval_[sl] += B(i, j);
      }
  };
  for (int g = 0; g < static_cast<int>(spans_.size()); ++g) {
    const ElementSpan& e = spans_[g];
    if (e.rows == 6 && e.np == 4) {
      accumulate(e, Gt, Bt, opt_.stress_stiffness && g >= tet0 ? g - tet0 : -1);
    } else {
      accumulate(e, Gd, Bd, -1);
    }
  }
}

bool Stepper::tet_block(int t, int r0, const VecX& cdiag, double h, bool project,
                        Eigen::Matrix<double, 12, 12>& B) const {
  // stress_stiffness: the element's block with its stress stiffness (soft/tet.hpp,
  // tet_newton_block) at the iterate x^n, projected when `project`; false where it does not
  // apply (inverted element)
  const Model& m = *m_;
  double grad[6][12], w[6], lam[6];
  for (int k = 0; k < 6; ++k) {
    const double D = cdiag[r0 + k] + opt_.regularization;
    w[k] = std::isfinite(D) ? 1.0 / D : 0.0;
    lam[k] = lambda_[r0 + k];
    std::copy_n(rows_.J.val.data() + rows_.J.start[r0 + k], 12, grad[k]);
  }
  Vec3 xt[4];
  tet_vertices(m, t, xn_, xt);
  return tet_newton_block(xt, m.tet_Dminv[t], grad, w, lam, h * h, project, B);
}

void Stepper::particle_block(int nr, const VecX& cdiag, const VecX& hvec, double h, bool project) {
  // K and the particles' right-hand side -g (Hg_ holds g on the particles)
  const Model& m = *m_;
  const int nv = m.nv, np3 = 3 * m.nparticle;
  for (int k = 0; k < np3; ++k) rhs_[nr + nv + k] = -Hg_[nv + k];
  soft_stiffness(nr, cdiag, hvec, h, project);
  if (has_drag(m))  // dg/du gains -h dF/dv = h D on each particle's 3 x 3 block
    for (int p = 0; p < m.nparticle; ++p)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j <= i; ++j)
          if (kpslot_[9 * p + 3 * i + j] >= 0) kval_[kpslot_[9 * p + 3 * i + j]] += h * drag_D_[p](i, j);
  if (opt_.pressure_stiffness) add_pressure_stiffness(h, kval_.data());  // options.hpp: off by default
}

LinearResult Stepper::soft_direction(int nrow, int elem_row0, double h, const VecX& alpha, const VecX& cdiag,
                                     const VecX& hvec, VecX& dl, bool first, const double* q0) {
  const Model& m = *m_;
  const int nv = m.nv, np3 = 3 * m.nparticle, nr = elem_row0;
  const double eps = opt_.regularization;
  if (kouter_.size() != static_cast<size_t>(np3 + 1) || hout_.size() != static_cast<size_t>(nv + 1)) build_soft_pattern();

  // g = M (u - u~) - h J_eff^T lambda on the particles (the trees' below, with H_t);
  // jtl_ = J_eff^T lambda of this iterate (Stepper::newton)
  // (+ h times the drag at the iterate's positions and velocities, soft/medium.hpp)
  const bool follow = has_iterate_forces(m);
  for (int k = 0; k < np3; ++k)
    Hg_[nv + k] = pmass_[k / 3] * (u_[nv + k] - u_tilde_[nv + k]) - h * jtl_[nv + k] - (follow ? h * iterate_f_[k] : 0.0);

  rhs_.resize(nr + nv + np3);
  particle_block(nr, cdiag, hvec, h, false);

  // The trees' H = M(q-) + h B (+ h^2 K of implicit springs) as a dense block, once per step.
  if (first && nv > 0) {
    if (!dc_holder_) dc_holder_ = std::make_unique<Data>(m);
    crba(m, *dc_holder_, q0);
    Ht_ = dc_holder_->M;
    Ht_.diagonal() += extra_arm_;
  }
  for (int r = 0; r < nr; ++r) rhs_[r] = hvec[r];
  if (nv > 0) rhs_.segment(nr, nv) = -(Ht_ * (u_ - u_tilde_).head(nv) - h * jtl_.head(nv));

  // The matrix's lower triangle, rows first, then tree dofs, then particles: column r holds
  // -D_r and -alpha_r J_r; tree columns hold H_t; particle columns K.
  const int N = nr + nv + np3;
  souter_.assign(N + 1, 0);
  sinner_.clear();
  sval_.clear();
  for (int r = 0; r < nr; ++r) {
    sinner_.push_back(r);
    // (jhj_: diag J H^-1 J^T of the rows kept dual, for `proximal`)
    sval_.push_back(-(cdiag[r] + eps + opt_.proximal * alpha[r] * alpha[r] * jhj_[r]));
    // the row's dofs (tree, then particles), sorted with duplicates summed
    pent_.clear();
    for (int k = rows_.J.start[r]; k < rows_.J.start[r + 1]; ++k) {
      const int c = rows_.J.col[k];
      pent_.emplace_back(nr + c, -alpha[r] * rows_.J.val[k]);
    }
    std::sort(pent_.begin(), pent_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t k = 0; k < pent_.size(); ++k) {
      if (k > 0 && pent_[k].first == pent_[k - 1].first) {
        sval_.back() += pent_[k].second;
      } else {
        sinner_.push_back(pent_[k].first);
        sval_.push_back(pent_[k].second);
      }
    }
    souter_[r + 1] = static_cast<int>(sinner_.size());
  }
  for (int j = 0; j < nv; ++j) {
    for (int k = hout_[j]; k < hout_[j + 1]; ++k) {
      sinner_.push_back(nr + hin_[k]);
      sval_.push_back(Ht_(hin_[k], j));
    }
    souter_[nr + j + 1] = static_cast<int>(sinner_.size());
  }
  for (int j = 0; j < np3; ++j) {
    for (int k = kouter_[j]; k < kouter_[j + 1]; ++k) {
      sinner_.push_back(nr + nv + kinner_[k]);
      sval_.push_back(kval_[k]);
    }
    souter_[nr + nv + j + 1] = static_cast<int>(sinner_.size());
  }
  auto& S = S_;
  S.resize(N, N);
  S.resizeNonZeros(static_cast<Eigen::Index>(sinner_.size()));
  std::copy(souter_.begin(), souter_.end(), S.outerIndexPtr());
  std::copy(sinner_.begin(), sinner_.end(), S.innerIndexPtr());
  std::copy(sval_.begin(), sval_.end(), S.valuePtr());
  auto& ldlt = soft_ldlt_;  // supernodal_ldlt.hpp
  // The ordering and symbolic factorisation only when the pattern changed: the mesh
  // part never does, the row block does when contacts come and go.
  if (first && (ldlt.rows() != N || souter_ != last_outer_ || sinner_ != last_inner_)) {
    ldlt.analyze(S);
    last_outer_ = souter_;
    last_inner_ = sinner_;
  }
  bool factored = ldlt.factorize(S);
  if (opt_.stress_stiffness && m.ntet > 0 && factored && ldlt.negative_pivots() != nr) {
    // The exact stress stiffness made K indefinite (a quasi-definite KKT matrix has exactly
    // nr negative pivots, whatever the ordering: Sylvester's law of inertia): factorise again
    // with every element block projected (soft/tet.hpp, tet_newton_block).
    particle_block(nr, cdiag, hvec, h, true);
    std::copy(kval_.begin(), kval_.end(), S.valuePtr() + souter_[nr + nv]);  // the particle columns come last
    factored = ldlt.factorize(S);
    ++stats_.projected;
  }
  if (!factored)
    throw std::runtime_error(
        "the solver diverged: the soft-body KKT matrix could not be factorised (state left unchanged)");
  ldlt.solve(rhs_, sol_);
  const double res = (rhs_ - S.selfadjointView<Eigen::Lower>() * sol_).norm();

  // Back substitution: du = (du_t, du_p); mu_s = -D_s^-1 (hvec_s + J_s du).
  du_.head(nv + np3) = sol_.segment(nr, nv + np3);
  for (int r = 0; r < nr; ++r) dl[r] = sol_[r] / h;
  for (int r = nr; r < nrow; ++r) {
    const double D = cdiag[r] + eps;
    dl[r] = std::isfinite(D) ? -(hvec[r] + alpha[r] * rows_.J.dot(r, du_.data())) / (D * h) : 0.0;
  }
  return {1, res};
}

void Stepper::add_pressure_stiffness(double h, double* kval) const {
  // dg/du gains -h dF/dv = -h^2 p d2V/dx2 (soft/pressure.hpp) at x^n: off-diagonal blocks
  const Model& m = *m_;
  for (int c = 0; c < m.nchamber; ++c) {
    const double pr = act_[m.chamber_group[c]];
    if (pr == 0) continue;
    const Vec3 origin = chamber_origin(m, xn_, c);
    for (int t = m.chamber_start[c]; t < m.chamber_start[c + 1]; ++t) {
      Mat3 H[9];
      pressure_hessian(m, xn_, origin, t, pr, H);
      const int* slots = chamber_slot_.data() + 81 * t;
      for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 9; ++j)
          if (i / 3 != j / 3 && slots[9 * i + j] >= 0) kval[slots[9 * i + j]] -= h * h * H[3 * (i / 3) + j / 3](i % 3, j % 3);
    }
  }
}

MatX Stepper::particle_response(const MatX& F) {
  const Model& m = *m_;
  const int np3 = 3 * m.nparticle;
  if (F.rows() != np3) throw std::invalid_argument("particle_response: forces need 3 nparticle rows");
  if (!last_primal_ || !soft_ldlt_.ok())
    throw std::invalid_argument("particle_response: the last step was not solved by the primal soft path "
                                "(a world with soft elements and constraint rows, soft_solver='primal')");
  const double h = opt_.timestep;
  const int N = static_cast<int>(S_.rows()), off = N - np3;
  // The step's matrix without the geometric-stiffness shift of eqs. 71-74 (a quasi-Newton
  // diagonal that only grows, good for convergence, wrong as a compliance): the particle
  // diagonal back to the mass (column starts hold the diagonal, soft_direction). Pressure
  // chambers' load stiffness stays out as in the step (options.hpp, pressure_stiffness):
  // without the walls' stress stiffness it makes W worse, not better (a finger at 15 kPa,
  // E 0.1 MPa: W within 9-13 % of finite differences without it, 9-23 % with it).
  S_resp_ = S_;
  for (int k = 0; k < np3; ++k) S_resp_.valuePtr()[S_resp_.outerIndexPtr()[off + k]] -= resp_shift_[k];
  // S_resp_ has S_'s pattern, for which the step's factorisation holds the ordering and
  // symbolic factorisation: taken from there when the pattern changed, not computed again
  if (resp_ldlt_.rows() != N || souter_ != resp_outer_ || sinner_ != resp_inner_) {
    resp_ldlt_ = soft_ldlt_;
    resp_outer_ = souter_;
    resp_inner_ = sinner_;
  }
  if (!resp_ldlt_.factorize(S_resp_)) throw std::runtime_error("particle_response: factorisation failed");
  MatX out(np3, F.cols());
  VecX rhs(N), z(N);
  for (int j = 0; j < F.cols(); ++j) {
    // a force f on the particles adds -h f to g, so h f to the particle block's right side
    rhs.setZero();
    rhs.tail(np3) = h * F.col(j);
    resp_ldlt_.solve(rhs, z);
    out.col(j) = h * z.tail(np3);  // dx = h du
  }
  return out;
}

}  // namespace ncpgym
