// Python bindings of the particle tier (talus.particles): build a bed (lattice or random), a Model
// with a container and bodies, and step a State with the bodies posed from Python (step) or moved
// by drivers (Simulation). talus.particles.ContactTier is the tier as a talus.ContactTier, for
// two-way coupling with a MuJoCo robot (talus.CoupledSim).
//
// Per-particle arrays and body wrenches are returned as numpy COPIES, and written by assigning a
// whole array (state.x_m = a): the step swaps each state array with a workspace buffer and add()
// reallocates, so a view into them would go stale or dangle; a copy of 50,000 floats costs
// microseconds next to a step's milliseconds.

#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <optional>

#include "core/driver.hpp"
#include "core/scenario_file.hpp"
#include "particles/depth_camera.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_bed_random.hpp"
#include "particles/particle_contact_tier.hpp"
#include "particles/particle_io.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_scenario.hpp"
#include "particles/particle_state.hpp"
#include "particles/particle_step.hpp"
#include "particles/repose_angle.hpp"
#include "python/bind_common.hpp"

namespace py = pybind11;
using namespace talus;
using namespace talus::particles;

namespace {

// A model, its state and drivers, and the working memory of the step: what a Python user steps.
struct ParticleSimulation {
  ParticleModel model;
  ParticleState state;
  std::vector<Driver> drivers;
  ParticleWorkspace workspace;
};

py::array_t<float> float_copy(const std::vector<float>& v) {
  py::array_t<float> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// Assigns a whole per-particle array; its length must be the particle count.
void assign_floats(std::vector<float>& v,
                   const py::array_t<float, py::array::c_style | py::array::forcecast>& a,
                   const char* name) {
  if (a.ndim() != 1 || static_cast<std::size_t>(a.shape(0)) != v.size()) {
    throw std::invalid_argument(std::string(name) + ": expected a 1-D array of " +
                                std::to_string(v.size()) + " values (one per particle)");
  }
  std::copy(a.data(), a.data() + a.shape(0), v.begin());
}

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// The per-particle arrays (read-write properties of copies) and the body wrenches of the state
// that `get` returns from an Owner (the State itself, or a Simulation's).
template <class Owner, class GetState>
void def_particle_arrays(py::class_<Owner>& cls, GetState get) {
  const auto array = [&cls, get](const char* name, std::vector<float> ParticleState::*field,
                                 const char* doc) {
    cls.def_property(
        name, [get, field](Owner& o) { return float_copy(get(o).*field); },
        [get, field, name](Owner& o, const FloatArray& a) {
          assign_floats(get(o).*field, a, name);
        },
        doc);
  };
  array("x_m", &ParticleState::x_m, "Centre x [m] (a copy; assign a whole array to write).");
  array("y_m", &ParticleState::y_m, "Centre y [m] (a copy; assign a whole array to write).");
  array("z_m", &ParticleState::z_m, "Centre z [m] (a copy; assign a whole array to write).");
  array("vx_m_per_s", &ParticleState::vx_m_per_s, "Velocity x [m/s] (a copy).");
  array("vy_m_per_s", &ParticleState::vy_m_per_s, "Velocity y [m/s] (a copy).");
  array("vz_m_per_s", &ParticleState::vz_m_per_s, "Velocity z [m/s] (a copy).");
  array("wx_rad_per_s", &ParticleState::wx_rad_per_s, "Angular velocity x [rad/s] (a copy).");
  array("wy_rad_per_s", &ParticleState::wy_rad_per_s, "Angular velocity y [rad/s] (a copy).");
  array("wz_rad_per_s", &ParticleState::wz_rad_per_s, "Angular velocity z [rad/s] (a copy).");
  cls.def_property_readonly(
      "radius_m", [get](Owner& o) { return float_copy(get(o).radius_m); }, "Radii [m] (a copy).");
  cls.def_property_readonly(
      "id",
      [get](Owner& o) {
        const ParticleState& s = get(o);
        py::array_t<std::uint32_t> ids(static_cast<py::ssize_t>(s.size()));
        for (std::size_t i = 0; i < s.size(); ++i)
          ids.mutable_data()[i] = static_cast<std::uint32_t>(s.id_of(i));
        return ids;
      },
      "Each particle's identity (a copy): its index in the order the particles were made. Equal "
      "to the index until a step sorts the particles (Model.sort_every_steps).");
  cls.def_property_readonly(
      "wrenches", [get](Owner& o) { return python::wrench_array(get(o).body_wrenches); },
      "(bodies, 3, 3) copy of the last step's wrenches of the particles on each body: [b, 0] "
      "force f_W [N], [b, 1] torque tau_W [N m] about [b, 2] = p_W [m].");
}

// State, its arrays, snapshots and state files.
void bind_state(py::module_& p) {
  py::class_<ParticleState> state_class(
      p, "State",
      "Particles as float32 arrays (SoA), time, step count, the last step's body wrenches and "
      "contacts (the next step's warm start): everything that changes while stepping. copy() is a "
      "snapshot that continues bit for bit like the original.");
  state_class.def(py::init<>())
      .def("__len__", &ParticleState::size)
      .def("add", &ParticleState::add, py::arg("p_W"), py::arg("v_W"), py::arg("radius_m"),
           py::arg("mass_kg"), py::arg("w_W") = Vec3::Zero())
      .def_readonly("time_s", &ParticleState::time_s)
      .def_readonly("step", &ParticleState::step)
      .def("kinetic_energy_J", [](const ParticleState& s) { return kinetic_energy_J(s); })
      .def_property_readonly("mass_kg",
                             [](const ParticleState& s) {
                               py::array_t<double> mass(static_cast<py::ssize_t>(s.size()));
                               auto v = mass.mutable_unchecked<1>();
                               for (std::size_t i = 0; i < s.size(); ++i) {
                                 v(static_cast<py::ssize_t>(i)) = 1.0 / s.inv_mass_per_kg[i];
                               }
                               return mass;
                             })
      .def(
          "save",
          [](const ParticleState& s, const std::filesystem::path& path) {
            save_particle_state(s, path);
          },
          "Writes positions, velocities, radii, masses and angular velocities (not the warm-start "
          "contacts: a loaded "
          "state's first step starts its solve cold).");
  def_particle_arrays(state_class, [](ParticleState& s) -> ParticleState& { return s; });
  python::def_copy(state_class);
  p.def("load_state", &load_particle_state, py::arg("path"),
        "Reads a state saved with ParticleState.save (checked: magic, version, size, checksum).");
}

// Lattice and random beds.
void bind_beds(py::module_& p) {
  p.def(
      "make_lattice_bed",
      [](const Vec3& lo, const Vec3& hi, double radius, double density, double spacing,
         double jitter, std::uint64_t seed, double cyl_r, const Vec2& cyl_xy, std::size_t max_n) {
        LatticeBed b;
        b.region = Aabb{lo, hi};
        b.radius_m = radius;
        b.density_kg_per_m3 = density;
        b.spacing_factor = spacing;
        b.jitter = jitter;
        b.seed = seed;
        b.cylinder_radius_m = cyl_r;
        b.cylinder_axis_xy_m = cyl_xy;
        b.max_particles = max_n;
        return make_lattice_bed(b);
      },
      py::arg("lo_m"), py::arg("hi_m"), py::arg("radius_m"), py::arg("density_kg_per_m3") = 1631.0,
      py::arg("spacing_factor") = 1.02, py::arg("jitter") = 0.5, py::arg("seed") = 1,
      py::arg("cylinder_radius_m") = 0.0, py::arg("cylinder_axis_xy_m") = Vec2::Zero(),
      py::arg("max_particles") = 0);
  p.def(
      "make_random_bed",
      [](const Vec3& lo, const Vec3& hi, std::size_t count, double radius, double spread,
         double density, std::uint64_t seed, double cyl_r, const Vec2& cyl_xy) {
        RandomBed b;
        b.region = Aabb{lo, hi};
        b.count = count;
        b.radius_m = radius;
        b.radius_spread = spread;
        b.density_kg_per_m3 = density;
        b.seed = seed;
        b.cylinder_radius_m = cyl_r;
        b.cylinder_axis_xy_m = cyl_xy;
        return make_random_bed(b);
      },
      py::arg("lo_m"), py::arg("hi_m"), py::arg("count"), py::arg("radius_m"),
      py::arg("radius_spread") = 0.0, py::arg("density_kg_per_m3") = 1631.0, py::arg("seed") = 1,
      py::arg("cylinder_radius_m") = 0.0, py::arg("cylinder_axis_xy_m") = Vec2::Zero(),
      "Random sequential insertion of `count` non-overlapping particles at rest.");
}

// Sets the model's container with `set` and validates the model; a container it refuses (lo not
// below hi, a radius <= 0, ...) is not kept: the model keeps its previous one.
template <class Set>
void set_container_checked(ParticleModel& model, Set set) {
  const Container before = model.container;
  set(model.container);
  try {
    validate(model);
  } catch (...) {
    model.container = before;
    throw;
  }
}

// Model: every field the scenario files set, checked as it is set.
void bind_model(py::module_& p) {
  py::enum_<Broadphase>(p, "Broadphase")
      .value("sorted_cells", Broadphase::kSortedCells)
      .value("linked_hash", Broadphase::kLinkedHash);
  py::class_<ParticleModel> model_class(
      p, "Model",
      "Parameters of the particle tier; each attribute is checked as it is set, by the rules the "
      "scenario reader applies (ValueError naming the field).");
  const auto check = [](const ParticleModel& mo) { validate(mo); };
  model_class.def(py::init<>());
  python::def_copy(model_class);
  python::def_checked(model_class, "gravity_m_per_s2", &ParticleModel::gravity_m_per_s2, check);
  python::def_checked(model_class, "time_step_s", &ParticleModel::time_step_s, check);
  python::def_checked(model_class, "iterations", &ParticleModel::iterations, check);
  python::def_checked(model_class, "baumgarte", &ParticleModel::baumgarte, check);
  python::def_checked(model_class, "friction", &ParticleModel::friction, check);
  python::def_checked(model_class, "wall_friction", &ParticleModel::wall_friction, check);
  python::def_checked(model_class, "body_friction", &ParticleModel::body_friction, check);
  python::def_checked(model_class, "rotation", &ParticleModel::rotation, check,
                      "Whether grains rotate (default True); False is paper 001's model.");
  python::def_checked(model_class, "rolling_friction", &ParticleModel::rolling_friction, check);
  python::def_checked(
      model_class, "sort_every_steps", &ParticleModel::sort_every_steps, check,
      "Every this many steps the step puts the particles in spatial order (0, the default: "
      "never); State.id names each particle across sorts.");
  python::def_checked(model_class, "threads", &ParticleModel::threads, check,
                      "OpenMP threads for the step, 0 (the OpenMP default) to 1024.");
  python::def_checked(model_class, "expected_speed_m_per_s", &ParticleModel::expected_speed_m_per_s,
                      check);
  python::def_checked(model_class, "max_kinetic_energy_J", &ParticleModel::max_kinetic_energy_J,
                      check);
  python::def_checked(model_class, "periodic_axis", &ParticleModel::periodic_axis, check);
  python::def_checked(model_class, "max_pushout_speed_m_per_s",
                      &ParticleModel::max_pushout_speed_m_per_s, check);
  python::def_checked(model_class, "relaxation", &ParticleModel::relaxation, check);
  python::def_checked(model_class, "warm_start", &ParticleModel::warm_start, check);
  python::def_checked(model_class, "contact_margin_m", &ParticleModel::contact_margin_m, check);
  python::def_checked(model_class, "overlap_tolerance", &ParticleModel::overlap_tolerance, check);
  python::def_checked(model_class, "hash_table_factor", &ParticleModel::hash_table_factor, check);
  python::def_checked(
      model_class, "broadphase", &ParticleModel::broadphase, check,
      "talus.particles.Broadphase.sorted_cells (default) or .linked_hash (paper 001 Algorithm "
      "2); results do not depend on it.");
  python::def_checked(
      model_class, "neighbour_skin_radii", &ParticleModel::neighbour_skin_radii, check,
      "Verlet-list skin in largest radii (0: search the hash every step); results do not "
      "depend on it, only the time does.");
  model_class
      .def(
          "set_box_container",
          [](ParticleModel& mo, const Vec3& lo, const Vec3& hi) {
            set_container_checked(mo, [&](Container& c) {
              c.kind = Container::Kind::kBox;
              c.box = Aabb{lo, hi};
            });
          },
          py::arg("lo_m"), py::arg("hi_m"))
      .def(
          "set_cylinder_container",
          [](ParticleModel& mo, double radius, double z_lo, double z_hi, const Vec2& axis) {
            set_container_checked(mo, [&](Container& c) {
              c.kind = Container::Kind::kCylinder;
              c.cylinder_radius_m = radius;
              c.cylinder_axis_xy_m = axis;
              c.box = Aabb{Vec3(axis.x() - radius, axis.y() - radius, z_lo),
                           Vec3(axis.x() + radius, axis.y() + radius, z_hi)};
            });
          },
          py::arg("radius_m"), py::arg("z_lo_m"), py::arg("z_hi_m"),
          py::arg("axis_xy_m") = Vec2::Zero())
      .def("set_no_container",
           [](ParticleModel& mo) { mo.container.kind = Container::Kind::kNone; })
      .def_property_readonly("body_count", [](const ParticleModel& mo) { return mo.bodies.size(); })
      .def_readwrite("bodies", &ParticleModel::bodies,
                     "The bodies (talus.CoupledBody) a ContactTier couples: e.g. "
                     "talus.tier_bodies(links).");
}

// The tier as a talus.ContactTier (two-way coupling with a robot).
void bind_contact_tier(py::module_& p) {
  py::class_<ParticleContactTier, ContactTier>(
      p, "ContactTier",
      "The particle tier as a talus.ContactTier (two-way coupling with talus.CoupledSim): its "
      "bodies are model.bodies; each coupled step is one particle step of model.time_step_s.")
      .def(py::init([](ParticleModel model, ParticleState state) {
             return std::make_unique<ParticleContactTier>(std::move(model), std::move(state));
           }),
           py::arg("model"), py::arg("state"),
           "Checks model and state (ValueError naming the field or particle).")
      .def(
          "settle",
          [](ParticleContactTier& t, const std::vector<Eigen::Matrix4d>& X_WB,
             double ke_per_particle, long max_steps) {
            std::vector<BodyMotion> held;
            for (const Eigen::Matrix4d& X : X_WB) {
              held.push_back(BodyMotion{talus::python::matrix_to_pose(X), Twist{}});
            }
            SettleOptions o;
            o.kinetic_energy_per_particle_J = ke_per_particle;
            o.max_steps = max_steps;
            const SettleResult r = t.settle(held, o);
            return py::make_tuple(r.steps, r.at_rest, r.kinetic_energy_per_particle_J);
          },
          py::arg("X_WB"), py::arg("kinetic_energy_per_particle_J") = 1e-8,
          py::arg("max_steps") = 10000,
          "Steps with the bodies held still at poses X_WB (a 4x4 matrix per body) until at rest; "
          "returns (steps, at_rest, ke).")
      .def_property_readonly("model", &ParticleContactTier::model,
                             py::return_value_policy::reference_internal)
      .def_property_readonly("state", &ParticleContactTier::state,
                             py::return_value_policy::reference_internal);
  p.def("free_surface_z_m", &free_surface_z_m, py::arg("state"),
        "Median over columns of two diameters of the highest particle top [m].");
}

// Simulation: model, state and drivers stepped together.
void bind_simulation(py::module_& p) {
  py::class_<ParticleSimulation> simulation(
      p, "Simulation", "A model, its particles and the bodies' drivers, stepped together.");
  def_particle_arrays(simulation, [](ParticleSimulation& s) -> ParticleState& { return s.state; });
  simulation
      .def(py::init([](ParticleModel model, ParticleState state) {
             return ParticleSimulation{std::move(model), std::move(state), {}, {}};
           }),
           py::arg("model"), py::arg("state"))
      .def(
          "add_body",
          [](ParticleSimulation& s, const std::string& name, const Shape& shape,
             const Driver& driver, const Vec3& p_BR) {
            validate(driver);
            s.model.bodies.push_back(CoupledBody{name, shape, p_BR});
            s.drivers.push_back(driver);
            return s.model.bodies.size() - 1;
          },
          py::arg("name"), py::arg("shape"), py::arg("driver"),
          py::arg("reference_point_m") = Vec3::Zero(),
          "Adds a kinematically driven body; returns its index (its row in `wrenches`).")
      .def(
          "check", [](const ParticleSimulation& s) { check_initial_state(s.model, s.state); },
          "validate(model) and check_initial_state(model, state): raises ValueError naming the "
          "field or particle.")
      .def(
          "step",
          [](ParticleSimulation& s, int steps) {
            for (int k = 0; k < steps; ++k) {
              const std::vector<BodyMotion> motions = motions_at(s.drivers, s.state.time_s);
              step(s.model, s.state, motions, s.workspace);
            }
          },
          py::arg("steps") = 1, py::call_guard<py::gil_scoped_release>(),
          "Takes `steps` steps with the bodies at their drivers' poses and twists.")
      .def(
          "settle",
          [](ParticleSimulation& s, double ke_per_particle, long max_steps) {
            SettleOptions o;
            o.kinetic_energy_per_particle_J = ke_per_particle;
            o.max_steps = max_steps;
            std::vector<BodyMotion> held = motions_at(s.drivers, s.state.time_s);
            for (BodyMotion& mo : held) mo.V_WB = Twist{};
            SettleResult r;
            {
              py::gil_scoped_release unlocked;  // the tuple below needs the GIL again
              r = settle(s.model, s.state, held, s.workspace, o);
            }
            return py::make_tuple(r.steps, r.at_rest, r.kinetic_energy_per_particle_J);
          },
          py::arg("kinetic_energy_per_particle_J") = 1e-8, py::arg("max_steps") = 10000,
          "Steps with the bodies held still until at rest; returns (steps, at_rest, ke).")
      .def_readonly("model", &ParticleSimulation::model)
      .def_property_readonly(
          "state", [](ParticleSimulation& s) -> ParticleState& { return s.state; },
          py::return_value_policy::reference_internal)
      .def_property_readonly("time_s", [](const ParticleSimulation& s) { return s.state.time_s; })
      .def(
          "repose_angle_deg",
          [](const ParticleSimulation& s, double ground_z) {
            ReposeOptions o;
            o.ground_z_m = ground_z;
            return measure_repose_angle(s.state, o).angle_deg;
          },
          py::arg("ground_z_m") = 0.0, "Angle of repose of the particles as a pile [deg].");
}

// Workspace and step with the bodies posed from Python.
void bind_step(py::module_& p) {
  py::class_<ParticleWorkspace>(
      p, "Workspace",
      "Scratch memory of the step (hash, neighbour list, solver buffers): reuse one for speed; it "
      "carries no results, so any workspace may step any state.")
      .def(py::init<>());
  p.def(
      "step",
      [](const ParticleModel& model, ParticleState& state, ParticleWorkspace& workspace,
         const std::vector<Eigen::Matrix4d>& X_WB, const std::vector<Twist>& V_WB) {
        const std::vector<BodyMotion> motions =
            python::motions_from(X_WB, V_WB, model.bodies.size(), "body");
        {
          py::gil_scoped_release unlocked;
          step(model, state, motions, workspace);
        }
        return python::wrench_array(state.body_wrenches);
      },
      py::arg("model"), py::arg("state"), py::arg("workspace"),
      py::arg("body_poses") = std::vector<Eigen::Matrix4d>{},
      py::arg("body_twists") = std::vector<Twist>{},
      "One step of model.time_step_s with the bodies (model.bodies) at body_poses (one 4x4 X_WB "
      "each, at the START of the step) moving with body_twists (default at rest). Returns the "
      "wrenches of "
      "the particles on the bodies, (bodies, 3, 3) as State.wrenches. Releases the GIL. Raises "
      "ValueError for a wrong number of poses and RuntimeError (state unchanged) when the step "
      "diverges.");
}

// Sky (orthographic) and perspective depth cameras.
void bind_cameras(py::module_& p) {
  const auto spheres = [](const ParticleState& s) {
    return ParticleSpheres{s.x_m, s.y_m, s.z_m, s.radius_m};
  };
  const auto camera_bodies = [](const ParticleModel& model,
                                const std::vector<Eigen::Matrix4d>& X_WB) {
    if (X_WB.size() != model.bodies.size()) {
      throw std::invalid_argument(std::to_string(X_WB.size()) + " body poses given for " +
                                  std::to_string(model.bodies.size()) + " bodies");
    }
    std::vector<CameraBody> bodies;
    for (std::size_t b = 0; b < X_WB.size(); ++b) {
      bodies.push_back({model.bodies[b].shape, python::matrix_to_pose(X_WB[b])});
    }
    return bodies;
  };
  const auto image_array = [](const DepthImage& image) {
    py::array_t<float> a(
        {static_cast<py::ssize_t>(image.height), static_cast<py::ssize_t>(image.width)});
    std::copy(image.depth_m.begin(), image.depth_m.end(), a.mutable_data());
    return a;
  };
  p.def(
      "sky_depth",
      [=](const ParticleModel& model, const ParticleState& state, const Vec2& lo_m,
          const Vec2& hi_m, double z_camera_m, int width_px, int height_px,
          const std::vector<Eigen::Matrix4d>& X_WB) {
        SkyCamera camera{lo_m.x(), hi_m.x(), lo_m.y(), hi_m.y(), z_camera_m, width_px, height_px};
        // The camera looks down (-z): at or below the container's floor it sees no particle, and
        // an image of +inf everywhere is a mistake (a height for a depth, a sign), not a picture.
        const Container& box = model.container;
        if (box.kind != Container::Kind::kNone && !(z_camera_m > box.box.lo.z())) {
          throw std::invalid_argument(fmt::format(
              "sky_depth: z_camera_m = {} m is not above the container's floor at z = {} m: the "
              "camera looks down (-z) and would see nothing",
              z_camera_m, box.box.lo.z()));
        }
        const std::vector<CameraBody> bodies = camera_bodies(model, X_WB);
        DepthImage image;
        {
          py::gil_scoped_release unlocked;
          image = render_depth(camera, spheres(state), bodies);
        }
        return image_array(image);
      },
      py::arg("model"), py::arg("state"), py::arg("lo_m"), py::arg("hi_m"), py::arg("z_camera_m"),
      py::arg("width_px"), py::arg("height_px"),
      py::arg("body_poses") = std::vector<Eigen::Matrix4d>{},
      "Orthographic depth image looking down (-z) from z_camera_m over the rectangle lo_m..hi_m: "
      "(height_px, width_px) float32 [m], row 0 at y = hi_m (a map with +y up), +inf where "
      "nothing is seen. Bodies are drawn at body_poses (one per model body, or none). Raises "
      "ValueError when z_camera_m is not above the model's container floor.");
  p.def(
      "perspective_depth",
      [=](const ParticleModel& model, const ParticleState& state, const Eigen::Matrix4d& X_WC,
          double fov_y_rad, int width_px, int height_px, double max_range_m,
          const std::vector<Eigen::Matrix4d>& X_WB) {
        PerspectiveCamera camera{python::matrix_to_pose(X_WC), fov_y_rad, width_px, height_px,
                                 max_range_m};
        const std::vector<CameraBody> bodies = camera_bodies(model, X_WB);
        DepthImage image;
        {
          py::gil_scoped_release unlocked;
          image = render_depth(camera, spheres(state), bodies);
        }
        return image_array(image);
      },
      py::arg("model"), py::arg("state"), py::arg("X_WC"), py::arg("fov_y_rad"),
      py::arg("width_px"), py::arg("height_px"),
      py::arg("max_range_m") = std::numeric_limits<double>::infinity(),
      py::arg("body_poses") = std::vector<Eigen::Matrix4d>{},
      "Pinhole depth image from pose X_WC (looking along +z_C, x_C right, y_C down): "
      "(height_px, width_px) float32 distances along z_C [m], +inf where nothing is seen.");
}

// Scenario files read without running them.
void bind_scenario(py::module_& p) {
  py::class_<ParticleScenario>(p, "Scenario",
                               "A particle scenario file, read and checked, not run.")
      .def_readonly("name", &ParticleScenario::name)
      .def_readonly("description", &ParticleScenario::description)
      .def_readonly("model", &ParticleScenario::model)
      .def_readonly("steps", &ParticleScenario::steps, "Steps of the file's main run.")
      .def_property_readonly("body_names",
                             [](const ParticleScenario& sc) {
                               std::vector<std::string> names;
                               for (const CoupledBody& b : sc.model.bodies) names.push_back(b.name);
                               return names;
                             })
      .def(
          "initial_state", [](const ParticleScenario& sc) { return sc.initial; },
          "A fresh State: the bed as the file builds it, before any settling.")
      .def(
          "body_motions",
          [](const ParticleScenario& sc, double t_s) {
            std::vector<Eigen::Matrix4d> poses;
            std::vector<Twist> twists;
            for (const BodyMotion& motion : motions_at(sc.drivers, t_s)) {
              poses.push_back(python::pose_to_matrix(motion.X_WB));
              twists.push_back(motion.V_WB);
            }
            return py::make_tuple(poses, twists);
          },
          py::arg("t_s"),
          "The file's body motions at time t_s: (poses, twists), ready for step(body_poses=..., "
          "body_twists=...).");
  python::def_load(p, &load_particle_scenario, "particle", "particles");
}

}  // namespace

namespace talus::python {
void bind_bulldozing(py::module_& p);  // python/bind_bulldozing.cpp
}

void bind_particles(py::module_& m) {
  py::module_ p = m.def_submodule("particles", "The particle tier (paper 001, GranularGym).");
  bind_state(p);
  bind_beds(p);
  bind_model(p);
  bind_contact_tier(p);
  bind_simulation(p);
  bind_step(p);
  bind_cameras(p);
  bind_scenario(p);
  talus::python::bind_bulldozing(p);
}
