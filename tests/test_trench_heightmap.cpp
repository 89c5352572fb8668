// ShapingTrench-v0's heightmap backend (shaping/trench_heightmap.hpp): the blade pushed through
// sand from planning cell to planning cell, the dug map read back off the sand.

#include <gtest/gtest.h>

#include "shaping/letter_maps.hpp"
#include "shaping/trench_env_batch.hpp"
#include "shaping/trench_heightmap.hpp"

namespace talus::shaping {
namespace {

TEST(TrenchHeightmap, AStraightStrokeDigsItsCellsAndConservesTheSand) {
  const BinaryMap goal = BinaryMap::from_rows({".....", ".####", "....."});
  const TrenchHeightmapModel model = make_trench_heightmap_model(TrenchHeightmapBed{}, 3, 5);
  EXPECT_EQ(model.sim.heightmap.nx, 5 * 4 + 4);
  EXPECT_EQ(model.sim.heightmap.ny, 3 * 4 + 4);
  ShapingWorkspace work;
  TrenchHeightmapState sand;
  TrenchEnvState s = trench_env_reset(goal, {1, 1}, model, sand, work);
  const double volume = sand_volume_m3(model.sim.heightmap, sand.sim.heightmap);
  EXPECT_EQ(s.dug.at(1, 1), 1);  // the blade lowered at the start dug its cell
  EXPECT_EQ(s.l1_to_goal, 3);
  int total = 0;
  for (int k = 0; k < 3; ++k) {
    const TrenchEnvStep r = trench_env_step(goal, s, TrenchAction::Right, model, sand, work);
    EXPECT_TRUE(r.moved);
    EXPECT_EQ(r.l1_decrease, 1) << k;  // one more goal cell shows as dug
    total += r.l1_decrease;
  }
  EXPECT_EQ(s.dug, goal);
  EXPECT_EQ(s.l1_to_goal, 0);
  EXPECT_EQ(s.blade, (GridCell{1, 4}));
  EXPECT_EQ(total, 3);
  EXPECT_NEAR(sand_volume_m3(model.sim.heightmap, sand.sim.heightmap), volume, 1e-12);
  // The cut sand travelled with the blade: piled beyond the last cell, in the margin.
  const auto& h = sand.sim.heightmap.height_m;
  double highest = 0.0;
  for (const double z : h) highest = std::max(highest, z);
  EXPECT_GT(highest, model.bed.sand_height_m + 0.5 * model.bed.trench_depth_m);
  // A move off the map leaves the blade and every grain where they are.
  const std::vector<double> before = h;
  const TrenchEnvStep off = trench_env_step(goal, s, TrenchAction::Right, model, sand, work);
  EXPECT_FALSE(off.moved);
  EXPECT_EQ(off.l1_decrease, 0);
  EXPECT_EQ(sand.sim.heightmap.height_m, before);
  EXPECT_EQ(s.steps, 4);
}

TEST(TrenchHeightmap, BadBedsAndGoalsAreRefused) {
  TrenchHeightmapBed bed;
  bed.trench_depth_m = 0.06;
  EXPECT_THROW(make_trench_heightmap_model(bed, 7, 7), std::invalid_argument);
  const TrenchHeightmapModel model = make_trench_heightmap_model(TrenchHeightmapBed{}, 7, 7);
  ShapingWorkspace work;
  TrenchHeightmapState sand;
  EXPECT_THROW(trench_env_reset(BinaryMap::from_rows({"#.", ".."}), {0, 0}, model, sand, work),
               std::invalid_argument);
}

TEST(TrenchHeightmap, TheBatchGivesTheSameBitsOnAnyThreadCount) {
  std::vector<BinaryMap> letters = {letter_map('L'), letter_map('T'), letter_map('X')};
  TrenchEnvRules rules;
  rules.heightmap = TrenchHeightmapBed{};
  std::vector<std::vector<float>> observations;
  for (const int threads : {1, 2}) {
    TrenchEnvBatch batch(TrenchGoalSource::of_maps(letters), rules, 3);
    std::vector<float> obs(3 * 3 * 49);
    std::vector<double> rewards(3);
    std::vector<std::uint8_t> te(3), tr(3), actions(3);
    batch.reset(std::vector<std::uint64_t>{1, 2, 3}, obs.data());
    TrenchRng rng{5};
    std::vector<float> trace;
    for (int k = 0; k < 30; ++k) {
      for (auto& a : actions) a = static_cast<std::uint8_t>(rng.below(4));
      batch.step(actions, obs.data(), rewards.data(), te.data(), tr.data(), threads);
      trace.insert(trace.end(), obs.begin(), obs.end());
      for (const double r : rewards) trace.push_back(static_cast<float>(r));
    }
    observations.push_back(trace);
  }
  EXPECT_EQ(observations[0], observations[1]);
}

}  // namespace
}  // namespace talus::shaping
