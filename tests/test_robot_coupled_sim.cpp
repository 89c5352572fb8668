#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>

#include "robot/coupled_sim.hpp"
#include "robot_spring_ground.hpp"
#include "robot_test_paths.hpp"

namespace talus::robot {
namespace {

using test_support::body_entry;
using test_support::contains;
using test_support::first_free_joint_velocity;
using test_support::robot_data;
using test_support::robot_error_of;
using test_support::SpringGroundParams;
using test_support::SpringGroundTier;

// The ball of bodies.xml: 10 kg, radius 0.1 m, free joint qpos[0..6], qvel[0..5].
constexpr double kBallMass = 10.0;
constexpr double kBallRadius = 0.1;

TEST(RobotCoupledSim, TwistIsTheVelocityOfTheShapeFrameOrigin) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  mjModel* m = robot.model();
  mjData* d = robot.data();
  m->opt.gravity[2] = 0.0;
  const auto links = resolve_coupling(robot, {body_entry("axle")});  // S is 0.3 m off the body
  const int dof = m->jnt_dofadr[m->body_jntadr[links[0].body_id]];
  const double qv[6] = {0.3, -0.2, 0.5, 1.0, 2.0, -1.5};  // linear (world), angular (local)
  for (int j = 0; j < 6; ++j) d->qvel[dof + j] = qv[j];
  mj_forward(m, d);
  const BodyMotion motion = link_motion(robot, links[0]);
  // Finite difference of S's origin over a tiny step (rotation integrated by MuJoCo).
  const double h = 1e-6;
  m->opt.timestep = h;
  const Vec3 p0 = link_pose(robot, links[0]).translation();
  mj_step(m, d);
  mj_forward(m, d);
  const Vec3 p1 = link_pose(robot, links[0]).translation();
  EXPECT_TRUE(((p1 - p0) / h).isApprox(motion.V_WB.v_WBo, 1e-5))
      << ((p1 - p0) / h).transpose() << " vs " << motion.V_WB.v_WBo.transpose();
  // The angular velocity is in world axes: the local one rotated by the body's orientation.
  EXPECT_GT(motion.V_WB.w_W.norm(), 1.0);
  EXPECT_NEAR(motion.V_WB.w_W.norm(), Vec3(1.0, 2.0, -1.5).norm(), 1e-12);
  EXPECT_GT((motion.V_WB.v_WBo - Vec3(0.3, -0.2, 0.5)).norm(), 0.1);  // differs from the origin's
}

TEST(RobotCoupledSim, ImpulseOfTheTierEqualsTheMomentumChangeOfALandingBody) {
  for (int substeps : {1, 4}) {
    MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
    robot.data()->qpos[2] = kBallRadius + 0.05;  // 5 cm above the ground
    const auto links = resolve_coupling(robot, {body_entry("ball")});
    SpringGroundTier tier(tier_bodies(links), SpringGroundParams{1e5, 300.0, 0.0, 0.0, 0.0});
    CoupledSim sim(robot, links, tier, substeps);
    const Vec3 v0 = first_free_joint_velocity(robot);
    const int steps = 1000 / substeps;  // 1 s
    for (int i = 0; i < steps; ++i) sim.step();
    const double t = robot.time_s();
    EXPECT_NEAR(t, 1.0, 1e-9);
    EXPECT_EQ(tier.steps, steps);
    const double* g = robot.model()->opt.gravity;  // MuJoCo's default: 9.81 m/s^2
    const Vec3 gravity_impulse = kBallMass * Vec3(g[0], g[1], g[2]) * t;
    const Vec3 dp = kBallMass * (first_free_joint_velocity(robot) - v0);
    // It landed: the tier's impulse is about m g t (it carries the ball once it rests).
    EXPECT_GT(tier.impulse_N_s.z(), -0.5 * gravity_impulse.z());
    EXPECT_TRUE(dp.isApprox(tier.impulse_N_s + gravity_impulse, 1e-9))
        << "substeps " << substeps << ": dp " << dp.transpose() << " impulse "
        << (tier.impulse_N_s + gravity_impulse).transpose();
  }
}

TEST(RobotCoupledSim, WrenchIsAppliedAtTheCentreOfMass) {
  // offset_com: sphere of radius 0.1 m at the body origin, centre of mass 0.1 m along +x. The
  // ground pushes up under the sphere's centre, so about the centre of mass the torque is
  // (p_Q - p_Cm) x f = (-0.1, 0, -0.1) x (0, 0, F) = (0, 0.1 F, 0).
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  mjModel* m = robot.model();
  m->opt.gravity[2] = 0.0;
  const auto links = resolve_coupling(robot, {body_entry("offset_com")});
  const int qpos = m->jnt_qposadr[m->body_jntadr[links[0].body_id]];
  const int dof = m->jnt_dofadr[m->body_jntadr[links[0].body_id]];
  robot.data()->qpos[qpos + 2] = 0.1 - 0.002;  // 2 mm into the ground
  SpringGroundTier tier(tier_bodies(links), SpringGroundParams{1e4, 0.0, 0.0, 0.0, 0.0});
  CoupledSim sim(robot, links, tier, 1);
  sim.step();
  const double force = 1e4 * 0.002;
  const Wrench& w = sim.wrenches()[0];
  EXPECT_TRUE(w.f_W.isApprox(Vec3(0, 0, force), 1e-9));
  EXPECT_TRUE(w.p_W.isApprox(Vec3(3.1, 0, 0.098), 1e-9));  // the centre of mass
  EXPECT_TRUE(w.tau_W.isApprox(Vec3(0, 0.1 * force, 0), 1e-9)) << w.tau_W.transpose();
  EXPECT_TRUE(tier.contact_points_W[0].isApprox(Vec3(3.0, 0, -0.002), 1e-9));
  // MuJoCo turned the body by that torque: I_yy dw_y = tau_y dt (it started at rest).
  const double dt = robot.time_step_s();
  const double w_y = 0.1 * force * dt / 0.03;
  EXPECT_NEAR(robot.data()->qvel[dof + 4], w_y, 1e-9);
  // The free joint's linear velocity is the body origin's: the centre of mass gained F dt / m,
  // the origin 0.1 m behind it also w_y x 0.1 m upward.
  EXPECT_NEAR(robot.data()->qvel[dof + 2], force * dt / 2.0 + 0.1 * w_y, 1e-9);
}

TEST(RobotCoupledSim, SubstepsHoldTheWrenchOverTheTierStep) {
  // One tier step of n MuJoCo steps h: velocity gains dt a, position dt v + (n+1)/(2n) dt^2 a
  // (semi-implicit Euler with a held force), the formula explicit_coupling_stable rests on.
  const int n = 5;
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  robot.model()->opt.gravity[2] = 0.0;
  robot.data()->qpos[2] = kBallRadius - 0.01;  // 1 cm deep
  robot.data()->qvel[2] = -0.2;
  const auto links = resolve_coupling(robot, {body_entry("ball")});
  SpringGroundTier tier(tier_bodies(links), SpringGroundParams{1e4, 0.0, 0.0, 0.0, 0.0});
  CoupledSim sim(robot, links, tier, n);
  EXPECT_NEAR(sim.tier_time_step_s(), n * 0.001, 1e-15);
  sim.step();
  EXPECT_EQ(tier.steps, 1);
  EXPECT_NEAR(robot.time_s(), n * 0.001, 1e-12);
  const double dt = n * 0.001;
  const double a = 1e4 * 0.01 / kBallMass;
  EXPECT_NEAR(robot.data()->qvel[2], -0.2 + dt * a, 1e-12);
  const double beta = (n + 1.0) / (2.0 * n);
  EXPECT_NEAR(robot.data()->qpos[2], kBallRadius - 0.01 - 0.2 * dt + beta * dt * dt * a, 1e-12);
  EXPECT_DOUBLE_EQ(robot.data()->xfrc_applied[6 * links[0].body_id + 2], 1e4 * 0.01);
}

// Releases the ball at rest touching the spring ground and runs `seconds`; returns the final speed
// and the final distance from the static rest height.
struct SettleResult {
  double speed;
  double offset_m;
};
SettleResult release_on_spring(double stiffness, double zeta, double dt_tier, int substeps,
                               double seconds) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  robot.set_time_step_s(dt_tier / substeps);
  robot.data()->qpos[2] = kBallRadius;
  const auto links = resolve_coupling(robot, {body_entry("ball")});
  const double damping = 2.0 * zeta * std::sqrt(stiffness * kBallMass);
  SpringGroundTier tier(tier_bodies(links), SpringGroundParams{stiffness, damping, 0.0, 0.0, 0.0});
  CoupledSim sim(robot, links, tier, substeps);
  const int steps = static_cast<int>(std::lround(seconds / dt_tier));
  for (int i = 0; i < steps; ++i) sim.step();
  const double rest_z = kBallRadius + kBallMass * robot.model()->opt.gravity[2] / stiffness;
  return {first_free_joint_velocity(robot).norm(), std::abs(robot.data()->qpos[2] - rest_z)};
}

