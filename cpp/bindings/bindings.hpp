#pragma once

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_model(py::module_& m);
void bind_dynamics(py::module_& m);
void bind_sim(py::module_& m);
