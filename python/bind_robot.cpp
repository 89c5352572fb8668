// Python bindings of robot/: load a MuJoCo robot, resolve its coupling table, couple it to a
// ContactTier (one from C++, or one written in Python by subclassing talus.ContactTier), step,
// read joint states (qpos, qvel, ctrl as numpy views of mjData) and the wrenches on the bodies.

#include <mujoco/mujoco.h>
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "core/contact_tier.hpp"
#include "core/scenario_file.hpp"
#include "python/bind_common.hpp"
#include "robot/coupled_sim.hpp"
#include "robot/coupling.hpp"
#include "robot/mujoco_model.hpp"
#include "robot/robot_run.hpp"

namespace py = pybind11;
using namespace talus;
using namespace talus::robot;
using namespace talus::python;

namespace talus::python {
void bind_rover_env(py::module_& m);  // python/bind_rover_env.cpp
void bind_excavation_env(py::module_& m);  // python/bind_excavation_env.cpp
}

namespace {

// A 1-D numpy view of n mjtNum owned by the model object `owner`.
py::array_t<double> view(double* data, int n, py::handle owner) {
  return py::array_t<double>({static_cast<py::ssize_t>(n)},
                             {static_cast<py::ssize_t>(sizeof(double))}, data, owner);
}

// Lets Python implement a tier: bodies() -> list[CoupledBody]; step(dt_s, motions) ->
// list[Wrench], one per body.
class PyContactTier : public ContactTier {
 public:
  std::span<const CoupledBody> bodies() const override {
    py::gil_scoped_acquire gil;
    const py::function f = py::get_override(static_cast<const ContactTier*>(this), "bodies");
    if (!f) throw std::runtime_error("ContactTier subclass must define bodies()");
    bodies_ = f().cast<std::vector<CoupledBody>>();
    return bodies_;
  }
  void step(double dt_s, std::span<const BodyMotion> motions, std::span<Wrench> wrenches) override {
    py::gil_scoped_acquire gil;
    const py::function f = py::get_override(static_cast<const ContactTier*>(this), "step");
    if (!f) throw std::runtime_error("ContactTier subclass must define step(dt_s, motions)");
    const auto out = f(dt_s, std::vector<BodyMotion>(motions.begin(), motions.end()))
                         .cast<std::vector<Wrench>>();
    if (out.size() != wrenches.size()) {
      throw std::runtime_error("ContactTier.step returned " + std::to_string(out.size()) +
                               " wrenches for " + std::to_string(wrenches.size()) + " bodies");
    }
    std::copy(out.begin(), out.end(), wrenches.begin());
  }

