#include "shaping/stroke_env.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "shaping/sand_bed_checks.hpp"
#include "shaping/tool_motions.hpp"

namespace talus::shaping {
namespace {

// Draws one random stroke whose ends are cell centres of the letter area, at least
// source.min_stroke_cells apart.
Stroke random_stroke(const StrokeBed& bed, const StrokeGoalSource& source, TrenchRng& rng) {
  const int margin = 3;
  const int span = bed.cells - 2 * margin;
  for (;;) {
    const Vec2 a(margin + rng.below(span), margin + rng.below(span));
    const Vec2 b(margin + rng.below(span), margin + rng.below(span));
    if ((b - a).norm() >= source.min_stroke_cells) return {a, b};
  }
}

}  // namespace

void validate(const StrokeBed& bed) {
  require_bed_field(bed.cells >= 14 && bed.cells <= 1024, "stroke bed", "cells", "in [14, 1024]",
                    bed.cells);
  validate_sand_and_blade("stroke bed", bed.cell_size_m, bed.sand_height_m, bed.trench_depth_m,
                          bed.blade_thickness_m, bed.repose_angle_rad, bed.erosion_tolerance_m);
  require_bed_field(std::isfinite(bed.blade_width_m) && bed.blade_width_m >= bed.cell_size_m,
                    "stroke bed", "blade_width_m", "at least one cell", bed.blade_width_m);
}

HeightmapModel stroke_bed_heightmap(const StrokeBed& bed) {
  validate(bed);
  HeightmapModel m;
  m.nx = m.ny = bed.cells;
  m.cell_size_m = bed.cell_size_m;
  m.x0_m = m.y0_m = 0.0;
  m.erosion.repose_angle_rad = bed.repose_angle_rad;
  m.erosion.connectivity = Connectivity::Eight;
  m.erosion.tolerance_m = bed.erosion_tolerance_m;
  return m;
}

Stroke stroke_of_action(const StrokeBed& bed, const std::array<double, 4>& action) {
  const double scale = 0.5 * (bed.cells - 1);
  const auto cell = [&](double a) { return (a + 1.0) * scale; };
  return {Vec2(cell(action[0]), cell(action[1])), Vec2(cell(action[2]), cell(action[3]))};
}

void execute_stroke(const StrokeBed& bed, const HeightmapModel& heightmap, HeightmapState& state,
                    const Stroke& stroke) {
  Vec2 start = stroke.start_cell * bed.cell_size_m;
  Vec2 end = stroke.end_cell * bed.cell_size_m;
  const double min_length = 0.5 * bed.cell_size_m;
  const double length = (end - start).norm();
  if (length < min_length) {
    const Vec2 direction = length > 0.0 ? Vec2((end - start) / length) : Vec2::UnitX();
    end = start + min_length * direction;
  }
  StraightPush push;
  push.start_W = start;
  push.end_W = end;
  push.bottom_z_m = bed.sand_height_m - bed.trench_depth_m;
  push.blade_width_m = bed.blade_width_m;
  push.blade_thickness_m = bed.blade_thickness_m;
  push.blade_height_m = 2.0 * bed.sand_height_m;
  execute_straight_push(heightmap, state, push);
}

double l1_distance_m3(const StrokeBed& bed, std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size()) {
    throw std::invalid_argument(
        fmt::format("l1 distance: surfaces of {} and {} cells", a.size(), b.size()));
  }
  double sum = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) sum += std::abs(a[k] - b[k]);
  return sum * bed.cell_size_m * bed.cell_size_m;
}

StrokeGoal make_stroke_goal(const StrokeBed& bed, std::vector<Stroke> strokes, int letter_index) {
  const HeightmapModel heightmap = stroke_bed_heightmap(bed);
  HeightmapState state = HeightmapState::flat(heightmap, bed.sand_height_m);
  for (const Stroke& s : strokes) execute_stroke(bed, heightmap, state, s);
  StrokeGoal goal;
  goal.strokes = std::move(strokes);
  goal.height_m = std::move(state.height_m);
  const std::vector<double> flat(goal.height_m.size(), bed.sand_height_m);
  goal.l1_from_flat_m3 = l1_distance_m3(bed, goal.height_m, flat);
  goal.letter_index = letter_index;
  if (!(goal.l1_from_flat_m3 > 0.0)) {
    throw std::invalid_argument("stroke goal: its strokes leave the bed flat");
  }
  return goal;
}

StrokeGoalSource StrokeGoalSource::of_letters(const StrokeBed& bed, const std::string& letters) {
  if (letters.empty()) throw std::invalid_argument("stroke goals: no letter given");
  StrokeGoalSource s;
  s.letters = letters;
  for (std::size_t k = 0; k < letters.size(); ++k) {
    s.letter_goals.push_back(std::make_shared<const StrokeGoal>(
        make_stroke_goal(bed, letter_strokes(letters[k], bed.cells), static_cast<int>(k))));
  }
  return s;
}

StrokeGoalSource StrokeGoalSource::random(const StrokeBed& bed, int min_strokes, int max_strokes) {
  validate(bed);
  if (min_strokes < 1 || max_strokes < min_strokes || max_strokes > 8) {
    throw std::invalid_argument(fmt::format(
        "random stroke goals: expected 1 <= min_strokes <= max_strokes <= 8, got {} and {}",
        min_strokes, max_strokes));
  }
  StrokeGoalSource s;
  s.min_strokes = min_strokes;
  s.max_strokes = max_strokes;
  return s;
}

std::shared_ptr<const StrokeGoal> draw_stroke_goal(const StrokeBed& bed,
                                                   const StrokeGoalSource& source, TrenchRng& rng) {
  if (!source.letters.empty()) {
    return source
        .letter_goals[static_cast<std::size_t>(rng.below(static_cast<int>(source.letters.size())))];
  }
  const int count = source.min_strokes + rng.below(source.max_strokes - source.min_strokes + 1);
  std::vector<Stroke> strokes;
  for (int k = 0; k < count; ++k) strokes.push_back(random_stroke(bed, source, rng));
  return std::make_shared<const StrokeGoal>(make_stroke_goal(bed, std::move(strokes), -1));
}

}  // namespace talus::shaping
