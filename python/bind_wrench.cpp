// Python bindings of wrench/ (paper 000): load, import and save wrench-space databases (or
// generate one by running an "acquire" scenario with talus.run_scenario), query W(theta) as the m
// predicted wrenches or as half-spaces, and step a MuJoCo robot whose feet touch the medium
// through the wrench-space contact step.

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "python/bind_common.hpp"
#include "robot/mujoco_model.hpp"
#include "wrench/rbf.hpp"
#include "wrench/wrench_contact_step.hpp"
#include "wrench/wrench_database.hpp"
#include "wrench/wrench_space_model.hpp"
#include "wrench/wrench_space_tier.hpp"

namespace py = pybind11;
using namespace talus;
using namespace talus::wrench;

namespace {

// (n, m, D) array of the database's wrenches (a copy: the database stores n matrices).
py::array_t<double> wrench_array(const WrenchDatabase& db) {
  const auto n = static_cast<py::ssize_t>(db.configuration_count());
  const auto m = static_cast<py::ssize_t>(db.direction_count());
  const auto d = static_cast<py::ssize_t>(db.wrench_dimension());
  py::array_t<double> a({n, m, d});
  auto w = a.mutable_unchecked<3>();
  for (py::ssize_t j = 0; j < n; ++j) {
    for (py::ssize_t i = 0; i < m; ++i) {
      for (py::ssize_t c = 0; c < d; ++c)
        w(j, i, c) = db.wrenches[static_cast<std::size_t>(j)](i, c);
    }
  }
  return a;
}

void set_wrenches(WrenchDatabase& db, const py::array_t<double>& a) {
  if (a.ndim() != 3) throw py::value_error("wrenches: expected an (n, m, D) array");
  const auto w = a.unchecked<3>();
  db.wrenches.assign(static_cast<std::size_t>(w.shape(0)), Eigen::MatrixXd(w.shape(1), w.shape(2)));
  for (py::ssize_t j = 0; j < w.shape(0); ++j) {
    for (py::ssize_t i = 0; i < w.shape(1); ++i) {
      for (py::ssize_t c = 0; c < w.shape(2); ++c)
        db.wrenches[static_cast<std::size_t>(j)](i, c) = w(j, i, c);
    }
  }
}

py::dict halfspaces_dict(const HalfSpaces& h) {
  py::dict d;
  d["A"] = h.A;
  d["b"] = h.b;
  d["A_eq"] = h.A_eq;
  d["b_eq"] = h.b_eq;
  d["affine_dimension"] = h.affine_dimension;
  return d;
}

py::dict cv_dict(const CrossValidationError& e) {
  py::dict d;
  d["folds"] = e.folds;
  d["points"] = e.points;
  d["rms"] = e.rms;
  d["max"] = e.max;
  d["relative_rms"] = e.relative;
  return d;
}

// The terrain profile of a Python constructor: terrain_points_m when given, else a plane.
TerrainProfile terrain_of(double slope_rad, const std::vector<Eigen::Vector2d>& terrain_points_m) {
  return terrain_points_m.empty() ? TerrainProfile::plane(slope_rad)
                                  : TerrainProfile(terrain_points_m, "terrain_points_m");
}

// Per foot: a planar contact dict as WrenchContactStep.feet and WrenchSpaceTier.feet give it.
py::dict foot_dict(const FootContact& f) {
  py::dict d;
  d["in_contact"] = f.in_contact;
  d["depth_m"] = f.depth_m;
  d["tilt_rad"] = f.tilt_rad;
  d["configuration_depth_m"] = f.configuration_depth_m;
  d["clamped"] = f.clamped;
  d["theta"] = f.theta;
  d["p_WCenter"] = f.p_WCenter;
  d["p_WR"] = f.p_WR;
  d["wrench_W"] = planar_components(f.wrench);
  return d;
}

// steps, clamped_queries and feet of a class whose state() has step, clamped_queries and feet
// (WrenchContactStep, WrenchSpaceTier).
template <class Class>
void def_contact_state(Class& c, const char* feet_doc) {
  using T = typename Class::type;
  c.def_property_readonly("steps", [](const T& t) { return t.state().step; })
      .def_property_readonly("clamped_queries",
                             [](const T& t) { return t.state().clamped_queries; })
      .def_property_readonly(
          "feet",
          [](const T& t) {
            py::list out;
            for (const FootContact& f : t.state().feet) out.append(foot_dict(f));
            return out;
          },
          feet_doc);
}

// The wrench-space tier as a talus.ContactTier (docs/wrench_space.md §9).
void bind_wrench_space_tier(py::module_& m) {
  py::class_<WrenchSpaceTier, ContactTier> tier(
      m, "WrenchSpaceTier",
      "The wrench-space tier as a talus.ContactTier, for talus.CoupledSim (docs/wrench_space.md "
      "§9): per foot, eq. 2 with the robot's inverse effective inertia A there (e.g. "
      "talus.planar_inverse_inertia). feet: list of (body: talus.CoupledBody, X_BF: 4x4 foot "
      "frame in the body frame (origin at the bottom centre, z along the foot), granular_inertia "
      "3x3 [kg, kg, kg m^2], inverse_inertia 3x3 A); terrain: slope_rad or terrain_points_m.");
  tier.def(py::init([](const WrenchSpaceModel& space,
                       const std::vector<std::tuple<CoupledBody, Eigen::Matrix4d, Eigen::Matrix3d,
                                                    Eigen::Matrix3d>>& feet,
                       double slope_rad, const std::vector<Eigen::Vector2d>& terrain_points_m) {
             WrenchTierModel model;
             for (const auto& [body, X_BF, mg, a] : feet) {
               model.feet.push_back(
                   WrenchTierFoot{body, talus::python::matrix_to_pose(X_BF), mg, a});
             }
             model.terrain = terrain_of(slope_rad, terrain_points_m);
             return std::make_unique<WrenchSpaceTier>(space, std::move(model));
           }),
           py::arg("space"), py::arg("feet"), py::arg("slope_rad") = 0.0,
           py::arg("terrain_points_m") = std::vector<Eigen::Vector2d>{}, py::keep_alive<1, 2>())
      .def_property_readonly("contact_queries",
                             [](const WrenchSpaceTier& t) { return t.state().contact_queries; });
  def_contact_state(tier, "Per foot, the last step's contact (as WrenchContactStep.feet).");
}

}  // namespace