 private:
  mutable std::vector<CoupledBody> bodies_;
};

// Core seam types may also be bound by another tier's file; bind each once.
template <class T>
bool unbound() {
  return py::detail::get_type_info(typeid(T)) == nullptr;
}

void bind_seam_types(py::module_& m) {
  if (unbound<Wrench>()) {
    py::class_<Wrench>(m, "Wrench", "Force f_W [N] and torque tau_W [N m] about p_W [m], world.")
        .def(py::init([](const Vec3& f, const Vec3& tau, const Vec3& p) {
               return Wrench{f, tau, p};
             }),
             py::arg("f_W") = Vec3::Zero(), py::arg("tau_W") = Vec3::Zero(),
             py::arg("p_W") = Vec3::Zero())
        .def_readwrite("f_W", &Wrench::f_W)
        .def_readwrite("tau_W", &Wrench::tau_W)
        .def_readwrite("p_W", &Wrench::p_W)
        .def("add_force_at", &Wrench::add_force_at, py::arg("f_W"), py::arg("p_WQ"))
        .def("shifted_to", &Wrench::shifted_to, py::arg("p_W_new"));
  }
  if (unbound<BodyMotion>()) {
    py::class_<BodyMotion>(m, "BodyMotion", "Pose X_WB (4x4) and twist V_WB of a coupled body.")
        .def_property_readonly("X_WB", [](const BodyMotion& b) { return pose_to_matrix(b.X_WB); })
        .def_readonly("V_WB", &BodyMotion::V_WB);
  }
  if (unbound<CoupledBody>()) {
    py::class_<CoupledBody>(m, "CoupledBody", "A body as a tier sees it: name, shape, p_BR.")
        .def(py::init([](std::string name, Shape shape, const Vec3& p_BR) {
               return CoupledBody{std::move(name), std::move(shape), p_BR};
             }),
             py::arg("name"), py::arg("shape"), py::arg("p_BR") = Vec3::Zero())
        .def_readonly("name", &CoupledBody::name)
        .def_readonly("shape", &CoupledBody::shape)
        .def_readonly("p_BR", &CoupledBody::p_BR);
  }
  if (unbound<ContactTier>()) {
    py::class_<ContactTier, PyContactTier>(
        m, "ContactTier",
        "A terrain tier. Subclass it in Python with bodies() and step(dt_s, motions) -> wrenches.")
        .def(py::init<>())
        .def("bodies",
             [](const ContactTier& t) {
               const auto b = t.bodies();
               return std::vector<CoupledBody>(b.begin(), b.end());
             })
        .def(
            "advance",
            [](ContactTier& t, double dt_s, const std::vector<Eigen::Matrix4d>& X_WB,
               const std::vector<Twist>& V_WB) {
              const std::vector<BodyMotion> motions =
                  motions_from(X_WB, V_WB, t.bodies().size(), "body");
              std::vector<Wrench> wrenches(motions.size());
              {
                py::gil_scoped_release unlocked;
                t.step(dt_s, motions, wrenches);
              }
              return wrench_array(wrenches);
            },
            py::arg("dt_s"), py::arg("body_poses"), py::arg("body_twists") = std::vector<Twist>{},
            "Steps this tier by dt_s [s] with the bodies at body_poses (one 4x4 X_WB each, at the "
            "START of the step) moving with body_twists (default at rest), without a robot: "
            "returns the terrain's wrench on each body, (bodies, 3, 3) rows f_W, tau_W about p_W. "
            "Releases the GIL.")
        .def("snapshot", &ContactTier::snapshot,
             "A copy of the tier's state: restore() continues bit for bit from it (RuntimeError "
             "for a tier without snapshots).")
        .def("restore", &ContactTier::restore, py::arg("snapshot"));
    py::class_<ContactTier::Snapshot>(m, "ContactTierSnapshot", "ContactTier.snapshot()'s copy.");
  }
}

// A robots-tier scenario read for stepping from Python: the robot, its terrain tier and the
// coupled simulation of them (built once the scenario sits at its final address).
struct RobotsRun {
  explicit RobotsRun(RobotsScenario s) : sc(std::move(s)) {
    mj_forward(sc.robot.model.model(), sc.robot.model.data());
    sim = std::make_unique<CoupledSim>(sc.robot.model, sc.robot.links, sc.terrain->tier(),
                                       sc.robot.mujoco_steps_per_tier_step);
  }
  // The terrain's preparation (a particle bed settles under the robot held at its start), once.
  std::string prepare() {
    if (prepared) return "{}";
    std::vector<BodyMotion> start;
    for (const CoupledLink& l : sc.robot.links) start.push_back(link_motion(sc.robot.model, l));
    prepared = true;
    return sc.terrain->prepare(start, {}).dump();
  }
  void step(long n) {
    prepare();
    for (long k = 0; k < n; ++k) {
      sc.robot.drive.apply(sc.robot.model);
      sim->step();
    }
  }
  RobotsScenario sc;
  std::unique_ptr<CoupledSim> sim;
  bool prepared = false;
};

// talus.robots: a robots-tier scenario loaded and stepped from Python.
void bind_robots_module(py::module_& parent) {
  py::module_ m = parent.def_submodule(
      "robots", "The robots tier: a MuJoCo robot coupled to a terrain tier (docs/rover.md).");
  py::class_<RobotsRun>(m, "Scenario",
                        "A robots-tier scenario read by talus.robots.load: its robot, terrain "
                        "tier and coupled simulation, stepped from Python.")
      .def_property_readonly("name", [](const RobotsRun& r) { return r.sc.name; })
      .def_property_readonly("terrain", [](const RobotsRun& r) { return r.sc.terrain_kind; })
      .def_property_readonly(
          "steps", [](const RobotsRun& r) { return r.sc.steps; },
          "Tier steps the scenario file runs for.")
      .def_property_readonly("duration_s", [](const RobotsRun& r) { return r.sc.duration_s; })
      .def_property_readonly(
          "robot", [](RobotsRun& r) -> MujocoModel& { return r.sc.robot.model; },
          py::return_value_policy::reference_internal,
          "The MuJoCo robot (qpos, qvel, ctrl views; snapshot/restore).")
      .def_property_readonly("links", [](const RobotsRun& r) { return r.sc.robot.links; })
      .def_property_readonly(
          "tier", [](RobotsRun& r) -> ContactTier& { return r.sc.terrain->tier(); },
          py::return_value_policy::reference_internal, "The terrain tier the links touch.")
      .def_property_readonly(
          "sim", [](RobotsRun& r) -> CoupledSim& { return *r.sim; },
          py::return_value_policy::reference_internal,
          "The coupled simulation (time_s, wrenches, motions, snapshot, restore).")
      .def(
          "surface_z",
          [](const RobotsRun& r, double x, double y) { return r.sc.terrain->surface_z(x, y); },
          py::arg("x_W"), py::arg("y_W"), "The undisturbed terrain height [m] at (x, y).")
      .def(
          "prepare",
          [](RobotsRun& r) {
            std::string done;
            {
              py::gil_scoped_release unlocked;
              done = r.prepare();
            }
            return py::module_::import("json").attr("loads")(done);
          },
          "Brings the terrain to its start (a particle bed settles under the robot held still) "
          "and returns what it did as a dict (empty when there was nothing to do or it was "
          "done). step() calls it first if it was not called.")
      .def("step", &RobotsRun::step, py::arg("n") = 1, py::call_guard<py::gil_scoped_release>(),
           "n tier steps: the scenario's drive schedule sets the actuators, then the coupled "
           "step (releases the GIL).");
  m.def(
      "load",
      [](const std::filesystem::path& file) {
        auto doc = ScenarioDocument::load(file);
        return std::make_unique<RobotsRun>(load_robots(doc->root()));
      },
      py::arg("scenario"),
      "Reads a robots-tier scenario file into its robot, terrain and coupled simulation without "
      "running it (raises ScenarioError naming the file, line and key).");
  talus::python::bind_rover_env(m);
  talus::python::bind_excavation_env(m);
}

}  // namespace

