// Excavation-v0's world and batch (robot/excavation_*.hpp): the arm's MJCF against the Panda's
// published Denavit-Hartenberg chain, the bucket's load counted by hand, the force limit and the
// floor ending an episode with their reasons, joint ranges holding, and the option checks.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>

#include "robot/excavation_env_batch.hpp"

namespace talus::robot {
namespace {

using particles::ParticleState;

ExcavationOptions small_options() {
  ExcavationOptions o;
  const auto dir = std::filesystem::path(TALUS_SOURCE_DIR) / "robots" / "panda_bucket";
  o.arm_path = dir / "panda_bucket.xml";
  o.bucket_mesh_path = dir / "bucket.obj";
  o.particle_count = 600;
  o.particle_radius_m = 0.02;
  o.time_step_s = 2e-3;
  o.steps_per_action = 25;
  o.episode_s = 2.0;
  o.threads = 1;
  return o;
}

const std::shared_ptr<const ExcavationWorld>& small_world() {
  static const auto world = make_excavation_world(small_options());
  return world;
}

struct ExcavationBuffers {
  std::vector<float> state, sky;
  std::vector<double> rewards;
  std::vector<std::uint8_t> terminated, truncated;
  ExcavationObservations out;
  ExcavationBuffers(const ExcavationOptions& o, int n)
      : state(static_cast<std::size_t>(n * kExcavationStateSize)),
        sky(static_cast<std::size_t>(n * o.sky_width_px * o.sky_height_px)),
        rewards(static_cast<std::size_t>(n)),
        terminated(static_cast<std::size_t>(n)),
        truncated(static_cast<std::size_t>(n)),
        out{state.data(), sky.data()} {}
};

// The Panda's flange pose by its modified DH table (Craig), written independently of the MJCF.
Pose dh_flange(const JointVector& q) {
  const double pi2 = std::numbers::pi / 2;
  const double a[] = {0, 0, 0, 0.0825, -0.0825, 0, 0.088};
  const double d[] = {0.333, 0, 0.316, 0, 0.384, 0, 0};
  const double alpha[] = {0, -pi2, pi2, pi2, -pi2, pi2, pi2};
  Pose T = Pose::Identity();
  for (int i = 0; i < kArmJoints; ++i) {
    T = T * Eigen::AngleAxisd(alpha[i], Vec3::UnitX()) * Eigen::Translation3d(a[i], 0, 0) *
        Eigen::AngleAxisd(q[i], Vec3::UnitZ()) * Eigen::Translation3d(0, 0, d[i]);
  }
  return T * Eigen::Translation3d(0, 0, 0.107);
}

TEST(Excavation, TheArmHasThePandasPublishedKinematics) {
  const ExcavationWorld& w = *small_world();
  MujocoModel arm = MujocoModel::load(w.options.arm_path);
  const Pose zero = set_arm_configuration(w, arm, JointVector{});
  EXPECT_NEAR((zero.translation() - Vec3(0.088, 0.0, 0.926)).norm(), 0.0, 1e-9);
  EXPECT_NEAR((zero.linear().col(2) - Vec3(0, 0, -1)).norm(), 0.0, 1e-9);  // flange down
  std::uint64_t state = 5;
  for (int trial = 0; trial < 20; ++trial) {
    JointVector q{};
    for (int j = 0; j < kArmJoints; ++j) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const double u = double(state >> 11) / double(1ull << 53);
      q[j] = w.joint_lo_rad[j] + u * (w.joint_hi_rad[j] - w.joint_lo_rad[j]);
    }
    const Pose mj = set_arm_configuration(w, arm, q), dh = dh_flange(q);
    EXPECT_NEAR((mj.translation() - dh.translation()).norm(), 0.0, 1e-6) << "trial " << trial;
    EXPECT_NEAR((mj.linear() - dh.linear()).norm(), 0.0, 1e-6) << "trial " << trial;
  }
  // The published ranges, read from the file.
  EXPECT_DOUBLE_EQ(w.joint_lo_rad[3], -3.0718);
  EXPECT_DOUBLE_EQ(w.joint_hi_rad[5], 3.7525);
}

TEST(Excavation, TheToolTwistIsTheJacobianTimesTheJointSpeeds) {
  const ExcavationWorld& w = *small_world();
  MujocoModel arm = MujocoModel::load(w.options.arm_path);
  const JointVector q = w.options.start_joint_rad;
  const JointVector qdot{0.3, -0.2, 0.5, 0.1, -0.4, 0.2, 0.7};
  set_arm_configuration(w, arm, q);
  const Twist V = tool_twist(w, arm, qdot);
  const double h = 1e-6;
  JointVector q1 = q;
  for (int j = 0; j < kArmJoints; ++j) q1[j] += h * qdot[j];
  const Pose X0 = dh_flange(q), X1 = dh_flange(q1);
  EXPECT_NEAR(((X1.translation() - X0.translation()) / h - V.v_WBo).norm(), 0.0, 1e-5);
  const Eigen::AngleAxisd turn(X1.linear() * X0.linear().transpose());
  EXPECT_NEAR((turn.axis() * turn.angle() / h - V.w_W).norm(), 0.0, 1e-5);
}

TEST(Excavation, TheBucketsLoadCountsItsCavityAndWhatIsAboveTheBed) {
  const ExcavationWorld& w = *small_world();
  const Pose X_WT = make_pose(Vec3(0.5, 0.0, 0.6), std::numbers::pi, 0.0, 0.0);  // flange down
  const Vec3 middle_T = 0.5 * (w.cavity.lo_T + w.cavity.hi_T);
  ParticleState s;
  s.add(X_WT * middle_T, Vec3::Zero(), 0.02, 2.0);                      // held
  s.add(X_WT * (middle_T + Vec3(0.5, 0, 0)), Vec3::Zero(), 0.02, 3.0);  // outside
  const Pose low = make_pose(Vec3(0.5, 0.0, w.bed_top_m + 0.1), std::numbers::pi, 0.0, 0.0);
  s.add(low * Vec3(0.1, 0.0, 0.15), Vec3::Zero(), 0.02, 5.0);  // in a bucket at `low`
  const BucketLoad high_load = bucket_load(w, s, X_WT);
  EXPECT_EQ(high_load.in_bucket, 1u);
  EXPECT_EQ(high_load.held, 1u);
  EXPECT_NEAR(high_load.held_kg, 2.0, 1e-6);  // inverse masses are stored in float
  // A bucket whose cavity reaches below the bed's top holds nothing there.
  const BucketLoad low_load = bucket_load(w, s, low);
  EXPECT_EQ(low_load.in_bucket, 1u);
  EXPECT_NEAR(low_load.in_bucket_kg, 5.0, 1e-6);
  EXPECT_EQ(low_load.held, 0u);
}

// Drives every environment with the same joint speeds until its episode ends.
int run_until_end(ExcavationEnvBatch& batch, ExcavationBuffers& b,
                  const std::vector<double>& action) {
  for (int k = 1; k <= batch.max_steps(); ++k) {
    batch.step(action, b.out, b.rewards.data(), b.terminated.data(), b.truncated.data(), 1);
    if (b.terminated[0] || b.truncated[0]) return k;
  }
  return -1;
}

// Joint 2 forward and joint 4 unfolding: the bucket swings down and away, into the bed.
const std::vector<double> kIntoTheBed{0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0};

TEST(Excavation, TheForceLimitEndsTheEpisodeWithItsReason) {
  ExcavationOptions o = small_options();
  o.force_limit_N = 40.0;
  ExcavationEnvBatch batch(make_excavation_world(o), 1);
  ExcavationBuffers b(o, 1);
  const std::uint64_t seed = 3;
  batch.reset({&seed, 1}, b.out);
  const int steps = run_until_end(batch, b, kIntoTheBed);
  ASSERT_GT(steps, 0);
  EXPECT_TRUE(b.terminated[0]);
  EXPECT_FALSE(b.truncated[0]);
  EXPECT_NE(batch.slot(0).stop_reason.find("force_limit_N = 40 N"), std::string::npos)
      << batch.slot(0).stop_reason;
  EXPECT_GT(batch.slot(0).wrench.f_W.norm(), 40.0);
  // The observation carries the wrench that ended it.
  const Vec3 f(b.state[21], b.state[22], b.state[23]);
  EXPECT_NEAR(f.norm(), batch.slot(0).wrench.f_W.norm(), 1e-3 * f.norm());
}

TEST(Excavation, TheFloorEndsTheEpisodeWhenNoForceStopsTheBucket) {
  ExcavationOptions o = small_options();
  o.particle_count = 40;  // a few grains: nothing holds the bucket back
  o.force_limit_N = 1e9;
  o.episode_s = 10.0;
  ExcavationEnvBatch batch(make_excavation_world(o), 1);
  ExcavationBuffers b(o, 1);
  const std::uint64_t seed = 3;
  batch.reset({&seed, 1}, b.out);
  ASSERT_GT(run_until_end(batch, b, kIntoTheBed), 0);
  EXPECT_TRUE(b.terminated[0]);
  EXPECT_NE(batch.slot(0).stop_reason.find("below the floor"), std::string::npos)
      << batch.slot(0).stop_reason;
}

TEST(Excavation, ADivergingSimulationTruncatesTheEpisodeAndSaysWhy) {
  auto world = std::make_shared<ExcavationWorld>(*small_world());
  world->model.max_kinetic_energy_J = 1e-12;  // any motion at all counts as a blow-up
  ExcavationEnvBatch batch(world, 1);
  ExcavationBuffers b(world->options, 1);
  const std::uint64_t seed = 4;
  batch.reset({&seed, 1}, b.out);
  ASSERT_GT(run_until_end(batch, b, kIntoTheBed), 0);
  EXPECT_TRUE(b.truncated[0]);
  EXPECT_FALSE(b.terminated[0]);
  EXPECT_NE(batch.slot(0).stop_reason.find("diverged"), std::string::npos)
      << batch.slot(0).stop_reason;
  for (float v : b.state) EXPECT_TRUE(std::isfinite(v));
}

TEST(Excavation, JointsStopAtTheirRanges) {
  ExcavationOptions o = small_options();
  o.particle_count = 40;
  o.episode_s = 10.0;
  ExcavationEnvBatch batch(make_excavation_world(o), 1);
  ExcavationBuffers b(o, 1);
  const std::uint64_t seed = 1;
  batch.reset({&seed, 1}, b.out);
  const std::vector<double> up{0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0};  // joint 7 only
  for (int k = 0; k < 80; ++k) {  // 4 s at 1 rad/s: past the 2.8973 rad stop
    batch.step(up, b.out, b.rewards.data(), b.terminated.data(), b.truncated.data(), 1);
  }
  EXPECT_DOUBLE_EQ(batch.slot(0).q_rad[6], 2.8973);
  EXPECT_EQ(b.state[7 + 6], 0.0f);  // no speed at the stop
}

TEST(Excavation, BadOptionsAreRefusedByName) {
  auto refused = [](auto change, const std::string& name) {
    ExcavationOptions o = small_options();
    change(o);
    try {
      make_excavation_world(o);
      ADD_FAILURE() << name << " was accepted";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  };
  refused([](ExcavationOptions& o) { o.particle_radius_m = 0.0; }, "particle_radius_m");
  refused([](ExcavationOptions& o) { o.force_limit_N = -1.0; }, "force_limit_N");
  refused([](ExcavationOptions& o) { o.tub_hi_m = o.tub_lo_m; }, "tub_lo_m/tub_hi_m");
  refused([](ExcavationOptions& o) { o.bucket_mesh_path = "/no/such/bucket.obj"; },
          "bucket_mesh_path");
  refused([](ExcavationOptions& o) { o.start_joint_rad[3] = 0.5; }, "start_joint_rad");
  refused([](ExcavationOptions& o) { o.particle_count = 100000; }, "particle_count");
  refused([](ExcavationOptions& o) { o.tool_body = "hand"; }, "hand");
}

TEST(Excavation, BadActionsAreRefusedAndNothingMoves) {
  ExcavationEnvBatch batch(small_world(), 1);
  ExcavationBuffers b(small_world()->options, 1);
  const std::uint64_t seed = 2;
  batch.reset({&seed, 1}, b.out);
  const auto before = b.state;
  std::vector<double> action(7, 0.0);
  action[2] = NAN;
  EXPECT_THROW(
      batch.step(action, b.out, b.rewards.data(), b.terminated.data(), b.truncated.data(), 1),
      std::invalid_argument);
  action[2] = 1.5;
  EXPECT_THROW(
      batch.step(action, b.out, b.rewards.data(), b.terminated.data(), b.truncated.data(), 1),
      std::invalid_argument);
  EXPECT_EQ(b.state, before);
  EXPECT_EQ(batch.slot(0).steps, 0);
}

}  // namespace
}  // namespace talus::robot
