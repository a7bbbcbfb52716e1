#pragma once

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ncpgym/math/spatial.hpp"
#include "ncpgym/model/model.hpp"

namespace py = pybind11;

// Called (without the GIL) between units of a long C++ call: every ~50 ms it takes the GIL
// and lets Python run its signal handlers, so Ctrl-C raises KeyboardInterrupt within ~0.1 s
// (the call stops between whole steps, leaving a valid state).
class SignalCheck {
 public:
  void operator()() {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(50)) return;
    last_ = now;
    py::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The shape check of a warm_start_state assignment (Simulator and Batch): [K, kWarmColumns].
template <class Array>
void check_warm_start_rows(const Array& a, int columns) {
  if (a.ndim() != 2 || a.shape(1) != columns)
    throw std::invalid_argument("warm_start_state: expected shape (K, " + std::to_string(columns) + ")");
}

// A writable NumPy view of a vector owned by the Python object `owner` (kept alive).
inline py::array_t<double> view(ncpgym::VecX& v, py::handle owner) {
  return py::array_t<double>({v.size()}, {sizeof(double)}, v.data(), owner);
}

// dst = src after checking the length; the error names the field.
inline void assign_checked(ncpgym::VecX& dst, const ncpgym::VecX& src, const char* name) {
  if (src.size() != dst.size()) throw std::invalid_argument(std::string(name) + " has the wrong size");
  dst = src;
}

// Copies `a` into `dst` after checking its shape and dtype (T's kind: float for double,
// bool or unsigned 8-bit for uint8_t); errors name the field and what was expected.
template <class T>
void assign_array(const py::array& a, T* dst, std::vector<py::ssize_t> shape, const char* name) {
  std::string want = "(";
  for (size_t i = 0; i < shape.size(); ++i) want += std::to_string(shape[i]) + (i + 1 < shape.size() ? ", " : ")");
  if (shape.size() == 1) want.insert(want.size() - 1, ",");
  bool ok = a.ndim() == static_cast<py::ssize_t>(shape.size());
  for (size_t i = 0; ok && i < shape.size(); ++i) ok = a.shape(i) == shape[i];
  if (!ok) throw std::invalid_argument(std::string(name) + ": expected shape " + want);
  const char kind = a.dtype().kind();
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (!(kind == 'b' || (kind == 'u' && a.dtype().itemsize() == 1)))
      throw py::type_error(std::string(name) + ": expected dtype bool or uint8, got " +
                           py::str(a.dtype()).cast<std::string>());
  } else if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw py::type_error(std::string(name) + ": expected a numeric array, got dtype " +
                         py::str(a.dtype()).cast<std::string>());
  }
  auto c = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  std::copy(c.data(), c.data() + c.size(), dst);
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
