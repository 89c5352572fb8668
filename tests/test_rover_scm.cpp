// The rover and free bodies coupled to SCM soil (issue 5's "done when" tests), and the [grid]
// slope option the rover_slope scenario uses.

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>

#include "core/scenario_file.hpp"
#include "core/units.hpp"
#include "robot/coupled_sim.hpp"
#include "robot/drive_telemetry.hpp"
#include "robot_test_paths.hpp"
#include "scm/scm_contact_tier.hpp"
#include "scm/scm_scenario.hpp"

namespace talus::robot {
namespace {

using test_support::robot_data;
using test_support::rover_file;

using test_support::kRoverWheels;

std::vector<CoupledLink> links_of(const MujocoModel& robot,
                                  const std::vector<std::string>& bodies) {
  std::vector<CouplingEntry> entries;
  for (const auto& b : bodies) entries.push_back(CouplingEntry{b, "", {}, Pose::Identity(), ""});
  return resolve_coupling(robot, entries);
}

// Flat soil at z = 0 around the origin, 2 cm grid, border flow, 1 ms steps.
scm::ScmModel flat_soil(const scm::SoilParameters& soil, double half_x, double half_y,
                        double cell_m = 0.02) {
  scm::ScmModel m;
  m.cell_size_m = cell_m;
  m.nx = static_cast<int>(std::lround(2.0 * half_x / m.cell_size_m)) + 1;
  m.ny = static_cast<int>(std::lround(2.0 * half_y / m.cell_size_m)) + 1;
  m.x0_m = -half_x;
  m.y0_m = -half_y;
  m.soil = soil;
  m.method = scm::FlowMethod::Border;
  m.time_step_s = 1e-3;
  return m;
}

// Nearly rigid soil: Bekker k = 5e7 N/m^3 (n = 1), ~30x dry sand's kphi.
scm::SoilParameters stiff_soil() {
  scm::SoilParameters s = scm::named_soil("dry_sand");
  s.kc = 0.0;
  s.kphi = 5e7;
  s.exponent_n = 1.0;
  return s;
}

struct RoverRun {
  Vec3 p0, p1;                   // chassis position at the start and the end
  double sinkage_early_m = 0.0;  // mean wheel sinkage 0.2 s before the end
  double sinkage_end_m = 0.0;    // mean wheel sinkage at the end
  double vz_end_m_per_s = 0.0;   // chassis vertical speed at the end
};

// The rover placed 1 cm above the soil, wheels held at zero speed, for `seconds`.
RoverRun stand_rover(const scm::SoilParameters& soil, double seconds) {
  MujocoModel rover = MujocoModel::load(rover_file());
  const auto links = links_of(rover, kRoverWheels);
  scm::ScmModel m = flat_soil(soil, 0.9, 0.7, 0.04);  // 4 cm grid: a fast test
  m.bodies = tier_bodies(links);
  scm::ScmContactTier tier(std::move(m));
  CoupledSim sim(rover, links, tier, 1);
  DriveRecorder rec(rover, "chassis", links, kRoverWheels, [](double, double) { return 0.0; });
  for (int a = 0; a < rover.model()->nu; ++a) rover.data()->ctrl[a] = 0.0;
  RoverRun r;
  const double* q = rover.data()->qpos;
  r.p0 = Vec3(q[0], q[1], q[2]);
  auto mean_sinkage = [&] {
    const DriveSample s = rec.sample(rover);
    double z = 0.0;
    for (double w : s.sinkage_m) z += w / static_cast<double>(s.sinkage_m.size());
    return z;
  };
  const int steps = static_cast<int>(std::lround(seconds / sim.tier_time_step_s()));
  for (int k = 1; k <= steps; ++k) {
    sim.step();
    if (k == steps - 200) r.sinkage_early_m = mean_sinkage();
  }
  r.sinkage_end_m = mean_sinkage();
  r.p1 = Vec3(q[0], q[1], q[2]);
  r.vz_end_m_per_s = rover.data()->qvel[2];
  return r;
}

TEST(RoverScm, StandsWithoutDriftOnStiffSoil) {
  const RoverRun r = stand_rover(stiff_soil(), 0.6);
  // Carried by the soil (it neither falls through nor flies off; the nearly elastic stiff soil
  // leaves it rocking by a few mm) ...
  EXPECT_NEAR(r.p1.z(), r.p0.z() - 0.01, 0.02) << "chassis z " << r.p1.z();
  EXPECT_LT(r.sinkage_end_m, 0.005);
  // ... and does not creep over it: a symmetric rover at rest on flat soil stays where it is.
  EXPECT_LT(std::abs(r.p1.x() - r.p0.x()), 1e-3) << "x drift " << r.p1.x() - r.p0.x();
  EXPECT_LT(std::abs(r.p1.y() - r.p0.y()), 1e-3) << "y drift " << r.p1.y() - r.p0.y();
}

TEST(RoverScm, SinksAndSettlesOnSoftSoil) {
  // Dry sand (Wong's LLL parameters) is soft next to stiff_soil().
  const RoverRun r = stand_rover(scm::named_soil("dry_sand"), 0.6);
  const RoverRun stiff = stand_rover(stiff_soil(), 0.6);
  EXPECT_GT(r.sinkage_end_m, 0.008) << "sinkage " << r.sinkage_end_m;
  EXPECT_GT(r.sinkage_end_m, 3.0 * stiff.sinkage_end_m);
  // Settled: the last 0.2 s changed the sinkage by under 5 % of it and the chassis is nearly at
  // rest (plastic sinkage dissipates the landing).
  EXPECT_LT(std::abs(r.sinkage_end_m - r.sinkage_early_m), 0.05 * r.sinkage_end_m)
      << r.sinkage_early_m << " -> " << r.sinkage_end_m;
  EXPECT_LT(std::abs(r.vz_end_m_per_s), 0.03);  // a little rocking on the soil's elastic unloading
  EXPECT_LT(std::abs(r.p1.x() - r.p0.x()), 2e-3);
}

// A 10 kg ball (tests/data/robot/bodies.xml) dropped from 5 cm onto dry sand: the impulse of the
// soil's wrenches over the run equals the ball's momentum change minus gravity's impulse.
TEST(RoverScm, SoilImpulseEqualsTheMomentumChangeOfALandingBody) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  robot.data()->qpos[2] = 0.1 + 0.05;
  robot.data()->qvel[0] = 0.3;  // sliding along x as it lands: friction and shear enter too
  const auto links = links_of(robot, {"ball"});
  scm::ScmModel m = flat_soil(scm::named_soil("dry_sand"), 0.5, 0.3);
  m.bodies = tier_bodies(links);
  scm::ScmContactTier tier(std::move(m));
  CoupledSim sim(robot, links, tier, 2);
  const double mass = 10.0;
  const Vec3 v0(robot.data()->qvel[0], robot.data()->qvel[1], robot.data()->qvel[2]);
  Vec3 impulse = Vec3::Zero();
  for (int k = 0; k < 300; ++k) {  // 0.6 s
    sim.step();
    impulse += sim.wrenches()[0].f_W * sim.tier_time_step_s();
  }
  const double t = robot.time_s();
  const double* g = robot.model()->opt.gravity;
  const Vec3 gravity_impulse = mass * Vec3(g[0], g[1], g[2]) * t;
  const Vec3 v1(robot.data()->qvel[0], robot.data()->qvel[1], robot.data()->qvel[2]);
  const Vec3 dp = mass * (v1 - v0);
  // The soil caught the ball: its upward impulse is most of gravity's, and it slowed the slide.
  EXPECT_GT(impulse.z(), -0.8 * gravity_impulse.z());
  EXPECT_LT(impulse.x(), -0.1 * mass * v0.x());
  EXPECT_TRUE(dp.isApprox(impulse + gravity_impulse, 1e-9))
      << "dp " << dp.transpose() << " vs impulse + gravity "
      << (impulse + gravity_impulse).transpose();
}

TEST(RoverScm, GridSlopeIsFlatThenRisesAtItsAngle) {
  const auto doc = ScenarioDocument::parse(R"(
[grid]
size_m = [2.0, 0.4]
cell_size_m = 0.1
slope_start_m = 1.0
slope_deg = 15.0
)",
                                           "slope.toml");
  scm::ScmModel m;
  scm::read_grid(doc->root().table("grid"), m);
  EXPECT_DOUBLE_EQ(m.base_height(0, 2), 0.0);
  EXPECT_DOUBLE_EQ(m.base_height(10, 2), 0.0);  // x = 1.0 m
  EXPECT_NEAR(m.base_height(20, 2), 1.0 * std::tan(deg_to_rad(15.0)), 1e-12);
  EXPECT_NEAR(m.base_height(15, 0), 0.5 * std::tan(deg_to_rad(15.0)), 1e-12);

  const auto bad = ScenarioDocument::parse(R"(
[grid]
size_m = [2.0, 0.4]
cell_size_m = 0.1
slope_deg = 15.0
)",
                                           "slope.toml");
  scm::ScmModel m2;
  try {
    scm::read_grid(bad->root().table("grid"), m2);
    ADD_FAILURE() << "a slope without slope_start_m was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("slope_start_m"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace talus::robot
