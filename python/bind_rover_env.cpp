// RoverSlope-v0's batch (robot/rover_env_batch.hpp), bound into talus.robots. Observations cross
// the boundary in arrays the caller owns (talus.envs writes into one preallocated batch).

#include "bind_common.hpp"
#include "robot/rover_env_batch.hpp"

namespace talus::python {

using namespace talus::robot;

namespace {

using F32 = py::array_t<float, py::array::c_style>;

RoverEnvBatch& checked_index(RoverEnvBatch& b, int i) {
  if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("no such environment");
  return b;
}

}  // namespace

void bind_rover_env(py::module_& m) {
  m.attr("ROVER_OBSERVATION_SIZE") = kRoverObservationSize;
  py::class_<RoverEnvBatch>(m, "RoverEnvBatch", "N RoverSlope-v0 environments stepped in one call.")
      .def(py::init([](const std::filesystem::path& scenario, int num_envs, double control_period_s,
                       double max_wheel_speed_rad_per_s, double episode_s, double goal_x_m,
                       double energy_weight, double max_heading_offset_rad, double max_tilt_rad) {
             RoverEnvOptions o{scenario, control_period_s, max_wheel_speed_rad_per_s, episode_s,
                               goal_x_m, energy_weight,    max_heading_offset_rad,    max_tilt_rad};
             py::gil_scoped_release release;
             return std::make_unique<RoverEnvBatch>(o, num_envs);
           }),
           py::arg("scenario"), py::arg("num_envs"), py::arg("control_period_s"),
           py::arg("max_wheel_speed_rad_per_s"), py::arg("episode_s"), py::arg("goal_x_m"),
           py::arg("energy_weight"), py::arg("max_heading_offset_rad"), py::arg("max_tilt_rad"))
      .def_property_readonly("num_envs", &RoverEnvBatch::num_envs)
      .def_property_readonly("max_steps", &RoverEnvBatch::max_steps)
      .def_property_readonly("start_x_m", &RoverEnvBatch::start_x_m)
      .def(
          "reset",
          [](RoverEnvBatch& b, py::array_t<std::uint64_t, py::array::c_style>& seeds, F32& obs) {
            const py::ssize_t n = b.num_envs();
            const std::uint64_t* s = checked(seeds, {n}, "seeds");
            float* o = checked(obs, {n, kRoverObservationSize}, "observations");
            py::gil_scoped_release release;
            b.reset({s, static_cast<std::size_t>(n)}, o);
          },
          py::arg("seeds"), py::arg("observations"))
      .def(
          "redraw",
          [](RoverEnvBatch& b, int i, F32& obs) {
            float* o = checked(obs, {b.num_envs(), kRoverObservationSize}, "observations");
            checked_index(b, i).redraw(i, o);
          },
          py::arg("index"), py::arg("observations"))
      .def(
          "step",
          [](RoverEnvBatch& b, py::array_t<double, py::array::c_style>& actions, F32& obs,
             py::array_t<double, py::array::c_style>& rewards,
             py::array_t<bool, py::array::c_style>& terminated,
             py::array_t<bool, py::array::c_style>& truncated, int threads) {
            const py::ssize_t n = b.num_envs();
            const double* a = checked(actions, {n, 4}, "actions");
            float* o = checked(obs, {n, kRoverObservationSize}, "observations");
            double* r = checked(rewards, {n}, "rewards");
            auto* te = reinterpret_cast<std::uint8_t*>(checked(terminated, {n}, "terminated"));
            auto* tr = reinterpret_cast<std::uint8_t*>(checked(truncated, {n}, "truncated"));
            py::gil_scoped_release release;
            b.step({a, static_cast<std::size_t>(4 * n)}, o, r, te, tr, threads);
          },
          py::arg("actions"), py::arg("observations"), py::arg("rewards"), py::arg("terminated"),
          py::arg("truncated"), py::arg("threads") = 1)
      .def(
          "side_view",
          [](const RoverEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("no such environment");
            const auto segments = b.side_view(i);
            py::array_t<double> out({static_cast<py::ssize_t>(segments.size()), py::ssize_t{4}});
            for (std::size_t k = 0; k < segments.size(); ++k) {
              for (std::size_t c = 0; c < 4; ++c) {
                out.mutable_at(static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(c)) =
                    segments[k][c];
              }
            }
            return out;
          },
          py::arg("index"),
          "Environment `index` from the side: segments (x0, z0, x1, z1) [m] of the wheels' rims "
          "and spokes and the chassis.")
      .def(
          "surface_z",
          [](const RoverEnvBatch& b, int i, double x, double y) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("no such environment");
            return b.surface_z(i, x, y);
          },
          py::arg("index"), py::arg("x_m"), py::arg("y_m"))
      .def(
          "info",
          [](const RoverEnvBatch& b) {
            const auto n = static_cast<py::ssize_t>(b.num_envs());
            py::array_t<std::int64_t> steps(n);
            py::array_t<double> sim_time(n), ret(n), energy(n), progress(n);
            py::array_t<bool> goal(n), left(n);
            py::list reasons;
            for (py::ssize_t i = 0; i < n; ++i) {
              const RoverEnvSlot& s = b.slot(static_cast<int>(i));
              steps.mutable_at(i) = s.steps;
              sim_time.mutable_at(i) = s.sim->time_s();
              ret.mutable_at(i) = s.episode_return;
              energy.mutable_at(i) = s.energy_J;
              progress.mutable_at(i) = s.progress_m;
              goal.mutable_at(i) = s.reached_goal;
              left.mutable_at(i) = s.left_map;
              reasons.append(s.stop_reason);
            }
            py::dict d;
            d["steps"] = steps;
            d["sim_time_s"] = sim_time;
            d["episode_return"] = ret;
            d["energy_J"] = energy;
            d["progress_m"] = progress;
            d["reached_goal"] = goal;
            d["left_map"] = left;
            d["stop_reason"] = reasons;
            return d;
          },
          "Per environment (arrays): steps, sim_time_s, episode_return, energy_J and progress_m "
          "of the last step, reached_goal, left_map; stop_reason (a list of str, empty unless the "
          "coupled "
          "simulation failed).");
}

}  // namespace talus::python
