// One world's time step: Algorithm 1 of nonsmooth-newton-ncp.txt (eqs. 45-63) on the
// articulated-body core. Collision detection once per step; the unconstrained velocity
// u~ from the O(n) forward dynamics with joint damping implicit (H = M + h B); then
// damped non-smooth Newton iterations from u = 0, lambda = 0 (eqs. 67-68) on the
// Schur complement [J H^-1 J^T + C] (eq. 59), where H^-1 J^T comes from the Implicit
// Inversion Method (iwim-on-dynamics.txt §5); q advances with the kinematic map G.
#pragma once

#include <Eigen/SparseCholesky>
#include <memory>
#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/model/state.hpp"
#include "ncpgym/solver/linear.hpp"
#include "ncpgym/solver/options.hpp"

namespace ncpgym {

struct SolverStats {
  int newton_iterations = 0;
  std::vector<double> residual;          // max |NCP / constraint residual| at each iterate
  std::vector<int> linear_iterations;    // per Newton iteration
  std::vector<double> linear_residual;   // |b - A x| after each linear solve
  std::vector<double> step_size;         // max |t du| of each Newton update (velocity units)
};

// Kinds of constraint rows in the Newton system.
enum class RowKind : int { Normal = 0, Friction = 1, LimitLower = 2, LimitUpper = 3, Compliant = 4 };

// The constraint rows of a state, for tests and debugging: J (rows x nvall, raw
// gradients: position rows d C / d u scaled by 1/h, friction rows the tangential point
// velocity) and the row values C.
struct ConstraintRows {
  MatX J;
  VecX C;
  std::vector<RowKind> kind;
};

// Constraint rows in compressed-row form, built row by row in order; a row may name a
// column twice (dofs shared by both bodies of a contact) and the entries then add up.
// Storage only grows, so a step reuses it without allocating.
struct SparseRows {
  std::vector<int> start{0}, col;
  std::vector<double> val;
  int rows() const { return static_cast<int>(start.size()) - 1; }
  void clear() {
    start.resize(1);
    col.clear();
    val.clear();
  }
  void push(int c, double v) {
    col.push_back(c);
    val.push_back(v);
  }
  void end_row() { start.push_back(static_cast<int>(col.size())); }
  double dot(int r, const double* x) const {
    double s = 0;
    for (int k = start[r]; k < start[r + 1]; ++k) s += val[k] * x[col[k]];
    return s;
  }
  void add_scaled_row(int r, double a, double* y) const {  // y += a * row_r
    for (int k = start[r]; k < start[r + 1]; ++k) y[col[k]] += a * val[k];
  }
  MatX dense(int ncols) const;
};

class Stepper {
 public:
  Stepper(std::shared_ptr<const Model> model, const SolverOptions& options);

  // Advances `s` by one time step of the model (ctrl read from s.ctrl). Once the buffers
  // have grown to the largest system met (reserved at construction for typical contact
  // counts), a step with the iterative linear solvers does not touch the heap.
  // Throws std::runtime_error, leaving `s` unchanged, on a non-finite state or result.
  void step(State& s);

  const Model& model() const { return *m_; }
  const SolverOptions& options() const { return opt_; }
  const std::vector<Contact>& contacts() const { return contacts_; }
  // Per contact: normal force and the two friction forces (lambda, in N; impulse h lambda).
  Eigen::Map<const VecX> contact_forces() const { return {contact_force_.data(), nforce_}; }
  const SolverStats& stats() const { return stats_; }
  // Collision detection and constraint rows at `s` (as at the start of a step).
  ConstraintRows constraint_rows(const State& s);
  // The same rows (contacts kept from the last constraint_rows/step) at other (q, x).
  ConstraintRows constraint_rows_at(const VecX& q, const VecX& x);