void bind_robot(py::module_& m) {
  bind_seam_types(m);
  py::register_exception<RobotError>(m, "RobotError", PyExc_ValueError);

  py::class_<MujocoModel>(m, "RobotModel", "A MuJoCo model (MJCF or URDF) with its data.")
      .def_static("load", &MujocoModel::load, py::arg("file"))
      .def_property_readonly("file", &MujocoModel::file)
      .def_property_readonly("body_names", &MujocoModel::body_names)
      .def_property_readonly("geom_names", &MujocoModel::geom_names)
      .def_property_readonly("joint_names", &MujocoModel::joint_names)
      .def_property_readonly("actuator_names", &MujocoModel::actuator_names)
      .def_property_readonly("total_mass_kg", &MujocoModel::total_mass_kg)
      .def_property("time_step_s", &MujocoModel::time_step_s, &MujocoModel::set_time_step_s)
      .def_property_readonly("time_s", &MujocoModel::time_s)
      .def_property_readonly("qpos",
                             [](py::object self) {
                               auto& r = self.cast<MujocoModel&>();
                               return view(r.data()->qpos, r.model()->nq, self);
                             })
      .def_property_readonly("qvel",
                             [](py::object self) {
                               auto& r = self.cast<MujocoModel&>();
                               return view(r.data()->qvel, r.model()->nv, self);
                             })
      .def_property_readonly("ctrl",
                             [](py::object self) {
                               auto& r = self.cast<MujocoModel&>();
                               return view(r.data()->ctrl, r.model()->nu, self);
                             })
      .def(
          "body_pose",
          [](const MujocoModel& r, const std::string& name) {
            const int b = r.body_id(name);
            const double* p = r.data()->xpos + 3 * b;
            const double* q = r.data()->xquat + 4 * b;
            Pose X = Pose::Identity();
            X.linear() = Quat(q[0], q[1], q[2], q[3]).toRotationMatrix();
            X.translation() = Vec3(p[0], p[1], p[2]);
            return pose_to_matrix(X);
          },
          py::arg("body"), "4x4 pose of the body frame in world (after forward() or a step).")
      .def(
          "step",
          [](MujocoModel& r, int n) {
            for (int i = 0; i < n; ++i) mj_step(r.model(), r.data());
          },
          py::arg("n") = 1, py::call_guard<py::gil_scoped_release>(),
          "n MuJoCo steps alone, without a tier (releases the GIL).")
      .def("forward", [](MujocoModel& r) { mj_forward(r.model(), r.data()); })
      .def("reset", &MujocoModel::reset)
      .def("snapshot", &MujocoModel::snapshot,
           "A copy of the whole simulation state (MuJoCo's mjData), for restore().")
      .def("restore", &MujocoModel::restore, py::arg("snapshot"),
           "Puts back a snapshot of this model: the robot continues bit for bit from it. The "
           "qpos / qvel / ctrl views stay valid (the data is copied into place).");
  py::class_<MujocoModel::Snapshot>(m, "RobotSnapshot", "MujocoModel.snapshot()'s copy.");

  py::class_<CouplingEntry>(m, "CouplingEntry")
      .def(py::init([](std::string body, std::string geom, std::optional<Shape> shape,
                       std::optional<Eigen::Matrix4d> X_BS) {
             CouplingEntry e;
             e.body = std::move(body);
             e.geom = std::move(geom);
             e.shape = std::move(shape);
             if (X_BS) e.X_BS = matrix_to_pose(*X_BS);
             return e;
           }),
           py::arg("body") = "", py::arg("geom") = "", py::arg("shape") = std::nullopt,
           py::arg("X_BS") = std::nullopt);
  py::class_<CoupledLink>(m, "CoupledLink")
      .def_readonly("name", &CoupledLink::name)
      .def_readonly("body_id", &CoupledLink::body_id)
      .def_readonly("geom_id", &CoupledLink::geom_id)
      .def_readonly("shape", &CoupledLink::shape)
      .def_property_readonly("X_BS", [](const CoupledLink& l) { return pose_to_matrix(l.X_BS); })
      .def_readonly("p_SCm", &CoupledLink::p_SCm);
  m.def("resolve_coupling", &resolve_coupling, py::arg("robot"), py::arg("entries"));
  m.def("tier_bodies", &tier_bodies, py::arg("links"));
  m.def(
      "planar_inverse_inertia",
      [](MujocoModel& robot, const CoupledLink& link, const Eigen::Matrix4d& X_SF) {
        return planar_inverse_inertia(robot, link, matrix_to_pose(X_SF));
      },
      py::arg("robot"), py::arg("link"), py::arg("X_SF") = Eigen::Matrix4d::Identity(),
      "A = P M^-1 P^T (3x3) on the planar twist (v_x, v_z, omega_y) at the origin of frame F "
      "(X_SF: 4x4, F in the link frame S), at the robot's current configuration: what "
      "talus.WrenchSpaceTier needs per foot.");
  m.def(
      "check_initial_placement",
      [](MujocoModel& r, const std::vector<CoupledLink>& links,
         const std::function<double(double, double)>& surface) {
        check_initial_placement(r, links, surface);
      },
      py::arg("robot"), py::arg("links"), py::arg("surface_z"));
  m.def("explicit_coupling_dt_max_s", &explicit_coupling_dt_max_s, py::arg("stiffness_n_per_m"),
        py::arg("mass_kg"), py::arg("damping_ratio"));

  py::class_<CoupledSim::Snapshot>(m, "CoupledSnapshot", "CoupledSim.snapshot()'s copy.");
  py::class_<CoupledSim>(m, "CoupledSim", "A robot coupled to a tier; keeps both alive.")
      .def(py::init<MujocoModel&, std::vector<CoupledLink>, ContactTier&, int>(), py::arg("robot"),
           py::arg("links"), py::arg("tier"), py::arg("mujoco_steps_per_tier_step") = 1,
           py::keep_alive<1, 2>(), py::keep_alive<1, 4>())
      .def(
          "step",
          [](CoupledSim& s, int n) {
            for (int i = 0; i < n; ++i) s.step();
          },
          py::arg("n") = 1, py::call_guard<py::gil_scoped_release>(),
          "n tier steps (releases the GIL; a tier written in Python takes it back).")
      .def("snapshot", &CoupledSim::snapshot,
           "The robot's and the tier's states (and the last step's motions and wrenches): "
           "restore() makes the coupled simulation continue bit for bit from here.")
      .def("restore", &CoupledSim::restore, py::arg("snapshot"))
      .def_property_readonly("time_s", &CoupledSim::time_s)
      .def_property_readonly("tier_time_step_s", &CoupledSim::tier_time_step_s)
      .def_property_readonly(
          "wrenches",
          [](const CoupledSim& s) {
            const auto w = s.wrenches();
            return std::vector<Wrench>(w.begin(), w.end());
          },
          "Wrench on each link at the last step, about its body's centre of mass.")
      .def_property_readonly("motions", [](const CoupledSim& s) {
        const auto mo = s.motions();
        return std::vector<BodyMotion>(mo.begin(), mo.end());
      });

  bind_robots_module(m);
}
