#include "bindings.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "ncpgym C++ core: models, O(n) articulated-body dynamics";
  m.attr("__version__") = NCPGYM_VERSION;
  bind_model(m);
  bind_dynamics(m);
  bind_sim(m);
  bind_batch(m);
}
