#include "shaping/shaping_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/erosion.hpp"

namespace talus::shaping {

namespace {

// Stage 1: each tool's shape at its pose and twist for this step.
std::vector<ToolPlacement> place_tools(const ShapingModel& model,
                                       std::span<const BodyMotion> tools) {
  if (tools.size() != model.tools.size()) {
    throw std::invalid_argument(fmt::format("shaping step: {} tool motions given for {} tools",
                                            tools.size(), model.tools.size()));
  }
  std::vector<ToolPlacement> placements;
  placements.reserve(tools.size());
  for (std::size_t k = 0; k < tools.size(); ++k) {
    placements.push_back({&model.tools[k].shape, tools[k].X_WB, tools[k].V_WB});
  }
  return placements;
}

// The tools' poses and twists at time t from their drivers.
std::vector<BodyMotion> driven_tools(const ShapingModel& model, double t_s) {
  std::vector<BodyMotion> motions;
  motions.reserve(model.tools.size());
  for (const ShapingTool& tool : model.tools) {
    motions.push_back({pose_at(tool.driver, t_s), twist_at(tool.driver, t_s)});
  }
  return motions;
}

// Stage 1b: no tool may jump past a cell in one step: the push model carries the sand of the cells
// a tool overlaps, so a tool moving further would leave the cells between untouched (a 9 cm jump
// on a 5 mm grid went through the sand and reported success). The scenario reader refuses such a
// motion before the run (check_tool_travel); this catches models built in code and tools moved
// from Python.
void check_tool_travel(const ShapingModel& model, const ShapingState& state,
                       const std::vector<ToolPlacement>& placements) {
  for (std::size_t k = 0; k < placements.size(); ++k) {
    const double moved = (placements[k].X_WB.translation() - state.tool_p_W[k]).norm();
    if (!(moved <= model.heightmap.cell_size_m * (1.0 + 1e-9))) {
      throw std::runtime_error(fmt::format(
          "step {} (t = {:.4f} s): tool '{}' moved {:.4g} m in one step, more than one cell "
          "({:g} m): the sand it passed over was not pushed; stopping (lower time_step_s)",
          state.step + 1, state.time_s + model.time_step_s, model.tools[k].name, moved,
          model.heightmap.cell_size_m));
    }
  }
}

// Stage 2: last step's tool cells are free again; each tool pushes sand and blocks its cells.
IndexBox push_tools(const ShapingModel& model, ShapingState& state,
                    const std::vector<ToolPlacement>& placements, ShapingWorkspace& work,
                    ShapingStepReport& report) {
  std::fill(state.heightmap.blocked.begin(), state.heightmap.blocked.end(), 0);
  IndexBox touched;
  for (std::size_t k = 0; k < placements.size(); ++k) {
    const bool first_contact = !state.tool_in_contact[k];
    const PushResult r =
        push_sand(model.heightmap, state.heightmap, placements[k], first_contact, work.push);
    state.tool_in_contact[k] = r.cells_in_contact > 0;
    report.displaced_volume_m3 += r.displaced_volume_m3;
    report.cells_in_contact += r.cells_in_contact;
    touched = united(touched, r.touched);
  }
  return touched;
}

// Stage 3: erosion to the angle of repose, only where the tools changed something.
void erode(const ShapingModel& model, ShapingState& state, const IndexBox& touched,
           ShapingWorkspace& work, ShapingStepReport& report) {
  if (touched.empty()) return;
  ErosionResult r;
  try {
    const HeightmapModel& hm = model.heightmap;
    r = erode_to_steady_state(hm, hm.erosion, state.heightmap.height_m, state.heightmap.blocked,
                              touched, work.erosion_scratch);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(
        fmt::format("step {} (t = {:.4f} s): {}; stopping", state.step, state.time_s, e.what()));
  }
  report.erosion_updates = r.updates;
  report.erosion_converged = r.converged;
  report.max_repose_excess_m = r.max_excess_m;
}

// Stage 4: a NaN or infinity stops the run with the step and the cell.
void check_finite(const ShapingModel& model, const ShapingState& state, const IndexBox& box) {
  for (int j = box.j0; j < box.j1; ++j) {
    for (int i = box.i0; i < box.i1; ++i) {
      const double h = state.heightmap.height_m[model.heightmap.index(i, j)];
      if (!std::isfinite(h)) {
        throw std::runtime_error(
            fmt::format("step {} (t = {:.4f} s): sand height at cell ({}, {}) is {}; stopping",
                        state.step, state.time_s, i, j, h));
      }
    }
  }
}

}  // namespace

ShapingState ShapingState::initial(const ShapingModel& model, HeightmapState heightmap) {
  if (heightmap.height_m.size() != static_cast<std::size_t>(model.heightmap.sample_count())) {
    throw std::invalid_argument(fmt::format("initial heightmap has {} cells, the model {} x {}",
                                            heightmap.height_m.size(), model.heightmap.nx,
                                            model.heightmap.ny));
  }
  ShapingState s;
  s.heightmap = std::move(heightmap);
  s.heightmap.blocked.assign(s.heightmap.height_m.size(), 0);
  s.tool_in_contact.assign(model.tools.size(), 0);
  for (const BodyMotion& m : driven_tools(model, 0.0)) s.tool_p_W.push_back(m.X_WB.translation());
  return s;
}

void validate(const ShapingModel& model) {
  validate(model.heightmap);
  if (!(model.time_step_s > 0.0) || !std::isfinite(model.time_step_s)) {
    throw std::invalid_argument(
        fmt::format("time_step_s must be a finite number > 0, got {}", model.time_step_s));
  }
  for (const ShapingTool& tool : model.tools) {
    try {
      validate(tool.shape);
      validate(tool.driver);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("tool '{}': {}", tool.name, e.what()));
    }
  }
}

