// Bulldozing-v0's dynamic vehicle (robot/dynamic_bulldozer.hpp): the particles' reaction on the
// MuJoCo bulldozer balances their momentum change at every step, its wheels drive it at the
// commanded speed on bare floor, a heap slows it where the kinematic bulldozer ploughs on, and
// the options that select it are checked.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "particles/bulldozing_env_batch.hpp"
#include "particles_fixtures.hpp"
#include "robot/dynamic_bulldozer.hpp"

namespace talus::robot {
namespace {

using namespace talus::particles;

BulldozingOptions options(double start_x_m) {
  BulldozingOptions o;
  const auto dir = std::filesystem::path(TALUS_SOURCE_DIR) / "robots" / "bulldozer";
  o.mesh_path = dir / "bulldozer.obj";
  o.vehicle = "dynamic";
  o.vehicle_mjcf_path = dir / "bulldozer_dynamic.xml";
  o.particle_count = 300;
  o.particle_radius_m = 0.04;
  o.time_step_s = 2e-3;
  o.steps_per_action = 50;
  o.episode_s = 20.0;
  o.heap_offset_m = 0.0;
  o.start_lo_m = o.start_hi_m = Vec2(start_x_m, 0.0);
  o.start_yaw_max_rad = 0.0;  // heading +x
  o.threads = 1;
  return o;
}

struct DynamicBulldozerBuffers {
  std::vector<float> ego, sky, pose;
  std::vector<double> rewards;
  std::vector<std::uint8_t> terminated, truncated;
  BulldozingObservations out;
  explicit DynamicBulldozerBuffers(const BulldozingOptions& o)
      : ego(static_cast<std::size_t>(o.ego_width_px * o.ego_height_px)),
        sky(static_cast<std::size_t>(o.sky_width_px * o.sky_height_px)),
        pose(3),
        rewards(1),
        terminated(1),
        truncated(1),
        out{ego.data(), sky.data(), pose.data()} {}
  void step(BulldozingEnvBatch& batch, double forward, double yaw) {
    batch.step(std::vector<double>{forward, yaw}, out, rewards.data(), terminated.data(),
               truncated.data(), 1);
  }
};

using particles::testing::momentum;

TEST(DynamicBulldozer, TheReactionOnTheBodyBalancesTheParticlesMomentumChange) {
  // Weightless particles floating in a loose cloud in front of the scoop, touching neither the
  // floor nor the walls: only the bulldozer changes their momentum, and by Newton's third law
  // the wrench the MuJoCo body receives is minus that change per time step.
  BulldozingOptions o = options(-2.5);
  o.steps_per_action = 1;
  auto world = std::make_shared<BulldozingWorld>(*make_bulldozing_world(o));
  world->model.gravity_m_per_s2 = Vec3::Zero();
  ParticleState cloud;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 5; ++j) {
      for (int k = 0; k < 3; ++k) {
        cloud.add(Vec3(-2.0 + 0.1 * i, -0.25 + 0.12 * j, 0.12 + 0.1 * k), Vec3::Zero(), 0.04,
                  sphere_mass_kg(0.04, o.density_kg_per_m3));
      }
    }
  }
  world->settled_heap = cloud;
  BulldozingEnvBatch batch(world, 1, dynamic_bulldozer_factory());
  DynamicBulldozerBuffers b(o);
  batch.reset(std::vector<std::uint64_t>{1}, b.out);
  int touching = 0;
  double biggest_N = 0.0;
  for (int k = 0; k < 600 && touching < 100; ++k) {
    const Vec3 before = momentum(batch.slot(0).particles);
    b.step(batch, 1.0, 0.0);
    ASSERT_FALSE(b.truncated[0]) << batch.slot(0).stop_reason;
    const Vec3 change = momentum(batch.slot(0).particles) - before;
    const Vec3 reaction_impulse = batch.slot(0).body_wrench.f_W * o.time_step_s;
    const double scale = std::max(reaction_impulse.norm(), 1e-9);
    EXPECT_LT((change + reaction_impulse).norm(), 1e-4 * scale + 1e-7) << "step " << k;
    if (reaction_impulse.norm() > 0) ++touching;
    biggest_N = std::max(biggest_N, batch.slot(0).body_wrench.f_W.norm());
  }
  EXPECT_EQ(touching, 100);  // the scoop reached the cloud and pushed it for 100 steps
  EXPECT_GT(biggest_N, 1.0);
}

