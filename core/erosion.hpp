#pragma once
// Angle-of-repose erosion of a height field (paper 003 §3.1, §5.1): the sand-shaping tier's
// heightmap and SCM's deformation windows (paper 002 §3.1) both relax with it, on the one grid of
// core/heightmap_grid.hpp. It reads the grid's geometry, the parameters below, the heights it
// changes and the blocked flags it must respect, so neither tier assembles the other's model.
//
// Sand flows between neighbouring columns whose height difference is steeper than the angle of
// repose. For a neighbour pair (a, b) at centre distance d_ab (the cell size, or cell size *
// sqrt(2) for a diagonal pair under 8-connectivity) the excess is
//   e_ab = |h_a - h_b| - d_ab * tan(repose)                                   [m]      (E1)
// and, when e_ab > 0, a height k * e_ab flows from the higher to the lower column in one update
// (k = flow rate, dimensionless): flow = k * d_ab * (slope - tan(repose)), proportional to the grid
// size as §5.1 observes. The paper's own equations (1) and the §5.1 constants are missing from our
// copy of the text; docs/erosion.md derives the rule, the default flow rates and the stability
// bound on k, and records the experiments that chose them.
//
// An update is simultaneous (Jacobi): every pair is evaluated from the heights at the start of the
// update, so the result does not depend on cell order or thread count (bit-identical for any
// OMP_NUM_THREADS). Each pair's flow is added to one column and subtracted from the other, so
// volume is conserved to rounding. Blocked cells (a tool occupies them) take no part: no flow in or
// out. The grid edges, and the edges of the region being updated, are closed walls.

#include <cstdint>
#include <span>
#include <vector>

#include "core/heightmap_grid.hpp"

namespace talus {

enum class Connectivity : int { Four = 4, Eight = 8 };

/// The material and numerical parameters of erosion (the grid is passed alongside).
struct ErosionParameters {
  double repose_angle_rad = 0.0;  ///< angle of repose of the material, in (0, pi/2)
  Connectivity connectivity = Connectivity::Eight;
  /// Fraction of a neighbour pair's excess height difference that flows per update; 0 selects
  /// the derived default for the connectivity (docs/erosion.md).
  double flow_rate = 0.0;
  /// Erosion stops when no pair's height difference exceeds the repose limit by more than this [m].
  double tolerance_m = 1e-9;
  int max_updates = 100000;  ///< erosion gives up (and says so) after this many updates
  /// Not a model parameter (results are bit-identical either way): an erosion update uses
  /// OpenMP threads only on regions of at least this many cells; below it the fork and join cost
  /// more than they save (on a loaded machine a parallel region can wait a scheduler time slice
  /// for its second thread). Smaller regions are updated on one thread in a padded copy held
  /// between updates (core/erosion.cpp), which a region's short rows need to run vectorised.
  long min_cells_for_threads = 4096;
};

/// The flow rate k (dimensionless) used when ErosionParameters::flow_rate is 0: 1/(N+1) for N
/// neighbours (1/5 for Four, 1/9 for Eight), the rate that brings an isolated column (a spike, the
/// common shape a tool leaves) to the repose slope in one update without overshoot
/// (docs/erosion.md §2).
double default_flow_rate(Connectivity connectivity);

/// The largest flow rate validate() accepts for this grid: 1/N for N = the most neighbours a cell
/// has (2 on a one-cell-wide grid, else 4 or 8). Up to it every new height is a convex combination
/// of old heights in its neighbourhood (a discrete maximum principle), so erosion never raises a
/// column above its highest neighbour; above it a checkerboard grows without bound
/// (docs/erosion.md §3).
double max_flow_rate(const HeightmapGrid& grid, Connectivity connectivity);

/// p.flow_rate, or default_flow_rate(p.connectivity) when it is 0.
double effective_flow_rate(const ErosionParameters& p);

/// Throws std::invalid_argument naming the field and the expected range unless the grid is
/// valid (validate(HeightmapGrid)) and: repose_angle_rad in (0, pi/2); flow_rate is 0 or in
/// (0, max_flow_rate(grid, connectivity)]; tolerance_m > 0 and finite; max_updates >= 1.
void validate(const ErosionParameters& p, const HeightmapGrid& grid);

/// What one erosion update did.
struct ErosionUpdate {
  /// The box of cells that took part in a flow (some pair of theirs had positive excess). Every
  /// cell whose height changed lies inside it; cells outside it kept their heights bit for bit.
  /// Empty when nothing flowed.
  IndexBox changed;
  /// The largest pair excess (E1) in the region at the START of the update, before flowing [m];
  /// 0 when every pair was at or below repose.
  double max_excess_m = 0.0;
};

// The surface erosion works on: `height_m` (the heights it changes [m]) and `blocked` (1 where a
// tool or a loaded contact holds the cell: no flow in or out), both grid.sample_count() values,
// row-major. Every function below first checks the parameters (validate) and these sizes.

/// One simultaneous update of the cells in `region` (which must lie inside the grid; an empty
/// region does nothing). Only pairs with both cells in the region exchange sand: the region's
/// edge acts as a closed wall, so volume is conserved for any region. (Reading neighbours outside
/// the region but writing only inside would create or destroy sand wherever a boundary pair
/// flows; erode_to_steady_state grows its regions so that no boundary pair can flow.)
/// `scratch` is working memory, resized as needed and reusable across calls.
/// Throws std::invalid_argument for bad parameters, sizes or region, and std::runtime_error naming
/// the first cell (row-major) of the region whose height was NaN or infinite at the start of the
/// update (the update has then been applied, and the bad value may have reached neighbours).
ErosionUpdate erosion_update(const HeightmapGrid& grid, const ErosionParameters& p,
                             std::span<double> height_m, std::span<const std::uint8_t> blocked,
                             const IndexBox& region, std::vector<double>& scratch);

/// The outcome of erode_to_steady_state.
struct ErosionResult {
  int updates = 0;              ///< erosion updates performed
  bool converged = false;       ///< true when the last update found max excess <= tolerance_m
  long long cells_updated = 0;  ///< sum over the updates of the cells in their regions
  /// The largest pair excess (E1) at the start of the last update [m] (0 when nothing was left
  /// to update): <= tolerance_m when converged.
  double max_excess_m = 0.0;
};

/// Erodes until no pair's height difference exceeds the repose limit by more than tolerance_m, or
/// max_updates updates have been made (converged = false).
/// `active` is the box of cells whose heights changed since the surface was last at rest (for
/// example the cells a tool moved sand into or out of; grid.whole() when unknown); it is
/// clamped to the grid. The first update covers `active` grown by one cell, each later one the
/// previous update's changed box grown by one cell (clamped to the grid): a cell outside that box
/// and all its neighbours kept their heights, so none of its pairs can start to flow, and the
/// result equals that of updating the whole grid every time (docs/erosion.md §4). Throws
/// std::invalid_argument as validate() does, and std::runtime_error naming the cell (i, j) and the
/// update number when a height it reads or writes is NaN or infinite.
ErosionResult erode_to_steady_state(const HeightmapGrid& grid, const ErosionParameters& p,
                                    std::span<double> height_m,
                                    std::span<const std::uint8_t> blocked, IndexBox active,
                                    std::vector<double>& scratch);

/// The largest excess (E1) over all neighbour pairs of the grid whose cells are both unblocked [m];
/// 0 when every pair is at or below repose, NaN when a height is NaN. For tests and reports: a
/// plain serial pass.
double max_repose_excess(const HeightmapGrid& grid, const ErosionParameters& p,
                         std::span<const double> height_m, std::span<const std::uint8_t> blocked);

}  // namespace talus
