// Python bindings of the SCM soil tier (talus.scm): build a soil map, add bodies with drivers,
// step, read node fields of a region and the body wrenches as numpy arrays.
//
// Node fields live in 32 x 32-node tiles allocated on first touch, so they are not one contiguous
// array: the region readers return DENSE COPIES (exports) of a rectangle of nodes, shape
// (ny, nx) or (ny, nx, 3), row j along y, column i along x. Writing to them does not change the
// soil.

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>

#include "core/driver.hpp"
#include "core/scenario_file.hpp"
#include "core/units.hpp"
#include "python/bind_common.hpp"
#include "scm/scm_scenario.hpp"
#include "scm/scm_step.hpp"

namespace py = pybind11;

namespace talus::python {

namespace {

using namespace talus::scm;

// A model from the Python constructor's arguments; node (i, j) at (i, j) * cell_size_m.
ScmModel make_model(const Vec2& size_m, double cell_size_m, const SoilParameters& soil,
                    const std::string& method, double time_step_s, double base_height_m) {
  if (!(cell_size_m > 0.0) || !(size_m.x() > 0.0) || !(size_m.y() > 0.0)) {
    throw std::invalid_argument("size_m and cell_size_m must be > 0 [m]");
  }
  ScmModel model;
  model.cell_size_m = cell_size_m;
  model.nx = static_cast<int>(std::lround(size_m.x() / cell_size_m)) + 1;
  model.ny = static_cast<int>(std::lround(size_m.y() / cell_size_m)) + 1;
  model.soil = soil;
  if (method != "border" && method != "fields") {
    throw std::invalid_argument("method = '" + method + "': expected 'border' or 'fields'");
  }
  model.method = method == "fields" ? FlowMethod::Fields : FlowMethod::Border;
  model.time_step_s = time_step_s;
  model.base_height_m = base_height_m;
  validate(model);
  return model;
}

// A dense copy of the nodes [i0, i0 + nx) x [j0, j0 + ny), which must lie inside the map.
NodeBlock read_region(const ScmState& state, int i0, int j0, int nx, int ny) {
  if (nx < 1 || ny < 1 || i0 < 0 || j0 < 0 || i0 + nx > state.nx() || j0 + ny > state.ny()) {
    throw std::invalid_argument("region [" + std::to_string(i0) + ", " + std::to_string(i0 + nx) +
                                ") x [" + std::to_string(j0) + ", " + std::to_string(j0 + ny) +
                                ") is not inside the map of " + std::to_string(state.nx()) + " x " +
                                std::to_string(state.ny()) + " nodes");
  }
  NodeBlock b;
  b.resize(i0, j0, nx, ny);
  state.gather(b);
  return b;
}

py::dict report_dict(const ScmStepReport& r) {
  py::dict d;
  d["nodes_in_contact"] = r.nodes_in_contact;
  d["displaced_volume_m3"] = r.displaced_volume_m3;
  d["deposited_volume_m3"] = r.deposited_volume_m3;
  d["erosion_updates"] = r.erosion_updates;
  return d;
}

// (n_bodies, 3) copy of one part of each wrench: 0 forces, 1 torques, 2 torque points.
py::array_t<double> wrench_part(const std::vector<Wrench>& wrenches, int part) {
  py::array_t<double> a({static_cast<py::ssize_t>(wrenches.size()), py::ssize_t{3}});
  auto v = a.mutable_unchecked<2>();
  for (std::size_t b = 0; b < wrenches.size(); ++b) {
    const Vec3& x = part == 0 ? wrenches[b].f_W : part == 1 ? wrenches[b].tau_W : wrenches[b].p_W;
    for (int c = 0; c < 3; ++c) v(static_cast<py::ssize_t>(b), c) = x[c];
  }
  return a;
}

// A soil map with bodies moved by drivers: model, state, workspace and the drivers.
class SoilMap {
 public:
  SoilMap(const Vec2& size_m, double cell_size_m, const SoilParameters& soil,
          const std::string& method, double time_step_s, double base_height_m)
      : model_(make_model(size_m, cell_size_m, soil, method, time_step_s, base_height_m)),
        state_(std::make_unique<ScmState>(model_)) {}

