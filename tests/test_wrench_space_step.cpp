// The wrench-space contact step (paper 000, §III-C, eq. 2) on a planar MuJoCo foot with synthetic
// wrench sets: contact detection, static friction, sliding along the boundary of W, W rotated on
// slopes, a dropped foot coming to rest, clamping counted, and bad QPs reported with step and feet.

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/wrench_step_fixtures.hpp"
#include "wrench/wrench_contact_step.hpp"
#include "wrench/wrench_database.hpp"
#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {
namespace {

using testing::BoxWrenchSet;
using testing::friction_box;
using testing::load_foot_model;

constexpr double kMass = 7.357;
constexpr double kG = 9.81;

WrenchStepModel foot_model(TerrainProfile terrain = TerrainProfile::plane(0.0)) {
  WrenchStepModel model;
  model.feet.push_back(FootSpec{"foot", "bottom", Eigen::Matrix3d::Zero()});
  model.terrain = std::move(terrain);
  return model;
}

Eigen::Vector3d qvel(const robot::MujocoModel& robot) {
  return Eigen::Map<const Eigen::Vector3d>(robot.data()->qvel);
}
Eigen::Vector3d qpos(const robot::MujocoModel& robot) {
  return Eigen::Map<const Eigen::Vector3d>(robot.data()->qpos);
}

TEST(WrenchSpaceStep, ContactDetectionGivesDepthAndTiltOnASlope) {
  // Foot upright with its bottom centre 1 cm below a slope of 0.2 rad through the origin.
  auto robot = load_foot_model("detect", -0.01);
  const BoxWrenchSet box = friction_box();
  const double slope = 0.2;
  WrenchContactStep step(robot, box, foot_model(TerrainProfile::plane(slope)));
  step.step();
  const FootContact& foot = step.state().feet[0];
  EXPECT_TRUE(foot.in_contact);
  // Distance from (0, -0.01) to the line z = tan(a) x is -0.01 cos(a); the upright axis makes
  // the angle +a with the normal, towards +x_c.
  EXPECT_NEAR(foot.depth_m, -0.01 * std::cos(slope), 1e-12);
  EXPECT_NEAR(foot.tilt_rad, slope, 1e-12);
  EXPECT_NEAR(foot.slope_rad, slope, 1e-12);
  EXPECT_FALSE(foot.clamped);
  EXPECT_NEAR(foot.p_WR.y(), -0.01 + 0.25, 1e-12);
}

TEST(WrenchSpaceStep, AFootAboveTheSurfaceFallsFreely) {
  auto robot = load_foot_model("free", 0.5);
  const BoxWrenchSet box = friction_box();
  WrenchContactStep step(robot, box, foot_model());
  for (int i = 0; i < 100; ++i) step.step();
  EXPECT_FALSE(step.state().feet[0].in_contact);
  EXPECT_NEAR(qvel(robot)[1], -kG * 0.1, 1e-9);  // semi-implicit Euler: v = -g t exactly
  EXPECT_EQ(step.state().contact_queries, 0);
}

TEST(WrenchSpaceStep, WeightInsideWStaysStillStaticFriction) {
  auto robot = load_foot_model("static", -0.01);
  const BoxWrenchSet box = friction_box();
  WrenchStepModel model = foot_model();
  // The grains' inertia changes the objective, not the feasible rest state.
  model.feet[0].granular_inertia = Eigen::Vector3d(14.714, 14.714, 0.122).asDiagonal();
  WrenchContactStep step(robot, box, model);
  const Eigen::Vector3d q0 = qpos(robot);
  for (int i = 0; i < 500; ++i) step.step();
  EXPECT_LT(qvel(robot).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((qpos(robot) - q0).cwiseAbs().maxCoeff(), 1e-9);
  const Eigen::Vector3d w = planar_components(step.state().feet[0].wrench);
  EXPECT_NEAR(w[0], 0.0, 1e-7);
  EXPECT_NEAR(w[1], kMass * kG, 1e-7);  // the weight, carried by the medium
  EXPECT_NEAR(w[2], 0.0, 1e-7);         // p_r is the centre of mass: no torque needed
}

TEST(WrenchSpaceStep, PushedPastTheBoundarySlidesAlongIt) {
  auto robot = load_foot_model("slide", -0.01);
  const BoxWrenchSet box = friction_box();
  WrenchContactStep step(robot, box, foot_model());
  const int body = robot.body_id("foot");
  const double push = 80.0;  // N along +x at the centre of mass, beyond the 50 N the set holds
  const int steps = 300;
  for (int i = 0; i < steps; ++i) {
    robot.data()->xfrc_applied[6 * body + 0] = push;
    step.step();
    const Eigen::Vector3d w = planar_components(step.state().feet[0].wrench);
    ASSERT_NEAR(w[0], -50.0, 1e-7) << "step " << i;  // on the facet f_x = -50 of the box
    ASSERT_NEAR(w[1], kMass * kG, 1e-7) << "step " << i;
  }
  const double h = step.time_step_s();
  EXPECT_NEAR(qvel(robot)[0], steps * h * (push - 50.0) / kMass, 1e-9);
  EXPECT_LT(std::abs(qvel(robot)[1]), 1e-9);
  EXPECT_LT(std::abs(qvel(robot)[2]), 1e-9);
  // Below the limit it holds.
  auto robot2 = load_foot_model("hold", -0.01);
  WrenchContactStep hold(robot2, box, foot_model());
  for (int i = 0; i < steps; ++i) {
    robot2.data()->xfrc_applied[6 * body + 0] = 45.0;
    hold.step();
  }
  EXPECT_LT(qvel(robot2).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_NEAR(planar_components(hold.state().feet[0].wrench)[0], -45.0, 1e-7);
}

TEST(WrenchSpaceStep, WIsRotatedIntoTheWorldOnSlopes) {
  const double slope = 0.3;  // tangential load m g sin(0.3) = 21.3 N
  const BoxWrenchSet strong = friction_box();
  const BoxWrenchSet weak(Eigen::Vector3d(-10, -20, -10), Eigen::Vector3d(10, 200, 10));
  {
    auto robot = load_foot_model("slope_hold", -0.01);
    WrenchContactStep step(robot, strong, foot_model(TerrainProfile::plane(slope)));
    for (int i = 0; i < 300; ++i) step.step();
    EXPECT_LT(qvel(robot).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_NEAR(planar_components(step.state().feet[0].wrench)[1], kMass * kG, 1e-7);
  }
  auto robot = load_foot_model("slope_slide", -0.01);
  WrenchContactStep step(robot, weak, foot_model(TerrainProfile::plane(slope)));
  const int steps = 200;
  for (int i = 0; i < steps; ++i) step.step();
  // Slides down the slope (along -x_c) with (m g sin a - 10 N) / m; nothing normal to it.
  const Eigen::Vector2d v(qvel(robot)[0], qvel(robot)[1]);
  const Eigen::Vector2d x_c(std::cos(slope), std::sin(slope));
  const double a = (kMass * kG * std::sin(slope) - 10.0) / kMass;
  EXPECT_NEAR(v.dot(x_c), -steps * step.time_step_s() * a, 1e-9);
  EXPECT_NEAR(v.dot(Eigen::Vector2d(-x_c.y(), x_c.x())), 0.0, 1e-9);
  // In the contact frame the wrench is on the facet f_x = +10 N (resisting the slide).
  const Eigen::Vector3d w_C =
      planar_wrench_rotation(slope).transpose() * planar_components(step.state().feet[0].wrench);
  EXPECT_NEAR(w_C[0], 10.0, 1e-7);
}

TEST(WrenchSpaceStep, ATiltedFootDroppedIntoTheMediumComesToRest) {
  // W grows with depth (the box at 2 cm): the foot sinks until W holds its weight, the tilt stays
  // (p_r is the centre of mass, so the weight needs no torque), and every QP meets its KKT
  // conditions; warm starts keep the active-set changes per step small.
  const BoxWrenchSet box(Eigen::Vector3d(-40, -10, -6), Eigen::Vector3d(40, 150, 6), 0.02);
  auto robot = load_foot_model("drop", 0.05, 0.15);
  WrenchContactStep step(robot, box, foot_model());
  int contact_steps = 0;
  long iterations = 0;
  for (int i = 0; i < 1500; ++i) {
    step.step();
    contact_steps += step.state().feet[0].in_contact;
    iterations += step.state().last_qp_iterations;
  }
  EXPECT_GT(contact_steps, 1000);
  EXPECT_LT(qvel(robot).cwiseAbs().maxCoeff(), 1e-6);
  const FootContact& foot = step.state().feet[0];
  // At rest f_z = m g on the depth-scaled box: 150 N (-d / 0.02 m) >= m g.
  EXPECT_NEAR(planar_components(foot.wrench)[1], kMass * kG, 1e-6);
  EXPECT_LE(foot.depth_m, -0.02 * kMass * kG / 150.0 + 1e-9);
  EXPECT_NEAR(foot.tilt_rad, 0.15, 1e-3);
  EXPECT_LT(step.state().worst_stationarity, 1e-9);
  EXPECT_LT(static_cast<double>(iterations) / contact_steps, 1.0);
  // W's hull mostly comes from the previous step's triangles, not from qhull.
  EXPECT_GT(step.state().hull_reuses, 10 * step.state().hull_runs);
}

TEST(WrenchSpaceStep, RepeatedRunsAreBitIdentical) {
  const BoxWrenchSet box(Eigen::Vector3d(-40, -10, -6), Eigen::Vector3d(40, 150, 6), 0.02);
  std::vector<double> final_q[2];
  for (int run = 0; run < 2; ++run) {
    auto robot = load_foot_model("repeat" + std::to_string(run), 0.02, 0.3);
    WrenchContactStep step(robot, box, foot_model(TerrainProfile::plane(0.1)));
    for (int i = 0; i < 800; ++i) step.step();
    final_q[run].assign(robot.data()->qpos, robot.data()->qpos + robot.model()->nq);
    final_q[run].insert(final_q[run].end(), robot.data()->qvel,
                        robot.data()->qvel + robot.model()->nv);
  }
  EXPECT_EQ(final_q[0], final_q[1]);  // exact: same inputs, same bits
}

TEST(WrenchSpaceStep, ThetaOutsideTheSampledRangeIsClampedAndCounted) {
  // Bottom 13 cm deep, tilted 1.2 rad: depth range [-0.1, 0], tilt range [-1, 1] (and within
  // the default 5 cm allowed beyond the data).
  auto robot = load_foot_model("clamp", -0.13, 1.2);
  const BoxWrenchSet box = friction_box();
  WrenchContactStep step(robot, box, foot_model());
  step.step();
  const FootContact& foot = step.state().feet[0];
  EXPECT_TRUE(foot.clamped);
  // The measured configuration is kept; the predictor got the clamped one.
  EXPECT_NEAR(foot.depth_m, -0.13, 1e-12);
  EXPECT_NEAR(foot.tilt_rad, 1.2, 1e-12);
  EXPECT_DOUBLE_EQ(foot.theta[0], -0.1);
  EXPECT_DOUBLE_EQ(foot.theta[1], 1.0);
  EXPECT_EQ(step.state().contact_queries, 1);
  EXPECT_EQ(step.state().clamped_queries, 1);
}

TEST(WrenchSpaceStep, AFootSinkingFarBeyondTheDataStopsTheStepNamingItsDepth) {
  // 16 cm deep: 6 cm beyond the data's deepest 10 cm, more than half their 10 cm span.
  auto robot = load_foot_model("beyond", -0.16);
  const BoxWrenchSet box = friction_box();
  WrenchContactStep step(robot, box, foot_model());
  try {
    step.step();
    FAIL() << "expected a WrenchStepError";
  } catch (const WrenchStepError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("step 0"), std::string::npos) << what;
    EXPECT_NE(what.find("foot 'foot' is -0.16 m deep"), std::string::npos) << what;
    EXPECT_NE(what.find("deepest -0.1 m"), std::string::npos) << what;
    EXPECT_NE(what.find("depth_beyond_data_m"), std::string::npos) << what;
  }
  // Allowed further on purpose: clamped and counted instead.
  auto allowed = load_foot_model("beyond_allowed", -0.16);
  WrenchStepModel model = foot_model();
  model.depth_beyond_data_m = 0.1;
  WrenchContactStep lenient(allowed, box, model);
  EXPECT_NO_THROW(lenient.step());
  EXPECT_EQ(lenient.state().clamped_queries, 1);
}

// The box, its depths measured at the lowest point of a foot of radius 4 cm.
class LowestPointBox : public BoxWrenchSet {
 public:
  LowestPointBox() : BoxWrenchSet(Eigen::Vector3d(-50, -20, -10), Eigen::Vector3d(50, 200, 10)) {}
  double configuration_depth(double bottom_centre_depth_m, double tilt_rad) const override {
    return wrench::configuration_depth(DepthReference::kLowestPoint, 0.04, bottom_centre_depth_m,
                                       tilt_rad);
  }
};

TEST(WrenchSpaceStep, AFootOnItsSideTouchesWithItsRimWhileItsBottomCentreIsAboveTheSurface) {
  // On its side (tilt pi/2), the bottom centre 2 cm above the ground: the rim is 2 cm in it.
  auto robot = load_foot_model("side", 0.02, M_PI / 2);
  const LowestPointBox lowest;
  WrenchContactStep step(robot, lowest, foot_model());
  step.step();
  const FootContact& foot = step.state().feet[0];
  EXPECT_TRUE(foot.in_contact);
  EXPECT_NEAR(foot.depth_m, 0.02, 1e-9);
  EXPECT_NEAR(foot.configuration_depth_m, -0.02, 1e-9);
  EXPECT_NEAR(foot.theta[0], -0.02, 1e-9);
  // Data measured at the bottom centre (the paper's) see no contact there.
  auto robot2 = load_foot_model("side_centre", 0.02, M_PI / 2);
  const BoxWrenchSet centre = friction_box();
  WrenchContactStep step2(robot2, centre, foot_model());
  step2.step();
  EXPECT_FALSE(step2.state().feet[0].in_contact);
}

// W with no point at all in half-space form: x <= -1 and -x <= -1.
class EmptyWrenchSet : public BoxWrenchSet {
 public:
  EmptyWrenchSet() : BoxWrenchSet(Eigen::Vector3d(-1, -1, -1), Eigen::Vector3d(1, 1, 1)) {}
  HalfSpaces tracked_feasible_set(const Eigen::Vector2d&, HullTracker&) const override {
    HalfSpaces W;
    W.dimension = 3;
    W.affine_dimension = 3;
    W.A = Eigen::MatrixXd(2, 3);
    W.A << 1, 0, 0, -1, 0, 0;
    W.b = Eigen::Vector2d(-1, -1);
    W.A_eq.resize(0, 3);
    W.b_eq.resize(0);
    return W;
  }
};

TEST(WrenchSpaceStep, InfeasibleQpIsReportedWithStepAndFeet) {
  auto robot = load_foot_model("infeasible", 0.005);
  const EmptyWrenchSet empty;
  WrenchStepModel model = foot_model();
  model.feet[0].name = "left_foot";
  WrenchContactStep step(robot, empty, model);
  // Falls 5 mm first (no contact, no QP), then the first contact step must fail loudly.
  try {
    for (int i = 0; i < 1000; ++i) step.step();
    FAIL() << "no error";
  } catch (const WrenchStepError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("contact QP infeasible"), std::string::npos) << message;
    EXPECT_NE(message.find("'left_foot'"), std::string::npos) << message;
    EXPECT_NE(message.find("step " + std::to_string(step.state().step) + " "), std::string::npos)
        << message;
    EXPECT_GT(step.state().step, 0);
  }
}

TEST(WrenchSpaceStep, RankDeficientContactsAreReportedAsIllPosed) {
  // Two feet on the same site: their Jacobians repeat, H = J M^-1 J^T is singular.
  auto robot = load_foot_model("illposed", -0.01);
  const BoxWrenchSet box = friction_box();
  WrenchStepModel model = foot_model();
  model.feet.push_back(FootSpec{"twin", "bottom", Eigen::Matrix3d::Zero()});
  WrenchContactStep step(robot, box, model);
  try {
    step.step();
    FAIL() << "no error";
  } catch (const WrenchStepError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("step 0 "), std::string::npos) << message;
    EXPECT_NE(message.find("ill-posed"), std::string::npos) << message;
    EXPECT_NE(message.find("'foot'"), std::string::npos) << message;
    EXPECT_NE(message.find("'twin'"), std::string::npos) << message;
  }
}

TEST(WrenchSpaceStep, RefusesWhatItWouldIgnore) {
  auto robot = load_foot_model("refuse", 0.0);
  const BoxWrenchSet box = friction_box();
  WrenchStepModel model = foot_model();
  model.feet[0].site = "toe";
  EXPECT_THROW(
      {
        try {
          WrenchContactStep step(robot, box, model);
        } catch (const WrenchStepError& e) {
          EXPECT_NE(std::string(e.what()).find("no site 'toe'"), std::string::npos) << e.what();
          throw;
        }
      },
      WrenchStepError);
  robot.model()->jnt_limited[2] = 1;
  EXPECT_THROW(WrenchContactStep(robot, box, foot_model()), WrenchStepError);
}

TEST(TerrainProfile, ClosestPointsOnAProfile) {
  // Flat, then up at 45 degrees, then flat: a heightmap profile.
  const TerrainProfile profile({{-1.0, 0.0}, {0.0, 0.0}, {1.0, 1.0}, {2.0, 1.0}});
  EXPECT_DOUBLE_EQ(profile.height_at(-5.0), 0.0);
  EXPECT_DOUBLE_EQ(profile.height_at(0.5), 0.5);
  EXPECT_DOUBLE_EQ(profile.height_at(3.0), 1.0);
  const SurfacePoint below = profile.closest_point({0.5, 0.3});
  EXPECT_NEAR(below.signed_distance_m, -0.2 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(below.slope_rad, M_PI / 4, 1e-12);
  const SurfacePoint far_left = profile.closest_point({-10.0, 0.5});  // end segment is a ray
  EXPECT_NEAR(far_left.signed_distance_m, 0.5, 1e-12);
  EXPECT_NEAR(far_left.p_WC.x(), -10.0, 1e-12);
  EXPECT_THROW(TerrainProfile({{0.0, 0.0}}), TerrainError);
  try {
    TerrainProfile({{0.0, 0.0}, {0.0, 1.0}}, "f.toml: terrain.points");
    FAIL();
  } catch (const TerrainError& e) {
    EXPECT_NE(std::string(e.what()).find("f.toml: terrain.points: point 1"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace talus::wrench

namespace talus::wrench {
namespace {

TEST(WrenchSpaceQuadruped, ThirteenBodiesTwelveLegJointsStandingOnFourFeet) {
  auto robot = robot::MujocoModel::load(TALUS_SOURCE_DIR "/robots/quadruped/quadruped.xml");
  const mjModel* m = robot.model();
  EXPECT_EQ(m->nbody, 14);  // world + torso + 4 x (thigh, shin, foot)
  int leg_hinges = 0;
  for (int j = 0; j < m->njnt; ++j) {
    leg_hinges += m->jnt_type[j] == mjJNT_HINGE && m->jnt_bodyid[j] != robot.body_id("torso");
  }
  EXPECT_EQ(leg_hinges, 12);
  EXPECT_EQ(m->nu, 12);
  // W grows with depth (the box at 2 cm); the servos hold the legs straight.
  const BoxWrenchSet box(Eigen::Vector3d(-100, -20, -10), Eigen::Vector3d(100, 300, 10), 0.02);
  WrenchStepModel model;
  for (const char* leg : {"fl", "fr", "hl", "hr"}) {
    model.feet.push_back(FootSpec{leg, std::string(leg) + "_bottom", Eigen::Matrix3d::Zero()});
  }
  WrenchContactStep step(robot, box, model);
  for (int i = 0; i < 2000; ++i) step.step();
  double f_z = 0.0;
  for (const FootContact& foot : step.state().feet) {
    EXPECT_TRUE(foot.in_contact);
    f_z += planar_components(foot.wrench)[1];
  }
  // Nearly at rest after 2 s (the servos still ring at the mm/s level): the feet carry the weight.
  EXPECT_NEAR(f_z, robot.total_mass_kg() * kG, 1e-3 * robot.total_mass_kg() * kG);
  EXPECT_LT(Eigen::Map<const Eigen::VectorXd>(robot.data()->qvel, m->nv).cwiseAbs().maxCoeff(),
            1e-2);
  EXPECT_LT(step.state().worst_stationarity, 1e-9);
}

}  // namespace
}  // namespace talus::wrench
