// One world's time step: Algorithm 1 of nonsmooth-newton-ncp.txt (eqs. 45-63) on the
// articulated-body core. Collision detection once per step; the unconstrained velocity
// u~ from the O(n) forward dynamics with joint damping implicit (H = M + h B); then
// damped non-smooth Newton iterations from u = 0, lambda = 0 (eqs. 67-68) on the
// Schur complement [J H^-1 J^T + C] (eq. 59), where H^-1 J^T comes from the Implicit
// Inversion Method (iwim-on-dynamics.txt §5); q advances with the kinematic map G.
#pragma once

#include <cmath>
#include <memory>
#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/collision/detect.hpp"
#include "ncpgym/constraints/constraints.hpp"
#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/model/state.hpp"
#include "ncpgym/solver/delassus.hpp"
#include "ncpgym/solver/linear.hpp"
#include "ncpgym/solver/options.hpp"
#include "ncpgym/solver/supernodal_ldlt.hpp"
#include "ncpgym/solver/warm_start.hpp"

namespace ncpgym {

struct SolverStats {
  int newton_iterations = 0;
  std::vector<double> residual;          // max |NCP / constraint residual| at each iterate
  std::vector<int> linear_iterations;    // per Newton iteration
  std::vector<double> linear_residual;   // |b - A x| after each linear solve
  std::vector<double> step_size;         // max |t du| of each Newton update (velocity units)
  std::vector<double> momentum_residual; // max |H^-1 g| (velocity units, eq. 57) at each iterate
  int backtracks = 0;  // line_search: halvings of t over the step
  int projected = 0;   // stress_stiffness: factorisations redone with projected element blocks
  int momentum_exit = 0;           // 1: the step ended at the balanced velocity (balanced_exit)
  int momentum_exit_kept = 0;      // tries whose NCP residual only was converged: Newton goes on from them
  int momentum_exit_rejected = 0;  // tries whose NCP residual was not (the iterate restored)
  int refreshed = 0;  // contacts found at q^{n+1} and added, the step then solved again (refresh.cpp)
};

// The constraint rows of a state, for tests and debugging: J (rows x nvall, raw
// gradients: position rows d C / d u scaled by 1/h, friction rows the tangential point
// velocity), the row values C and the compliances E of eq. 8 (0 for rigid rows).
struct ConstraintRows {
  MatX J;
  VecX C;
  std::vector<RowKind> kind;
  VecX E;
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
  // The first contacts() entries, those detected at the step's start; the refresh's come
  // after them (their dist is their row's value at the start, not a depth of any state).
  int contacts_detected() const { return static_cast<int>(contacts_.size()) - stats_.refreshed; }
  // Per contact: normal force and the two friction forces (lambda, in N; impulse h lambda);
  // then the torsional and rolling friction torques (N m) of condim-4 and -6 contacts,
  // contact c's from entry 3 nc + spin_start()[c] (about its normal, tangent1, tangent2).
  Eigen::Map<const VecX> contact_forces() const { return {contact_force_.data(), nforce_}; }
  const std::vector<int>& spin_start() const { return rows_.spin_start; }
  // Contact c's torsional and rolling friction as a world torque on its body 1 (zero for condim 3).
  Vec3 contact_torque(int c) const;
  const SolverStats& stats() const { return stats_; }
  // The last step's mean acceleration (u+ - u-) / h of the trees (nv, zero before a step):
  // what acceleration and force sensors read (batch/sensors.hpp).
  const VecX& step_acceleration() const { return qacc_; }
  // The contact impulses this stepper starts the next step from (option warm_start): they
  // belong to the world stepped, so a Batch swaps each world's memory in and out.
  WarmStart& warm_start() { return warm_; }
  // The body poses (kinematics without inertias) at q when the solver holds them: after a
  // step whose contact refresh posed the bodies at the result (no mocap bodies, whose poses
  // change between steps), for q equal to that result bit for bit; else nullptr.
  const Data* poses_at(const VecX& q) const;
  // Collision detection and constraint rows at `s` (as at the start of a step).
  ConstraintRows constraint_rows(const State& s);
  // The same rows (contacts kept from the last constraint_rows/step) at other (q, x).
  ConstraintRows constraint_rows_at(const VecX& q, const VecX& x);
  // How the particles' positions at the end of the last step respond to forces held on
  // them: for each column f of F (3 nparticle x k), dx = h^2 [S^-1 (0, 0, f)]_particles with
  // S the soft KKT matrix of the step's last Newton iterate (soft_kkt.cpp), i.e. the step's
  // linearised compliance (M / h^2 + K)^-1 under its attachments and contacts. This is the
  // projection of inverse-qp-soft-robots.txt eq. 3 (W_ea = J_e K^-1 J_a^T) for the time-
  // stepped system. Needs a step solved by the primal soft path.
  // The geometric-stiffness shift of eqs. 71-74 is taken out (one more factorisation).
  MatX particle_response(const MatX& F);