TEST(DynamicBulldozer, ItsWheelsDriveItAtTheCommandedSpeedOnBareFloor) {
  const BulldozingOptions o = options(-2.0);
  auto world = std::make_shared<BulldozingWorld>(*make_bulldozing_world(o));
  world->settled_heap = ParticleState{};  // nothing in the way
  world->settled_heap.add(Vec3(3.5, 1.5, 0.04), Vec3::Zero(), 0.04, 1.0);
  BulldozingEnvBatch batch(world, 1, dynamic_bulldozer_factory());
  DynamicBulldozerBuffers b(o);
  batch.reset(std::vector<std::uint64_t>{1}, b.out);
  for (int k = 0; k < 10; ++k) b.step(batch, 0.5, 0.0);  // 1 s to speed up
  const double x0 = batch.slot(0).x_m;
  for (int k = 0; k < 10; ++k) b.step(batch, 0.5, 0.0);
  EXPECT_NEAR((batch.slot(0).x_m - x0) / 1.0, 0.5, 0.05);  // max_speed 1 m/s x 0.5
  EXPECT_NEAR(batch.slot(0).y_m, 0.0, 0.02);
  // A turn command turns it left.
  for (int k = 0; k < 10; ++k) b.step(batch, 0.0, 1.0);
  EXPECT_GT(batch.slot(0).yaw_rad, 0.2);
}

TEST(DynamicBulldozer, AHeapSlowsItWhereTheKinematicBulldozerPloughsOn) {
  // Both start 1.2 m behind the heap's centre (-2, 0) heading into it at full speed for 2 s.
  const BulldozingOptions o = options(-3.3);
  auto world = make_bulldozing_world(o);
  BulldozingEnvBatch dynamic(world, 1, dynamic_bulldozer_factory());
  BulldozingOptions kinematic_options = o;
  kinematic_options.vehicle = "kinematic";
  BulldozingEnvBatch kinematic(make_bulldozing_world(kinematic_options), 1);
  DynamicBulldozerBuffers b(o);
  dynamic.reset(std::vector<std::uint64_t>{1}, b.out);
  kinematic.reset(std::vector<std::uint64_t>{1}, b.out);
  double peak_force_N = 0.0;
  for (int k = 0; k < 20; ++k) {
    b.step(dynamic, 1.0, 0.0);
    b.step(kinematic, 1.0, 0.0);
    peak_force_N = std::max(peak_force_N, dynamic.slot(0).body_wrench.f_W.norm());
  }
  const double dynamic_m = dynamic.slot(0).x_m + 3.3, kinematic_m = kinematic.slot(0).x_m + 3.3;
  EXPECT_NEAR(kinematic_m, 2.0, 1e-6);
  EXPECT_LT(dynamic_m, kinematic_m - 0.1) << "dynamic " << dynamic_m;
  EXPECT_GT(dynamic_m, 0.3);  // but it does push into the heap
  EXPECT_GT(peak_force_N, 100.0);
}

TEST(DynamicBulldozer, TheVehicleOptionsAreChecked) {
  BulldozingOptions o = options(0.5);
  o.vehicle = "hovercraft";
  EXPECT_THROW(validate(o), std::invalid_argument);
  o.vehicle = "dynamic";
  o.vehicle_mjcf_path.clear();
  EXPECT_THROW(validate(o), std::invalid_argument);
  // A dynamic world without the dynamic factory is refused, naming what is missing.
  const auto world = make_bulldozing_world(options(0.5));
  try {
    BulldozingEnvBatch batch(world, 1);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dynamic_bulldozer_factory"), std::string::npos);
  }
  // An MJCF without the bulldozer body is refused naming the file.
  BulldozingOptions wrong = options(0.5);
  wrong.vehicle_mjcf_path =
      std::filesystem::path(TALUS_SOURCE_DIR) / "robots" / "rover" / "rover.xml";
  EXPECT_THROW(BulldozingEnvBatch(make_bulldozing_world(wrong), 1, dynamic_bulldozer_factory()),
               RobotError);
}

}  // namespace
}  // namespace talus::robot
