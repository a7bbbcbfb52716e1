#include "bindings.hpp"

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif
#include <Eigen/Core>

namespace {

// What a bitwise pin of the solver's arithmetic depends on besides the sources: the compiler
// (its code generation), the kernels the run-time dispatch picks (ncpgym/util/clones.hpp), the
// C library's math functions and Eigen. tests/python/golden_trajectories.py keys its
// references by this.
py::dict build_info() {
  py::dict d;
#if defined(__clang__)
  d["compiler"] = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  d["compiler"] = std::string("gcc ") + __VERSION__;
#else
  d["compiler"] = std::string("unknown");
#endif
#if defined(NCPGYM_NATIVE_BUILD)
  d["kernels"] = std::string("native");
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  __builtin_cpu_init();
  d["kernels"] = std::string(__builtin_cpu_supports("x86-64-v3") ? "x86-64-v3" : "default");
#else
  d["kernels"] = std::string("default");
#endif
#if defined(__GLIBC__)
  d["libc"] = std::string("glibc ") + gnu_get_libc_version();
#else
  d["libc"] = std::string("unknown");
#endif
  d["eigen"] = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
               std::to_string(EIGEN_MINOR_VERSION);
  return d;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "ncpgym C++ core: models, O(n) articulated-body dynamics";
  m.attr("__version__") = NCPGYM_VERSION;
  m.def("build_info", &build_info,
        "What bitwise results depend on besides the sources: {'compiler', 'kernels' (the run-time dispatch's "
        "choice: 'x86-64-v3' or 'default', or 'native'), 'libc', 'eigen'}.");
  bind_model(m);
  bind_dynamics(m);
  bind_sim(m);
  bind_batch(m);
}
