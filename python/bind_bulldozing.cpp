// Bulldozing-v0's world and batch (particles/bulldozing_*.hpp), bound into talus.particles.
// Observations cross the boundary in arrays the caller owns (talus.envs writes into one
// preallocated batch).

#include <memory>

#include "bind_common.hpp"
#include "particles/bulldozing_env_batch.hpp"
#include "robot/dynamic_bulldozer.hpp"

namespace talus::python {

using namespace talus::particles;

namespace {

using F32 = py::array_t<float, py::array::c_style>;

#define TALUS_OPTION(name) .def_readwrite(#name, &BulldozingOptions::name)

void bind_bulldozing_options(py::module_& p) {
  py::class_<BulldozingOptions>(p, "BulldozingOptions",
                                "Bulldozing-v0's options (particles/bulldozing_world.hpp).")
      .def(py::init<>())
      // clang-format off
      TALUS_OPTION(mesh_path) TALUS_OPTION(mesh_sdf_cell_m) TALUS_OPTION(particle_count)
      TALUS_OPTION(particle_radius_m) TALUS_OPTION(density_kg_per_m3) TALUS_OPTION(friction) TALUS_OPTION(rotation) TALUS_OPTION(rolling_friction)
      TALUS_OPTION(heap_slope_deg) TALUS_OPTION(time_step_s) TALUS_OPTION(steps_per_action)
      TALUS_OPTION(iterations) TALUS_OPTION(neighbour_skin_radii) TALUS_OPTION(episode_s) TALUS_OPTION(vehicle) TALUS_OPTION(vehicle_mjcf_path) TALUS_OPTION(max_speed_m_per_s)
      TALUS_OPTION(max_yaw_rate_rad_per_s) TALUS_OPTION(arena_length_m)
      TALUS_OPTION(arena_width_m) TALUS_OPTION(wall_height_m) TALUS_OPTION(heap_centre_m)
      TALUS_OPTION(heap_offset_m) TALUS_OPTION(goal_lo_m) TALUS_OPTION(goal_hi_m)
      TALUS_OPTION(start_lo_m) TALUS_OPTION(start_hi_m) TALUS_OPTION(start_yaw_max_rad) TALUS_OPTION(ego_width_px)
      TALUS_OPTION(ego_height_px) TALUS_OPTION(ego_fov_y_rad) TALUS_OPTION(ego_pitch_down_rad)
      TALUS_OPTION(p_BC_ego_m) TALUS_OPTION(ego_max_range_m) TALUS_OPTION(sky_width_px)
      TALUS_OPTION(sky_height_px) TALUS_OPTION(sky_camera_z_m) TALUS_OPTION(threads)
      // clang-format on
      .def("validate", [](const BulldozingOptions& o) { validate(o); });
}

#undef TALUS_OPTION

BulldozingObservations observations_of(const BulldozingEnvBatch& b, F32& ego, F32& sky, F32& pose,
                                       py::ssize_t n) {
  const BulldozingOptions& o = b.world().options;
  return {checked(ego, {n, o.ego_height_px, o.ego_width_px}, "ego"),
          checked(sky, {n, o.sky_height_px, o.sky_width_px}, "sky"), checked(pose, {n, 3}, "pose")};
}

void bind_bulldozing_batch(py::module_& p) {
  py::class_<BulldozingWorld, std::shared_ptr<BulldozingWorld>>(
      p, "BulldozingWorld", "The arena, the bulldozer and the settled heap, shared by a batch.")
      .def(py::init([](const BulldozingOptions& o) {
             py::gil_scoped_release release;
             return std::const_pointer_cast<BulldozingWorld>(make_bulldozing_world(o));
           }),
           py::arg("options"))
      .def_readonly("options", &BulldozingWorld::options)
      .def_readonly("settle_steps", &BulldozingWorld::settle_steps)
      .def_readonly("bounding_radius_m", &BulldozingWorld::bounding_radius_m)
      .def_property_readonly(
          "heap_top_m",
          [](const BulldozingWorld& w) {
            double top = 0.0;
            const ParticleState& s = w.settled_heap;
            for (std::size_t i = 0; i < s.size(); ++i) {
              top = std::max(top, double(s.z_m[i] + s.radius_m[i]));
            }
            return top;
          },
          "The settled heap's highest particle top [m].");

  py::class_<BulldozingEnvBatch>(p, "BulldozingEnvBatch",
                                 "N Bulldozing-v0 environments stepped in one call.")
      .def(py::init([](std::shared_ptr<BulldozingWorld> world, int n) {
             const bool dynamic = world->options.vehicle == "dynamic";
             return std::make_unique<BulldozingEnvBatch>(
                 std::move(world), n,
                 dynamic ? robot::dynamic_bulldozer_factory() : VehicleFactory{});
           }),
           py::arg("world"), py::arg("num_envs"))
      .def_property_readonly("num_envs", &BulldozingEnvBatch::num_envs)
      .def_property_readonly("max_steps", &BulldozingEnvBatch::max_steps)
      .def(
          "reset",
          [](BulldozingEnvBatch& b, py::array_t<std::uint64_t, py::array::c_style>& seeds, F32& ego,
             F32& sky, F32& pose) {
            const py::ssize_t n = b.num_envs();
            const std::uint64_t* s = checked(seeds, {n}, "seeds");
            const BulldozingObservations out = observations_of(b, ego, sky, pose, n);
            py::gil_scoped_release release;
            b.reset({s, static_cast<std::size_t>(n)}, out);
          },
          py::arg("seeds"), py::arg("ego"), py::arg("sky"), py::arg("pose"))
      .def(
          "redraw",
          [](BulldozingEnvBatch& b, int i, F32& ego, F32& sky, F32& pose) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("redraw: no such env");
            const BulldozingObservations all = observations_of(b, ego, sky, pose, b.num_envs());
            b.redraw(i, all);
          },
          py::arg("index"), py::arg("ego"), py::arg("sky"), py::arg("pose"))
      .def(
          "step",
          [](BulldozingEnvBatch& b, py::array_t<double, py::array::c_style>& actions, F32& ego,
             F32& sky, F32& pose, py::array_t<double, py::array::c_style>& rewards,
             py::array_t<bool, py::array::c_style>& terminated,
             py::array_t<bool, py::array::c_style>& truncated, int threads) {
            const py::ssize_t n = b.num_envs();
            const double* act = checked(actions, {n, 2}, "actions");
            const BulldozingObservations out = observations_of(b, ego, sky, pose, n);
            double* r = checked(rewards, {n}, "rewards");
            auto* te = reinterpret_cast<std::uint8_t*>(checked(terminated, {n}, "terminated"));
            auto* tr = reinterpret_cast<std::uint8_t*>(checked(truncated, {n}, "truncated"));
            py::gil_scoped_release release;
            b.step({act, static_cast<std::size_t>(2 * n)}, out, r, te, tr, threads);
          },
          py::arg("actions"), py::arg("ego"), py::arg("sky"), py::arg("pose"), py::arg("rewards"),
          py::arg("terminated"), py::arg("truncated"), py::arg("threads") = 1)
      .def(
          "info",
          [](const BulldozingEnvBatch& b) {
            const auto n = static_cast<py::ssize_t>(b.num_envs());
            py::array_t<std::int64_t> steps(n), in_goal(n);
            py::array_t<double> sim_time(n), fraction(n), ret(n), force(n);
            py::list reasons;
            for (py::ssize_t i = 0; i < n; ++i) {
              const BulldozingSlot& s = b.slot(static_cast<int>(i));
              steps.mutable_at(i) = s.steps;
              in_goal.mutable_at(i) = static_cast<std::int64_t>(s.in_goal);
              sim_time.mutable_at(i) = s.particles.time_s;
              fraction.mutable_at(i) =
                  double(s.in_goal) /
                  static_cast<double>(std::max<std::size_t>(1, s.particles.size()));
              ret.mutable_at(i) = s.episode_return;
              force.mutable_at(i) = s.body_wrench.f_W.norm();
              reasons.append(s.stop_reason);
            }
            py::dict d;
            d["steps"] = steps;
            d["particles_in_goal"] = in_goal;
            d["in_goal_fraction"] = fraction;
            d["sim_time_s"] = sim_time;
            d["episode_return"] = ret;
            d["body_force_N"] = force;
            d["stop_reason"] = reasons;
            return d;
          },
          "Per environment (arrays): steps, particles_in_goal, in_goal_fraction, sim_time_s, "
          "episode_return, body_force_N (the particles' force on the bulldozer at the last "
          "particle step); stop_reason (a list of str, empty unless the simulation diverged).")
      .def(
          "sky_image",
          [](const BulldozingEnvBatch& b, int i, int width, int height) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("sky_image: no such env");
            DepthImage image;
            {
              py::gil_scoped_release release;
              image = b.sky_image(i, width, height);
            }
            py::array_t<float> out({image.height, image.width});
            std::copy(image.depth_m.begin(), image.depth_m.end(), out.mutable_data());
            return out;
          },
          py::arg("index"), py::arg("width_px"), py::arg("height_px"),
          "Environment `index`'s sky depth image [m] at another size (height, width).")
      .def(
          "particle_positions",
          [](const BulldozingEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("no such env");
            const ParticleState& s = b.slot(i).particles;
            py::array_t<float> out({static_cast<py::ssize_t>(s.size()), py::ssize_t{3}});
            for (std::size_t k = 0; k < s.size(); ++k) {
              const auto r = static_cast<py::ssize_t>(k);
              out.mutable_at(r, 0) = s.x_m[k];
              out.mutable_at(r, 1) = s.y_m[k];
              out.mutable_at(r, 2) = s.z_m[k];
            }
            return out;
          },
          py::arg("index"), "Environment `index`'s particle centres [m], (n, 3) float32.")
      .def(
          "pose_of",
          [](const BulldozingEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("no such env");
            const BulldozingSlot& s = b.slot(i);
            return py::make_tuple(s.x_m, s.y_m, s.yaw_rad);
          },
          py::arg("index"), "Environment `index`'s bulldozer (x [m], y [m], yaw [rad]) in double.")
      .def(
          "body_pose",
          [](const BulldozingEnvBatch& b, int i) -> Eigen::Matrix4d {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("no such env");
            return b.slot(i).vehicle->pose().matrix();
          },
          py::arg("index"), "Environment `index`'s bulldozer pose X_WB as a 4 x 4 matrix [m].")
      .def(
          "kinetic_energy_J",
          [](const BulldozingEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("no such env");
            return kinetic_energy_J(b.slot(i).particles);
          },
          py::arg("index"));
}

}  // namespace

void bind_bulldozing(py::module_& p) {
  bind_bulldozing_options(p);
  bind_bulldozing_batch(p);
}

}  // namespace talus::python
