#pragma once

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>

#include "ncpgym/math/spatial.hpp"
#include "ncpgym/model/model.hpp"

namespace py = pybind11;

// A writable NumPy view of a vector owned by the Python object `owner` (kept alive).
inline py::array_t<double> view(ncpgym::VecX& v, py::handle owner) {
  return py::array_t<double>({v.size()}, {sizeof(double)}, v.data(), owner);
}

// dst = src after checking the length; the error names the field.
inline void assign_checked(ncpgym::VecX& dst, const ncpgym::VecX& src, const char* name) {
  if (src.size() != dst.size()) throw std::invalid_argument(std::string(name) + " has the wrong size");
  dst = src;
}

void bind_model(py::module_& m);
void bind_dynamics(py::module_& m);
void bind_sim(py::module_& m);
void bind_batch(py::module_& m);

namespace ncpgym {
struct SolverOptions;
}
// SolverOptions from Python keyword arguments (unknown names and wrong types raise
// TypeError; values are validated when a Simulator or Batch resolves them).
ncpgym::SolverOptions options_from_kwargs(const py::kwargs& kw);
// The options as a dict {name: value} (enums as their Python strings).
py::dict options_dict(const ncpgym::SolverOptions& o);
