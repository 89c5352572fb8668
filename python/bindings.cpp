// The `talus` Python module: the same objects as the C++ API. Heightmap arrays are numpy views of
// the C++ state (no copies): writing to them changes the state.

#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "core/driver.hpp"
#include "core/mesh_sdf.hpp"
#include "core/scenario_file.hpp"
#include "core/shape.hpp"
#include "core/units.hpp"
#include "core/version.hpp"
#include "python/bind_common.hpp"
#include "runner/run_scenario.hpp"
#include "shaping/erosion.hpp"
#include "shaping/letter_maps.hpp"
#include "shaping/shaping_step.hpp"
#include "shaping/tool_motions.hpp"
#include "shaping/trench_planner.hpp"

namespace py = pybind11;

namespace talus::python {
void bind_scm(py::module_& m);  // python/bind_scm.cpp
}
void bind_robot(py::module_& m);  // python/bind_robot.cpp

using namespace talus;
using namespace talus::shaping;
using namespace talus::python;

void bind_particles(py::module_& m);  // python/bind_particles.cpp
void bind_wrench(py::module_& m);     // python/bind_wrench.cpp

namespace {

// The state does not know its grid's shape; Python users always have the model at hand.
struct StateGrid {
  int nx, ny;
};

}  // namespace

PYBIND11_MODULE(_talus, m) {
  m.doc() = "talus: robots in sand, soil and gravel (C++ core). SI units; poses are 4x4 matrices.";
  m.attr("__version__") = version();

  py::register_exception<ScenarioError>(m, "ScenarioError", PyExc_ValueError);
  py::register_exception<OutputTargetError>(m, "OutputTargetError", PyExc_ValueError);

  // ---------------------------------------------------------------- poses, shapes, drivers
  m.def(
      "make_pose",
      [](const Vec3& p, double roll, double pitch, double yaw) {
        return pose_to_matrix(make_pose(p, roll, pitch, yaw));
      },
      py::arg("p_WB"), py::arg("roll") = 0.0, py::arg("pitch") = 0.0, py::arg("yaw") = 0.0,
      "4x4 pose from a position [m] and roll, pitch, yaw [rad] (R = Rz(yaw) Ry(pitch) Rx(roll)).");

  py::class_<Twist>(m, "Twist", "Spatial velocity of a body in world: w_W [rad/s], v_WBo [m/s].")
      .def(py::init([](const Vec3& w_W, const Vec3& v_WBo) {
             return Twist{w_W, v_WBo};
           }),
           py::arg("w_W") = Vec3::Zero(), py::arg("v_WBo") = Vec3::Zero())
      .def_readwrite("w_W", &Twist::w_W)
      .def_readwrite("v_WBo", &Twist::v_WBo);

  py::class_<PlaneShape>(m, "PlaneShape", "Half-space z_B <= 0.").def(py::init<>());
  py::class_<BoxShape>(m, "BoxShape")
      .def(py::init([](const Vec3& half) { return BoxShape{half}; }), py::arg("half_extents_m"))
      .def_readwrite("half_extents_m", &BoxShape::half_extents_m);
  py::class_<SphereShape>(m, "SphereShape")
      .def(py::init([](double r) { return SphereShape{r}; }), py::arg("radius_m"))
      .def_readwrite("radius_m", &SphereShape::radius_m);
  py::class_<CylinderShape>(m, "CylinderShape", "Axis along z_B.")
      .def(py::init([](double r, double h) {
             return CylinderShape{r, h};
           }),
           py::arg("radius_m"), py::arg("half_length_m"))
      .def_readwrite("radius_m", &CylinderShape::radius_m)
      .def_readwrite("half_length_m", &CylinderShape::half_length_m);
  py::class_<CapsuleShape>(m, "CapsuleShape", "Segment along z_B.")
      .def(py::init([](double r, double h) {
             return CapsuleShape{r, h};
           }),
           py::arg("radius_m"), py::arg("half_length_m"))
      .def_readwrite("radius_m", &CapsuleShape::radius_m)
      .def_readwrite("half_length_m", &CapsuleShape::half_length_m);
  py::class_<WheelShape>(m, "WheelShape", "Wheel with grousers; axis along y_B, rolls along x_B.")
      .def(py::init([](double r, double w, int n, double gh, double gt) {
             return WheelShape{r, w, n, gh, gt};
           }),
           py::arg("radius_m"), py::arg("width_m"), py::arg("grouser_count") = 0,
           py::arg("grouser_height_m") = 0.0, py::arg("grouser_thickness_m") = 0.005)
      .def_readwrite("radius_m", &WheelShape::radius_m)
      .def_readwrite("width_m", &WheelShape::width_m)
      .def_readwrite("grouser_count", &WheelShape::grouser_count)
      .def_readwrite("grouser_height_m", &WheelShape::grouser_height_m)
      .def_readwrite("grouser_thickness_m", &WheelShape::grouser_thickness_m);
  py::class_<MeshShape>(m, "MeshShape", "Closed triangle mesh as a signed-distance grid.")
      .def(py::init([](const std::filesystem::path& file, double sdf_cell_m, double scale) {
             return MeshShape{
                 MeshSdfGrid::build(load_mesh(file, scale), sdf_cell_m, -1.0, file.string()),
                 file.string()};
           }),
           py::arg("file"), py::arg("sdf_cell_m"), py::arg("scale") = 1.0)
      .def_readonly("source", &MeshShape::source);
  m.def("wheel_with_grouser_fraction", &wheel_with_grouser_fraction, py::arg("radius_m"),
        py::arg("width_m"), py::arg("grouser_count"), py::arg("grouser_height_m"),
        py::arg("fraction"));
  m.def("grouser_volume_fraction", &grouser_volume_fraction);
  m.def("validate_shape", [](const Shape& s) { validate(s); });
  m.def("signed_distance", &signed_distance, py::arg("shape"), py::arg("p_B"),
        "Signed distance [m] from p_B (body frame) to the shape; negative inside.");
  m.def(
      "lowest_point_z",
      [](const Shape& s, const Eigen::Matrix4d& X, double x, double y) {
        return lowest_point_z(s, matrix_to_pose(X), x, y);
      },
      py::arg("shape"), py::arg("X_WB"), py::arg("x_W"), py::arg("y_W"),
      "World z [m] of the shape's lowest point on the vertical line through (x_W, y_W); inf if "
      "missed.");

  py::class_<ConstantTwistDriver>(m, "ConstantTwistDriver")
      .def(py::init([](const Eigen::Matrix4d& X0, const Twist& V) {
             return ConstantTwistDriver{matrix_to_pose(X0), V};
           }),
           py::arg("X_WB0"), py::arg("V_WB"));
  py::class_<WaypointDriver>(m, "WaypointDriver")
      .def(py::init([](std::vector<double> times, const std::vector<Eigen::Matrix4d>& poses) {
             WaypointDriver d;
             d.times_s = std::move(times);
             for (const auto& p : poses) d.poses.push_back(matrix_to_pose(p));
             validate(Driver(d));
             return d;
           }),
           py::arg("times_s"), py::arg("poses"));
  m.def(
      "pose_at", [](const Driver& d, double t) { return pose_to_matrix(pose_at(d, t)); },
      py::arg("driver"), py::arg("t_s"));
  m.def(
      "twist_at", [](const Driver& d, double t) { return twist_at(d, t); }, py::arg("driver"),
      py::arg("t_s"));

  bind_robot(m);

  // ---------------------------------------------------------------- heightmap and erosion
  py::enum_<Connectivity>(m, "Connectivity")
      .value("Four", Connectivity::Four)
      .value("Eight", Connectivity::Eight);

  py::class_<HeightmapModel>(
      m, "HeightmapModel",
      "Grid geometry and material of the sand-shaping tier (immutable in use).")
      .def(py::init([](int nx, int ny, double cell, double repose_deg, int connectivity, double ox,
                       double oy, double flow_rate, double tol, int max_updates) {
             HeightmapModel hm;
             hm.nx = nx;
             hm.ny = ny;
             hm.cell_size_m = cell;
             hm.repose_angle_rad = deg_to_rad(repose_deg);
             if (connectivity != 4 && connectivity != 8) {
               throw std::invalid_argument("connectivity must be 4 or 8");
             }
             hm.connectivity = connectivity == 4 ? Connectivity::Four : Connectivity::Eight;
             hm.origin_x_m = ox;
             hm.origin_y_m = oy;
             hm.flow_rate = flow_rate;
             hm.tolerance_m = tol;
             hm.max_updates = max_updates;
             validate(hm);
             return hm;
           }),
           py::arg("nx"), py::arg("ny"), py::arg("cell_size_m"), py::arg("repose_angle_deg"),
           py::arg("connectivity") = 8, py::arg("origin_x_m") = 0.0, py::arg("origin_y_m") = 0.0,
           py::arg("flow_rate") = 0.0, py::arg("tolerance_m") = 1e-9,
           py::arg("max_updates") = 100000)
      .def_readonly("nx", &HeightmapModel::nx)
      .def_readonly("ny", &HeightmapModel::ny)
      .def_readonly("cell_size_m", &HeightmapModel::cell_size_m)
      .def_readonly("origin_x_m", &HeightmapModel::origin_x_m)
      .def_readonly("origin_y_m", &HeightmapModel::origin_y_m)
      .def_readonly("repose_angle_rad", &HeightmapModel::repose_angle_rad)
      .def_readonly("connectivity", &HeightmapModel::connectivity)
      .def_readonly("tolerance_m", &HeightmapModel::tolerance_m)
      .def_property_readonly("flow_rate",
                             [](const HeightmapModel& hm) { return effective_flow_rate(hm); });

  py::class_<HeightmapState>(m, "HeightmapState", "Sand heights; arrays are (ny, nx) numpy views.")
      .def_static("flat", &HeightmapState::flat, py::arg("model"), py::arg("height_m"))
      .def_property_readonly("shape", [](const HeightmapState& s) { return s.height_m.size(); })
      .def(
          "heights",
          [](py::object self, const HeightmapModel& hm) {
            auto& s = self.cast<HeightmapState&>();
            return grid_view(s.height_m, hm.ny, hm.nx, self);
          },
          py::arg("model"), "(ny, nx) float64 view of the heights [m]; row j is y, column i is x.")
      .def(
          "blocked",
          [](py::object self, const HeightmapModel& hm) {
            auto& s = self.cast<HeightmapState&>();
            return grid_view(s.blocked, hm.ny, hm.nx, self);
          },
          py::arg("model"), "(ny, nx) uint8 view: 1 where a tool occupies the cell.");

  py::class_<ErosionResult>(m, "ErosionResult")
      .def_readonly("updates", &ErosionResult::updates)
      .def_readonly("converged", &ErosionResult::converged)
      .def_readonly("max_excess_m", &ErosionResult::max_excess_m);
  m.def(
      "erode_to_steady_state",
      [](const HeightmapModel& hm, HeightmapState& s) {
        std::vector<double> scratch;
        return erode_to_steady_state(hm, s, CellBox::whole(hm), scratch);
      },
      py::arg("model"), py::arg("state"),
      "Erodes the whole grid to the angle of repose (paper 003 §3.1); returns the updates taken.");
  m.def("max_repose_excess", &max_repose_excess, py::arg("model"), py::arg("state"),
        "Largest height difference above the repose limit over all neighbour pairs [m].");
  m.def("default_flow_rate", &default_flow_rate);
  m.def("sand_volume_m3", &sand_volume_m3, py::arg("model"), py::arg("state"));

  // ---------------------------------------------------------------- tools and steps
  py::class_<ShapingTool>(m, "ShapingTool")
      .def(py::init([](std::string name, Shape shape, Driver driver) {
             return ShapingTool{std::move(name), std::move(shape), std::move(driver)};
           }),
           py::arg("name"), py::arg("shape"), py::arg("driver"))
      .def_readonly("name", &ShapingTool::name);
  py::class_<ShapingModel>(m, "ShapingModel")
      .def(py::init([](const HeightmapModel& hm, std::vector<ShapingTool> tools, double dt) {
             ShapingModel sm{hm, std::move(tools), dt};
             validate(sm);
             return sm;
           }),
           py::arg("heightmap"), py::arg("tools"), py::arg("time_step_s"))
      .def_readonly("heightmap", &ShapingModel::heightmap)
      .def_readonly("time_step_s", &ShapingModel::time_step_s);
  py::class_<ShapingStepReport>(m, "ShapingStepReport")
      .def_readonly("displaced_volume_m3", &ShapingStepReport::displaced_volume_m3)
      .def_readonly("erosion_updates", &ShapingStepReport::erosion_updates)
      .def_readonly("erosion_converged", &ShapingStepReport::erosion_converged)
      .def_readonly("max_repose_excess_m", &ShapingStepReport::max_repose_excess_m)
      .def_readonly("cells_in_contact", &ShapingStepReport::cells_in_contact);
  py::class_<ShapingWorkspace>(m, "ShapingWorkspace").def(py::init<>());
  py::class_<ShapingState>(m, "ShapingState")
      .def(py::init([](const ShapingModel& sm, const HeightmapState& hs) {
             return ShapingState::initial(sm, hs);
           }),
           py::arg("model"), py::arg("heightmap"))
      .def_readonly("time_s", &ShapingState::time_s)
      .def_readonly("step", &ShapingState::step)
      .def_property_readonly(
          "heightmap", [](ShapingState& s) -> HeightmapState& { return s.heightmap; },
          py::return_value_policy::reference_internal);
  m.def("step", &step, py::arg("model"), py::arg("state"), py::arg("workspace"),
        "One action: drivers move the tools, tools push sand, erosion to steady state.");

  py::class_<StraightPush>(m, "StraightPush", "A straight blade push at constant bottom height.")
      .def(py::init([](const Vec2& a, const Vec2& b, double z, double width, double thickness,
                       double height, double speed) {
             return StraightPush{a, b, z, width, thickness, height, speed};
           }),
           py::arg("start_W"), py::arg("end_W"), py::arg("bottom_z_m"),
           py::arg("blade_width_m") = 0.05, py::arg("blade_thickness_m") = 0.005,
           py::arg("blade_height_m") = 0.1, py::arg("speed_m_per_s") = 0.05);
  m.def("execute_straight_push", &execute_straight_push, py::arg("model"), py::arg("state"),
        py::arg("push"),
        "Multi-stroke primitive: lower, push, lift; the state is updated in place.");

  py::class_<WheelTrenchMotion>(m, "WheelTrenchMotion")
      .def(py::init([](const Vec2& start, double heading, double surface, double sinkage,
                       double slip, double slip_angle, double speed) {
             return WheelTrenchMotion{start, heading, surface, sinkage, slip, slip_angle, speed};
           }),
           py::arg("start_W"), py::arg("heading_rad") = 0.0, py::arg("surface_z_m") = 0.0,
           py::arg("sinkage_m") = 0.0, py::arg("slip_ratio") = 0.0, py::arg("slip_angle_rad") = 0.0,
           py::arg("speed_m_per_s") = 0.03);
  m.def("wheel_trench_driver", &wheel_trench_driver, py::arg("wheel"), py::arg("motion"));

  // ---------------------------------------------------------------- trench planner
  py::class_<GridCell>(m, "GridCell")
      .def(py::init([](int r, int c) {
             return GridCell{r, c};
           }),
           py::arg("row"), py::arg("col"))
      .def_readonly("row", &GridCell::row)
      .def_readonly("col", &GridCell::col)
      .def("__repr__", [](const GridCell& c) {
        return "GridCell(" + std::to_string(c.row) + ", " + std::to_string(c.col) + ")";
      });
  py::class_<BinaryMap>(m, "BinaryMap", "Goal map: '#' cells are to be trenched.")
      .def_static("from_rows", &BinaryMap::from_rows)
      .def_readonly("rows", &BinaryMap::rows)
      .def_readonly("cols", &BinaryMap::cols)
      .def("count", &BinaryMap::count)
      .def("to_rows", &BinaryMap::to_rows)
      .def("__eq__", [](const BinaryMap& a, const BinaryMap& b) { return a == b; });
  py::enum_<TrenchHeuristic>(m, "TrenchHeuristic")
      .value("CellsRemaining", TrenchHeuristic::CellsRemaining)
      .value("PathCover", TrenchHeuristic::PathCover);
  py::class_<TrenchPlan>(m, "TrenchPlan")
      .def_readonly("found", &TrenchPlan::found)
      .def_readonly("failure", &TrenchPlan::failure)
      .def_readonly("start", &TrenchPlan::start)
      .def_readonly("cells", &TrenchPlan::cells)
      .def_readonly("steps", &TrenchPlan::steps)
      .def_readonly("nodes_expanded", &TrenchPlan::nodes_expanded)
      .def_readonly("nodes_generated", &TrenchPlan::nodes_generated)
      .def_property_readonly("actions", [](const TrenchPlan& p) {
        std::vector<std::string> a;
        for (const TrenchAction x : p.actions) a.emplace_back(to_string(x));
        return a;
      });
  m.def(
      "plan_single_stroke_trench",
      [](const BinaryMap& goal, TrenchHeuristic h, double alpha, std::optional<GridCell> start) {
        TrenchPlanOptions o;
        o.heuristic = h;
        o.alpha = alpha;
        o.start = start;
        return plan_single_stroke_trench(goal, o);
      },
      py::arg("goal"), py::arg("heuristic") = TrenchHeuristic::PathCover, py::arg("alpha") = 1.0,
      py::arg("start") = std::nullopt, "A* single-stroke trench plan (paper 003 §4.2).");
  m.def("exhaustive_min_steps", &exhaustive_min_steps, py::arg("goal"),
        py::arg("start") = std::nullopt);
  m.def("letter_map", &letter_map, py::arg("letter"), "7x7 goal map of a letter (A, S, T, R).");

  bind_particles(m);
  bind_wrench(m);

  // ---------------------------------------------------------------- scenarios
  m.def(
      "run_scenario",
      [](const std::filesystem::path& file, const std::filesystem::path& out, bool replace) {
        return run_scenario_file(file, OutputTarget(out, replace ? ExistingOutput::replace
                                                                 : ExistingOutput::refuse))
            .dump();
      },
      py::arg("scenario"), py::arg("out"), py::arg("replace") = false,
      "Runs a scenario file into `out` (a new or empty folder, or with replace=True an earlier "
      "talus output); returns summary.json's text. Raises ValueError for bad input or a folder "
      "talus may not write.");
  m.def(
      "check_scenario",
      [](const std::filesystem::path& file) { return check_scenario_file(file).dump(); },
      py::arg("scenario"));

  bind_scm(m);
}
