// Python bindings of the sand-shaping tier (talus.shaping, paper 003): heightmap model and state,
// erosion, tools, the step (tools from their drivers or posed from Python), snapshots, the trench
// planner, and a loader from a scenario file.
//
// Heightmap arrays are numpy views of the C++ state (no copies): writing to them changes the
// sand. The heights live in one vector that the step changes in place, so a view stays valid and
// current for as long as the state lives (the view keeps it alive).

#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <optional>
#include <string>

#include "core/erosion.hpp"
#include "core/scenario_file.hpp"
#include "core/units.hpp"
#include "python/bind_common.hpp"
#include "shaping/letter_maps.hpp"
#include "shaping/shaping_scenario.hpp"
#include "shaping/shaping_step.hpp"
#include "shaping/tool_motions.hpp"
#include "shaping/trench_env.hpp"
#include "shaping/trench_env_batch.hpp"
#include "shaping/trench_planner.hpp"

namespace py = pybind11;

namespace talus::python {

using namespace talus::shaping;

namespace {

// Heightmap model and state, and erosion (paper 003 §3.1).
void bind_heightmap(py::module_& m) {
  py::enum_<Connectivity>(m, "Connectivity")
      .value("Four", Connectivity::Four)
      .value("Eight", Connectivity::Eight);

  py::class_<HeightmapModel>(
      m, "HeightmapModel",
      "Grid geometry and material of the sand-shaping tier (immutable in use).")
      .def(py::init([](int nx, int ny, double cell, double repose_deg, int connectivity, double x0,
                       double y0, double flow_rate, double tol, int max_updates) {
             HeightmapModel hm;
             hm.nx = nx;
             hm.ny = ny;
             hm.cell_size_m = cell;
             hm.x0_m = x0;
             hm.y0_m = y0;
             // Checked in degrees, the unit the caller gave (validate() would name radians).
             if (!(repose_deg > 0.0 && repose_deg < 90.0)) {
               throw std::invalid_argument(
                   fmt::format("repose_angle_deg must be in (0, 90) [deg], got {}", repose_deg));
             }
             hm.erosion.repose_angle_rad = deg_to_rad(repose_deg);
             if (connectivity != 4 && connectivity != 8) {
               throw std::invalid_argument("connectivity must be 4 or 8");
             }
             hm.erosion.connectivity = connectivity == 4 ? Connectivity::Four : Connectivity::Eight;
             hm.erosion.flow_rate = flow_rate;
             hm.erosion.tolerance_m = tol;
             hm.erosion.max_updates = max_updates;
             validate(hm);
             return hm;
           }),
           py::arg("nx"), py::arg("ny"), py::arg("cell_size_m"), py::arg("repose_angle_deg"),
           py::arg("connectivity") = 8, py::arg("x0_m") = 0.0, py::arg("y0_m") = 0.0,
           py::arg("flow_rate") = 0.0, py::arg("tolerance_m") = 1e-9,
           py::arg("max_updates") = 100000)
      .def_readonly("nx", &HeightmapModel::nx)
      .def_readonly("ny", &HeightmapModel::ny)
      .def_readonly("cell_size_m", &HeightmapModel::cell_size_m)
      .def_readonly("x0_m", &HeightmapModel::x0_m, "world x of cell (0, 0)'s centre [m]")
      .def_readonly("y0_m", &HeightmapModel::y0_m, "world y of cell (0, 0)'s centre [m]")
      .def_property_readonly("repose_angle_rad",
                             [](const HeightmapModel& hm) { return hm.erosion.repose_angle_rad; })
      .def_property_readonly("connectivity",
                             [](const HeightmapModel& hm) { return hm.erosion.connectivity; })
      .def_property_readonly("tolerance_m",
                             [](const HeightmapModel& hm) { return hm.erosion.tolerance_m; })
      .def_property_readonly(
          "flow_rate", [](const HeightmapModel& hm) { return effective_flow_rate(hm.erosion); });

  py::class_<HeightmapState>(m, "HeightmapState", "Sand heights; arrays are (ny, nx) numpy views.")
      .def_static(
          "flat",
          [](const HeightmapModel& model, double height_m) {
            if (!std::isfinite(height_m)) {
              throw std::invalid_argument(fmt::format(
                  "HeightmapState.flat: height_m must be finite [m], got {}", height_m));
            }
            return HeightmapState::flat(model, height_m);
          },
          py::arg("model"), py::arg("height_m"), "Every cell at height_m [m] (finite).")
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
        return erode_to_steady_state(hm, hm.erosion, s.height_m, s.blocked, hm.whole(), scratch);
      },
      py::arg("model"), py::arg("state"),
      "Erodes the whole grid to the angle of repose (paper 003 §3.1); returns the updates taken.");
  m.def(
      "max_repose_excess",
      [](const HeightmapModel& hm, const HeightmapState& s) {
        return max_repose_excess(hm, hm.erosion, s.height_m, s.blocked);
      },
      py::arg("model"), py::arg("state"),
      "Largest height difference above the repose limit over all neighbour pairs [m].");
  m.def("default_flow_rate", &default_flow_rate);
  m.def("sand_volume_m3", &sand_volume_m3, py::arg("model"), py::arg("state"));
}

