// The Newton system's operator A = J_eff H^-1 J_eff^T + C + eps I (nonsmooth-newton-ncp.txt
// eq. 59, J_eff = diag(alpha) J) and its solves, apart from the Newton loop that uses it
// (as Pinocchio keeps its Delassus operators apart from its solvers). H^-1 is applied per
// system block: the articulated trees through the Implicit Inversion Method on the
// factorisation of H (iwim-on-dynamics.txt §5, eqs. 24-27), particles through their
// diagonal (with the geometric-stiffness shift of eqs. 71-74 when the solver sets it).
// Three forms behind one interface: dense (small systems: H^-1 J^T formed, and J H^-1 J^T
// assembled for Gauss-Seidel and LDL^T), matrix-free (products through the sparse rows and
// one O(n) sweep), and a sparse LDL^T of the assembled Schur complement. (The primal KKT
// form of soft bodies is solver/soft_kkt.cpp.)
#pragma once

#include <Eigen/SparseCholesky>
#include <memory>
#include <vector>

#include "ncpgym/constraints/rows.hpp"
#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/model/model.hpp"
#include "ncpgym/solver/linear.hpp"
#include "ncpgym/solver/options.hpp"

namespace ncpgym {

// One row (or group of three rows) adding its H^-1 J^T values over one output block:
// the values' offsets in Delassus::sval_ per row of the group.
struct ScatterEntry {
  int row, group, off0, off1, off2;
};

// Per-row quantities of the current iterate the operator reads (capacity >= rows).
struct RowCoefficients {
  const double* alpha;   // dphi/dC of each row (1 for bilateral and friction rows)
  const double* opdiag;  // the system diagonal alpha^2 J H^-1 J^T + C + eps
  const double* jhj;     // diag J H^-1 J^T (raw rows)
};

class Delassus {
 public:
  // dH: the trees' factorisation of H at q- (refreshed by the solver each step); J: the rows.
  Delassus(const Model& m, Data& dH, const SparseRows& J, int dense_capacity);

  // Per step: the form this step's system takes (see options.hpp, dense_max_rows), the
  // Newton iterations it may take (weighs the two ways to H^-1 J^T) and whether the solver
  // reads the entries of J H^-1 J^T (Gauss-Seidel, the LDL^Ts), which are then assembled too.
  // products: the dual solve multiplies by the operator this step (the primal forms do not),
  // up to `linear_iterations` times per Newton iterate. choose: a dense form that is not
  // assembled is taken only if it costs fewer flops than matrix-free (dense_pays, decided
  // at the first iterate from the rows).
  void begin_step(int nrow, bool dense, int iterations, bool assemble, bool products = true,
                  int linear_iterations = 50, bool choose = false);
  bool dense() const { return dense_; }  // the form of this step (known after rows_changed(0))
  // The dense form of this step forms H^-1 J^T from the trees' H^-1 (else by the IIM).
  bool through_hinv() const { return via_hinv_; }
  // The matrix-free form of this step keeps H^-1 J^T as sparse rows (else an O(n) sweep
  // per product).
  bool sparse_hinv_jt() const { return sparse_hj_; }
  // Diagonal H^-1 of the particle coordinates (1/m, or with the geometric-stiffness shift).
  VecX& particle_hinv() { return pminv_; }
  const VecX& particle_hinv() const { return pminv_; }
  const MatX& tree_hinv() const { return Hinv_; }

  // After the rows changed (each Newton iterate): the dense form forms H^-1 J^T (and J H^-1
  // J^T when assembled), so that a product costs two dense products (nvall x rows, rows x
  // nv) instead of an O(n) sweep; the matrix-free form inverts the trees' H at the first
  // iterate of a step and, where it pays, keeps H^-1 J^T as sparse rows. Writes diag
  // J H^-1 J^T of rows [0, ndiag) into jhj.
  void rows_changed(int it, int ndiag, double* jhj);
  // The dense form takes J_eff = diag(alpha) J (and, assembled, the diagonal opdiag).
  void set_row_scaling(const double* alpha, const double* opdiag);

  // out (nvall) = H^-1 J_eff^T x
  void hinv_jt(const double* alpha, const double* x, double* out);
  // out (nvall) = H^-1 w
  void apply_hinv(const double* w, double* out);
  // J_r1 H^-1 J_r2^T of the raw rows (matrix-free form)
  double row_hinv_row(int r1, int r2) const;
  double row_hinv_diag(int r) const;  // row_hinv_row(r, r), each symmetric pair once

  // Solves A x = b for the step's rows. nc contacts (rows 3c..3c+2) get 3 x 3 block
  // preconditioning with opt.block_preconditioner; first: first iterate of the step.
  LinearResult solve(const SolverOptions& opt, int nc, const RowCoefficients& k, const double* b, double* x,
                     bool first, LinearWorkspace& ws);

