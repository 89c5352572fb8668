// Excavation-v0's world and batch (robot/excavation_*.hpp), bound into talus.robots.
// Observations cross the boundary in arrays the caller owns (talus.envs writes into one
// preallocated batch).

#include <pybind11/stl.h>

#include <memory>

#include "bind_common.hpp"
#include "robot/excavation_env_batch.hpp"

namespace talus::python {

using namespace talus::robot;

namespace {

using F32 = py::array_t<float, py::array::c_style>;

#define TALUS_OPTION(name) .def_readwrite(#name, &ExcavationOptions::name)

void bind_excavation_options(py::module_& m) {
  py::class_<ExcavationOptions>(m, "ExcavationOptions",
                                "Excavation-v0's options (robot/excavation_world.hpp).")
      .def(py::init<>())
      // clang-format off
      TALUS_OPTION(arm_path) TALUS_OPTION(bucket_mesh_path) TALUS_OPTION(tool_body)
      TALUS_OPTION(bucket_sdf_cell_m) TALUS_OPTION(particle_count) TALUS_OPTION(particle_radius_m)
      TALUS_OPTION(density_kg_per_m3) TALUS_OPTION(friction) TALUS_OPTION(rotation) TALUS_OPTION(rolling_friction) TALUS_OPTION(time_step_s)
      TALUS_OPTION(steps_per_action) TALUS_OPTION(iterations) TALUS_OPTION(neighbour_skin_radii)
      TALUS_OPTION(episode_s) TALUS_OPTION(max_joint_speed_rad_per_s) TALUS_OPTION(start_joint_rad)
      TALUS_OPTION(start_noise_rad) TALUS_OPTION(tub_lo_m) TALUS_OPTION(tub_hi_m)
      TALUS_OPTION(tub_wall_height_m) TALUS_OPTION(shaping_weight) TALUS_OPTION(force_limit_N)
      TALUS_OPTION(sky_width_px) TALUS_OPTION(sky_height_px) TALUS_OPTION(sky_camera_z_m)
      TALUS_OPTION(threads)
      // clang-format on
      .def("validate", [](const ExcavationOptions& o) { validate(o); });
}

#undef TALUS_OPTION

ExcavationObservations observations_of(const ExcavationEnvBatch& b, F32& state, F32& sky,
                                       py::ssize_t n) {
  const ExcavationOptions& o = b.world().options;
  return {checked(state, {n, kExcavationStateSize}, "state"),
          checked(sky, {n, o.sky_height_px, o.sky_width_px}, "sky")};
}

const ExcavationEnvBatch& checked_index(const ExcavationEnvBatch& b, int i) {
  if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("no such environment");
  return b;
}

py::array_t<double> points_array(const std::vector<Vec3>& points) {
  py::array_t<double> out({static_cast<py::ssize_t>(points.size()), py::ssize_t{3}});
  for (std::size_t k = 0; k < points.size(); ++k) {
    for (int c = 0; c < 3; ++c) out.mutable_at(static_cast<py::ssize_t>(k), c) = points[k][c];
  }
  return out;
}

void bind_world(py::module_& m) {
  py::class_<ExcavationWorld, std::shared_ptr<ExcavationWorld>>(
      m, "ExcavationWorld", "The arm, the bucket and the settled bed, shared by a batch.")
      .def(py::init([](const ExcavationOptions& o) {
             py::gil_scoped_release release;
             return std::const_pointer_cast<ExcavationWorld>(make_excavation_world(o));
           }),
           py::arg("options"))
      .def_readonly("options", &ExcavationWorld::options)
      .def_readonly("settle_steps", &ExcavationWorld::settle_steps)
      .def_readonly("bed_top_m", &ExcavationWorld::bed_top_m)
      .def_readonly("joint_lo_rad", &ExcavationWorld::joint_lo_rad)
      .def_readonly("joint_hi_rad", &ExcavationWorld::joint_hi_rad)
      .def_property_readonly(
          "cavity_T",
          [](const ExcavationWorld& w) { return py::make_tuple(w.cavity.lo_T, w.cavity.hi_T); },
          "The bucket's cavity (lo, hi) in the tool frame [m].");
}

void bind_excavation_batch(py::module_& m) {
  m.attr("EXCAVATION_STATE_SIZE") = kExcavationStateSize;
  py::class_<ExcavationEnvBatch>(m, "ExcavationEnvBatch",
                                 "N Excavation-v0 environments stepped in one call.")
      .def(py::init([](std::shared_ptr<ExcavationWorld> world, int n) {
             py::gil_scoped_release release;
             return std::make_unique<ExcavationEnvBatch>(std::move(world), n);
           }),
           py::arg("world"), py::arg("num_envs"))
      .def_property_readonly("num_envs", &ExcavationEnvBatch::num_envs)
      .def_property_readonly("max_steps", &ExcavationEnvBatch::max_steps)
      .def(
          "reset",
          [](ExcavationEnvBatch& b, py::array_t<std::uint64_t, py::array::c_style>& seeds,
             F32& state, F32& sky) {
            const py::ssize_t n = b.num_envs();
            const std::uint64_t* s = checked(seeds, {n}, "seeds");
            const ExcavationObservations out = observations_of(b, state, sky, n);
            py::gil_scoped_release release;
            b.reset({s, static_cast<std::size_t>(n)}, out);
          },
          py::arg("seeds"), py::arg("state"), py::arg("sky"))
      .def(
          "redraw",
          [](ExcavationEnvBatch& b, int i, F32& state, F32& sky) {
            checked_index(b, i);
            b.redraw(i, observations_of(b, state, sky, b.num_envs()));
          },
          py::arg("index"), py::arg("state"), py::arg("sky"))
      .def(
          "step",
          [](ExcavationEnvBatch& b, py::array_t<double, py::array::c_style>& actions, F32& state,
             F32& sky, py::array_t<double, py::array::c_style>& rewards,
             py::array_t<bool, py::array::c_style>& terminated,
             py::array_t<bool, py::array::c_style>& truncated, int threads) {
            const py::ssize_t n = b.num_envs();
            const double* act = checked(actions, {n, kArmJoints}, "actions");
            const ExcavationObservations out = observations_of(b, state, sky, n);
            double* r = checked(rewards, {n}, "rewards");
            auto* te = reinterpret_cast<std::uint8_t*>(checked(terminated, {n}, "terminated"));
            auto* tr = reinterpret_cast<std::uint8_t*>(checked(truncated, {n}, "truncated"));
            py::gil_scoped_release release;
            b.step({act, static_cast<std::size_t>(kArmJoints * n)}, out, r, te, tr, threads);
          },
          py::arg("actions"), py::arg("state"), py::arg("sky"), py::arg("rewards"),
          py::arg("terminated"), py::arg("truncated"), py::arg("threads") = 1)
      .def(
          "info",
          [](const ExcavationEnvBatch& b) {
            const auto n = static_cast<py::ssize_t>(b.num_envs());
            py::array_t<std::int64_t> steps(n), held(n), in_bucket(n);
            py::array_t<double> sim_time(n), ret(n), held_kg(n), in_bucket_kg(n), force(n);
            py::list reasons;
            for (py::ssize_t i = 0; i < n; ++i) {
              const ExcavationSlot& s = b.slot(static_cast<int>(i));
              steps.mutable_at(i) = s.steps;
              sim_time.mutable_at(i) = s.particles.time_s;
              ret.mutable_at(i) = s.episode_return;
              held.mutable_at(i) = static_cast<std::int64_t>(s.load.held);
              in_bucket.mutable_at(i) = static_cast<std::int64_t>(s.load.in_bucket);
              held_kg.mutable_at(i) = s.load.held_kg;
              in_bucket_kg.mutable_at(i) = s.load.in_bucket_kg;
              force.mutable_at(i) = s.wrench.f_W.norm();
              reasons.append(s.stop_reason);
            }
            py::dict d;
            d["steps"] = steps;
            d["sim_time_s"] = sim_time;
            d["episode_return"] = ret;
            d["held_kg"] = held_kg;
            d["held_particles"] = held;
            d["in_bucket_kg"] = in_bucket_kg;
            d["in_bucket_particles"] = in_bucket;
            d["tool_force_N"] = force;
            d["stop_reason"] = reasons;
            return d;
          },
          "Per environment (arrays): steps, sim_time_s, episode_return, held_kg and "
          "held_particles (in the bucket above the bed), in_bucket_kg and in_bucket_particles, "
          "tool_force_N (mean over the last step); stop_reason (a list of str: the force limit, "
          "the floor or a divergence; empty otherwise).")
      .def(
          "sky_image",
          [](const ExcavationEnvBatch& b, int i, int width, int height) {
            checked_index(b, i);
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
          "arm_points",
          [](const ExcavationEnvBatch& b, int i) {
            return points_array(checked_index(b, i).arm_points(i));
          },
          py::arg("index"), "The arm's body origins, base to tool, (k, 3) [m].")
      .def(
          "bucket_corners",
          [](const ExcavationEnvBatch& b, int i) {
            const ExcavationSlot& s = checked_index(b, i).slot(i);
            std::vector<Vec3> corners;
            for (const Vec3& c : b.world().bucket_corners_T) corners.push_back(s.X_WT * c);
            return points_array(corners);
          },
          py::arg("index"), "The bucket's bounding-box corners in W, (8, 3) [m].")
      .def(
          "particle_positions",
          [](const ExcavationEnvBatch& b, int i) {
            const particles::ParticleState& s = checked_index(b, i).slot(i).particles;
            py::array_t<float> out({static_cast<py::ssize_t>(s.size()), py::ssize_t{3}});
            for (std::size_t k = 0; k < s.size(); ++k) {
              const auto r = static_cast<py::ssize_t>(k);
              out.mutable_at(r, 0) = s.x_m[k];
              out.mutable_at(r, 1) = s.y_m[k];
              out.mutable_at(r, 2) = s.z_m[k];
            }
            return out;
          },
          py::arg("index"), "Environment `index`'s particle centres [m], (n, 3) float32.");
}

}  // namespace

void bind_excavation_env(py::module_& m) {
  bind_excavation_options(m);
  bind_world(m);
  bind_excavation_batch(m);
}

}  // namespace talus::python
