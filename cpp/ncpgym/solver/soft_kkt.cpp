// The Newton direction for worlds with tetrahedral soft bodies, solved in primal form.
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
// distances) stay dual; the articulated trees are eliminated through their dense H^-1
// (rows touching a tree couple through J_t H_t^-1 J_t^T, as in solve_sparse). Left is
//
//   [ -(D_r + J_rt H_t^-1 J_rt^T)   -J_rp ] [mu_r]   [ hvec_r - J_rt H_t^-1 g_t          ]
//   [ -J_rp^T                        K    ] [du_p] = [ -g_p - J_sp^T D_s^-1 hvec_s        ]
//
// which is quasi-definite, so an LDL^T factorisation exists for any symmetric ordering
// (Vanderbei 1995); Eigen's SimplicialLDLT with its AMD ordering factorises it. K's pattern
// is fixed by the mesh and is set up once; the row block is rebuilt each step.
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ncpgym/solver/stepper.hpp"

namespace ncpgym {

void Stepper::build_soft_pattern() {
  // Lower triangle of K in compressed columns over the 3 n particle coordinates, and for
  // each tetrahedron the slot of every (i, j) entry of its 12 x 12 block (-1: upper).
  const Model& m = *m_;
  const int n = 3 * m.nparticle;
  std::vector<std::vector<int>> cols(n);
  for (int i = 0; i < n; ++i) cols[i].push_back(i);
  for (int t = 0; t < m.ntet; ++t) {
    const auto& p = m.tet_p[t];
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) {
        const int gi = 3 * p[i / 3] + i % 3, gj = 3 * p[j / 3] + j % 3;
        if (gi > gj) cols[gj].push_back(gi);
      }
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
  kslot_.assign(static_cast<size_t>(m.ntet) * 144, -1);
  for (int t = 0; t < m.ntet; ++t) {
    const auto& p = m.tet_p[t];
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) {
        const int gi = 3 * p[i / 3] + i % 3, gj = 3 * p[j / 3] + j % 3;
        if (gi >= gj) kslot_[static_cast<size_t>(t) * 144 + 12 * i + j] = slot(gi, gj);
      }
  }
  kdiag_.resize(n);
  for (int i = 0; i < n; ++i) kdiag_[i] = slot(i, i);
  kval_.resize(kinner_.size());
}

