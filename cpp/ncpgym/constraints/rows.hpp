// The constraint rows of one Newton iterate, shared by every row kind (one file per kind in
// this folder) and read by the solver, which never names a kind (nonsmooth-newton-ncp.txt
// §4-6: every constraint is a row with a value, a Jacobian, a compliance and an NCP type).
// The driver (constraints.hpp) fills the blocks in a fixed order and records where each
// block starts, as MuJoCo's mj_makeConstraint does with its mj_instantiate* functions.
#pragma once

#include <array>
#include <vector>

#include "ncpgym/math/spatial.hpp"

namespace ncpgym {

// How the solver treats a row: normal contact and joint limits through an NCP function
// (eqs. 9-10, 93-98), friction through the compliance W of Appendix A.2, compliant
// bilateral rows through eq. 8 (c + E lambda = 0; E = 0 for hard rows).
// DryFriction: a velocity row whose force is bounded by a fixed value (joint frictionloss).
enum class RowKind : int { Normal = 0, Friction = 1, LimitLower = 2, LimitUpper = 3, Compliant = 4, DryFriction = 5 };

// Blocks of rows, in the order the driver fills them. The compliant element rows of soft
// bodies come last, from Stretch on: the primal soft solve (solver/soft_kkt.cpp) eliminates
// them and keeps the others dual (RodFrame: the hard rows holding rod ghosts).
// SpinRoll: the torsional and rolling friction rows of condim-4 and -6 contacts, after every
// contact's three rows (whose fixed stride the solver's contact blocks read). DryFriction: joint
// and tendon frictionloss (constraints/dry_friction_rows.hpp).
enum class RowBlock : int {
  Contact = 0, SpinRoll, Limit, DryFriction, Spring, Distance, Attachment, Equality, RodFrame, Stretch, RodBend, Hinge, Element, Count
};
constexpr RowBlock kFirstElementBlock = RowBlock::Stretch;
constexpr int kRowBlocks = static_cast<int>(RowBlock::Count);

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
  // Appends nrows rows of len entries each, to be filled in place: row i's entries are
  // [e0 + i len, e0 + (i + 1) len) of col and val, with e0 the returned index.
  int append_rows(int nrows, int len) {
    const int e0 = static_cast<int>(col.size());
    col.resize(e0 + nrows * len);
    val.resize(e0 + nrows * len);
    for (int i = 1; i <= nrows; ++i) start.push_back(e0 + i * len);
    return e0;
  }
  double dot(int r, const double* x) const {
    double s = 0;
    for (int k = start[r]; k < start[r + 1]; ++k) s += val[k] * x[col[k]];
    return s;
  }
  void add_scaled_row(int r, double a, double* y) const {  // y += a * row_r
    for (int k = start[r]; k < start[r + 1]; ++k) y[col[k]] += a * val[k];
  }
  // y (n entries) = J^T diag(w) x over rows [0, nrow); w = nullptr: unweighted
  void transpose_times(int nrow, const double* w, const double* x, double* y, int n) const;
  MatX dense(int ncols) const;
};

// One iterate's rows: raw gradients J (position rows d C / d u scaled by 1/h as eq. 58
// says, friction rows the tangential point velocity), values C (position units; friction
// rows leave theirs unset), compliances E (eq. 8; 0 for hard and non-bilateral rows) and
// kinds. Capacity only grows; the heads up to count() are this step's rows.
struct Rows {
  SparseRows J;
  VecX C, E;
  std::vector<RowKind> kind;
  std::array<int, kRowBlocks + 1> start{};  // block b is rows [start[b], start[b + 1])
  // contact c's torsional and rolling rows are [spin_start[c], spin_start[c + 1]) (nc + 1)
  std::vector<int> spin_start;
  int count() const { return start[kRowBlocks]; }
  int begin(RowBlock b) const { return start[static_cast<int>(b)]; }
  int end(RowBlock b) const { return start[static_cast<int>(b) + 1]; }
};

}  // namespace ncpgym
