// Bulldozing-v0's world and batch (particles/bulldozing_*.hpp): the paper's reward by hand, the
// settled heap, the bulldozer stopping at the walls, a diverging simulation truncating the episode
// with its reason, and the option checks.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "particles/bulldozing_env_batch.hpp"

namespace talus::particles {
namespace {

BulldozingOptions small_options() {
  BulldozingOptions o;
  o.mesh_path = std::filesystem::path(TALUS_SOURCE_DIR) / "robots" / "bulldozer" / "bulldozer.obj";
  o.particle_count = 300;
  o.particle_radius_m = 0.04;
  o.time_step_s = 2e-3;
  o.steps_per_action = 50;
  o.episode_s = 2.0;
  o.threads = 1;
  return o;
}

const std::shared_ptr<const BulldozingWorld>& small_world() {
  static const auto world = make_bulldozing_world(small_options());
  return world;
}

struct BulldozingBuffers {
  std::vector<float> ego, sky, pose;
  std::vector<double> rewards;
  std::vector<std::uint8_t> terminated, truncated;
  BulldozingObservations out;
  explicit BulldozingBuffers(const BulldozingOptions& o, int n)
      : ego(static_cast<std::size_t>(n * o.ego_width_px * o.ego_height_px)),
        sky(static_cast<std::size_t>(n * o.sky_width_px * o.sky_height_px)),
        pose(static_cast<std::size_t>(3 * n)),
        rewards(static_cast<std::size_t>(n)),
        terminated(static_cast<std::size_t>(n)),
        truncated(static_cast<std::size_t>(n)),
        out{ego.data(), sky.data(), pose.data()} {}
};

TEST(Bulldozing, TheRewardIsThePapersGoalBoxScore) {
  BulldozingOptions o = small_options();  // goal x in [1, 3], y in [-1, 1]
  ParticleState s;
  s.add(Vec3(2.0, 0.0, 0.1), Vec3::Zero(), 0.04, 1.0);   // inside: +100
  s.add(Vec3(0.0, 0.0, 0.1), Vec3::Zero(), 0.04, 1.0);   // 1 m before the box: -1
  s.add(Vec3(4.0, 2.0, 0.1), Vec3::Zero(), 0.04, 1.0);   // corner: -hypot(1, 1)
  s.add(Vec3(2.0, -1.0, 0.1), Vec3::Zero(), 0.04, 1.0);  // on the edge: inside
  const GoalScore score = goal_score(o, s);
  EXPECT_EQ(score.inside, 2u);
  EXPECT_DOUBLE_EQ(score.reward, (200.0 - 1.0 - std::sqrt(2.0)) / 4.0);
}

TEST(Bulldozing, TheHeapSettlesAroundItsCentreInsideTheArena) {
  const BulldozingWorld& w = *small_world();
  const ParticleState& heap = w.settled_heap;
  ASSERT_EQ(heap.size(), 300u);
  double cx = 0, cy = 0;
  for (std::size_t i = 0; i < heap.size(); ++i) {
    cx += heap.x_m[i];
    cy += heap.y_m[i];
    EXPECT_GE(heap.z_m[i], 0.04 * 0.95);
  }
  EXPECT_NEAR(cx / 300.0, -2.0, 0.1);
  EXPECT_NEAR(cy / 300.0, 0.0, 0.1);
  EXPECT_LT(kinetic_energy_J(heap) / 300.0, 1e-6);
  EXPECT_GT(w.bounding_radius_m, 0.4);
}

TEST(Bulldozing, TheBulldozerStopsAtTheWallAndTheEpisodeIsTruncatedOnTime) {
  auto world = std::make_shared<BulldozingWorld>(*small_world());
  world->options.episode_s = 8.0;  // 8 m straight ahead: a wall is at most 5.6 m away
  BulldozingEnvBatch batch(world, 1);
  BulldozingBuffers b(world->options, 1);
  batch.reset(std::vector<std::uint64_t>{9}, b.out);
  const std::vector<double> full_ahead{1.0, 0.0};
  for (int k = 0; k < batch.max_steps(); ++k) {
    batch.step(full_ahead, b.out, b.rewards.data(), b.terminated.data(), b.truncated.data(), 1);
    EXPECT_EQ(b.truncated[0] != 0, k + 1 == batch.max_steps());
  }
  // It drove into a wall and stopped with its centre a bounding radius inside it.
  const BulldozingSlot& s = batch.slot(0);
  const double reach = world->bounding_radius_m;
  EXPECT_LE(std::abs(s.x_m), 4.0 - reach);
  EXPECT_LE(std::abs(s.y_m), 2.0 - reach);
  EXPECT_TRUE(std::abs(s.x_m) == 4.0 - reach || std::abs(s.y_m) == 2.0 - reach)
      << s.x_m << ", " << s.y_m;
  EXPECT_EQ(b.pose[0], static_cast<float>(s.x_m));
}

TEST(Bulldozing, ADivergingSimulationTruncatesTheEpisodeAndSaysWhy) {
  auto world = std::make_shared<BulldozingWorld>(*small_world());
  world->model.max_kinetic_energy_J = 1e-12;  // any motion at all counts as a blow-up
  BulldozingEnvBatch batch(world, 1);
  BulldozingBuffers b(world->options, 1);
  batch.reset(std::vector<std::uint64_t>{1}, b.out);
  // Drive into the heap until particles move.
  const BulldozingSlot& s = batch.slot(0);
  for (int k = 0; k < batch.max_steps() && !b.truncated[0]; ++k) {
    batch.step(std::vector<double>{-1.0, 0.3}, b.out, b.rewards.data(), b.terminated.data(),
               b.truncated.data(), 1);
  }
  ASSERT_TRUE(b.truncated[0]);
  EXPECT_NE(s.stop_reason.find("diverged"), std::string::npos) << s.stop_reason;
  EXPECT_TRUE(std::isfinite(b.rewards[0]));
}

TEST(Bulldozing, ActionsOutsideTheBoxAreRefusedBeforeAnyEnvironmentMoves) {
  BulldozingEnvBatch batch(small_world(), 2);
  BulldozingBuffers b(small_world()->options, 2);
  batch.reset(std::vector<std::uint64_t>{1, 2}, b.out);
  const double x0 = batch.slot(0).x_m;
  try {
    batch.step(std::vector<double>{1.0, 0.0, 0.0, std::nan("")}, b.out, b.rewards.data(),
               b.terminated.data(), b.truncated.data(), 1);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("environment 1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(batch.slot(0).x_m, x0);
  EXPECT_EQ(batch.slot(0).steps, 0);
}

TEST(Bulldozing, BadOptionsAreRefusedNamingTheOption) {
  auto message_of = [](BulldozingOptions o) {
    try {
      validate(o);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  BulldozingOptions o = small_options();
  o.particle_radius_m = -0.01;
  EXPECT_NE(message_of(o).find("particle_radius_m"), std::string::npos);
  o = small_options();
  o.goal_lo_m = Vec2(3.0, -1.0);
  EXPECT_NE(message_of(o).find("goal_lo_m"), std::string::npos);
  o = small_options();
  o.mesh_path = "/nonexistent.obj";
  EXPECT_THROW(make_bulldozing_world(o), std::invalid_argument);
}

}  // namespace
}  // namespace talus::particles
