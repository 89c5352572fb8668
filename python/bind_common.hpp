#pragma once
// Helpers shared by the binding files (python/bind_*.cpp, one per tier). Each tier defines
// `void bind_<tier>(pybind11::module_& m)` in its own file and bindings.cpp calls it.

#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/contact_tier.hpp"
#include "core/pose.hpp"
#include "core/scenario_file.hpp"
#include "core/wrench.hpp"

namespace talus::python {

namespace py = pybind11;

// The data of a caller's array after checking its shape (`what` names it in the error): the
// batch environments write observations and results into arrays the caller owns.
template <class T>
T* checked(py::array_t<T, py::array::c_style>& a, std::vector<py::ssize_t> shape,
           const char* what) {
  if (a.ndim() != static_cast<py::ssize_t>(shape.size()) ||
      !std::equal(shape.begin(), shape.end(), a.shape())) {
    throw std::invalid_argument(std::string(what) + ": wrong shape for this batch");
  }
  return a.mutable_data();
}

// A (rows, cols) numpy view of a vector owned by `owner`; the view keeps the owner alive. Only for
// vectors that keep their buffer for the owner's life (a heightmap's: its size is the grid's, and
// steps change values in place); arrays that a step swaps or that can grow are returned as copies.
template <typename T>
py::array_t<T> grid_view(std::vector<T>& data, int ny, int nx, py::handle owner) {
  if (data.size() != static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny)) {
    throw std::invalid_argument(fmt::format(
        "heightmap state of {} cells does not match its model's grid of {} x {} cells",
        data.size(), nx, ny));
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

// copy(), __copy__ and __deepcopy__ for a state class: a snapshot is the C++ copy, which holds
// everything the next steps read (each tier's State keeps its warm starts and histories), so
// stepping a copy continues bit for bit like the original. Restoring is using the copy.
template <class State>
void def_copy(py::class_<State>& cls) {
  cls.def(
         "copy", [](const State& s) { return State(s); },
         "A snapshot: an independent State that continues exactly as this one would.")
      .def("__copy__", [](const State& s) { return State(s); })
      .def(
          "__deepcopy__", [](const State& s, py::dict) { return State(s); }, py::arg("memo"));
}

// `load(scenario)` of a tier's submodule: reads a scenario file with `loader` (the tier's
// load_*_scenario) into its model and initial state without running it; a bad file raises
// ScenarioError naming the file, line and key. A [terrain] file (one several tiers share) is read
// as this submodule's tier (`tier`), whatever its [scenario] tier line says.
template <class Loader>
void def_load(py::module_& m, Loader loader, const char* what, const std::string& tier) {
  m.def(
      "load",
      [loader, tier](const std::filesystem::path& file) {
        auto doc = ScenarioDocument::load(file);
        if (doc->root().has("terrain")) doc = doc->with_tier(tier);
        return loader(doc->root());
      },
      py::arg("scenario"),
      (std::string("Reads a ") + what +
       " scenario file into its Model and initial State without running it (raises "
       "ScenarioError naming the file, line and key). A file with a [terrain] table is read as a " +
       what + " scenario whatever its [scenario] tier says.")
          .c_str());
}

// The bodies' motions for one step, given from Python: one 4x4 pose per body and, optionally,
// one twist per body (empty: at rest). `what` names the bodies in errors ("tool", "body").
std::vector<BodyMotion> motions_from(const std::vector<Eigen::Matrix4d>& X_WB,
                                     const std::vector<Twist>& V_WB, std::size_t bodies,
                                     const std::string& what);

// (bodies, 3, 3) float64 copy of wrenches: [b, 0] force f_W [N], [b, 1] torque tau_W [N m] about
// [b, 2] = p_W [m]. A copy: the vectors the tiers write wrenches into are reassigned every step.
py::array_t<double> wrench_array(const std::vector<Wrench>& wrenches);

inline Eigen::Matrix4d pose_to_matrix(const Pose& X) { return X.matrix(); }
inline Pose matrix_to_pose(const Eigen::Matrix4d& m) {
  Pose X = Pose::Identity();
  X.linear() = m.block<3, 3>(0, 0);
  X.translation() = m.block<3, 1>(0, 3);
  return X;
}

}  // namespace talus::python
