#pragma once
// The heightmap backend of ShapingTrench-v0 (paper 003 §4.1-4.3 on the shaping tier itself): the
// binary planning map is laid over a heightmap, each planning cell `cells_per_map_cell` heightmap
// cells square, and the blade, as wide as a planning cell, is pushed from cell centre to cell
// centre at the trench depth (turning in place at corners), half a heightmap cell per tool action
// with erosion to steady state after each (shaping_step.hpp). It never lifts, so the sand it cuts
// travels with it, as in a single stroke. What the agent sees is the binary map read back off
// the sand: a planning cell is dug when the sand at its centre lies more than half the trench
// depth below the flat bed (the rule of the [planner] scenarios), so sand pushed or slumped into
// a dug cell can undig it.

#include <vector>

#include "shaping/shaping_step.hpp"
#include "shaping/tool_motions.hpp"
#include "shaping/trench_env.hpp"
#include "shaping/trench_planner.hpp"

namespace talus::shaping {

/// The sand bed under the planning map.
struct TrenchHeightmapBed {
  int cells_per_map_cell = 4;   ///< heightmap cells along a planning cell's side
  double cell_size_m = 0.01;    ///< heightmap cell [m]: a 4 cm planning cell by default
  int margin_cells = 2;         ///< heightmap cells of sand around the planning map
  double sand_height_m = 0.05;  ///< the flat bed [m]
  double trench_depth_m = 0.006;
  /// [m] 1.5 heightmap cells, as ShapingStrokes-v0's blade (stroke_env.hpp says why).
  double blade_thickness_m = 0.015;
  double repose_angle_rad = 0.5235987755982988;  ///< 30 degrees
  double erosion_tolerance_m = 1e-9;
};

/// Throws std::invalid_argument naming the field and the expected range.
void validate(const TrenchHeightmapBed& bed);

/// The heightmap, the blade and where the planning map lies on them.
struct TrenchHeightmapModel {
  TrenchHeightmapBed bed;
  ShapingModel sim;  ///< the heightmap and one tool, the blade (its driver is not read)
  PlanPlacement placement;
  int rows = 0, cols = 0;  ///< the planning map's
};

/// The model for a rows x cols planning map: heightmap cell (i, j) centred at ((i + 0.5) h,
/// (j + 0.5) h), so that a planning cell's centre lies between heightmap cells and its blade
/// covers exactly its cells_per_map_cell columns of cells.
TrenchHeightmapModel make_trench_heightmap_model(const TrenchHeightmapBed& bed, int rows, int cols);

struct TrenchHeightmapState {
  ShapingState sim;
  double blade_yaw_rad = 0.0;  ///< the way the blade faces
};

/// The flat bed with the blade lowered at `start` (the first action cuts radially, as a blade
/// lowered into sand).
TrenchHeightmapState trench_heightmap_reset(const TrenchHeightmapModel& model, GridCell start,
                                            ShapingWorkspace& work);

/// Pushes the blade from the centre of `from` to the centre of `to` (neighbours), turning it in
/// place first when the move changes its heading.
void trench_heightmap_move(const TrenchHeightmapModel& model, TrenchHeightmapState& state,
                           GridCell from, GridCell to, ShapingWorkspace& work);

/// The binary map of planning cells dug into the sand (see the file comment).
BinaryMap dug_map(const TrenchHeightmapModel& model, const TrenchHeightmapState& state);

/// ShapingTrench-v0's reset and step on the heightmap: `sand` is the episode's bed, and the
/// returned or updated TrenchEnvState mirrors it (its dug map read off the sand, the L1 distance
/// and the cells dug outside the goal recounted after every move, so the reward is the paper's
/// L1 decrease of what the sand shows, which a slump can make negative).
TrenchEnvState trench_env_reset(const BinaryMap& goal, GridCell start,
                                const TrenchHeightmapModel& model, TrenchHeightmapState& sand,
                                ShapingWorkspace& work);
TrenchEnvStep trench_env_step(const BinaryMap& goal, TrenchEnvState& state, TrenchAction action,
                              const TrenchHeightmapModel& model, TrenchHeightmapState& sand,
                              ShapingWorkspace& work);

}  // namespace talus::shaping