  void add_body(const std::string& name, const Shape& shape, const Driver& driver,
                const Vec3& p_BR) {
    model_.bodies.push_back(CoupledBody{name, shape, p_BR});
    try {
      validate(model_);
      validate(driver);
    } catch (...) {
      model_.bodies.pop_back();
      throw;
    }
    drivers_.push_back(driver);
  }

  // One step: the bodies' driven motions over [t, t + dt] (step_motion: the soil meets them at
  // their driven poses at t + dt), then scm::step.
  py::dict step() {
    std::vector<BodyMotion> motions(drivers_.size());
    for (std::size_t b = 0; b < drivers_.size(); ++b) {
      motions[b] = step_motion(drivers_[b], state_->time_s, model_.time_step_s);
    }
    wrenches_.assign(drivers_.size(), Wrench{});
    return report_dict(scm::step(model_, *state_, motions, wrenches_, work_));
  }

  const std::vector<Wrench>& wrenches() const { return wrenches_; }

  NodeBlock region(int i0, int j0, int nx, int ny) const {
    return read_region(*state_, i0, j0, nx, ny);
  }

  const ScmModel& model() const { return model_; }
  const ScmState& state() const { return *state_; }
  ScmState& mutable_state() { return *state_; }

 private:
  ScmModel model_;
  std::unique_ptr<ScmState> state_;
  ScmWorkspace work_;
  std::vector<Driver> drivers_;
  std::vector<Wrench> wrenches_;
};

py::array_t<double> dense(const std::vector<double>& v, int ny, int nx) {
  py::array_t<double> a({static_cast<py::ssize_t>(ny), static_cast<py::ssize_t>(nx)});
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// The readers of a soil state (tiles, tile views, dense region copies) on an Owner whose state
// `get` returns: the SoilMap and the State share them.
template <class Owner, class GetState>
void def_soil_readers(py::class_<Owner>& cls, GetState get) {
  cls.def_property_readonly("tile_count", [get](Owner& o) { return get(o).tile_count(); })
      .def_property_readonly("tile_bytes", [get](Owner& o) { return get(o).tile_bytes(); })
      .def(
          "tiles", [get](Owner& o) { return get(o).tile_coordinates(); },
          "Tile coordinates (ti, tj) of the allocated tiles; tile (ti, tj) holds nodes i in "
          "[32 ti, 32 ti + 32), j in [32 tj, 32 tj + 32).")
      .def(
          "tile_view",
          [get](py::object self, const std::string& field, int ti, int tj) -> py::array {
            ScmTile* t = get(self.cast<Owner&>()).allocated_tile(ti, tj);
            if (t == nullptr) {
              throw py::key_error("tile (" + std::to_string(ti) + ", " + std::to_string(tj) +
                                  ") is not allocated (see tiles())");
            }
            const std::vector<std::pair<const char*, std::vector<double>*>> doubles = {
                {"height_m", &t->height_m},         {"plastic_sinkage_m", &t->plastic_sinkage_m},
                {"shear_x_m", &t->shear_x_m},       {"shear_y_m", &t->shear_y_m},
                {"flow_vx", &t->flow_vx},           {"flow_vy", &t->flow_vy},
                {"flow_vz", &t->flow_vz},           {"flow_depth_m", &t->flow_depth_m},
                {"deposited_m3", &t->deposited_m3}, {"displaced_m3", &t->displaced_m3},
                {"peak_shear_m", &t->peak_shear_m}, {"loose_layer_m", &t->loose_layer_m}};
            const py::ssize_t n = kTileNodes;
            for (const auto& [name, v] : doubles) {
              if (field == name) {
                // A view on the tile's array; its owner (self) is kept alive by the array.
                return py::array_t<double>(
                    {n, n}, {n * py::ssize_t{sizeof(double)}, py::ssize_t{sizeof(double)}},
                    v->data(), self);
              }
            }
            for (const auto& [name, v] :
                 {std::pair{"in_contact", &t->in_contact}, std::pair{"loosened", &t->loosened}}) {
              if (field == name)
                return py::array_t<std::uint8_t>({n, n}, {n, py::ssize_t{1}}, v->data(), self);
            }
            throw py::key_error(
                "tile_view: unknown field '" + field +
                "' (expected height_m, plastic_sinkage_m, shear_x_m, shear_y_m, "
                "flow_vx, flow_vy, flow_vz, flow_depth_m, deposited_m3, "
                "displaced_m3, peak_shear_m, loose_layer_m, in_contact or loosened)");
          },
          py::arg("field"), py::arg("ti"), py::arg("tj"),
          "A (32, 32) numpy view (no copy) of one field of an allocated tile, row j % 32, column "
          "i % 32; it shows every later step's values and writes go into the state.")
      .def(
          "heights",
          [get](Owner& o, int i0, int j0, int nx, int ny) {
            return dense(read_region(get(o), i0, j0, nx, ny).height_m, ny, nx);
          },
          py::arg("i0"), py::arg("j0"), py::arg("nx"), py::arg("ny"),
          "Dense copy of node heights [m], shape (ny, nx).")
      .def(
          "sinkage",
          [get](Owner& o, int i0, int j0, int nx, int ny) {
            return dense(read_region(get(o), i0, j0, nx, ny).plastic_sinkage_m, ny, nx);
          },
          py::arg("i0"), py::arg("j0"), py::arg("nx"), py::arg("ny"),
          "Dense copy of plastic sinkage [m].")
      .def(
          "flow_depth",
          [get](Owner& o, int i0, int j0, int nx, int ny) {
            return dense(read_region(get(o), i0, j0, nx, ny).flow_depth_m, ny, nx);
          },
          py::arg("i0"), py::arg("j0"), py::arg("nx"), py::arg("ny"))
      .def(
          "flow_velocity",
          [get](Owner& o, int i0, int j0, int nx, int ny) {
            const NodeBlock b = read_region(get(o), i0, j0, nx, ny);
            py::array_t<double> a(
                {static_cast<py::ssize_t>(ny), static_cast<py::ssize_t>(nx), py::ssize_t{3}});
            double* p = a.mutable_data();
            for (std::size_t k = 0; k < b.size(); ++k) {
              p[3 * k] = b.flow_vx[k];
              p[3 * k + 1] = b.flow_vy[k];
              p[3 * k + 2] = b.flow_vz[k];
            }
            return a;
          },
          py::arg("i0"), py::arg("j0"), py::arg("nx"), py::arg("ny"),
          "Dense copy of flow velocity [m/s], shape (ny, nx, 3).");
}

}  // namespace

void bind_scm(py::module_& parent) {
  py::module_ m = parent.def_submodule("scm", "Soil Contact Model tier (paper 002).");

  py::class_<SoilParameters>(m, "SoilParameters", "Bekker / Mohr-Coulomb / Janosi soil, SI units.")
      .def(py::init<>())
      .def_readwrite("kc", &SoilParameters::kc)
      .def_readwrite("kphi", &SoilParameters::kphi)
      .def_readwrite("contact_width_m", &SoilParameters::contact_width_m)
      .def_readwrite("n", &SoilParameters::exponent_n)
      .def_readwrite("cohesion_pa", &SoilParameters::cohesion_pa)
      .def_readwrite("friction_angle_rad", &SoilParameters::friction_angle_rad)
      .def_readwrite("janosi_shear_modulus_m", &SoilParameters::janosi_shear_modulus_m)
      .def_readwrite("repose_angle_rad", &SoilParameters::repose_angle_rad)
      .def_readwrite("shear_band_m", &SoilParameters::shear_band_m)
      .def_readwrite("residual_friction_angle_rad", &SoilParameters::residual_friction_angle_rad)
      .def("bekker_k", &SoilParameters::bekker_k)
      .def("validate", [](const SoilParameters& s) { validate(s); });
  m.def("named_soil", &named_soil, py::arg("name"), "'dry_sand' or 'lunar_regolith'.");
  m.def("bytes_per_node", &bytes_per_node);

  py::class_<SoilMap> soil_map(m, "SoilMap",
                               "A soil map with bodies moved by drivers: node (i, j) at (i * cell, "
                               "j * cell); fields read as dense copies of a region, or as numpy "
                               "views of one allocated tile (tile_view).");
  soil_map
      .def(py::init<const Vec2&, double, const SoilParameters&, const std::string&, double,
                    double>(),
           py::arg("size_m"), py::arg("cell_size_m"), py::arg("soil"), py::arg("method") = "border",
           py::arg("time_step_s") = 1e-3, py::arg("base_height_m") = 0.0)
      .def("add_body", &SoilMap::add_body, py::arg("name"), py::arg("shape"), py::arg("driver"),
           py::arg("p_BR") = Vec3::Zero())
      .def("step", &SoilMap::step, "One step; returns the step's report as a dict.")
      .def_property_readonly(
          "forces", [](const SoilMap& s) { return wrench_part(s.wrenches(), 0); },
          "(n_bodies, 3) forces of the last step [N]")
      .def_property_readonly(
          "torques", [](const SoilMap& s) { return wrench_part(s.wrenches(), 1); },
          "(n_bodies, 3) torques about each body's reference point [N m]")
      .def_property_readonly("torque_points",
                             [](const SoilMap& s) { return wrench_part(s.wrenches(), 2); })
      .def_property_readonly("nx", [](const SoilMap& s) { return s.model().nx; })
      .def_property_readonly("ny", [](const SoilMap& s) { return s.model().ny; })
      .def_property_readonly("time_s", [](const SoilMap& s) { return s.state().time_s; })
      .def_property_readonly("model", &SoilMap::model, py::return_value_policy::copy)
      .def_property_readonly(
          "state", [](const SoilMap& s) { return ScmState(s.state()); },
          "A copy (snapshot) of the soil state.");
  def_soil_readers(soil_map, [](SoilMap& s) -> ScmState& { return s.mutable_state(); });

  // ---------------------------------------------------------------- Model, State, step
  py::class_<ScmModel> model(m, "Model",
                             "Grid, soil, flow method, time step and bodies: what does not change "
                             "while stepping. Node (i, j) lies at (i, j) * cell_size_m.");
  model
      .def(py::init(&make_model), py::arg("size_m"), py::arg("cell_size_m"), py::arg("soil"),
           py::arg("method") = "border", py::arg("time_step_s") = 1e-3,
           py::arg("base_height_m") = 0.0)
      .def(
          "add_body",
          [](ScmModel& mo, const std::string& name, const Shape& shape, const Vec3& p_BR) {
            mo.bodies.push_back(CoupledBody{name, shape, p_BR});
            try {
              validate(mo);
            } catch (...) {
              mo.bodies.pop_back();
              throw;
            }
            return mo.bodies.size() - 1;
          },
          py::arg("name"), py::arg("shape"), py::arg("reference_point_m") = Vec3::Zero(),
          "Adds a body (posed at each step); returns its index.")
      .def_readonly("nx", &ScmModel::nx)
      .def_readonly("ny", &ScmModel::ny)
      .def_readonly("cell_size_m", &ScmModel::cell_size_m)
      .def_readonly("soil", &ScmModel::soil)
      .def_property_readonly("body_count", [](const ScmModel& mo) { return mo.bodies.size(); });
  const auto check = [](const ScmModel& mo) { validate(mo); };
  def_checked(model, "time_step_s", &ScmModel::time_step_s, check);
  def_checked(model, "erosion_tolerance_m", &ScmModel::erosion_tolerance_m, check);
  def_checked(model, "erosion_max_updates", &ScmModel::erosion_max_updates, check);
  def_checked(model, "border_margin_nodes", &ScmModel::border_margin_nodes, check);
  def_copy(model);

  py::class_<ScmState> state(m, "State",
                             "The soil's nodes (allocated in 32 x 32 tiles on first touch), time "
                             "and contact history: everything that changes while stepping. copy() "
                             "is a snapshot that continues bit for bit like the original.");
  state.def(py::init<const ScmModel&>(), py::arg("model"))
      .def_readonly("time_s", &ScmState::time_s)
      .def_readonly("step", &ScmState::step);
  def_soil_readers(state, [](ScmState& st) -> ScmState& { return st; });
  def_copy(state);

  py::class_<ScmWorkspace>(m, "Workspace", "Scratch memory of the step; carries no results.")
      .def(py::init<>());
  m.def(
      "step",
      [](const ScmModel& mo, ScmState& st, ScmWorkspace& work,
         const std::vector<Eigen::Matrix4d>& X_WB, const std::vector<Twist>& V_WB) {
        const std::vector<BodyMotion> motions = motions_from(X_WB, V_WB, mo.bodies.size(), "body");
        std::vector<Wrench> wrenches(mo.bodies.size());
        ScmStepReport report;
        {
          py::gil_scoped_release unlocked;
          report = scm::step(mo, st, motions, wrenches, work);
        }
        return py::make_tuple(wrench_array(wrenches), report_dict(report));
      },
      py::arg("model"), py::arg("state"), py::arg("workspace"),
      py::arg("body_poses") = std::vector<Eigen::Matrix4d>{},
      py::arg("body_twists") = std::vector<Twist>{},
      "One step of model.time_step_s with the bodies at body_poses (one 4x4 X_WB each, at the "
      "START of the step, as every tier takes them) moving with body_twists (default at rest); "
      "the soil answers at the poses they reach at the step's end. Returns (wrenches, report): "
      "the soil's wrench on each body, (bodies, 3, 3) rows f_W [N], tau_W [N m] about p_W [m], "
      "and the step's report. Releases the GIL.");

  // ---------------------------------------------------------------- scenario files
  py::class_<ScmScenario>(m, "Scenario", "An SCM scenario file, read and checked, not run.")
      .def_readonly("name", &ScmScenario::name)
      .def_readonly("description", &ScmScenario::description)
      .def_property_readonly(
          "model", &scenario_model,
          "Grid, soil, flow and, for a blade experiment (a [terrain] file's [[body]]), the blade; "
          "the plate, strip and wheel rigs add their bodies as their runs build them.")
      .def_readonly("steps", &ScmScenario::steps)
      .def_property_readonly("body_names",
                             [](const ScmScenario& sc) {
                               std::vector<std::string> names;
                               for (const CoupledBody& b : scenario_model(sc).bodies)
                                 names.push_back(b.name);
                               return names;
                             })
      .def(
          "body_motions",
          [](const ScmScenario& sc, double t_s) {
            std::vector<Eigen::Matrix4d> poses;
            std::vector<Twist> twists;
            if (sc.experiment == Experiment::Blade) {
              const BodyMotion motion = step_motion(sc.blade.driver, t_s, sc.model.time_step_s);
              poses.push_back(pose_to_matrix(motion.X_WB));
              twists.push_back(motion.V_WB);
            }
            return py::make_tuple(poses, twists);
          },
          py::arg("t_s"),
          "The motions a run hands the step that starts at t_s (the driver's clock): (poses, "
          "twists) of body_names, ready for step(..., body_poses, body_twists); empty for the "
          "rig experiments, whose bodies are not driven by a motion.")
      .def(
          "initial_state", [](const ScmScenario& sc) { return ScmState(scenario_model(sc)); },
          "A fresh State: untouched soil over the base terrain.");
  def_load(m, &load_scm_scenario, "SCM", "scm");
}

}  // namespace talus::python
