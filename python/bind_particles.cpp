// Python bindings of the particle tier: build a bed (lattice or random), a model with a container
// and driven bodies, step it, and read positions, velocities and body wrenches as numpy views of
// the float32 state arrays (no copies). talus.particles.ContactTier is the particle tier as a
// talus.ContactTier, for two-way coupling with a MuJoCo robot (talus.CoupledSim).
//
// The step swaps each state array with a buffer of the same size in the simulation's workspace,
// so a view reads the current values only until the next step: read the properties again after
// stepping. An old view stays memory-safe (it keeps the simulation alive and points at the
// workspace's buffer) but no longer follows the state.

#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "core/driver.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_bed_random.hpp"
#include "particles/particle_contact_tier.hpp"
#include "particles/particle_io.hpp"
#include "particles/particle_model.hpp"
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

py::array_t<float> float_view(std::vector<float>& v, py::handle owner) {
  return py::array_t<float>({static_cast<py::ssize_t>(v.size())},
                            {static_cast<py::ssize_t>(sizeof(float))}, v.data(), owner);
}

static_assert(sizeof(Wrench) == 9 * sizeof(double), "Wrench must be three packed Vec3");

}  // namespace

void bind_particles(py::module_& m) {
  py::module_ p = m.def_submodule("particles", "The particle tier (paper 001, GranularGym).");

  py::class_<ParticleState>(p, "ParticleState", "Particles as float32 arrays (SoA).")
      .def(py::init<>())
      .def("__len__", &ParticleState::size)
      .def("add", &ParticleState::add, py::arg("p_W"), py::arg("v_W"), py::arg("radius_m"),
           py::arg("mass_kg"))
      .def_readonly("time_s", &ParticleState::time_s)
      .def_readonly("step", &ParticleState::step)
      .def("kinetic_energy_J", [](const ParticleState& s) { return kinetic_energy_J(s); })
      .def_property_readonly(
          "x_m", [](py::object self) { return float_view(self.cast<ParticleState&>().x_m, self); })
      .def_property_readonly(
          "y_m", [](py::object self) { return float_view(self.cast<ParticleState&>().y_m, self); })
      .def_property_readonly(
          "z_m", [](py::object self) { return float_view(self.cast<ParticleState&>().z_m, self); })
      .def_property_readonly(
          "vx_m_per_s",
          [](py::object self) { return float_view(self.cast<ParticleState&>().vx_m_per_s, self); })
      .def_property_readonly(
          "vy_m_per_s",
          [](py::object self) { return float_view(self.cast<ParticleState&>().vy_m_per_s, self); })
      .def_property_readonly(
          "vz_m_per_s",
          [](py::object self) { return float_view(self.cast<ParticleState&>().vz_m_per_s, self); })
      .def_property_readonly("mass_kg",
                             [](const ParticleState& s) {
                               py::array_t<double> mass(static_cast<py::ssize_t>(s.size()));
                               auto v = mass.mutable_unchecked<1>();
                               for (std::size_t i = 0; i < s.size(); ++i) {
                                 v(static_cast<py::ssize_t>(i)) = 1.0 / s.inv_mass_per_kg[i];
                               }
                               return mass;
                             })
      .def("save", [](const ParticleState& s, const std::filesystem::path& path) {
        save_particle_state(s, path);
      });
  p.def("load_state", &load_particle_state, py::arg("path"),
        "Reads a state saved with ParticleState.save (checked: magic, version, size, checksum).");

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

  py::class_<ParticleModel> model_class(
      p, "ParticleModel",
      "Parameters of the particle tier; each attribute is checked as it is set, by the rules the "
      "scenario reader applies (ValueError naming the field).");
  const auto check = [](const ParticleModel& mo) { validate(mo); };
  model_class.def(py::init<>());
  python::def_checked(model_class, "gravity_m_per_s2", &ParticleModel::gravity_m_per_s2, check);
  python::def_checked(model_class, "time_step_s", &ParticleModel::time_step_s, check);
  python::def_checked(model_class, "iterations", &ParticleModel::iterations, check);
  python::def_checked(model_class, "baumgarte", &ParticleModel::baumgarte, check);
  python::def_checked(model_class, "friction", &ParticleModel::friction, check);
  python::def_checked(model_class, "wall_friction", &ParticleModel::wall_friction, check);
  python::def_checked(model_class, "body_friction", &ParticleModel::body_friction, check);
  python::def_checked(model_class, "threads", &ParticleModel::threads, check,
                      "OpenMP threads for the step, 0 (the OpenMP default) to 1024.");
  python::def_checked(model_class, "expected_speed_m_per_s", &ParticleModel::expected_speed_m_per_s,
                      check);
  python::def_checked(model_class, "max_kinetic_energy_J", &ParticleModel::max_kinetic_energy_J,
                      check);
  python::def_checked(model_class, "periodic_axis", &ParticleModel::periodic_axis, check);
  python::def_checked(
      model_class, "neighbour_skin_radii", &ParticleModel::neighbour_skin_radii, check,
      "Verlet-list skin in largest radii (0: search the hash every step); results do not "
      "depend on it, only the time does.");
  model_class
      .def(
          "set_box_container",
          [](ParticleModel& mo, const Vec3& lo, const Vec3& hi) {
            mo.container.kind = Container::Kind::kBox;
            mo.container.box = Aabb{lo, hi};
          },
          py::arg("lo_m"), py::arg("hi_m"))
      .def(
          "set_cylinder_container",
          [](ParticleModel& mo, double radius, double z_lo, double z_hi, const Vec2& axis) {
            mo.container.kind = Container::Kind::kCylinder;
            mo.container.cylinder_radius_m = radius;
            mo.container.cylinder_axis_xy_m = axis;
            mo.container.box = Aabb{Vec3(axis.x() - radius, axis.y() - radius, z_lo),
                                    Vec3(axis.x() + radius, axis.y() + radius, z_hi)};
          },
          py::arg("radius_m"), py::arg("z_lo_m"), py::arg("z_hi_m"),
          py::arg("axis_xy_m") = Vec2::Zero())
      .def("set_no_container",
           [](ParticleModel& mo) { mo.container.kind = Container::Kind::kNone; })
      .def_property_readonly("body_count", [](const ParticleModel& mo) { return mo.bodies.size(); })
      .def_readwrite("bodies", &ParticleModel::bodies,
                     "The bodies (talus.CoupledBody) a ContactTier couples: e.g. "
                     "talus.tier_bodies(links).");

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

  py::class_<ParticleSimulation>(
      p, "Simulation", "A model, its particles and the bodies' drivers, stepped together.")
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
            const SettleResult r = settle(s.model, s.state, held, s.workspace, o);
            return py::make_tuple(r.steps, r.at_rest, r.kinetic_energy_per_particle_J);
          },
          py::arg("kinetic_energy_per_particle_J") = 1e-8, py::arg("max_steps") = 10000,
          "Steps with the bodies held still until at rest; returns (steps, at_rest, ke).")
      .def_readonly("model", &ParticleSimulation::model)
      .def_property_readonly(
          "state", [](ParticleSimulation& s) -> ParticleState& { return s.state; },
          py::return_value_policy::reference_internal)
      .def_property_readonly("time_s", [](const ParticleSimulation& s) { return s.state.time_s; })
      .def_property_readonly("x_m",
                             [](py::object self) {
                               return float_view(self.cast<ParticleSimulation&>().state.x_m, self);
                             })
      .def_property_readonly("y_m",
                             [](py::object self) {
                               return float_view(self.cast<ParticleSimulation&>().state.y_m, self);
                             })
      .def_property_readonly("z_m",
                             [](py::object self) {
                               return float_view(self.cast<ParticleSimulation&>().state.z_m, self);
                             })
      .def_property_readonly("vx_m_per_s",
                             [](py::object self) {
                               return float_view(self.cast<ParticleSimulation&>().state.vx_m_per_s,
                                                 self);
                             })
      .def_property_readonly("vy_m_per_s",
                             [](py::object self) {
                               return float_view(self.cast<ParticleSimulation&>().state.vy_m_per_s,
                                                 self);
                             })
      .def_property_readonly("vz_m_per_s",
                             [](py::object self) {
                               return float_view(self.cast<ParticleSimulation&>().state.vz_m_per_s,
                                                 self);
                             })
      .def_property_readonly("radius_m",
                             [](py::object self) {
                               return float_view(self.cast<ParticleSimulation&>().state.radius_m,
                                                 self);
                             })
      .def_property_readonly(
          "wrenches",
          [](py::object self) {
            auto& w = self.cast<ParticleSimulation&>().state.body_wrenches;
            // (bodies, 3, 3) float64 view: rows f_W [N], tau_W [N m] about p_W, p_W [m].
            return py::array_t<double>(
                {static_cast<py::ssize_t>(w.size()), py::ssize_t{3}, py::ssize_t{3}},
                {static_cast<py::ssize_t>(sizeof(Wrench)), static_cast<py::ssize_t>(sizeof(Vec3)),
                 static_cast<py::ssize_t>(sizeof(double))},
                reinterpret_cast<double*>(w.data()), self);
          },
          "(bodies, 3, 3) view of the last step's wrenches: [b, 0] force f_W [N], [b, 1] torque "
          "tau_W [N m] about [b, 2] = p_W [m].")
      .def(
          "repose_angle_deg",
          [](const ParticleSimulation& s, double ground_z) {
            ReposeOptions o;
            o.ground_z_m = ground_z;
            return measure_repose_angle(s.state, o).angle_deg;
          },
          py::arg("ground_z_m") = 0.0, "Angle of repose of the particles as a pile [deg].");
}
