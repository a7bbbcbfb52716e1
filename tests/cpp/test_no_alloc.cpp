// The dynamics algorithms never touch the heap once Data exists (after a first call has
// grown the IIM scratch to the column count). malloc is interposed in this test binary
// to count allocations on every thread (the batch test runs OpenMP workers); operator new
// goes through malloc as well.
#include <gtest/gtest.h>

#include <atomic>
#include <utility>
#include <cstdlib>

#include "fixtures.hpp"
#include "ncpgym/batch/batch.hpp"

namespace {
std::atomic<long> g_allocations{0};
std::atomic<bool> g_counting{false};
}  // namespace

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer owns malloc (scripts/sanitize.sh): the counting hook cannot sit under it,
// so these tests are skipped in that build.
#define SKIP_WITHOUT_MALLOC_HOOK() GTEST_SKIP() << "malloc belongs to AddressSanitizer here"
#else
#define SKIP_WITHOUT_MALLOC_HOOK() (void)0
extern "C" void* __libc_malloc(size_t);
extern "C" void* malloc(size_t n) {
  if (g_counting) {
    ++g_allocations;
    if (std::getenv("NCPGYM_ALLOC_TRAP")) __builtin_trap();  // run under gdb to see who allocates
  }
  return __libc_malloc(n);
}
#endif

