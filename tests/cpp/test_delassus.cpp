// The Newton system's operator A = D J H^-1 J^T D + C (nonsmooth-newton-ncp.txt eq. 59) in
// its three forms (solver/delassus.hpp), against a dense solve with the composite-rigid-body
// mass matrix: H^-1 J^T, diag J H^-1 J^T and the solution of A x = b. The dense form
// reaches H^-1 J^T two ways (the IIM over the rows, or the rows times the step's H^-1); a
// forest of a deep chain, a branched free-floating tree and free boxes makes each way the
// cheaper one for some rows, so both are checked; likewise the matrix-free form's two ways
// to multiply by H^-1 J^T (sparse rows of it, or J^T x times the trees' H^-1 per product).
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <random>

#include "fixtures.hpp"
#include "ncpgym/solver/delassus.hpp"

namespace ncpgym {
namespace {

using test::ModelPtr;

// World children: a 30-link hinge chain (dofs 0-29), a free base with a three-link arm
// (dofs 30-38) and two free boxes (39-44, 45-50), with armature on some chain dofs.
ModelPtr forest() {
  std::mt19937 rng(3);
  Builder b;
  int parent = 0;
  for (int i = 0; i < 30; ++i) {
    parent = b.add_body(parent, i == 0 ? Vec3(0, 0, 2) : Vec3(0, 0, -0.1), Quat::Identity(), 0.2 + 0.01 * i,
                        Vec3(0, 0, -0.05), test::random_inertia(rng) * 0.01);
    JointSpec j;
    j.axis = (i % 2 ? Vec3::UnitX() : Vec3::UnitY());
    j.armature = i % 3 == 0 ? 0.01 : 0.0;
    b.add_joint(parent, j);
  }
  JointSpec free;
  free.type = JointType::Free;
  const int base = b.add_body(0, Vec3(1, 0, 1), Quat::Identity(), 3.0, Vec3::Zero(), test::random_inertia(rng));
  b.add_joint(base, free);
  int arm = base;
  for (int i = 0; i < 3; ++i) {
    arm = b.add_body(arm, Vec3(0.2, 0, 0), Quat::Identity(), 0.5, Vec3(0.1, 0, 0), test::random_inertia(rng) * 0.1);
    JointSpec j;
    j.axis = test::random_vec(rng).normalized();
    b.add_joint(arm, j);
  }
  for (int k = 0; k < 2; ++k) {
    const int box = b.add_body(0, Vec3(-1, k, 0.5), Quat::Identity(), 1.0 + k, Vec3::Zero(), test::random_inertia(rng));
    b.add_joint(box, free);
  }
  return b.build();
}

// nrow rows, each with random entries on `dofs` (a dof may appear twice, as for a contact
// between two bodies of one tree)
SparseRows random_rows(const std::vector<std::vector<int>>& dofs, std::mt19937& rng) {
  std::normal_distribution<double> N(0, 1);
  SparseRows J;
  for (const auto& row : dofs) {
    for (int c : row) J.push(c, N(rng));
    J.end_row();
  }
  return J;
}

std::vector<int> range(int lo, int hi) {
  std::vector<int> v;
  for (int i = lo; i < hi; ++i) v.push_back(i);
  return v;
}

struct Case {
  const char* name;
  std::vector<std::vector<int>> dofs;
  bool expect_through_hinv;  // dense form: H^-1 J^T from the step's H^-1 (else the IIM)
  bool expect_sparse;        // matrix-free form: H^-1 J^T as sparse rows (else a sweep per product)
  double compliance = 1e-3;  // C, relative to the largest entry of J H^-1 J^T
};

TEST(Delassus, EveryFormGivesTheDenseSolveWithTheMassMatrix) {
  const ModelPtr m = forest();
  ASSERT_EQ(m->nv, 51);
  std::mt19937 rng(11);
  VecX q, u;
  test::random_state(*m, rng, q, u);
  Data d(*m), dm(*m);
  crba(*m, dm, q.data());
  const MatX M = dm.M;
  factorize(*m, d, q.data());

  // Dense form: rows at the chain's tip reach all 30 of its dofs, so the IIM over 3 rows
  // beats the chain's 30 x 30 H^-1 times rows 30 long; contact-like rows on the free bodies
  // and the arm (one across two trees) and 60 one-entry rows make the step's H^-1 cheaper.
  // Matrix-free form: a sparse H^-1 J^T row spans its trees, so limit-like rows of one entry
  // on the 30-dof chain (30 values per row against 1 + a share of the sweep) keep the sweep.
  std::vector<std::vector<int>> limits, triples;
  for (int i = 0; i < 60; ++i) limits.push_back({(7 * i) % 30});
  // the same in groups of three rows with the same column (as a contact's normal and
  // friction rows): the grouped kernels' three sums per column read (rows_times,
  // rows_transpose_times, rows_hinv_diag)
  for (int i = 0; i < 60; ++i) triples.push_back({(7 * (i / 3)) % 30});
  std::vector<Case> cases = {
      {"deep chain", {range(0, 30), range(0, 30), range(10, 30)}, false, true},
      {"shallow trees",
       {range(39, 45), range(39, 45), range(39, 45), range(45, 51), range(45, 51), range(30, 39),
        [] { auto v = range(39, 51); v.push_back(40); return v; }(), range(30, 36)},
       true, true},
      // 60 rows on 30 dofs: J H^-1 J^T is singular, so the rows are compliant (soft limits)
      {"one-entry rows on the chain", limits, true, false, 0.3},
      {"one-entry rows on the chain in triples", triples, true, false, 0.3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const SparseRows J = random_rows(c.dofs, rng);
    const int nrow = J.rows();
    const MatX Jd = J.dense(m->nv);
    const MatX HJt = M.ldlt().solve(Jd.transpose());  // H^-1 J^T (H = M here)
    const MatX JHJ = Jd * HJt;
    const double scale = JHJ.cwiseAbs().maxCoeff();
    std::uniform_real_distribution<double> U(0.5, 2.0);
    VecX alpha(nrow), cdiag(nrow), b(nrow), x0(nrow);
    for (int r = 0; r < nrow; ++r) {
      alpha[r] = U(rng);
      cdiag[r] = c.compliance * scale * U(rng);
      b[r] = U(rng) - 1.25;
      x0[r] = U(rng);
    }
    const VecX jhj_ref = JHJ.diagonal();
    MatX A = alpha.asDiagonal() * JHJ * alpha.asDiagonal();
    A.diagonal() += cdiag;
    const VecX x_ref = A.ldlt().solve(b);
    const VecX hjx_ref = HJt * alpha.asDiagonal() * x0;

    struct Form {
      const char* name;
      bool dense, assemble;
      LinearSolverType linear;
    };
    for (const Form& f : {Form{"dense, LDLT", true, true, LinearSolverType::LDLT},
                          Form{"dense, PCR", true, false, LinearSolverType::PCR},
                          Form{"matrix-free, PCR", false, false, LinearSolverType::PCR}}) {
      SCOPED_TRACE(f.name);
      Delassus del(*m, d, J, 4);  // capacity below nrow: begin_step grows it
      del.begin_step(nrow, f.dense, 8, f.assemble);
      VecX jhj(nrow), opdiag(nrow);
      for (int it = 0; it < 2; ++it) {  // the second iterate reuses the step's H^-1
        del.rows_changed(it, nrow, jhj.data());
        EXPECT_LT((jhj - jhj_ref).cwiseAbs().maxCoeff(), 1e-12 * scale);
      }
      if (f.dense) {
        EXPECT_EQ(del.through_hinv(), c.expect_through_hinv);
      } else {
        EXPECT_EQ(del.sparse_hinv_jt(), c.expect_sparse);
      }
      opdiag = alpha.cwiseProduct(alpha).cwiseProduct(jhj) + cdiag;
      del.set_row_scaling(alpha.data(), opdiag.data());
      VecX hjx(m->nv);
      del.hinv_jt(alpha.data(), x0.data(), hjx.data());
      EXPECT_LT((hjx - hjx_ref).cwiseAbs().maxCoeff(), 1e-12 * hjx_ref.cwiseAbs().maxCoeff());
      SolverOptions opt;
      opt.linear = f.linear;
      opt.linear_iterations = 400;
      LinearWorkspace ws;
      ws.reserve(nrow);
      VecX x = VecX::Zero(nrow);
      del.solve(opt, 0, RowCoefficients{alpha.data(), opdiag.data(), jhj.data()}, b.data(), x.data(), true, ws);
      EXPECT_LT((x - x_ref).cwiseAbs().maxCoeff(), 1e-8 * x_ref.cwiseAbs().maxCoeff());
    }
  }
}

TEST(Delassus, AnUnassembledDenseFormIsTakenOnlyWhereItCostsFewerFlops) {
  // begin_step(choose = true), as the stepper asks below dense_max_rows for PCR/PCG: three
  // rows over the 30-dof chain (forming H^-1 J^T 2.7 kflops, then 2 x 51 x 3 per product,
  // against a sweep of the chain's 30 x 30 H^-1 per matrix-free product) go dense; 30 rows
  // on the free boxes (6 entries each) go matrix-free (2 x 51 x 30 per dense product
  // against 2 x 6 x 30 plus the trees' H^-1). Either way diag J H^-1 J^T is exact.
  const ModelPtr m = forest();
  std::mt19937 rng(5);
  VecX q, u;
  test::random_state(*m, rng, q, u);
  Data d(*m), dm(*m);
  crba(*m, dm, q.data());
  factorize(*m, d, q.data());
  std::vector<std::vector<int>> boxes;
  for (int i = 0; i < 30; ++i) boxes.push_back(i / 3 % 2 ? range(39, 45) : range(45, 51));
  for (const auto& [dofs, dense] : {std::pair{std::vector<std::vector<int>>{range(0, 30), range(0, 30), range(0, 30)}, true},
                                    std::pair{boxes, false}}) {
    const SparseRows J = random_rows(dofs, rng);
    const int nrow = J.rows();
    const MatX Jd = J.dense(m->nv);
    const VecX jhj_ref = (Jd * dm.M.ldlt().solve(Jd.transpose())).diagonal();
    Delassus del(*m, d, J, 64);
    del.begin_step(nrow, true, 8, false, true, 50, /*choose=*/true);
    VecX jhj(nrow);
    del.rows_changed(0, nrow, jhj.data());
    EXPECT_EQ(del.dense(), dense) << nrow << " rows";
    EXPECT_LT((jhj - jhj_ref).cwiseAbs().maxCoeff(), 1e-12 * jhj_ref.cwiseAbs().maxCoeff());
  }
}

}  // namespace
}  // namespace ncpgym