namespace {

// One step with the tools at their poses at the step's end: place, push, erode, check.
ShapingStepReport step_to(const ShapingModel& model, ShapingState& state,
                          std::span<const BodyMotion> tools_at_end, ShapingWorkspace& work) {
  const std::vector<ToolPlacement> placements = place_tools(model, tools_at_end);
  check_tool_travel(model, state, placements);
  ShapingStepReport report;
  state.time_s = static_cast<double>(state.step + 1) * model.time_step_s;
  ++state.step;
  const IndexBox touched = push_tools(model, state, placements, work, report);
  for (std::size_t k = 0; k < placements.size(); ++k) {
    state.tool_p_W[k] = placements[k].X_WB.translation();
  }
  erode(model, state, touched, work, report);
  check_finite(model, state, touched);
  return report;
}

}  // namespace

ShapingStepReport step(const ShapingModel& model, ShapingState& state, ShapingWorkspace& work) {
  const double t_s = static_cast<double>(state.step + 1) * model.time_step_s;
  return step_to(model, state, driven_tools(model, t_s), work);
}

ShapingStepReport step(const ShapingModel& model, ShapingState& state,
                       std::span<const BodyMotion> tools, ShapingWorkspace& work) {
  // Motions at the start of the step, as every tier takes them (core/contact_tier.hpp); the
  // sand is pushed where the tools are at its end, moving with their twists.
  work.tools_at_end.clear();
  for (const BodyMotion& m : tools) {
    work.tools_at_end.push_back({advanced(m.X_WB, m.V_WB, model.time_step_s), m.V_WB});
  }
  return step_to(model, state, work.tools_at_end, work);
}

double sand_volume_m3(const HeightmapModel& model, const HeightmapState& state) {
  // A plain sum in a fixed order: deterministic, and its rounding error is far below the 1e-9
  // relative conservation the tests ask for.
  double sum = 0.0;
  for (const double h : state.height_m) sum += h;
  return sum * model.cell_area_m2();
}

double surface_height_at(const HeightmapModel& model, const HeightmapState& state, double x_W,
                         double y_W) {
  const double u = std::clamp(model.u(x_W), 0.0, static_cast<double>(model.nx - 1));
  const double v = std::clamp(model.v(y_W), 0.0, static_cast<double>(model.ny - 1));
  const int i0 = std::min(static_cast<int>(u), std::max(model.nx - 2, 0));
  const int j0 = std::min(static_cast<int>(v), std::max(model.ny - 2, 0));
  const int i1 = std::min(i0 + 1, model.nx - 1);
  const int j1 = std::min(j0 + 1, model.ny - 1);
  const double fu = u - i0, fv = v - j0;
  auto h = [&](int i, int j) { return state.height_m[model.index(i, j)]; };
  return (1 - fv) * ((1 - fu) * h(i0, j0) + fu * h(i1, j0)) +
         fv * ((1 - fu) * h(i0, j1) + fu * h(i1, j1));
}

}  // namespace talus::shaping