 private:
  void block_inverses(int nc, const RowCoefficients& k);
  void invert_trees();                // Hinv_ for the step
  bool plan_sparse_hinv_jt();         // the layout of the sparse H^-1 J^T, if it pays
  void form_sparse_hinv_jt();         // its values at this iterate
  void scatter_hinv_jt(const double* alpha, const double* x, double* out) const;  // out = H^-1 J_eff^T x
  void find_row_triples();                               // group_ for the step
  void pack_triples();                                   // packed_ from the rows at the iterate
  // y = alpha (J x) + corr xin, the rows in their groups (the operator's last step); returns xin . y
  double rows_times(const double* x, double* y, const double* alpha, const double* corr, const double* xin) const;
  // rows r, r + 1, r + 2 of a group of three (the same n columns): columns, then values
  struct RowTriple {
    int n;
    const int* col;
    const double *v0, *v1, *v2;
  };
  RowTriple triple(int r) const {  // inline: a call per group cost 2-3 % of a pile's step
    const int b = J_.start[r];
    return {J_.start[r + 1] - b, J_.col.data() + b, J_.val.data() + b, J_.val.data() + J_.start[r + 1],
            J_.val.data() + J_.start[r + 2]};
  }
  void rows_transpose_times(const double* alpha, const double* x, double* y) const;  // J^T diag(alpha) x
  void rows_hinv_diag(int ndiag, double* jhj) const;     // row_hinv_diag of rows [0, ndiag)
  bool assemble_through_hinv() const;  // the cheaper way to H^-1 J^T this step
  double hinv_column_work() const;     // flops of H^-1 J^T from the trees' H^-1
  bool dense_pays() const;             // the dense form costs fewer flops than matrix-free
  LinearResult solve_sparse(const RowCoefficients& k, const double* b, double* x, bool first);

  const Model& m_;
  Data& dH_;
  const SparseRows& J_;
  int nvall_ = 0, nrow_ = 0;
  bool dense_ = true;
  // dense form: H^-1 J^T (nvall x rows, column r for row r), A in its top-left corner when
  // assembled, J over the trees' dofs (the IIM's input, the products' second factor) and
  // the IIM's output (H^-1 J^T)^T
  MatX JHt_, A_, Jd_, Xt_;
  bool assemble_ = false;  // this step's solver reads A's entries
  bool choose_ = false;    // this step's form is chosen at the first iterate (dense_pays)
  bool products_ = true;   // this step's solve multiplies by the operator
  int linear_iterations_ = 50;
  // matrix-free form: H^-1 J_r^T as segments, one per tree (or particle coordinate) that
  // row r touches: segment k of row r covers coordinates [seg_lo_[k], seg_hi_[k]), its
  // values from sval_[seg_off_[k]]; row r's segments are [seg_start_[r], seg_start_[r + 1])
  bool sparse_hj_ = false;
  std::vector<int> seg_start_, seg_lo_, seg_hi_, seg_off_;
  // the scatter's output blocks (plan_scatter_blocks): block k starts at coordinate
  // block_lo_[k], its entries are [block_start_[k], block_start_[k + 1]) of entries_
  std::vector<int> block_lo_, block_start_, block_count_;
  std::vector<int> block_width_;  // per coordinate that starts a block, the block's width
  std::vector<ScatterEntry> entries_;
  void plan_scatter_blocks();
  std::vector<double> sval_;
  // the rows in groups of 3 (rows with the same columns: a contact's normal and tangent
  // rows) or 1, in order; a group of 3 reads each column once (set per step by both forms
  // when the solve multiplies)
  std::vector<int> group_;
  std::vector<double> packed_;  // per group of three, (v0, v1, v2, 0) per column (pack_triples)
  bool via_hinv_ = false;  // this step forms H^-1 J^T from Hinv_ (assemble_through_hinv)
  int iterations_ = 1;
  MatX Hinv_, eye_;       // dense H^-1 of the trees (nv x nv); eye_: as wide as the widest tree
  bool tree_gemv_ = false;   // apply_hinv multiplies by Hinv_ (else the IIM sweep)
  bool hinv_fresh_ = false;  // Hinv_ holds this step's H^-1 (apply_hinv then multiplies by it)
  std::vector<int> dof_root_;  // per dof, the first dof of its tree (H^-1 couples no two trees)
  std::vector<int> tree_end_;  // per dof, one past the last dof of its tree
  double tree_work_ = 0;       // sum over trees of (dofs)^2: the cost of Hinv_
  VecX pminv_;            // particles' H^-1 diagonal (3 nparticle)
  VecX tmp_, tmp2_;       // nvall scratch
  VecX corr_;             // per row, opdiag - alpha^2 diag J H^-1 J^T (solve)
  std::vector<Mat3> blocks_;  // block-Jacobi inverses per contact
  std::unique_ptr<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>> sparse_ldlt_;
};

}  // namespace ncpgym