// Tools, Model, State, Workspace and the step.
void bind_tools_and_step(py::module_& m) {
  py::class_<ShapingTool>(m, "Tool",
                          "A shape moved by a driver (or, with step(..., tools=...), from Python).")
      .def(py::init([](std::string name, Shape shape, Driver driver) {
             return ShapingTool{std::move(name), std::move(shape), std::move(driver)};
           }),
           py::arg("name"), py::arg("shape"), py::arg("driver"))
      .def_readonly("name", &ShapingTool::name);
  py::class_<ShapingModel>(m, "Model",
                           "Heightmap, tools and time step: what does not change while stepping.")
      .def(py::init([](const HeightmapModel& hm, std::vector<ShapingTool> tools, double dt) {
             ShapingModel sm{hm, std::move(tools), dt};
             validate(sm);
             return sm;
           }),
           py::arg("heightmap"), py::arg("tools"), py::arg("time_step_s"))
      .def_readonly("heightmap", &ShapingModel::heightmap)
      .def_readonly("time_step_s", &ShapingModel::time_step_s);
  py::class_<ShapingStepReport>(m, "StepReport")
      .def_readonly("displaced_volume_m3", &ShapingStepReport::displaced_volume_m3)
      .def_readonly("erosion_updates", &ShapingStepReport::erosion_updates)
      .def_readonly("erosion_converged", &ShapingStepReport::erosion_converged)
      .def_readonly("max_repose_excess_m", &ShapingStepReport::max_repose_excess_m)
      .def_readonly("cells_in_contact", &ShapingStepReport::cells_in_contact);
  py::class_<ShapingWorkspace>(m, "Workspace", "Scratch memory of the step; carries no results.")
      .def(py::init<>());
  py::class_<ShapingState> state_class(
      m, "State",
      "Sand heights, time and the tools' last positions: everything that "
      "changes while stepping. copy() is a snapshot that continues bit for "
      "bit like the original.");
  state_class
      .def(py::init([](const ShapingModel& sm, const HeightmapState& hs) {
             return ShapingState::initial(sm, hs);
           }),
           py::arg("model"), py::arg("heightmap"))
      .def_readonly("time_s", &ShapingState::time_s)
      .def_readonly("step", &ShapingState::step)
      .def_property_readonly(
          "heightmap", [](ShapingState& s) -> HeightmapState& { return s.heightmap; },
          py::return_value_policy::reference_internal,
          "The sand; its heights() view stays valid and current for the state's life.");
  state_class.def(
      "place_tools",
      [](ShapingState& s, const ShapingModel& model, const std::vector<Eigen::Matrix4d>& X_WT) {
        const std::vector<BodyMotion> tools = motions_from(X_WT, {}, model.tools.size(), "tool");
        for (std::size_t k = 0; k < tools.size(); ++k) {
          s.tool_p_W[k] = tools[k].X_WB.translation();
        }
      },
      py::arg("model"), py::arg("tool_poses"),
      "Sets where the tools are before the next step (e.g. at an episode's start) without "
      "moving sand: the step refuses a tool that travels more than one cell from there. A new "
      "State has its tools at their drivers' poses at time 0.");
  def_copy(state_class);
  m.def(
      "step",
      [](const ShapingModel& model, ShapingState& state, ShapingWorkspace& work,
         const std::optional<std::vector<Eigen::Matrix4d>>& X_WT, const std::vector<Twist>& V_WT) {
        if (!X_WT) {
          if (!V_WT.empty()) throw std::invalid_argument("tool_twists given without tool_poses");
          py::gil_scoped_release unlocked;
          return step(model, state, work);
        }
        const std::vector<BodyMotion> tools = motions_from(*X_WT, V_WT, model.tools.size(), "tool");
        py::gil_scoped_release unlocked;
        return step(model, state, tools, work);
      },
      py::arg("model"), py::arg("state"), py::arg("workspace"), py::arg("tool_poses") = py::none(),
      py::arg("tool_twists") = std::vector<Twist>{},
      "One step: the tools move from tool_poses (one 4x4 X_WT per tool, at the START of the "
      "step, as every tier takes them) with tool_twists (optional, default at rest: the tool "
      "stays at the pose given) to where they are at the step's end (without tool_poses: their "
      "drivers' poses at the new time), push the sand, and erosion brings it to the angle of "
      "repose. Releases the GIL. Raises RuntimeError "
      "naming the tool when one moves more than a cell in a step, and ValueError for a wrong "
      "number of poses.");
}