 private:
  int prepare(const State& s, double h);  // u~, collision, row layout; returns the row count
  void free_velocity(const State& s, double h);  // u~ and the factorisation of H at q-
  void actuator_forces(const State& s, double h);  // free_velocity's actuator terms, dH_ posed
  void detect(const State& s, double h);         // contacts and limits of the step
  // Collides at q^{n+1} (from u_); appends the deep contacts no contact of the step covers.
  // True when it added any (the caller solves the step again). refresh.cpp.
  bool refresh_contacts(const State& s, double h);
  void reserve_rows(int nrow);                   // grow the per-row buffers
  bool unconstrained_solves(const State& s, double h, int nrow);  // is (u~, 0) the solution?
  void evaluate_rows(const VecX& q, const VecX& x) {
    posed_valid_ = false;  // dk_ gets the poses of some bodies at q
    cons_.evaluate(dk_, q, x, contacts_, limits_, act_, rows_);
  }
  // Newton's iteration on the step's rows (eqs. 57-63), from lambda = 0 (eq. 68) except the
  // warm-started contacts and the first `carried` multipliers, taken from carried_.
  void newton(const State& s, double h, int nrow, int carried = 0);
  bool balanced_exit(const State& s, double h, int nrow, int it);  // option momentum_exit
  bool free_rowless_trees(int nrow);  // trees no row touches take u~ (eq. 57 without rows); false: none
  void start_from_motion(const State& s);  // the first iterate's velocity (option start_from_motion)
  void geometric_stiffness(double h, int it, int nrow);  // eqs. 70-74 on the particles
  void element_multipliers(int nrow);                    // lambda_s = -c_s(x) / E_s on the eliminated element rows
  void particle_forces(int nrow, VecX& f);               // (J^T lambda) of rows [0, nrow) on the particles
  void ncp_terms(double h, int nrow);                    // r, alpha, C block, hvec per row
  void elliptic_cone(int c, double h, bool separates, bool returns);  // contact c's rows, condim 4 and 6
  void dual_rhs(double h, int nrow);                        // system diagonal, H^-1 g, b of eq. 59
  LinearResult dual_direction(double h, int it);  // eqs. 59-60 through the Delassus operator
  // Worlds with soft elements (tetrahedra, rods, shells; soft_solver = primal, soft_kkt.cpp): the element rows are
  // eliminated into the particle block and the rest solved by a sparse LDL^T of the
  // quasi-definite KKT system. Fills du_ and dl for rows [0, nrow).
  LinearResult soft_direction(int nrow, int elem_row0, double h, const VecX& alpha, const VecX& cdiag,
                              const VecX& hvec, VecX& dl, bool first, const double* q0);
  void build_soft_pattern();
  // K and the element rows' rhs; project: stress_stiffness's element blocks projected (tet_block)
  void soft_stiffness(int nr, const VecX& cdiag, const VecX& hvec, double h, bool project);
  void damped_update(int nrow, int it);  // eqs. 61-62, impulse clipping, stats
  // Rows, NCP terms, residuals and right-hand side at the iterate; returns line_search's merit.
  double evaluate_iterate(const State& s, double h, int nrow, int it, bool primal);
  double iterate_merit() const { return std::sqrt(ncp_norm2_ + momentum2_); }  // |(hvec, H^-1 g)|_2 of line_search
  void set_iterate(int nrow, double t);  // line_search: accepted iterate + t (du_, dl_)
  void clip_impulses(int nrow);          // project_impulses
  static constexpr int kMaxBacktracks = 4;
  static constexpr int kRefreshRounds = 4;  // step(): collide again and re-solve at most this often
  void momentum_residual(double h);  // stats: max |H^-1 g| at the iterate, from jtl_
  SupernodalLdlt soft_ldlt_;
  Eigen::SparseMatrix<double> S_, S_resp_;
  SupernodalLdlt resp_ldlt_;
  // The element rows' groups in row order (a stretch, a rod node, a hinge, a tetrahedron):
  // each group's rows touch the same particles, so its block of K is one dense matrix.
  struct ElementSpan {
    int rows, np, slot;  // slot: offset of its (3 np)^2 K slots in kslot_
    int p[5];
  };
  std::vector<ElementSpan> spans_;
  std::vector<int> kpslot_;  // per particle, K's slots of its 3 x 3 block (lower, -1: absent)
  std::vector<int> chamber_slot_;  // per chamber triangle, K's slots of its 9 x 9 block (lower, -1: upper)
  void add_pressure_stiffness(double h, double* kval) const;  // -h^2 p d2V/dx2 into K's slots
  // stress_stiffness: tetrahedron t's K block (rows from r0) with its stress stiffness (soft/tet.hpp)
  bool tet_block(int t, int r0, const VecX& cdiag, double h, bool project, Eigen::Matrix<double, 12, 12>& B) const;
  // K, drag and pressure terms; -g (project: soft_direction's second factorisation)
  void particle_block(int nr, const VecX& cdiag, const VecX& hvec, double h, bool project);
  VecX resp_shift_;  // per particle coordinate, the geometric-stiffness shift in S_ (particle_response)
  VecX pmass_;               // particle mass + h x viscous coefficient (free_velocity)
  VecX iterate_f_;           // drag and pressure forces at the Newton iterate (Stepper::newton)
  std::vector<Mat3> drag_D_; // their -dF/dv blocks
  std::vector<int> kouter_, kinner_, kslot_, kdiag_, souter_, sinner_, last_outer_, last_inner_;
  std::vector<int> resp_outer_, resp_inner_;  // the pattern resp_ldlt_ was analysed for
  std::vector<double> kval_, sval_;
  std::vector<std::pair<int, double>> pent_;
  MatX Ht_;  // the trees' H, dense
  // its lower triangle's structural pattern in compressed columns: (i, j) with dof j on
  // dof i's path to the root (CRBA's fill; a free body is one dense 6 x 6 block)
  std::vector<int> hout_, hin_;
  std::unique_ptr<Data> dc_holder_;
  VecX rhs_, sol_;