namespace talus::python {
void bind_quadruped_env(py::module_& m);  // python/bind_quadruped_env.cpp
}

void bind_wrench(py::module_& m) {
  py::register_exception<DatabaseError>(m, "WrenchDatabaseError", PyExc_ValueError);
  py::register_exception<WrenchStepError>(m, "WrenchStepError", PyExc_RuntimeError);
  // Bad fitting data or queries (a non-finite theta, a fold count outside [2, n]): bad input.
  py::register_exception<RegressionError>(m, "WrenchRegressionError", PyExc_ValueError);
  // A slope or terrain profile that cannot be a terrain (NaN, |slope| >= pi/2): bad input.
  py::register_exception<TerrainError>(m, "TerrainError", PyExc_ValueError);
  talus::python::bind_quadruped_env(m);

  py::class_<MediumDescription>(m, "Medium", "What a wrench-space database was measured in.")
      .def(py::init([](std::string name, double grain_radius_m, double density_kg_m3,
                       double friction, std::string source) {
             MediumDescription medium{std::move(name), grain_radius_m, density_kg_m3, friction,
                                      std::move(source)};
             validate_medium(medium, "Medium");  // WrenchDatabaseError (a ValueError)
             return medium;
           }),
           py::arg("name"), py::arg("grain_radius_m"), py::arg("density_kg_m3"),
           py::arg("friction"), py::arg("source") = "")
      .def_readwrite("name", &MediumDescription::name)
      .def_readwrite("grain_radius_m", &MediumDescription::grain_radius_m)
      .def_readwrite("density_kg_m3", &MediumDescription::density_kg_m3)
      .def_readwrite("friction", &MediumDescription::friction)
      .def_readwrite("source", &MediumDescription::source);

  py::class_<WrenchDatabase>(
      m, "WrenchDatabase",
      "Configurations theta = (depth d [m], tilt phi [rad]), m unit velocity directions with their "
      "per-axis scale, and the (n, m, D) wrenches in F_r (planar D = 3: f_x, f_z, tau_y).")
      .def(py::init<>())
      .def_readwrite("configurations", &WrenchDatabase::configurations)
      .def_readwrite("velocity_directions", &WrenchDatabase::velocity_directions)
      .def_readwrite("velocity_scale", &WrenchDatabase::velocity_scale)
      .def_readwrite("reference_point_m", &WrenchDatabase::reference_point_m)
      .def_readwrite("medium", &WrenchDatabase::medium)
      .def_property(
          "depth_at",
          [](const WrenchDatabase& db) {
            return std::string(depth_reference_name(db.depth_reference));
          },
          [](WrenchDatabase& db, const std::string& name) {
            const std::optional<DepthReference> parsed = parse_depth_reference(name);
            if (!parsed) {
              throw py::value_error("depth_at: \"" + name +
                                    "\", expected \"bottom_centre\" or \"lowest_point\"");
            }
            db.depth_reference = *parsed;
          },
          "Where the configurations' depths are measured: \"bottom_centre\" (the paper's) or "
          "\"lowest_point\" (the foot's bottom rim; needs foot_radius_m).")
      .def_readwrite("foot_radius_m", &WrenchDatabase::foot_radius_m)
      .def_property("wrenches", &wrench_array, &set_wrenches)
      .def_property_readonly("configuration_count", &WrenchDatabase::configuration_count)
      .def_property_readonly("direction_count", &WrenchDatabase::direction_count)
      .def_property_readonly("wrench_dimension", &WrenchDatabase::wrench_dimension)
      .def(
          "validate", [](const WrenchDatabase& db) { db.validate("database"); },
          "Raises WrenchDatabaseError naming the field when shapes or values are inconsistent.")
      .def(
          "save",
          [](const WrenchDatabase& db, const std::filesystem::path& p) { save_database(db, p); },
          py::arg("path"), "Writes the HDF5 file (docs/wrench_space.md §4), validated first.");

  m.def("load_wrench_database", &load_database, py::arg("path"),
        "Reads and validates an HDF5 wrench-space database; errors name the file and dataset.");
  m.def("import_wrench_csv", &import_csv, py::arg("path"), py::arg("medium"),
        py::arg("velocity_scale"), py::arg("reference_point_m") = Eigen::Vector3d(0, 0, 0.25),
        "Imports force/torque-sensor runs from CSV (header depth_m,tilt_rad,v_x,v_z,omega_y,f_x,"
        "f_z,tau_y); errors read file:line.");

  py::class_<WrenchSpaceModel>(
      m, "WrenchSpace",
      "W(theta) learned from a database: one thin-plate spline per extreme wrench; queries outside "
      "the sampled range are clamped and counted.")
      .def(
          py::init([](const WrenchDatabase& db) { return std::make_unique<WrenchSpaceModel>(db); }),
          py::arg("database"))
      .def(py::init([](const std::filesystem::path& p) {
             return std::make_unique<WrenchSpaceModel>(load_database(p));
           }),
           py::arg("path"))
      .def_property_readonly("database", &WrenchSpaceModel::database,
                             py::return_value_policy::reference_internal)
      .def_property_readonly("depth_range", &WrenchSpaceModel::depth_range)
      .def_property_readonly("tilt_range", &WrenchSpaceModel::tilt_range)
      .def_property_readonly("clamped_queries", &WrenchSpaceModel::clamped_queries)
      .def(
          "predict_wrenches",
          [](const WrenchSpaceModel& s, double depth, double tilt) {
            return s.predict_wrenches(Eigen::Vector2d(depth, tilt));
          },
          py::arg("depth_m"), py::arg("tilt_rad"), "The m predicted extreme wrenches, (m, D).")
      .def(
          "feasible_set",
          [](const WrenchSpaceModel& s, double depth, double tilt) {
            return halfspaces_dict(s.feasible_set(Eigen::Vector2d(depth, tilt)));
          },
          py::arg("depth_m"), py::arg("tilt_rad"),
          "W(theta) as half-spaces: dict A, b (A w <= b, unit rows), A_eq, b_eq.")
      .def(
          "contains",
          [](const WrenchSpaceModel& s, double depth, double tilt, const Eigen::VectorXd& w,
             double tol) { return s.feasible_set(Eigen::Vector2d(depth, tilt)).contains(w, tol); },
          py::arg("depth_m"), py::arg("tilt_rad"), py::arg("wrench"), py::arg("tol") = 1e-9)
      .def(
          "concavity",
          [](const WrenchSpaceModel& s) {
            const ConcavitySummary c = s.concavity_table();
            py::list rows;
            for (const ConfigurationConcavity& r : c.per_configuration) {
              rows.append(py::make_tuple(r.depth_m, r.tilt_rad, r.concavity));
            }
            py::dict d;
            d["mean"] = c.mean;
            d["worst"] = c.worst;
            d["per_configuration"] = rows;
            return d;
          },
          "Paper 000 §IV-B concavity: mean, worst and (depth, tilt, concavity) per configuration.")
      .def(
          "cross_validation",
          [](const WrenchSpaceModel& s, int folds, bool quadratic) {
            return cv_dict(quadratic ? s.cross_validation_quadratic(folds)
                                     : s.cross_validation(folds));
          },
          py::arg("folds") = 5, py::arg("quadratic") = false,
          "k-fold cross validation of the thin-plate spline (or the quadratic comparison).");

  py::class_<WrenchStepState>(m, "WrenchStepSnapshot",
                              "WrenchContactStep.snapshot()'s copy of the step's state.");
  py::class_<WrenchContactStep> step(
      m, "WrenchContactStep",
      "Steps a planar MuJoCo robot whose feet touch a medium through W(theta) and the "
      "maximum-dissipation QP (paper 000 eq. 2). feet: list of (name, site, granular_inertia "
      "[kg, kg, kg m^2]); terrain: slope_rad or terrain_points_m [[x, z], ...].");
  step.def(py::init(
               [](robot::MujocoModel& robot, const WrenchSpaceModel& space,
                  const std::vector<std::tuple<std::string, std::string, Eigen::Vector3d>>& feet,
                  double slope_rad, const std::vector<Eigen::Vector2d>& terrain_points_m) {
                 WrenchStepModel model;
                 for (const auto& [name, site, mg] : feet) {
                   model.feet.push_back(FootSpec{name, site, mg.asDiagonal()});
                 }
                 model.terrain = terrain_of(slope_rad, terrain_points_m);
                 return std::make_unique<WrenchContactStep>(robot, space, std::move(model));
               }),
           py::arg("robot"), py::arg("space"), py::arg("feet"), py::arg("slope_rad") = 0.0,
           py::arg("terrain_points_m") = std::vector<Eigen::Vector2d>{}, py::keep_alive<1, 2>(),
           py::keep_alive<1, 3>())
      .def("step", &WrenchContactStep::step, py::call_guard<py::gil_scoped_release>(),
           "Advances by MuJoCo's time step (releases the GIL).")
      .def_property_readonly("time_step_s", &WrenchContactStep::time_step_s)
      .def(
          "snapshot", [](const WrenchContactStep& s) { return s.state(); },
          "A copy of the step's state (contacts, warm starts, hull caches, counters); with the "
          "robot's snapshot (RobotModel.snapshot) restore() continues bit for bit.")
      .def("restore", &WrenchContactStep::restore, py::arg("snapshot"),
           "Puts back a snapshot() of this step (restore the robot alongside).");
  def_contact_state(
      step,
      "Per foot, this step's contact: in_contact, depth_m, tilt_rad (measured), "
      "configuration_depth_m (depth_m or the lowest point's, as the data measure "
      "it), clamped, theta (the clamped (d, phi) W was predicted at), p_WCenter (x, z), "
      "p_WR, wrench_W (f_x, f_z, tau_y about p_r, world axes).");

  bind_wrench_space_tier(m);
}