LinearResult Stepper::soft_direction(int nrow, int tet_row0, double h, const VecX& alpha, const VecX& cdiag,
                                     const VecX& hvec, const VecX& lambda, VecX& dl, bool first) {
  const Model& m = *m_;
  const int nv = m.nv, np3 = 3 * m.nparticle, nr = tet_row0;
  const double eps = opt_.regularization;
  if (kouter_.size() != static_cast<size_t>(np3 + 1)) build_soft_pattern();

  // Hg_ = H^-1 g on the trees, g itself on the particles.
  jt_times_rows(nrow, alpha.data(), lambda.data(), tmp2_.data());  // J_eff^T lambda
  if (nv > 0) Hg_.head(nv) = (u_ - u_tilde_).head(nv) - h * Hinv_ * tmp2_.head(nv);
  for (int k = 0; k < np3; ++k)
    Hg_[nv + k] = m.particle_mass[k / 3] * (u_[nv + k] - u_tilde_[nv + k]) - h * tmp2_[nv + k];

  // K = H_p + J_s^T D_s^-1 J_s on the fixed pattern.
  std::fill(kval_.begin(), kval_.end(), 0.0);
  for (int k = 0; k < np3; ++k) kval_[kdiag_[k]] += 1.0 / pminv_[k];
  rhs_.resize(nr + np3);
  for (int k = 0; k < np3; ++k) rhs_[nr + k] = -Hg_[nv + k];
  {
    int r = nr;
    for (int t = 0; t < m.ntet; ++t) {
      const int nk = m.tet_model[t] == 0 ? 6 : 3;
      const int* slots = kslot_.data() + static_cast<size_t>(t) * 144;
      for (int k = 0; k < nk; ++k, ++r) {
        const double D = cdiag[r] + eps;
        const double w = std::isfinite(D) ? 1.0 / D : 0.0;
        const double* gv = Js_.val.data() + Js_.start[r];  // 12 entries: vertex-major, xyz
        const int* gc = Js_.col.data() + Js_.start[r];
        for (int i = 0; i < 12; ++i) {
          rhs_[nr + gc[i] - nv] -= gv[i] * w * hvec[r];
          const double wi = w * gv[i];
          for (int j = 0; j < 12; ++j) {
            const int sl = slots[12 * i + j];
            if (sl >= 0) kval_[sl] += wi * gv[j];
          }
        }
      }
    }
  }

  // Rows touching trees couple through J_t H_t^-1 J_t^T (dense among them).
  tree_rows_.clear();
  for (int r = 0; r < nr; ++r)
    for (int k = Js_.start[r]; k < Js_.start[r + 1]; ++k)
      if (Js_.col[k] < nv) {
        tree_rows_.push_back(r);
        break;
      }
  const int nt = static_cast<int>(tree_rows_.size());
  Jt_.setZero(nt, nv);
  for (int i = 0; i < nt; ++i) {
    const int r = tree_rows_[i];
    for (int e = Js_.start[r]; e < Js_.start[r + 1]; ++e)
      if (Js_.col[e] < nv) Jt_(i, Js_.col[e]) += alpha[r] * Js_.val[e];
  }
  if (nt > 0) At_.noalias() = Jt_ * Hinv_ * Jt_.transpose();
  tree_index_.assign(nr, -1);
  for (int i = 0; i < nt; ++i) tree_index_[tree_rows_[i]] = i;
  for (int r = 0; r < nr; ++r) rhs_[r] = hvec[r];
  if (nt > 0) {
    const VecX JtHg = Jt_ * Hg_.head(nv);
    for (int i = 0; i < nt; ++i) rhs_[tree_rows_[i]] -= JtHg[i];
  }

  // The matrix's lower triangle, rows first: column r holds the row block and -alpha_r J_rp.
  const int N = nr + np3;
  souter_.assign(N + 1, 0);
  sinner_.clear();
  sval_.clear();
  for (int r = 0; r < nr; ++r) {
    const int ti = tree_index_[r];
    sinner_.push_back(r);
    sval_.push_back(-(cdiag[r] + eps + (ti >= 0 ? At_(ti, ti) : 0.0)));
    if (ti >= 0)
      for (int j = ti + 1; j < nt; ++j) {
        sinner_.push_back(tree_rows_[j]);
        sval_.push_back(-At_(j, ti));
      }
    // particle entries, sorted with duplicates summed
    pent_.clear();
    for (int k = Js_.start[r]; k < Js_.start[r + 1]; ++k)
      if (Js_.col[k] >= nv) pent_.emplace_back(nr + Js_.col[k] - nv, -alpha[r] * Js_.val[k]);
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
  for (int j = 0; j < np3; ++j) {
    for (int k = kouter_[j]; k < kouter_[j + 1]; ++k) {
      sinner_.push_back(nr + kinner_[k]);
      sval_.push_back(kval_[k]);
    }
    souter_[nr + j + 1] = static_cast<int>(sinner_.size());
  }
  auto& S = S_;
  S.resize(N, N);
  S.resizeNonZeros(static_cast<Eigen::Index>(sinner_.size()));
  std::copy(souter_.begin(), souter_.end(), S.outerIndexPtr());
  std::copy(sinner_.begin(), sinner_.end(), S.innerIndexPtr());
  std::copy(sval_.begin(), sval_.end(), S.valuePtr());
  if (!soft_ldlt_) soft_ldlt_ = std::make_unique<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Lower>>();
  auto& ldlt = *soft_ldlt_;
  // The ordering (AMD) and symbolic factorisation only when the pattern changed: the mesh
  // part never does, the row block does when contacts come and go.
  if (first && (ldlt.rows() != N || souter_ != last_outer_ || sinner_ != last_inner_)) {
    ldlt.analyzePattern(S);
    last_outer_ = souter_;
    last_inner_ = sinner_;
  }
  // Newton iterates change the matrix little (element rotations, a few contacts switching),
  // so the last factorisation of this step serves as the solver of a refinement
  // x += F^-1 (b - S x); a fresh factorisation only when that does not reach the tolerance.
  double res = 0;
  int sweeps = 0;
  bool done = false;
  if (!first && opt_.soft_refine > 0) {
    const double target = opt_.soft_refine_tolerance * rhs_.norm();
    sol_ = ldlt.solve(rhs_);
    for (;;) {
      rres_ = rhs_ - S.selfadjointView<Eigen::Lower>() * sol_;
      res = rres_.norm();
      ++sweeps;
      if (res <= target) {
        done = true;
        break;
      }
      if (sweeps > opt_.soft_refine) break;
      sol_ += ldlt.solve(rres_);
    }
  }
  if (!done) {
    ldlt.factorize(S);
    if (ldlt.info() != Eigen::Success) throw std::runtime_error("soft-body KKT factorisation failed");
    sol_ = ldlt.solve(rhs_);
    res = (rhs_ - S.selfadjointView<Eigen::Lower>() * sol_).norm();
    ++factorizations_;
  }
  refine_sweeps_ += sweeps;

  // Back substitution: du_p; du_t = H_t^-1 (J_rt^T mu_r - g_t); mu_s = -D_s^-1 (hvec_s + J_s du).
  du_.tail(np3) = sol_.tail(np3);
  if (nv > 0) {
    VecX jmu = VecX::Zero(nv);
    for (int i = 0; i < nt; ++i) jmu += sol_[tree_rows_[i]] * Jt_.row(i).transpose();
    du_.head(nv) = Hinv_ * jmu - Hg_.head(nv);
  }
  for (int r = 0; r < nr; ++r) dl[r] = sol_[r] / h;
  for (int r = nr; r < nrow; ++r) {
    const double D = cdiag[r] + eps;
    dl[r] = std::isfinite(D) ? -(hvec[r] + alpha[r] * Js_.dot(r, du_.data())) / (D * h) : 0.0;
  }
  return {sweeps + (done ? 0 : 1), res};  // solves: refinement sweeps, + 1 after a factorisation
}

}  // namespace ncpgym
