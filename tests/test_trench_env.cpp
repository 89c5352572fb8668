// The single-stroke trench environment's dynamics (shaping/trench_env.hpp).

#include <gtest/gtest.h>

#include "shaping/letter_maps.hpp"
#include "shaping/trench_env.hpp"
#include "shaping/trench_env_batch.hpp"

namespace talus::shaping {
namespace {

// A 3 x 3 goal: an L of three cells.
BinaryMap small_goal() { return BinaryMap::from_rows({"#..", "##.", "..."}); }

TEST(TrenchEnv, TheRewardIsTheDecreaseOfTheL1DistanceComputedByHand) {
  const BinaryMap goal = small_goal();
  TrenchEnvState s = trench_env_reset(goal, {0, 0});
  EXPECT_EQ(s.l1_to_goal, 2);  // 3 goal cells, the start dug
  // Down: (1, 0) is a goal cell: L1 2 -> 1.
  TrenchEnvStep r = trench_env_step(goal, s, TrenchAction::Down);
  EXPECT_EQ(r.l1_decrease, 1);
  EXPECT_FALSE(r.reached);
  // Left: off the map, the blade stays, nothing dug.
  r = trench_env_step(goal, s, TrenchAction::Left);
  EXPECT_FALSE(r.moved);
  EXPECT_EQ(r.l1_decrease, 0);
  EXPECT_EQ(s.blade, (GridCell{1, 0}));
  // Up: back into a dug cell: 0.
  r = trench_env_step(goal, s, TrenchAction::Up);
  EXPECT_EQ(r.l1_decrease, 0);
  // Down, Right: the last goal cell: L1 1 -> 0, reached.
  trench_env_step(goal, s, TrenchAction::Down);
  r = trench_env_step(goal, s, TrenchAction::Right);
  EXPECT_EQ(r.l1_decrease, 1);
  EXPECT_TRUE(r.reached);
  EXPECT_EQ(s.steps, 5);
  // Right again: a cell outside the goal: L1 0 -> 1.
  r = trench_env_step(goal, s, TrenchAction::Right);
  EXPECT_EQ(r.l1_decrease, -1);
  EXPECT_FALSE(r.reached);
  EXPECT_EQ(s.dug_outside, 1);
}

TEST(TrenchEnv, ABadGoalOrStartIsRefused) {
  EXPECT_THROW(trench_env_reset(small_goal(), {3, 0}), std::invalid_argument);
  EXPECT_THROW(trench_env_reset(BinaryMap::from_rows({"...", "..."}), {0, 0}),
               std::invalid_argument);
  BinaryMap ragged = small_goal();
  ragged.cells.pop_back();
  EXPECT_THROW(trench_env_reset(ragged, {0, 0}), std::invalid_argument);
}

// The A* plan from the env's start, replayed as actions, reaches the goal at its last step.
TEST(TrenchEnv, TheOptimalPlanReplayedReachesTheGoalInItsStepCount) {
  for (const char letter : {'T', 'L', 'C', 'H'}) {
    SCOPED_TRACE(std::string("letter ") + letter);
    const BinaryMap goal = letter_map(letter);
    const TrenchPlan plan = plan_single_stroke_trench(goal);
    ASSERT_TRUE(plan.found) << plan.failure;
    TrenchEnvState s = trench_env_reset(goal, plan.start);
    int paper_return = 0;
    for (std::size_t k = 0; k < plan.actions.size(); ++k) {
      const TrenchEnvStep r = trench_env_step(goal, s, plan.actions[k]);
      EXPECT_EQ(r.reached, k + 1 == plan.actions.size()) << "step " << k + 1;
      EXPECT_GE(r.l1_decrease, 0) << "an optimal plan never digs outside the goal";
      paper_return += r.l1_decrease;
    }
    EXPECT_EQ(paper_return, goal.count() - 1);  // every goal cell but the start, once
    EXPECT_EQ(s.l1_to_goal, 0);
    EXPECT_EQ(s.dug_outside, 0);
    EXPECT_EQ(s.steps, plan.steps);
  }
}

}  // namespace
}  // namespace talus::shaping

namespace talus::shaping {
namespace {

// splitmix64's published reference: from state 0 the first outputs are 0xe220a8397b1dcdaf and
// 0x6e789e6aa1b965f4.
TEST(TrenchEnvBatch, TheGeneratorIsSplitmix64) {
  TrenchRng rng;
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(rng.next(), 0x6e789e6aa1b965f4ull);
}

TEST(TrenchEnvBatch, RandomGoalsAreSingleStrokesWithTheirOptimalLength) {
  const TrenchGoalSource source = TrenchGoalSource::random(7, 7, 4, 12);
  TrenchRng rng{42};
  for (int k = 0; k < 50; ++k) {
    const TrenchDraw d = draw_trench_episode(source, rng);
    EXPECT_GE(d.goal.count(), 4);
    EXPECT_LE(d.goal.count(), 12);
    EXPECT_TRUE(d.goal.at(d.start.row, d.start.col));
    TrenchPlanOptions options;
    options.start = d.start;
    EXPECT_EQ(plan_single_stroke_trench(d.goal, options).steps, d.optimal_steps);
  }
  EXPECT_THROW(TrenchGoalSource::random(7, 7, 4, 31), std::invalid_argument);
  EXPECT_THROW(TrenchGoalSource::random(7, 7, 5, 4), std::invalid_argument);
  EXPECT_THROW(TrenchGoalSource::of_maps({BinaryMap::from_rows({"#.", ".#"})}),
               std::invalid_argument);  // not one stroke
}

// Next-step autoreset: the step after an episode ends draws a new one and reports nothing else.
TEST(TrenchEnvBatch, AnEndedEpisodeIsResetAtTheNextStep) {
  TrenchGoalSource source = TrenchGoalSource::of_maps({BinaryMap::from_rows({"##", ".."})});
  TrenchEnvBatch batch(source, TrenchEnvRules{0.0, 100, std::nullopt}, 1);
  std::vector<float> obs(3 * 4);
  const std::uint64_t seed = 1;
  batch.reset({&seed, 1}, obs.data());
  const GridCell start = batch.slot(0).draw.start;
  const std::uint8_t towards = start.col == 0 ? 3 : 2;  // right or left onto the other cell
  double reward = 0.0;
  std::uint8_t terminated = 0, truncated = 0;
  batch.step({&towards, 1}, obs.data(), &reward, &terminated, &truncated, 1);
  EXPECT_EQ(reward, 1.0);
  EXPECT_EQ(terminated, 1);
  const std::uint8_t ignored = 1;  // down: would dig outside the goal if it were taken
  batch.step({&ignored, 1}, obs.data(), &reward, &terminated, &truncated, 1);
  EXPECT_EQ(reward, 0.0);
  EXPECT_EQ(terminated, 0);
  EXPECT_EQ(batch.slot(0).state.steps, 0);
  EXPECT_EQ(batch.slot(0).state.dug_outside, 0);
}

}  // namespace
}  // namespace talus::shaping
