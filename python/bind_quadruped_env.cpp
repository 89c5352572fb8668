// QuadrupedGranular-v0's batch (wrench/quadruped_env_batch.hpp), bound into talus._talus.
// Observations cross the boundary in arrays the caller owns.

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bind_common.hpp"
#include "wrench/quadruped_env_batch.hpp"

namespace talus::python {

using namespace talus::wrench;

namespace {

using F32 = py::array_t<float, py::array::c_style>;

}  // namespace

void bind_quadruped_env(py::module_& m) {
  py::class_<QuadrupedEnvBatch>(m, "QuadrupedEnvBatch",
                                "N QuadrupedGranular-v0 environments stepped in one call.")
      .def(py::init([](const std::filesystem::path& model, const std::filesystem::path& database,
                       int num_envs, double control_period_s, double max_joint_target_rad,
                       double episode_s, double effort_weight, double initial_joint_noise_rad,
                       double fall_pitch_rad, double fall_height_m, double mass_scale) {
             QuadrupedEnvOptions o;
             o.model = model;
             o.database = database;
             o.control_period_s = control_period_s;
             o.max_joint_target_rad = max_joint_target_rad;
             o.episode_s = episode_s;
             o.effort_weight = effort_weight;
             o.initial_joint_noise_rad = initial_joint_noise_rad;
             o.fall_pitch_rad = fall_pitch_rad;
             o.fall_height_m = fall_height_m;
             o.mass_scale = mass_scale;
             py::gil_scoped_release release;
             return std::make_unique<QuadrupedEnvBatch>(o, num_envs);
           }),
           py::arg("model"), py::arg("database"), py::arg("num_envs"), py::arg("control_period_s"),
           py::arg("max_joint_target_rad"), py::arg("episode_s"), py::arg("effort_weight"),
           py::arg("initial_joint_noise_rad"), py::arg("fall_pitch_rad"), py::arg("fall_height_m"),
           py::arg("mass_scale"))
      .def_property_readonly("num_envs", &QuadrupedEnvBatch::num_envs)
      .def_property_readonly("max_steps", &QuadrupedEnvBatch::max_steps)
      .def_property_readonly("observation_size",
                             [](const QuadrupedEnvBatch& b) { return b.layout().size(); })
      .def_property_readonly("actuator_names", &QuadrupedEnvBatch::actuator_names)
      .def(
          "reset",
          [](QuadrupedEnvBatch& b, py::array_t<std::uint64_t, py::array::c_style>& seeds,
             F32& obs) {
            const py::ssize_t n = b.num_envs();
            const std::uint64_t* s = checked(seeds, {n}, "seeds");
            float* o = checked(obs, {n, b.layout().size()}, "observations");
            py::gil_scoped_release release;
            b.reset({s, static_cast<std::size_t>(n)}, o);
          },
          py::arg("seeds"), py::arg("observations"))
      .def(
          "redraw",
          [](QuadrupedEnvBatch& b, int i, F32& obs) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("no such environment");
            b.redraw(i, checked(obs, {b.num_envs(), b.layout().size()}, "observations"));
          },
          py::arg("index"), py::arg("observations"))
      .def(
          "step",
          [](QuadrupedEnvBatch& b, py::array_t<double, py::array::c_style>& actions, F32& obs,
             py::array_t<double, py::array::c_style>& rewards,
             py::array_t<bool, py::array::c_style>& terminated,
             py::array_t<bool, py::array::c_style>& truncated, int threads) {
            const py::ssize_t n = b.num_envs();
            const double* a = checked(actions, {n, b.actuators()}, "actions");
            float* o = checked(obs, {n, b.layout().size()}, "observations");
            double* r = checked(rewards, {n}, "rewards");
            auto* te = reinterpret_cast<std::uint8_t*>(checked(terminated, {n}, "terminated"));
            auto* tr = reinterpret_cast<std::uint8_t*>(checked(truncated, {n}, "truncated"));
            py::gil_scoped_release release;
            b.step({a, static_cast<std::size_t>(n * b.actuators())}, o, r, te, tr, threads);
          },
          py::arg("actions"), py::arg("observations"), py::arg("rewards"), py::arg("terminated"),
          py::arg("truncated"), py::arg("threads") = 1)
      .def(
          "stick_figure",
          [](const QuadrupedEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("no such environment");
            const auto segments = b.stick_figure(i);
            py::array_t<double> out({static_cast<py::ssize_t>(segments.size()), py::ssize_t{4}});
            for (std::size_t k = 0; k < segments.size(); ++k) {
              for (py::ssize_t c = 0; c < 4; ++c) {
                out.mutable_at(static_cast<py::ssize_t>(k), c) =
                    segments[k][static_cast<std::size_t>(c)];
              }
            }
            return out;
          },
          py::arg("index"),
          "Environment `index`'s robot as segments (x0, z0, x1, z1) [m] in the x-z plane.")
      .def(
          "info",
          [](const QuadrupedEnvBatch& b) {
            const auto n = static_cast<py::ssize_t>(b.num_envs());
            py::array_t<std::int64_t> steps(n);
            py::array_t<double> sim_time(n), ret(n), effort(n), progress(n);
            py::array_t<bool> fell(n);
            py::list reasons;
            for (py::ssize_t i = 0; i < n; ++i) {
              const QuadrupedEnvSlot& s = b.slot(static_cast<int>(i));
              steps.mutable_at(i) = s.steps;
              sim_time.mutable_at(i) = s.robot->time_s();
              ret.mutable_at(i) = s.episode_return;
              effort.mutable_at(i) = s.effort;
              progress.mutable_at(i) = s.progress_m;
              fell.mutable_at(i) = s.fell;
              reasons.append(s.stop_reason);
            }
            py::dict d;
            d["steps"] = steps;
            d["sim_time_s"] = sim_time;
            d["episode_return"] = ret;
            d["effort"] = effort;
            d["progress_m"] = progress;
            d["fell"] = fell;
            d["stop_reason"] = reasons;
            return d;
          },
          "Per environment (arrays): steps, sim_time_s, episode_return, effort and progress_m of "
          "the last step, fell; stop_reason (a list of str, empty unless the wrench step failed).");
}

}  // namespace talus::python