// The multi-stroke primitive (a straight push) and the wheel-trench driver.
void bind_primitives(py::module_& m) {
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
}

// The single-stroke trench planner (paper 003 §4.2).
void bind_planner(py::module_& m) {
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
  m.def(
      "letter_map",
      [](const std::string& letter) {
        if (letter.size() != 1) {  // a char argument would get pybind's generic type error
          throw std::invalid_argument(
              fmt::format("letter_map: expected one letter, got '{}'; available: {}", letter,
                          letter_map_names()));
        }
        return letter_map(letter[0]);
      },
      py::arg("letter"), "7x7 goal map of a capital letter A-Z.");
  m.def("letter_map_names", &letter_map_names, "The letters letter_map knows: \"A, B, ..., Z\".");
}

BinaryMap binary_map_of(
    const py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>& a) {
  if (a.ndim() != 2 || a.shape(0) < 1 || a.shape(1) < 1) {
    throw std::invalid_argument("goal: expected a 2-D array of 0/1 cells (rows, cols)");
  }
  BinaryMap m;
  m.rows = static_cast<int>(a.shape(0));
  m.cols = static_cast<int>(a.shape(1));
  m.cells.assign(a.data(), a.data() + a.size());
  for (std::uint8_t& c : m.cells) {
    if (c > 1) throw std::invalid_argument("goal: expected cells of 0 or 1");
  }
  return m;
}

py::array_t<std::uint8_t> map_array(const BinaryMap& m) {
  py::array_t<std::uint8_t> out({m.rows, m.cols});
  std::copy(m.cells.begin(), m.cells.end(), out.mutable_data());
  return out;
}

