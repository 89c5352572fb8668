#pragma once
// Helpers shared by the binding files (python/bind_*.cpp, one per tier). Each tier defines
// `void bind_<tier>(pybind11::module_& m)` in its own file and bindings.cpp calls it.

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <vector>

#include "core/pose.hpp"

namespace talus::python {

namespace py = pybind11;

// A (rows, cols) numpy view of a vector owned by `owner`, kept alive by the view.
template <typename T>
py::array_t<T> grid_view(std::vector<T>& data, int ny, int nx, py::handle owner) {
  if (data.size() != static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny)) {
    throw std::runtime_error("heightmap state does not match its model's grid");
  }
  return py::array_t<T>(
      {static_cast<py::ssize_t>(ny), static_cast<py::ssize_t>(nx)},
      {static_cast<py::ssize_t>(nx * sizeof(T)), static_cast<py::ssize_t>(sizeof(T))}, data.data(),
      owner);
}

// A read-write attribute whose setter checks the whole object with `check` (the rules the
// scenario reader applies) before it stores the value: a bad value raises ValueError at once and
// leaves the object as it was, instead of crashing a later step (issue 16: threads = 100000 made
// libgomp segfault).
template <class Class, class Field, class Check, class... Extra>
void def_checked(py::class_<Class>& cls, const char* name, Field Class::*field, Check check,
                 const Extra&... extra) {
  cls.def_property(
      name, [field](const Class& self) { return self.*field; },
      [field, check](Class& self, const Field& value) {
        Class candidate = self;
        candidate.*field = value;
        check(candidate);  // throws std::invalid_argument (ValueError) naming the field
        self.*field = value;
      },
      extra...);
}

inline Eigen::Matrix4d pose_to_matrix(const Pose& X) { return X.matrix(); }
inline Pose matrix_to_pose(const Eigen::Matrix4d& m) {
  Pose X = Pose::Identity();
  X.linear() = m.block<3, 3>(0, 0);
  X.translation() = m.block<3, 1>(0, 3);
  return X;
}

}  // namespace talus::python
