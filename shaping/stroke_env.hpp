#pragma once
// ShapingStrokes-v0 (paper 003 §4.4-4.5): multi-stroke trench shaping on the sand-shaping tier.
//
// An action is one straight stroke: the blade is lowered to the trench depth at the stroke's
// start, pushed to its end (execute_straight_push: the tool push of §3.2 every half cell, erosion
// to steady state after each), and lifted, after which the walls it held relax to the angle of
// repose. The goal is a heightmap: a letter's strokes (letter_strokes.hpp) executed the same way
// on a flat bed, or random strokes for curricula. The reward is the paper's, the decrease of the
// L1 distance between the sand and the goal, here as a fraction of the goal's distance from the
// flat bed (so that every goal's episode is worth 1 however large its letter).

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "shaping/heightmap.hpp"
#include "shaping/letter_strokes.hpp"
#include "shaping/trench_env_batch.hpp"

namespace talus::shaping {

/// The sand bed of ShapingStrokes-v0 and its blade.
struct StrokeBed {
  int cells = 32;               ///< the bed is cells x cells (paper 003 §4: 32 x 32)
  double cell_size_m = 0.01;    ///< [m]
  double sand_height_m = 0.05;  ///< the flat bed's surface height [m]
  /// The blade's bottom below the flat surface [m]: 6 mm, so that a trench keeps about its depth
  /// along its axis after its walls relax (a deeper one only collapses wider).
  double trench_depth_m = 0.006;
  /// [m] 3 cells: a one-cell blade's trench relaxes to a groove under 1 mm deep when it runs
  /// diagonally across the grid.
  double blade_width_m = 0.03;
  /// [m] 1.5 cells: a thinner blade, pushed half a cell per action, can sit between two rows of
  /// cell centres and miss them all (it then loses contact for an action), and when it runs
  /// diagonally the cells it blocks leave gaps through which the pile ahead of it erodes back into
  /// the trench behind; both leave humps in the trench (docs/envs.md).
  double blade_thickness_m = 0.015;
  double repose_angle_rad = 0.5235987755982988;  ///< 30 degrees (dry sand)
  /// Erosion's steady state [m]: 0.1 um. Against 1e-9 m it changes no letter goal's height by
  /// more than 0.09 um (1/69,000 of the trench depth) and doubles the strokes per second (issue
  /// 17's 1,000 strokes/s on 2 threads; docs/envs.md).
  double erosion_tolerance_m = 1e-7;
};

/// Throws std::invalid_argument naming the field and the expected range.
void validate(const StrokeBed& bed);

/// The bed's heightmap: cell (i, j) centred at (i, j) * cell_size_m, 8-connected erosion at the
/// bed's angle of repose.
HeightmapModel stroke_bed_heightmap(const StrokeBed& bed);

/// The stroke an action (x0, y0, x1, y1) in [-1, 1]^4 names: bed cell coordinate
/// u = (a + 1) / 2 * (cells - 1), so -1 and 1 are the centres of the first and last cells.
Stroke stroke_of_action(const StrokeBed& bed, const std::array<double, 4>& action);

/// Executes one stroke on `state` (a bed of `heightmap` = stroke_bed_heightmap(bed)). A stroke
/// shorter than half a cell is pushed half a cell (along its direction, along +x when its ends
/// coincide): the blade is lowered, digs and is lifted.
void execute_stroke(const StrokeBed& bed, const HeightmapModel& heightmap, HeightmapState& state,
                    const Stroke& stroke);

/// The L1 distance between two surfaces of the bed: sum |a - b| * cell area [m^3].
double l1_distance_m3(const StrokeBed& bed, std::span<const double> a, std::span<const double> b);

/// An episode's goal: its strokes and the heightmap they leave on the flat bed.
struct StrokeGoal {
  std::vector<Stroke> strokes;
  std::vector<double> height_m;  ///< cells x cells, row-major (j * cells + i)
  double l1_from_flat_m3 = 0.0;  ///< its L1 distance from the flat bed (> 0)
  int letter_index = -1;         ///< into StrokeGoalSource::letters; -1 for a random goal
};

/// Executes `strokes` on the flat bed: the goal they make. Throws std::invalid_argument when
/// they leave the bed flat (a goal must have something to dig).
StrokeGoal make_stroke_goal(const StrokeBed& bed, std::vector<Stroke> strokes, int letter_index);

/// Where the episodes' goals come from.
struct StrokeGoalSource {
  std::string letters;  ///< drawn uniformly; empty: random strokes
  std::vector<std::shared_ptr<const StrokeGoal>> letter_goals;  ///< per letter, made once
  int min_strokes = 1, max_strokes = 3;  ///< random goals: strokes, uniform in this range
  /// Random goals: each stroke's ends are uniform cell centres of the letter area (the bed less a
  /// 3-cell margin), at least this many cells apart.
  double min_stroke_cells = 4.0;

  /// Letters drawn uniformly (each goal made now). Throws std::invalid_argument for no letters
  /// or a character outside A-Z.
  static StrokeGoalSource of_letters(const StrokeBed& bed, const std::string& letters);
  /// Random goals of min_strokes-max_strokes (1 <= min <= max <= 8) strokes.
  static StrokeGoalSource random(const StrokeBed& bed, int min_strokes, int max_strokes);
};

/// The next episode's goal from `source` (random goals are made now, about 1 ms a stroke).
std::shared_ptr<const StrokeGoal> draw_stroke_goal(const StrokeBed& bed,
                                                   const StrokeGoalSource& source, TrenchRng& rng);

}  // namespace talus::shaping