  std::shared_ptr<const Model> m_;
  SolverOptions opt_;               // resolved (options.hpp)
  Data dH_, dk_;  // factorisation of H at q-; kinematics at the Newton iterate
  // dk_ holds every body's pose at posed_q_ (refresh_contacts at a step's result): the next
  // step's forward dynamics and the Batch's observations copy them (poses_at).
  VecX posed_q_;
  bool posed_valid_ = false;
  std::vector<Contact> contacts_, fresh_;
  WarmStart warm_;                  // the last step's impulses (option warm_start)
  LimitSet limits_;                 // limits within reach this step
  Constraints cons_;                // the row kinds (constraints/)
  Rows rows_;                       // J (raw gradients), C, E, kinds at the iterate
  // The solver's velocity vector is [u (nv); particle velocities (3 nparticle)] = nvall.
  int nvall_ = 0;
  Delassus del_;                    // J H^-1 J^T + C: assembled, matrix-free or sparse LDL^T
  // Per row (capacity >= rows, used through their heads): multiplier, diag J H^-1 J^T,
  // system diagonal, NCP derivative dphi/dC, compliance block, NCP value, r-factor,
  // J H^-1 g, right-hand side, solution.
  VecX lambda_, jhj_, opdiag_, alpha_, cdiag_, hvec_, rfac_, Jg_, b_, dl_;
  std::vector<int> lone_free_;  // bodies with the implicit gyroscopic term (dynamics/gyroscopic.cpp)
  std::vector<int> dof_tree_;      // per dof, its tree (body_trees; option start_from_motion)
  std::vector<int> tree_rows_;     // per tree, 1 if a row of the step touches it (free_rowless_trees)
  std::vector<double> tree_speed_;  // per tree, the largest |u-| of its dofs (start_from_motion)
  VecX carried_;  // a refreshed step's contact multipliers of the last solve (step())
  VecX contact_force_;
  VecX qacc_;  // step_acceleration()
  VecX dry_bound_;  // the force bound of each dry-friction row (dry_friction_rows.hpp)
  Eigen::Index nforce_ = 0;
  VecX tau_, extra_arm_, u_tilde_, u_, du_, qn_, sweep_, Hg_, tmp_;
  std::vector<GeomMotion> motion_;  // per geom, its motion over the step (detect())
  VecX u_base_, lambda_base_;  // line_search: the accepted iterate
  VecX u_keep_;  // momentum_exit: the iterate a rejected try returns to
  double ncp_norm_ = 0.0, ncp_norm2_ = 0.0;  // max |hvec| and |hvec|^2 of eq. 58 at the iterate (ncp_terms)
  double momentum2_ = 0.0;  // |H^-1 g|_2^2 at the iterate (dual_rhs, momentum_residual)
  VecX jtl_;                        // primal path: J_eff^T lambda of the iterate, computed once per iterate
  VecX xn_, psweep_, scale_, f_prev_, f_now_, du_prev_;  // particles: iterate, sweep, H^-1 M, ...
  VecX act_;                        // activation of the tetrahedra groups this step
  LinearWorkspace lin_;
  SolverStats stats_;
  bool last_dense_ = true;
  bool last_primal_ = false;  // the last step succeeded and its Newton directions came from soft_ldlt_
  bool step_primal_ = false;  // this step's, until it succeeds
  double t_ = 0.75;                 // this step's Newton step length (options: step, smooth_full_step)

 public:
  bool last_step_assembled() const { return last_dense_; }  // dense (true) or matrix-free
};

}  // namespace ncpgym
