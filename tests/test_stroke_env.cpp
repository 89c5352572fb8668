// ShapingStrokes-v0's bed, letters and batch (shaping/stroke_env*.hpp, letter_strokes.hpp).

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "shaping/letter_strokes.hpp"
#include "shaping/shaping_step.hpp"
#include "shaping/stroke_env_batch.hpp"

namespace talus::shaping {
namespace {

// The action (in [-1, 1]^4) of a stroke between two bed cells.
std::array<double, 4> action_of(const StrokeBed& bed, const Stroke& s) {
  const double scale = 2.0 / (bed.cells - 1);
  return {s.start_cell.x() * scale - 1.0, s.start_cell.y() * scale - 1.0,
          s.end_cell.x() * scale - 1.0, s.end_cell.y() * scale - 1.0};
}

struct StrokeBuffers {
  std::vector<float> achieved, desired;
  std::vector<double> rewards;
  std::vector<std::uint8_t> terminated, truncated;
  StrokeBuffers(int n, int cells)
      : achieved(static_cast<std::size_t>(n * cells * cells)),
        desired(achieved.size()),
        rewards(static_cast<std::size_t>(n)),
        terminated(rewards.size()),
        truncated(rewards.size()) {}
};

void step(StrokeEnvBatch& b, StrokeBuffers& buf, const std::vector<double>& actions,
          int threads = 1) {
  b.step(actions, buf.achieved.data(), buf.desired.data(), buf.rewards.data(),
         buf.terminated.data(), buf.truncated.data(), threads);
}

TEST(LetterStrokes, EveryLetterHasItsStrokesOnCellCentresInsideTheBed) {
  const std::string letters = stroke_letter_names();
  ASSERT_EQ(letters.size(), 26u);
  int total = 0;
  for (const char c : letters) {
    const std::vector<Stroke> strokes = letter_strokes(c, 32);
    ASSERT_GE(strokes.size(), 2u) << c;
    ASSERT_LE(strokes.size(), 6u) << c;
    total += static_cast<int>(strokes.size());
    for (const Stroke& s : strokes) {
      for (const Vec2& p : {s.start_cell, s.end_cell}) {
        EXPECT_EQ(p.x(), std::round(p.x())) << c;
        EXPECT_EQ(p.y(), std::round(p.y())) << c;
        EXPECT_GE(p.minCoeff(), 3.0) << c;
        EXPECT_LE(p.maxCoeff(), 27.0) << c;
      }
      EXPECT_GE((s.end_cell - s.start_cell).norm(), 4.0) << c;
    }
  }
  EXPECT_EQ(total, 92);
  // A: its left leg from the bottom-left corner (7, 3) to the apex (15, 27).
  const Stroke a = letter_strokes('a', 32).front();
  EXPECT_EQ(a.start_cell, Vec2(7, 3));
  EXPECT_EQ(a.end_cell, Vec2(15, 27));
  EXPECT_THROW(letter_strokes('1', 32), std::invalid_argument);
  EXPECT_THROW(letter_strokes('A', 13), std::invalid_argument);
}

TEST(StrokeBed, BadFieldsAreRefusedByName) {
  StrokeBed bed;
  EXPECT_NO_THROW(validate(bed));
  bed.trench_depth_m = bed.sand_height_m;
  try {
    validate(bed);
    FAIL() << "accepted a trench as deep as the sand";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("trench_depth_m"), std::string::npos) << e.what();
  }
  bed = StrokeBed{};
  bed.blade_width_m = 0.5 * bed.cell_size_m;
  EXPECT_THROW(validate(bed), std::invalid_argument);
  bed = StrokeBed{};
  bed.cells = 8;
  EXPECT_THROW(validate(bed), std::invalid_argument);
}

TEST(StrokeBed, ActionsSpanTheCellCentres) {
  const StrokeBed bed;
  const Stroke s = stroke_of_action(bed, {-1.0, 1.0, 0.0, -1.0});
  EXPECT_EQ(s.start_cell, Vec2(0.0, 31.0));
  EXPECT_EQ(s.end_cell, Vec2(15.5, 0.0));
}

TEST(StrokeBed, AStrokeDigsItsTrenchAndConservesTheSand) {
  const StrokeBed bed;
  const HeightmapModel hm = stroke_bed_heightmap(bed);
  HeightmapState sand = HeightmapState::flat(hm, bed.sand_height_m);
  const double volume = sand_volume_m3(hm, sand);
  execute_stroke(bed, hm, sand, {Vec2(8, 16), Vec2(24, 16)});
  EXPECT_NEAR(sand_volume_m3(hm, sand), volume, 1e-12);
  // Along the stroke's axis the blade's bottom holds: the trench depth below the flat bed.
  for (int i = 10; i <= 20; ++i) {
    EXPECT_NEAR(sand.height_m[static_cast<std::size_t>(16 * 32 + i)],
                bed.sand_height_m - bed.trench_depth_m, 1e-9)
        << i;
  }
  // The sand it cut lies in a pile beyond the end.
  EXPECT_GT(sand.height_m[static_cast<std::size_t>(16 * 32 + 25)], bed.sand_height_m);
  // Far from it, the bed is untouched.
  EXPECT_EQ(sand.height_m[static_cast<std::size_t>(2 * 32 + 2)], bed.sand_height_m);
  // A stroke of length zero still digs (half a cell along +x).
  HeightmapState dot = HeightmapState::flat(hm, bed.sand_height_m);
  execute_stroke(bed, hm, dot, {Vec2(16, 16), Vec2(16, 16)});
  EXPECT_LT(dot.height_m[static_cast<std::size_t>(16 * 32 + 16)], bed.sand_height_m);
}

TEST(StrokeEnvBatch, TheGoalsStrokesReachTheGoalWithTheL1DecreaseAsReward) {
  const StrokeBed bed;
  StrokeEnvRules rules;
  rules.step_cost = 0.02;
  StrokeEnvBatch batch(bed, StrokeGoalSource::of_letters(bed, "T"), rules, 1);
  StrokeBuffers buf(1, bed.cells);
  batch.reset(std::vector<std::uint64_t>{7}, buf.achieved.data(), buf.desired.data());
  const StrokeGoal& goal = *batch.slot(0).goal;
  ASSERT_EQ(goal.strokes.size(), 2u);
  // The reward by hand: replay the strokes on a bed of our own and measure the L1 distances.
  HeightmapState mine = HeightmapState::flat(batch.heightmap(), bed.sand_height_m);
  double l1 = l1_distance_m3(bed, mine.height_m, goal.height_m);
  EXPECT_DOUBLE_EQ(l1, goal.l1_from_flat_m3);
  double total = 0.0;
  for (std::size_t k = 0; k < goal.strokes.size(); ++k) {
    const auto a = action_of(bed, goal.strokes[k]);
    step(batch, buf, {a[0], a[1], a[2], a[3]});
    execute_stroke(bed, batch.heightmap(), mine, stroke_of_action(bed, a));
    const double l1_after = l1_distance_m3(bed, mine.height_m, goal.height_m);
    EXPECT_NEAR(buf.rewards[0], (l1 - l1_after) / goal.l1_from_flat_m3 - 0.02, 1e-12) << k;
    l1 = l1_after;
    total += buf.rewards[0];
  }
  EXPECT_EQ(buf.terminated[0], 1);  // the goal's own strokes, in order, reach it
  EXPECT_EQ(buf.truncated[0], 0);
  EXPECT_NEAR(batch.slot(0).l1_m3, 0.0, 1e-15);
  EXPECT_NEAR(total, 1.0 - 2 * 0.02, 1e-12);
  // The observation is the sand and the goal as float32.
  for (std::size_t k = 0; k < buf.achieved.size(); ++k) {
    ASSERT_EQ(buf.achieved[k], static_cast<float>(mine.height_m[k]));
    ASSERT_EQ(buf.desired[k], static_cast<float>(goal.height_m[k]));
  }
  // Next-step autoreset: the action is ignored, reward 0, a fresh flat bed.
  step(batch, buf, {0.0, 0.0, 0.5, 0.5});
  EXPECT_EQ(buf.rewards[0], 0.0);
  EXPECT_EQ(batch.slot(0).strokes, 0);
  EXPECT_EQ(buf.achieved[0], static_cast<float>(bed.sand_height_m));
}

TEST(StrokeEnvBatch, AnEpisodeIsTruncatedAfterTheGoalsStrokesPlusTwo) {
  const StrokeBed bed;
  StrokeEnvBatch batch(bed, StrokeGoalSource::of_letters(bed, "L"), StrokeEnvRules{}, 1);
  StrokeBuffers buf(1, bed.cells);
  batch.reset(std::vector<std::uint64_t>{1}, buf.achieved.data(), buf.desired.data());
  EXPECT_EQ(batch.slot(0).max_strokes(batch.rules()), 4);
  for (int k = 1; k <= 4; ++k) {
    step(batch, buf, {0.8, -0.8, 0.9, -0.9});  // a stroke in a corner, far from the L
    EXPECT_LT(buf.rewards[0], 0.0);
    EXPECT_EQ(buf.terminated[0], 0);
    EXPECT_EQ(buf.truncated[0], k == 4 ? 1 : 0) << k;
  }
}

TEST(StrokeEnvBatch, ABadActionMovesNoEnvironment) {
  const StrokeBed bed;
  StrokeEnvBatch batch(bed, StrokeGoalSource::of_letters(bed, "XZ"), StrokeEnvRules{}, 2);
  StrokeBuffers buf(2, bed.cells);
  batch.reset(std::vector<std::uint64_t>{1, 2}, buf.achieved.data(), buf.desired.data());
  const std::vector<double> before = batch.slot(0).sand.height_m;
  EXPECT_THROW(step(batch, buf, {0, 0, 0.5, 0.5, 0, 0, 0.5, NAN}), std::invalid_argument);
  EXPECT_THROW(step(batch, buf, {0, 0, 0.5, 1.5, 0, 0, 0.5, 0.5}), std::invalid_argument);
  EXPECT_THROW(step(batch, buf, {0, 0, 0.5, 0.5}), std::invalid_argument);
  EXPECT_EQ(batch.slot(0).strokes, 0);
  EXPECT_EQ(batch.slot(0).sand.height_m, before);
}

TEST(StrokeEnvBatch, ABatchEqualsItsEnvironmentsOneByOneOnAnyThreadCount) {
  const StrokeBed bed;
  const int n = 4;
  StrokeEnvBatch together(bed, StrokeGoalSource::random(bed, 1, 3), StrokeEnvRules{}, n);
  StrokeBuffers all(n, bed.cells);
  const std::vector<std::uint64_t> seeds = {11, 12, 13, 14};
  together.reset(seeds, all.achieved.data(), all.desired.data());
  std::vector<StrokeEnvBatch> alone;
  std::vector<StrokeBuffers> one;
  for (int i = 0; i < n; ++i) {
    alone.emplace_back(bed, StrokeGoalSource::random(bed, 1, 3), StrokeEnvRules{}, 1);
    one.emplace_back(1, bed.cells);
    alone.back().reset(std::vector<std::uint64_t>{seeds[static_cast<std::size_t>(i)]},
                       one.back().achieved.data(), one.back().desired.data());
  }
  TrenchRng rng{99};
  const std::size_t cells = 32 * 32;
  for (int t = 0; t < 8; ++t) {
    std::vector<double> actions;
    for (int k = 0; k < 4 * n; ++k) actions.push_back(2.0 * (rng.below(1001) / 1000.0) - 1.0);
    step(together, all, actions, 2);
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      step(alone[k], one[k], {actions.begin() + 4 * i, actions.begin() + 4 * i + 4});
      ASSERT_EQ(all.rewards[k], one[k].rewards[0]) << t << " " << i;
      ASSERT_EQ(all.terminated[k], one[k].terminated[0]);
      ASSERT_EQ(all.truncated[k], one[k].truncated[0]);
      ASSERT_TRUE(std::equal(one[k].achieved.begin(), one[k].achieved.end(),
                             all.achieved.begin() + static_cast<long>(k * cells)));
      ASSERT_TRUE(std::equal(one[k].desired.begin(), one[k].desired.end(),
                             all.desired.begin() + static_cast<long>(k * cells)));
    }
  }
}

}  // namespace
}  // namespace talus::shaping