// ShapingTrench-v0's episodes drawn and stepped in C++ (shaping/trench_env_batch.hpp): the single
// environment is a batch of one, make_vec's a batch of N.
void bind_trench_batch(py::module_& m) {
  py::class_<TrenchHeightmapBed>(m, "TrenchHeightmapBed",
                                 "The sand bed of ShapingTrench-v0's heightmap backend.")
      .def(py::init([](int cells_per_map_cell, double cell_size_m, int margin_cells,
                       double sand_height_m, double trench_depth_m, double blade_thickness_m,
                       double repose_angle_rad) {
             TrenchHeightmapBed b;
             b.cells_per_map_cell = cells_per_map_cell;
             b.cell_size_m = cell_size_m;
             b.margin_cells = margin_cells;
             b.sand_height_m = sand_height_m;
             b.trench_depth_m = trench_depth_m;
             b.blade_thickness_m = blade_thickness_m;
             b.repose_angle_rad = repose_angle_rad;
             validate(b);
             return b;
           }),
           py::arg("cells_per_map_cell") = 4, py::arg("cell_size_m") = 0.01,
           py::arg("margin_cells") = 2, py::arg("sand_height_m") = 0.05,
           py::arg("trench_depth_m") = 0.006, py::arg("blade_thickness_m") = 0.015,
           py::arg("repose_angle_rad") = TrenchHeightmapBed{}.repose_angle_rad)
      .def_readonly("cells_per_map_cell", &TrenchHeightmapBed::cells_per_map_cell)
      .def_readonly("cell_size_m", &TrenchHeightmapBed::cell_size_m)
      .def_readonly("margin_cells", &TrenchHeightmapBed::margin_cells)
      .def_readonly("sand_height_m", &TrenchHeightmapBed::sand_height_m)
      .def_readonly("trench_depth_m", &TrenchHeightmapBed::trench_depth_m)
      .def_readonly("blade_thickness_m", &TrenchHeightmapBed::blade_thickness_m)
      .def_readonly("repose_angle_rad", &TrenchHeightmapBed::repose_angle_rad);
  py::class_<TrenchGoalSource>(m, "TrenchGoalSource",
                               "Where ShapingTrench-v0's episodes draw their goals from.")
      .def_static(
          "of_maps",
          [](const std::vector<
              py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>>& maps) {
            std::vector<BinaryMap> goals;
            for (const auto& a : maps) goals.push_back(binary_map_of(a));
            return TrenchGoalSource::of_maps(std::move(goals));
          },
          py::arg("maps"),
          "Goals drawn uniformly from `maps` (0/1 arrays of one size); plans each one's optimal "
          "stroke now (ValueError for a map one stroke cannot dig).")
      .def_static("random", &TrenchGoalSource::random, py::arg("rows"), py::arg("cols"),
                  py::arg("min_cells"), py::arg("max_cells"),
                  "Random single-stroke goals: the cells a random walk of the blade visits.")
      .def_readonly("rows", &TrenchGoalSource::rows)
      .def_readonly("cols", &TrenchGoalSource::cols);
  py::class_<TrenchEnvBatch>(m, "TrenchEnvBatch",
                             "num_envs trench environments stepped in one call (next-step "
                             "autoreset); arrays are written in place.")
      .def(py::init([](TrenchGoalSource source, double step_cost, int max_episode_steps,
                       int num_envs, std::optional<TrenchHeightmapBed> heightmap) {
             return TrenchEnvBatch(std::move(source),
                                   TrenchEnvRules{step_cost, max_episode_steps, heightmap},
                                   num_envs);
           }),
           py::arg("source"), py::arg("step_cost"), py::arg("max_episode_steps"),
           py::arg("num_envs"), py::arg("heightmap") = std::nullopt,
           "heightmap: a TrenchHeightmapBed for the heightmap backend, None for the binary map.")
      .def(
          "sand_of",
          [](const TrenchEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("sand_of: no such env");
            const TrenchHeightmapModel* model = b.heightmap();
            if (model == nullptr)
              throw std::invalid_argument("sand_of: the binary backend has no sand");
            const HeightmapModel& hm = model->sim.heightmap;
            py::array_t<double> out({hm.ny, hm.nx});
            const std::vector<double>& h = b.slot(i).sand.sim.heightmap.height_m;
            std::copy(h.begin(), h.end(), out.mutable_data());
            return out;
          },
          py::arg("index"),
          "The heightmap backend's sand heights [m] of environment `index`, (ny, nx) indexed "
          "[j, i].")
      .def_property_readonly("num_envs", &TrenchEnvBatch::num_envs)
      .def(
          "reset",
          [](TrenchEnvBatch& b, py::array_t<std::uint64_t, py::array::c_style>& seeds,
             py::array_t<float, py::array::c_style>& obs) {
            const py::ssize_t n = b.num_envs();
            float* o = checked(obs, {n, 3, b.rows(), b.cols()}, "observations");
            const std::uint64_t* s = checked(seeds, {n}, "seeds");
            b.reset({s, static_cast<std::size_t>(n)}, o);
          },
          py::arg("seeds"), py::arg("observations"))
      .def(
          "step",
          [](TrenchEnvBatch& b, py::array_t<std::uint8_t, py::array::c_style>& actions,
             py::array_t<float, py::array::c_style>& obs,
             py::array_t<double, py::array::c_style>& rewards,
             py::array_t<bool, py::array::c_style>& terminated,
             py::array_t<bool, py::array::c_style>& truncated, int threads) {
            const py::ssize_t n = b.num_envs();
            const std::uint8_t* a = checked(actions, {n}, "actions");
            float* o = checked(obs, {n, 3, b.rows(), b.cols()}, "observations");
            double* r = checked(rewards, {n}, "rewards");
            auto* te = reinterpret_cast<std::uint8_t*>(checked(terminated, {n}, "terminated"));
            auto* tr = reinterpret_cast<std::uint8_t*>(checked(truncated, {n}, "truncated"));
            py::gil_scoped_release release;
            b.step({a, static_cast<std::size_t>(n)}, o, r, te, tr, threads);
          },
          py::arg("actions"), py::arg("observations"), py::arg("rewards"), py::arg("terminated"),
          py::arg("truncated"), py::arg("threads") = 1)
      .def(
          "redraw",
          [](TrenchEnvBatch& b, int i, py::array_t<float, py::array::c_style>& obs) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("redraw: no such env");
            b.redraw(i, checked(obs, {3, b.rows(), b.cols()}, "observation"));
          },
          py::arg("index"), py::arg("observation"),
          "Starts environment `index` on the next episode its generator draws.")
      .def(
          "set_episode",
          [](TrenchEnvBatch& b, int i,
             const py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>& goal,
             int start_row, int start_col, int optimal_steps,
             py::array_t<float, py::array::c_style>& obs) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("set_episode: no such env");
            TrenchDraw d{binary_map_of(goal), GridCell{start_row, start_col}, optimal_steps, -1};
            float* o = checked(obs, {3, b.rows(), b.cols()}, "observation");
            b.set_episode(i, std::move(d), o);
          },
          py::arg("index"), py::arg("goal"), py::arg("start_row"), py::arg("start_col"),
          py::arg("optimal_steps"), py::arg("observation"),
          "Starts environment `index` on this goal and start (reset options), keeping its "
          "generator.")
      .def(
          "info",
          [](const TrenchEnvBatch& b) {
            const auto n = static_cast<py::ssize_t>(b.num_envs());
            py::array_t<std::int64_t> steps(n), l1(n), outside(n), optimal(n), index(n);
            py::array_t<std::int64_t> start({n, py::ssize_t{2}});
            for (py::ssize_t i = 0; i < n; ++i) {
              const TrenchEnvSlot& s = b.slot(static_cast<int>(i));
              steps.mutable_at(i) = s.state.steps;
              l1.mutable_at(i) = s.state.l1_to_goal;
              outside.mutable_at(i) = s.state.dug_outside;
              optimal.mutable_at(i) = s.draw.optimal_steps;
              index.mutable_at(i) = s.draw.map_index;
              start.mutable_at(i, 0) = s.draw.start.row;
              start.mutable_at(i, 1) = s.draw.start.col;
            }
            py::dict d;
            d["steps"] = steps;
            d["l1_to_goal"] = l1;
            d["dug_outside"] = outside;
            d["optimal_steps"] = optimal;
            d["map_index"] = index;
            d["start"] = start;
            return d;
          },
          "Per environment (arrays): steps, l1_to_goal, dug_outside, optimal_steps, map_index "
          "(-1: not drawn from the maps), start (row, col).")
      .def(
          "info_of",
          [](const TrenchEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("info_of: no such env");
            const TrenchEnvSlot& s = b.slot(i);
            py::dict d;
            d["steps"] = s.state.steps;
            d["l1_to_goal"] = s.state.l1_to_goal;
            d["dug_outside"] = s.state.dug_outside;
            d["optimal_steps"] = s.draw.optimal_steps;
            d["map_index"] = s.draw.map_index;
            d["start"] = py::make_tuple(s.draw.start.row, s.draw.start.col);
            return d;
          },
          py::arg("index"), "info() of environment `index` alone, as Python ints.")
      .def(
          "episode",
          [](const TrenchEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("episode: no such env");
            const TrenchEnvSlot& s = b.slot(i);
            return py::make_tuple(map_array(s.state.dug), map_array(s.draw.goal),
                                  py::make_tuple(s.state.blade.row, s.state.blade.col));
          },
          py::arg("index"), "(dug map, goal map, blade (row, col)) of environment `index`.");
}

// Scenario files read without running them.
void bind_scenario(py::module_& m) {
  py::class_<ShapingScenario>(m, "Scenario", "A shaping scenario file, read and checked, not run.")
      .def_readonly("name", &ShapingScenario::name)
      .def_readonly("description", &ShapingScenario::description)
      .def_readonly("model", &ShapingScenario::model)
      .def_readonly("steps", &ShapingScenario::steps, "Steps the file's run takes.")
      .def(
          "initial_state",
          [](const ShapingScenario& sc) { return ShapingState::initial(sc.model, sc.initial); },
          "A fresh State: the undisturbed sand at time 0.");
  def_load(m, &load_shaping_scenario, "shaping", "shaping");
}

}  // namespace

void bind_stroke_env(py::module_& m);  // python/bind_stroke_env.cpp

void bind_shaping(py::module_& parent) {
  py::module_ m = parent.def_submodule("shaping", "The sand-shaping tier (paper 003).");
  bind_heightmap(m);
  bind_tools_and_step(m);
  bind_primitives(m);
  bind_planner(m);
  bind_trench_batch(m);
  bind_stroke_env(m);
  bind_scenario(m);
}

}  // namespace talus::python
