#include "shaping/trench_heightmap.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "shaping/sand_bed_checks.hpp"

namespace talus::shaping {
namespace {

constexpr double kActionTime_s = 0.1;  // one tool action; only ratios of it matter
constexpr int kTurnActions = 4;        // a quarter turn in steps of 22.5 degrees

double blade_bottom_z(const TrenchHeightmapModel& m) {
  return m.bed.sand_height_m - m.bed.trench_depth_m;
}

Pose blade_pose(const TrenchHeightmapModel& m, const Vec2& p, double yaw) {
  const auto& box = std::get<BoxShape>(m.sim.tools.front().shape);
  return make_pose(Vec3(p.x(), p.y(), blade_bottom_z(m) + box.half_extents_m.z()), 0.0, 0.0, yaw);
}

// One tool action that takes the blade from `from` to `to` (poses), pushing where it arrives.
void act(const TrenchHeightmapModel& m, TrenchHeightmapState& s, const Pose& from, const Pose& to,
         double yaw_change_rad, ShapingWorkspace& work) {
  const BodyMotion motion{from, Twist{Vec3(0.0, 0.0, yaw_change_rad / kActionTime_s),
                                      (to.translation() - from.translation()) / kActionTime_s}};
  step(m.sim, s.sim, std::span<const BodyMotion>(&motion, 1), work);
}

// Reads the dug map off the sand into `s` and recounts its distances to the goal.
void mirror_sand(const BinaryMap& goal, TrenchEnvState& s, const TrenchHeightmapModel& model,
                 const TrenchHeightmapState& sand) {
  s.dug = dug_map(model, sand);
  s.l1_to_goal = 0;
  s.dug_outside = 0;
  for (std::size_t k = 0; k < goal.cells.size(); ++k) {
    s.l1_to_goal += s.dug.cells[k] != goal.cells[k];
    s.dug_outside += s.dug.cells[k] && !goal.cells[k];
  }
}

}  // namespace

void validate(const TrenchHeightmapBed& bed) {
  const char* what = "trench heightmap";
  require_bed_field(bed.cells_per_map_cell >= 1 && bed.cells_per_map_cell <= 64, what,
                    "cells_per_map_cell", "in [1, 64]", bed.cells_per_map_cell);
  require_bed_field(bed.margin_cells >= 0 && bed.margin_cells <= 64, what, "margin_cells",
                    "in [0, 64]", bed.margin_cells);
  validate_sand_and_blade(what, bed.cell_size_m, bed.sand_height_m, bed.trench_depth_m,
                          bed.blade_thickness_m, bed.repose_angle_rad, bed.erosion_tolerance_m);
}

TrenchHeightmapModel make_trench_heightmap_model(const TrenchHeightmapBed& bed, int rows,
                                                 int cols) {
  validate(bed);
  if (rows < 1 || cols < 1) {
    throw std::invalid_argument(fmt::format("trench heightmap: a {} x {} map", rows, cols));
  }
  TrenchHeightmapModel m;
  m.bed = bed;
  m.rows = rows;
  m.cols = cols;
  const double h = bed.cell_size_m;
  const double map_cell = bed.cells_per_map_cell * h;
  HeightmapModel& hm = m.sim.heightmap;
  hm.nx = cols * bed.cells_per_map_cell + 2 * bed.margin_cells;
  hm.ny = rows * bed.cells_per_map_cell + 2 * bed.margin_cells;
  hm.cell_size_m = h;
  hm.x0_m = hm.y0_m = 0.5 * h;
  hm.erosion.repose_angle_rad = bed.repose_angle_rad;
  hm.erosion.connectivity = Connectivity::Eight;
  hm.erosion.tolerance_m = bed.erosion_tolerance_m;
  m.placement = PlanPlacement{bed.margin_cells * h, bed.margin_cells * h, map_cell, rows};
  // As wide as a planning cell, so that it covers exactly that cell's heightmap columns.
  m.sim.tools.push_back(
      {"blade", BoxShape{Vec3(0.5 * bed.blade_thickness_m, 0.5 * map_cell, bed.sand_height_m)},
       Driver{}});
  m.sim.time_step_s = kActionTime_s;
  validate(m.sim);
  return m;
}

TrenchHeightmapState trench_heightmap_reset(const TrenchHeightmapModel& model, GridCell start,
                                            ShapingWorkspace& work) {
  TrenchHeightmapState s;
  s.sim = ShapingState::initial(model.sim,
                                HeightmapState::flat(model.sim.heightmap, model.bed.sand_height_m));
  const Pose at = blade_pose(model, model.placement.cell_center(start), 0.0);
  s.sim.tool_p_W.front() = at.translation();  // the blade is put there, not moved there
  act(model, s, at, at, 0.0, work);           // lowered in place
  return s;
}

void trench_heightmap_move(const TrenchHeightmapModel& model, TrenchHeightmapState& state,
                           GridCell from, GridCell to, ShapingWorkspace& work) {
  const Vec2 a = model.placement.cell_center(from);
  const Vec2 b = model.placement.cell_center(to);
  const double yaw = std::atan2(b.y() - a.y(), b.x() - a.x());
  const double turn = std::remainder(yaw - state.blade_yaw_rad, 2.0 * std::numbers::pi);
  if (std::abs(turn) > 1e-9) {
    const int actions =
        static_cast<int>(std::ceil(std::abs(turn) / (0.5 * std::numbers::pi) * kTurnActions));
    for (int k = 0; k < actions; ++k) {
      const double y0 = state.blade_yaw_rad + turn * k / actions;
      const double y1 = state.blade_yaw_rad + turn * (k + 1) / actions;
      act(model, state, blade_pose(model, a, y0), blade_pose(model, a, y1), y1 - y0, work);
    }
    state.blade_yaw_rad = yaw;
  }
  // Half a heightmap cell per action, so the blade sweeps every cell on its way.
  const int actions = 2 * model.bed.cells_per_map_cell;
  for (int k = 0; k < actions; ++k) {
    const Vec2 p0 = a + (b - a) * (static_cast<double>(k) / actions);
    const Vec2 p1 = a + (b - a) * (static_cast<double>(k + 1) / actions);
    act(model, state, blade_pose(model, p0, yaw), blade_pose(model, p1, yaw), 0.0, work);
  }
}

BinaryMap dug_map(const TrenchHeightmapModel& model, const TrenchHeightmapState& state) {
  BinaryMap dug;
  dug.rows = model.rows;
  dug.cols = model.cols;
  dug.cells.assign(static_cast<std::size_t>(model.rows * model.cols), 0);
  const double level = model.bed.sand_height_m - 0.5 * model.bed.trench_depth_m;
  for (int r = 0; r < model.rows; ++r) {
    for (int c = 0; c < model.cols; ++c) {
      const Vec2 centre = model.placement.cell_center({r, c});
      const double h =
          surface_height_at(model.sim.heightmap, state.sim.heightmap, centre.x(), centre.y());
      dug.cells[static_cast<std::size_t>(r * model.cols + c)] = h < level ? 1 : 0;
    }
  }
  return dug;
}

TrenchEnvState trench_env_reset(const BinaryMap& goal, GridCell start,
                                const TrenchHeightmapModel& model, TrenchHeightmapState& sand,
                                ShapingWorkspace& work) {
  if (goal.rows != model.rows || goal.cols != model.cols) {
    throw std::invalid_argument(fmt::format("trench heightmap: a {} x {} goal on a {} x {} map",
                                            goal.rows, goal.cols, model.rows, model.cols));
  }
  TrenchEnvState s = trench_env_reset(goal, start);  // checks the goal and the start
  sand = trench_heightmap_reset(model, start, work);
  mirror_sand(goal, s, model, sand);
  return s;
}

TrenchEnvStep trench_env_step(const BinaryMap& goal, TrenchEnvState& s, TrenchAction action,
                              const TrenchHeightmapModel& model, TrenchHeightmapState& sand,
                              ShapingWorkspace& work) {
  TrenchEnvStep out;
  ++s.steps;
  const std::optional<GridCell> next = trench_move_target(goal, s.blade, action);
  if (!next) {
    out.moved = false;  // the blade stays, and so does the sand
  } else {
    trench_heightmap_move(model, sand, s.blade, *next, work);
    s.blade = *next;
    const int before = s.l1_to_goal;
    mirror_sand(goal, s, model, sand);
    out.l1_decrease = before - s.l1_to_goal;
  }
  out.reached = s.l1_to_goal == 0;
  return out;
}

}  // namespace talus::shaping
