// The dynamics algorithms never touch the heap once Data exists (after a first call has
// grown the IIM scratch to the column count). malloc is interposed in this test binary
// to count allocations on the calling thread; operator new goes through malloc as well.
#include <gtest/gtest.h>

#include <cstdlib>

#include "fixtures.hpp"

extern "C" void* __libc_malloc(size_t);
namespace {
thread_local long g_allocations = 0;
thread_local bool g_counting = false;
}  // namespace
extern "C" void* malloc(size_t n) {
  if (g_counting) ++g_allocations;
  return __libc_malloc(n);
}

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
  // the instrument itself works: a vector of doubles allocates
  EXPECT_GT(allocations([] { std::vector<double> v(100); v[3] = 1; }), 0);
}

TEST(NoAllocation, DynamicsAlgorithms) {
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

}  // namespace
}  // namespace ncpgym