namespace ncpgym {
namespace {

template <class F>
long allocations(F&& f) {
  g_allocations = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_allocations;
}

TEST(NoAllocation, CounterSeesAllocations) {
  SKIP_WITHOUT_MALLOC_HOOK();
  // the instrument itself works: a vector of doubles allocates
  EXPECT_GT(allocations([] { std::vector<double> v(100); v[3] = 1; }), 0);
}

TEST(NoAllocation, DynamicsAlgorithms) {
  SKIP_WITHOUT_MALLOC_HOOK();
  for (bool floating : {true, false}) {
    auto m = test::random_tree(12, 99, floating);
    Data d(*m);
    std::mt19937 rng(1);
    VecX q, u, a, tau(m->nv), out(m->nv), qn(m->nq);
    test::random_state(*m, rng, q, u);
    test::random_state(*m, rng, tau, a);
    MatX Bt = MatX::Random(9, m->nv), Xt(9, m->nv), J(6, m->nv), G(m->nq, m->nv);
    minv_times_transposed(*m, d, Bt, Xt);  // grows the IIM scratch once
    EXPECT_EQ(allocations([&] { kinematics(*m, d, q.data()); velocities(*m, d, u.data()); }), 0);
    EXPECT_EQ(allocations([&] { aba(*m, d, q.data(), u.data(), tau.data()); }), 0);
    EXPECT_EQ(allocations([&] { rnea(*m, d, q.data(), u.data(), a.data(), out.data()); }), 0);
    EXPECT_EQ(allocations([&] { crba(*m, d, q.data()); }), 0);
    EXPECT_EQ(allocations([&] { factorize(*m, d, q.data()); minv_times_transposed(*m, d, Bt, Xt); }), 0);
    EXPECT_EQ(allocations([&] { minv_times_vector(*m, d, tau.data(), out.data()); }), 0);
    EXPECT_EQ(allocations([&] { site_jacobian(*m, d, 0, J); site_jdot_u(*m, d, 0); }), 0);
    EXPECT_EQ(allocations([&] { kinematic_map(*m, q.data(), G); integrate(*m, q.data(), u.data(), 0.01, qn.data()); }), 0);
  }
}

// A scene with every collision pair kind the solver meets in the tasks (plane, sphere,
// capsule, box, cylinder, mesh), a limited hinge with a spring and a servo, and a chain
// of particles with distance constraints and an attachment. `particles` adds enough rows
// to take the matrix-free path.
std::shared_ptr<const Model> mixed_scene(int particles) {
  Builder b;
  b.set_timestep(0.01);
  GeomSpec plane;
  plane.type = GeomType::Plane;
  b.add_geom(0, plane);
  const int mesh = b.add_mesh({Vec3(0.1, 0, 0), Vec3(-0.1, 0.08, 0), Vec3(-0.1, -0.08, 0), Vec3(0, 0, 0.12),
                               Vec3(0, 0, -0.05)});
  const GeomType types[] = {GeomType::Box, GeomType::Sphere, GeomType::Capsule, GeomType::Cylinder, GeomType::Mesh,
                            GeomType::Box};
  for (int k = 0; k < 6; ++k) {
    const int body = b.add_body(0, Vec3(0.05 * k, 0.02 * k, 0.12 + 0.22 * k), Quat(Eigen::AngleAxisd(0.3 * k, Vec3(1, 1, 0).normalized())),
                                1.0, Vec3::Zero(), Mat3::Identity() * 0.01);
    JointSpec free;
    free.type = JointType::Free;
    b.add_joint(body, free);
    GeomSpec g;
    g.type = types[k];
    g.size = Vec3(0.1, 0.08, 0.06);
    if (types[k] == GeomType::Mesh) g.mesh = mesh;
    b.add_geom(body, g);
  }
  const int arm = test::add_servo_arm(b);
  int prev = -1;
  for (int p = 0; p < particles; ++p) {
    const int id = b.add_particle(Vec3(1.5 + 0.05 * p, 0, 0.3), 0.05, 0.02);
    if (prev >= 0) b.add_distance(prev, id, 1e-4);
    prev = id;
  }
  if (particles > 0) {
    b.add_attachment(0, arm, Vec3(0.5, 0, -0.7));
    // and a soft cube of six tetrahedra resting on the ground
    std::vector<Vec3> v;
    for (int c = 0; c < 8; ++c) v.emplace_back(2.0 + 0.1 * (c & 1), 0.1 * ((c >> 1) & 1), 0.1 * ((c >> 2) & 1));
    b.add_soft_body(v, {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}}, 500, 1e5, 0.3);
  }
  return b.build();
}

TEST(NoAllocation, StepperStepsWithoutTouchingTheHeap) {
  SKIP_WITHOUT_MALLOC_HOOK();
  // both forms of the dual system: dense (H^-1 J^T formed; Gauss-Seidel assembles it),
  // matrix-free, and the default's choice between them per step (-1: Gauss-Seidel)
  for (auto [particles, dense_rows] : {std::pair{0, -1}, std::pair{0, 64}, std::pair{0, 0}, std::pair{40, 0}}) {
    auto m = mixed_scene(particles);
    // the soft cube through the dual rows: the primal soft path's sparse factorisation
    // allocates (its ordering and factor storage belong to Eigen)
    SolverOptions o;
    o.soft_primal = false;
    if (dense_rows < 0) {
      o.linear = LinearSolverType::GaussSeidel;
    } else {
      o.dense_max_rows = dense_rows;
    }
    Stepper st(m, o);
    State s(*m);
    s.ctrl[0] = 0.5;
    bool matrix_free = false;
    for (int k = 0; k < 60; ++k) {  // settle into contact; buffers grow to their peak
      st.step(s);
      matrix_free |= !st.last_step_assembled();
    }
    ASSERT_GT(st.contacts().size(), 6u);
    if (dense_rows <= 0) {
      EXPECT_EQ(matrix_free, dense_rows == 0);  // Gauss-Seidel: dense every step
    }
    EXPECT_EQ(allocations([&] {
                for (int k = 0; k < 40; ++k) st.step(s);
              }),
              0)
        << "particles " << particles << ", dense_max_rows " << dense_rows;
  }
}

TEST(NoAllocation, BatchStepsWithoutTouchingTheHeap) {
  SKIP_WITHOUT_MALLOC_HOOK();
  auto m = mixed_scene(10);
  SolverOptions o;
  o.soft_primal = false;  // as above
  Batch batch(m, 8, o, 2);
  for (int i = 0; i < 8; ++i) batch.mass_scale()[i] = 1.0 + 0.1 * i;
  batch.step(30);  // warm up: OpenMP threads, thread-local scratch, buffers
  EXPECT_EQ(allocations([&] { batch.step(5); }), 0);
}

}  // namespace
}  // namespace ncpgym