 private:
  int prepare(const State& s, double h);  // u~, collision, row layout; returns the row count
  void collect_limits(const State& s, double h);  // limits within reach this step
  void evaluate_rows(const VecX& q, const VecX& x);  // J (raw gradients), C, E at (q, x)
  void reserve_rows(int nrow);                       // grow the per-row buffers
  bool unconstrained_solves(const State& s, double h, int nrow);  // is (u~, 0) the solution?
  // out = H^-1 w: one O(n) sweep for the trees, the diagonal for the particles
  void apply_hinv(const double* w, double* out);
  double row_hinv_row(int r1, int r2) const;         // J_r1 H^-1 J_r2^T (matrix-free mode)
  LinearResult solve_sparse(int nrow, const Eigen::Ref<const VecX>& alpha, const Eigen::Ref<const VecX>& opdiag,
                            const Eigen::Ref<const VecX>& b, Eigen::Ref<VecX> x, bool first);  // SparseLDLT
  std::unique_ptr<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>> sparse_ldlt_;
  // Worlds with tetrahedra (soft_solver = primal, soft_kkt.cpp): the element rows are
  // eliminated into the particle block and the rest solved by a sparse LDL^T of the
  // quasi-definite KKT system. Fills du_ and dl for rows [0, nrow).
  LinearResult soft_direction(int nrow, int tet_row0, double h, const VecX& alpha, const VecX& cdiag,
                              const VecX& hvec, const VecX& lambda, VecX& dl, bool first, const double* q0);
  void build_soft_pattern();
  void jt_times_rows(int nrow, const double* w, const double* x, double* y) const;  // y = J^T diag(w) x
  void damped_update(int nrow, int it);  // eqs. 61-62, impulse clipping, stats
  std::unique_ptr<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Lower>> soft_ldlt_;
  Eigen::SparseMatrix<double> S_;
  std::vector<int> kouter_, kinner_, kslot_, kdiag_, souter_, sinner_, last_outer_, last_inner_;
  std::vector<double> kval_, sval_;
  std::vector<std::pair<int, double>> pent_;
  MatX Ht_;  // the trees' H, dense
  std::unique_ptr<Data> dc_holder_;
  VecX rhs_, sol_;
  int tet_row0_ = 0;

  std::shared_ptr<const Model> m_;
  SolverOptions opt_;
  Data dH_, dk_;  // factorisation of H at q-; kinematics at the Newton iterate
  std::vector<Contact> contacts_, previous_;
  VecX previous_force_;
  std::vector<int> limit_joint_;    // limited joints with active rows
  std::vector<RowKind> limit_kind_;
  // Bilateral compliant rows (eq. 8, c(q) + E lambda = 0): joint springs (E = 1/k about
  // the spring reference) and position servos (E = 1/kp about the clipped control; their
  // kv enters H as implicit damping). Fixed for the Model.
  std::vector<int> comp_dof_, comp_qadr_, comp_act_;
  std::vector<double> comp_E_, comp_ref_;
  std::vector<RowKind> kind_;       // per row
  // The solver's velocity vector is [u (nv); particle velocities (3 nparticle)] = nvall.
  int nvall_ = 0;
  // Dense path (rows <= dense_max_rows): J, (H^-1 J^T)^T, and W, in their top-left corners.
  MatX J_, JHinv_, A_;
  SparseRows Js_;                   // J in compressed rows (a row touches few dofs)
  MatX Hinv_;                       // dense H^-1 of the trees (nv x nv), matrix-free mode
  MatX eye_;                        // identity (nv x nv), the IIM input for Hinv_
  std::vector<Mat3> blocks_;        // block-Jacobi inverses per contact
  // Per row (capacity >= rows, used through their heads): value, multiplier, compliance E
  // (bilateral), diag J H^-1 J^T, system diagonal, NCP derivative dphi/dC, compliance
  // block, NCP value, r-factor, J H^-1 g, right-hand side, solution.
  VecX C_, lambda_, erow_, jhj_, opdiag_, alpha_, cdiag_, hvec_, rfac_, Jg_, b_, dl_;
  VecX contact_force_;
  Eigen::Index nforce_ = 0;
  VecX tau_, extra_arm_, u_tilde_, u_, du_, qn_, sweep_, Hg_, tmp_, tmp2_;
  VecX xn_, psweep_, pminv_, scale_, f_prev_, f_now_, du_prev_;  // particles: iterate, sweep, H^-1, ...
  VecX act_;                        // activation of the tetrahedra groups this step
  LinearWorkspace lin_;
  SolverStats stats_;
  bool last_dense_ = true;

 public:
  bool last_step_assembled() const { return last_dense_; }  // dense (true) or matrix-free
};

}  // namespace ncpgym
