#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>

#include "robot/coupled_sim.hpp"
#include "robot_spring_ground.hpp"
#include "robot_test_paths.hpp"

namespace talus::robot {
namespace {

using test_support::rover_file;
using test_support::SpringGroundParams;
using test_support::SpringGroundTier;

const std::vector<std::string> kWheels = {"wheel_fl", "wheel_fr", "wheel_rl", "wheel_rr"};

std::vector<CoupledLink> wheel_links(const MujocoModel& rover) {
  std::vector<CouplingEntry> entries;
  for (const auto& w : kWheels) entries.push_back(CouplingEntry{w, "", {}, Pose::Identity(), ""});
  return resolve_coupling(rover, entries);
}

// A stiff ground for a quarter of the rover (25 kg per wheel): k = 2e5 N/m gives omega = 89 rad/s,
// dt_max = 21 ms with one MuJoCo step (1 ms) per tier step; zeta = 0.3.
SpringGroundParams stiff_ground() {
  SpringGroundParams p;
  p.stiffness_n_per_m = 2e5;
  p.damping_n_s_per_m = 2.0 * 0.3 * std::sqrt(2e5 * 25.0);
  p.friction_coefficient = 0.8;
  p.tangential_damping_n_s_per_m = 5e3;
  return p;
}

TEST(RobotRover, HasFourActuatedHingesAndTheDocumentedMass) {
  MujocoModel rover = MujocoModel::load(rover_file());
  const mjModel* m = rover.model();
  EXPECT_NEAR(rover.total_mass_kg(), 100.0, 1e-9);  // 80 kg chassis + 4 x 5 kg wheels
  ASSERT_EQ(m->nu, 4);
  for (int a = 0; a < m->nu; ++a) {
    ASSERT_EQ(m->actuator_trntype[a], mjTRN_JOINT);
    const int j = m->actuator_trnid[2 * a];
    EXPECT_EQ(m->jnt_type[j], mjJNT_HINGE);
    EXPECT_EQ(rover.joint_names()[j], kWheels[a]);
    EXPECT_DOUBLE_EQ(m->jnt_axis[3 * j + 1], 1.0);              // about the chassis y axis
    EXPECT_DOUBLE_EQ(m->actuator_gainprm[mjNGAIN * a], 100.0);  // velocity servo kv
  }
  // The terrain is the tier's: MuJoCo computes no contacts.
  for (int g = 0; g < m->ngeom; ++g) {
    EXPECT_EQ(m->geom_contype[g], 0);
    EXPECT_EQ(m->geom_conaffinity[g], 0);
  }
  for (const auto& link : wheel_links(rover)) {
    const auto& cyl = std::get<CylinderShape>(link.shape);
    EXPECT_DOUBLE_EQ(cyl.radius_m, 0.25);
    EXPECT_DOUBLE_EQ(cyl.half_length_m, 0.075);
  }
}

TEST(RobotRover, StandsOnStiffGroundWithoutDrifting) {
  MujocoModel rover = MujocoModel::load(rover_file());
  // Start turned and a little pitched so that the wheels land one after another.
  mjData* d = rover.data();
  const Quat q =
      Quat(Eigen::AngleAxisd(0.4, Vec3::UnitZ()) * Eigen::AngleAxisd(0.03, Vec3::UnitY()));
  d->qpos[2] = 0.33;
  d->qpos[3] = q.w();
  d->qpos[4] = q.x();
  d->qpos[5] = q.y();
  d->qpos[6] = q.z();
  const auto links = wheel_links(rover);
  SpringGroundTier ground(tier_bodies(links), stiff_ground());
  CoupledSim sim(rover, links, ground, 1);
  for (int i = 0; i < 1000; ++i) sim.step();  // 1 s: landed and settled
  const Vec3 p_settled(d->qpos[0], d->qpos[1], d->qpos[2]);
  for (int i = 0; i < 2000; ++i) sim.step();  // 2 s more
  const Vec3 p_end(d->qpos[0], d->qpos[1], d->qpos[2]);
  EXPECT_LT((p_end - p_settled).head<2>().norm(), 1e-4);
  // It stands: wheel centres at the radius above ground less the static deflection m g / (4 k).
  const double deflection = 100.0 * 9.81 / (4 * 2e5);
  for (const auto& link : links) {
    EXPECT_NEAR(link_pose(rover, link).translation().z(), 0.25 - deflection, 2e-4);
  }
  double vertical = 0.0;
  for (const Wrench& w : sim.wrenches()) vertical += w.f_W.z();
  EXPECT_NEAR(vertical, 100.0 * 9.81, 1.0);
}

TEST(RobotRover, DrivesForwardWhenTheWheelsTurn) {
  MujocoModel rover = MujocoModel::load(rover_file());
  const auto links = wheel_links(rover);
  SpringGroundTier ground(tier_bodies(links), stiff_ground());
  CoupledSim sim(rover, links, ground, 1);
  for (int i = 0; i < 300; ++i) sim.step();
  const double x0 = rover.data()->qpos[0];
  for (int a = 0; a < 4; ++a) rover.data()->ctrl[a] = 2.0;  // rad/s, the paper's wheel speed
  for (int i = 0; i < 1500; ++i) sim.step();
  // About omega r = 0.5 m/s forward (+x) once rolling; some slip of the regularised friction.
  const double vx = rover.data()->qvel[0];
  EXPECT_GT(vx, 0.4);
  EXPECT_LT(vx, 0.51);
  EXPECT_GT(rover.data()->qpos[0] - x0, 0.4);
  EXPECT_LT(std::abs(rover.data()->qpos[1]), 1e-3);  // straight
}

}  // namespace
}  // namespace talus::robot