TEST(RobotCoupledSim, StabilityLimitOfTheExplicitCouplingOneStep) {
  // k = 1e5 N/m, m = 10 kg: omega = 100 rad/s; zeta = 0.1: dt_max = 2 (sqrt(1.01) - 0.1) / 100.
  const double k = 1e5, zeta = 0.1;
  const double dt_max = explicit_coupling_dt_max_s(k, kBallMass, zeta);
  EXPECT_NEAR(dt_max, 0.0180998, 1e-6);
  EXPECT_TRUE(explicit_coupling_stable(k, kBallMass, zeta, 0.98 * dt_max, 1));
  EXPECT_FALSE(explicit_coupling_stable(k, kBallMass, zeta, 1.02 * dt_max, 1));
  // Below the limit the ball settles at its static depth m g / k (about 1 mm)...
  const SettleResult below = release_on_spring(k, zeta, 0.8 * dt_max, 1, 3.0);
  EXPECT_LT(below.speed, 1e-4);
  EXPECT_LT(below.offset_m, 1e-6);
  // ...above it the coupling pumps energy in: it never settles.
  const SettleResult above = release_on_spring(k, zeta, 1.25 * dt_max, 1, 3.0);
  EXPECT_GT(above.speed + above.offset_m, 0.05);
}

TEST(RobotCoupledSim, HeldWrenchOverSubstepsNeedsDamping) {
  // omega dt = 0.5: stable with one MuJoCo step per tier step even at low damping; with 4 steps
  // per tier step the held force needs 2 zeta > omega dt (n - 1) / (2 n) = 0.1875.
  const double k = 1e5;
  const double dt = 0.005;
  EXPECT_TRUE(explicit_coupling_stable(k, kBallMass, 0.02, dt, 1));
  EXPECT_FALSE(explicit_coupling_stable(k, kBallMass, 0.02, dt, 4));
  EXPECT_TRUE(explicit_coupling_stable(k, kBallMass, 0.3, dt, 4));
  EXPECT_LT(release_on_spring(k, 0.02, dt, 1, 2.0).offset_m, 1e-4);
  const SettleResult low = release_on_spring(k, 0.02, dt, 4, 2.0);
  EXPECT_GT(low.speed + low.offset_m, 0.05);
  const SettleResult damped = release_on_spring(k, 0.3, dt, 4, 2.0);
  EXPECT_LT(damped.speed, 1e-4);
  EXPECT_LT(damped.offset_m, 1e-6);
}

TEST(RobotCoupledSim, RefusesATierBuiltForOtherBodies) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  const auto links = resolve_coupling(robot, {body_entry("ball"), body_entry("brick")});
  SpringGroundTier one(tier_bodies({links[0]}), SpringGroundParams{});
  EXPECT_TRUE(contains(robot_error_of([&] { CoupledSim(robot, links, one); }),
                       "the tier was built with 1 bodies, the coupling has 2 links"));
  SpringGroundTier swapped(tier_bodies({links[1], links[0]}), SpringGroundParams{});
  EXPECT_TRUE(contains(robot_error_of([&] { CoupledSim(robot, links, swapped); }),
                       "tier body 0 is 'brick' but coupled link 0 is 'ball'"));
  SpringGroundTier both(tier_bodies(links), SpringGroundParams{});
  EXPECT_TRUE(contains(robot_error_of([&] { CoupledSim(robot, links, both, 0); }), ">= 1"));
}

}  // namespace
}  // namespace talus::robot
