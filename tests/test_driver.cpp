#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "core/driver.hpp"
#include "core/units.hpp"
#include "error_message.hpp"

namespace talus {
namespace {

using talus::test_support::invalid_argument_of;

// Largest elementwise difference, by plain loops: Eigen's vectorised reductions over 4x4 matrices
// trip a GCC 12 -Wuninitialized false positive under -march=native with AVX-512.
template <class A, class B>
double max_abs_diff(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
  double m = 0.0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < a.cols(); ++j) m = std::max(m, std::abs(a(i, j) - b(i, j)));
  }
  return m;
}

double pose_diff(const Pose& a, const Pose& b) {
  return std::max(max_abs_diff(a.linear(), b.linear()),
                  max_abs_diff(a.translation(), b.translation()));
}

// Twist by central differences of the pose, taken here in the test: v from the origin's positions,
// w from the small rotation S = R(t + h) R(t - h)^T, whose skew part (S - S^T) / 2 is
// [sin(angle) axis]x, turned into an angle-axis vector over 2h.
Twist finite_difference_twist(const Driver& driver, double t, double h) {
  const Pose X_minus = pose_at(driver, t - h);
  const Pose X_plus = pose_at(driver, t + h);
  const Mat3 S = X_plus.linear() * X_minus.linear().transpose();
  const Vec3 sin_axis = 0.5 * Vec3(S(2, 1) - S(1, 2), S(0, 2) - S(2, 0), S(1, 0) - S(0, 1));
  const double sin_angle = sin_axis.norm();
  Twist V;
  V.v_WBo = (X_plus.translation() - X_minus.translation()) / (2 * h);
  if (sin_angle > 0.0) V.w_W = sin_axis * (std::asin(sin_angle) / sin_angle) / (2 * h);
  return V;
}

ConstantTwistDriver spinning_driver() {
  ConstantTwistDriver c;
  c.X_WB0 = make_pose(Vec3(1, 2, 3), 0.1, 0.2, 0.3);
  c.V_WB.v_WBo = Vec3(0.5, -1.0, 0.2);
  c.V_WB.w_W = Vec3(0.3, -0.4, 2.0);
  return c;
}

WaypointDriver three_waypoints() {
  WaypointDriver wp;
  wp.times_s = {1.0, 3.0, 3.5};
  wp.poses = {make_pose(Vec3(0, 0, 0)), make_pose(Vec3(2, 4, 0), 0.0, 0.0, kPi / 2),
              make_pose(Vec3(2, 4, 1), 0.4, -0.3, 2.0)};
  return wp;
}

// ------------------------------------------------------------------------------------ constant

TEST(DriverConstantTwist, PoseFollowsTheClosedForm) {
  const ConstantTwistDriver c = spinning_driver();
  const double t = 0.7;
  const Pose X = pose_at(c, t);
  EXPECT_TRUE(X.translation().isApprox(Vec3(1, 2, 3) + t * c.V_WB.v_WBo, 1e-14));
  const Mat3 R_expected =
      Eigen::AngleAxisd(c.V_WB.w_W.norm() * t, c.V_WB.w_W.normalized()).toRotationMatrix() *
      c.X_WB0.linear();
  EXPECT_LT(max_abs_diff(X.linear(), R_expected), 1e-14);
  EXPECT_LT(pose_diff(pose_at(c, 0.0), c.X_WB0), 1e-15);
  // A body spinning about world z half a turn ends upside round: x_B goes to -x_B's start.
  ConstantTwistDriver spin;
  spin.V_WB.w_W = Vec3(0, 0, kPi);
  EXPECT_LT(max_abs_diff(pose_at(spin, 1.0).linear().col(0), -Vec3::UnitX()), 1e-14);
}

TEST(DriverConstantTwist, TwistMatchesAFiniteDifference) {
  const Driver c = spinning_driver();
  for (double t : {-1.0, 0.0, 0.37, 5.0}) {
    const Twist V = twist_at(c, t);
    const Twist fd = finite_difference_twist(c, t, 1e-5);
    EXPECT_TRUE(V.v_WBo.isApprox(fd.v_WBo, 1e-8)) << t;
    EXPECT_LT((V.w_W - fd.w_W).norm(), 1e-8) << t;
  }
}

TEST(DriverConstantTwist, RotatesAboutTheBodyOrigin) {
  // The origin moves only with v_WBo; a material point off the origin also turns about it, with
  // the velocity Twist::velocity_of_point gives.
  const Driver c = spinning_driver();
  const Vec3 p_BQ(0.4, -0.2, 0.1);
  const double t = 1.3;
  const double h = 1e-5;
  const Pose X = pose_at(c, t);
  EXPECT_TRUE(X.translation().isApprox(Vec3(1, 2, 3) + t * Vec3(0.5, -1.0, 0.2), 1e-14));
  const Vec3 v_fd = (pose_at(c, t + h) * p_BQ - pose_at(c, t - h) * p_BQ) / (2 * h);
  const Vec3 v = twist_at(c, t).velocity_of_point(X, X * p_BQ);
  EXPECT_LT((v - v_fd).norm(), 1e-8);
}

// ------------------------------------------------------------------------------------ waypoints

TEST(DriverWaypoint, InterpolatesPositionLinearlyAndRotationBySlerp) {
  const Driver wp = three_waypoints();
  const Pose mid = pose_at(wp, 2.0);  // halfway from yaw 0 to yaw 90 deg
  EXPECT_TRUE(mid.translation().isApprox(Vec3(1, 2, 0), 1e-14));
  EXPECT_LT(max_abs_diff(mid.linear(), make_pose(Vec3::Zero(), 0, 0, kPi / 4).linear()), 1e-14);
  // Against Eigen's quaternion slerp on the general segment.
  const WaypointDriver& w = std::get<WaypointDriver>(wp);
  const double s = 0.3;
  const Pose X = pose_at(wp, 3.0 + s * 0.5);
  const Quat q0(w.poses[1].linear());
  const Quat q1(w.poses[2].linear());
  EXPECT_LT(max_abs_diff(X.linear(), q0.slerp(s, q1).toRotationMatrix()), 1e-12);
  EXPECT_TRUE(X.translation().isApprox(
      (1 - s) * w.poses[1].translation() + s * w.poses[2].translation(), 1e-14));
  // Waypoints themselves are reached exactly.
  EXPECT_LT(pose_diff(pose_at(wp, 3.0), w.poses[1]), 1e-14);
}

TEST(DriverWaypoint, TwistIsTheExactDerivativeAndConstantOnASegment) {
  const Driver wp = three_waypoints();
  for (double t : {1.2, 2.5, 3.1, 3.4}) {
    const Twist V = twist_at(wp, t);
    const Twist fd = finite_difference_twist(wp, t, 1e-5);
    EXPECT_LT((V.v_WBo - fd.v_WBo).norm(), 1e-8) << t;
    EXPECT_LT((V.w_W - fd.w_W).norm(), 1e-8) << t;
  }
  EXPECT_TRUE(twist_at(wp, 1.2).w_W.isApprox(twist_at(wp, 2.9).w_W, 1e-14));
  EXPECT_TRUE(twist_at(wp, 1.2).v_WBo.isApprox(Vec3(1, 2, 0), 1e-14));
  EXPECT_TRUE(twist_at(wp, 1.2).w_W.isApprox(Vec3(0, 0, kPi / 4), 1e-14));
}

TEST(DriverWaypoint, TurnsTheShorterWay) {
  // Yaw 0 to yaw 270 deg is the same as -90 deg: the motion goes the 90 deg way.
  WaypointDriver wp;
  wp.times_s = {0.0, 2.0};
  wp.poses = {make_pose(Vec3::Zero()), make_pose(Vec3::Zero(), 0, 0, 1.5 * kPi)};
  EXPECT_LT(
      max_abs_diff(pose_at(wp, 1.0).linear(), make_pose(Vec3::Zero(), 0, 0, -kPi / 4).linear()),
      1e-14);
  EXPECT_TRUE(twist_at(wp, 1.0).w_W.isApprox(Vec3(0, 0, -kPi / 4), 1e-14));
}

TEST(DriverWaypoint, HoldsBeforeTheFirstAndAfterTheLastWaypoint) {
  const Driver wp = three_waypoints();
  const WaypointDriver& w = std::get<WaypointDriver>(wp);
  EXPECT_LT(pose_diff(pose_at(wp, -5.0), w.poses.front()), 1e-15);
  EXPECT_LT(pose_diff(pose_at(wp, 0.999), w.poses.front()), 1e-15);
  EXPECT_LT(pose_diff(pose_at(wp, 3.5), w.poses.back()), 1e-15);
  EXPECT_LT(pose_diff(pose_at(wp, 100.0), w.poses.back()), 1e-15);
  for (double t : {-5.0, 0.999, 3.5, 100.0}) {
    EXPECT_EQ(twist_at(wp, t).w_W, Vec3::Zero()) << t;
    EXPECT_EQ(twist_at(wp, t).v_WBo, Vec3::Zero()) << t;
  }
  // Right-continuous: at the first waypoint time the first segment's twist applies.
  EXPECT_TRUE(twist_at(wp, 1.0).v_WBo.isApprox(Vec3(1, 2, 0), 1e-14));
  EXPECT_TRUE(twist_at(wp, 3.0).v_WBo.isApprox(Vec3(0, 0, 2), 1e-14));
}

TEST(DriverEndTime, LastWaypointOrInfinity) {
  EXPECT_EQ(end_time_s(three_waypoints()), 3.5);
  EXPECT_EQ(end_time_s(spinning_driver()), std::numeric_limits<double>::infinity());
}

// ------------------------------------------------------------------------------------ validation

TEST(DriverValidate, MessagesNameTheWaypointAndTheTimes) {
  EXPECT_NO_THROW(validate(three_waypoints()));
  EXPECT_NO_THROW(validate(spinning_driver()));

  WaypointDriver wp = three_waypoints();
  wp.times_s = {0.0, 0.5, 1.0, 1.0};
  wp.poses.push_back(make_pose(Vec3::Zero()));
  EXPECT_EQ(invalid_argument_of([&] { validate(wp); }),
            "waypoint 3: time 1 s is not after waypoint 2's 1 s");
  wp.times_s = {0.0, 0.5, 0.25, 1.0};
  EXPECT_EQ(invalid_argument_of([&] { validate(wp); }),
            "waypoint 2: time 0.25 s is not after waypoint 1's 0.5 s");
  wp.times_s = {0.0, std::nan(""), 0.25, 1.0};
  EXPECT_EQ(invalid_argument_of([&] { validate(wp); }),
            "waypoint 1: time must be finite, got nan s");

  WaypointDriver mismatch = three_waypoints();
  mismatch.poses.pop_back();
  EXPECT_EQ(invalid_argument_of([&] { validate(mismatch); }),
            "waypoints: times_s has 3 entries but poses has 2; they must match");
  WaypointDriver single;
  single.times_s = {0.0};
  single.poses = {Pose::Identity()};
  EXPECT_EQ(invalid_argument_of([&] { validate(single); }),
            "waypoints: need at least 2 waypoints, got 1");

  WaypointDriver scaled = three_waypoints();
  scaled.poses[1].linear() *= 1.01;
  EXPECT_EQ(invalid_argument_of([&] {
              validate(scaled);
            }).rfind("waypoint 1: pose rotation must be proper orthonormal", 0),
            0u);
  WaypointDriver mirrored = three_waypoints();
  mirrored.poses[2].linear().col(0) *= -1.0;
  EXPECT_NE(invalid_argument_of([&] { validate(mirrored); }).find("det R = -1"), std::string::npos);

  ConstantTwistDriver c = spinning_driver();
  c.V_WB.v_WBo.x() = std::numeric_limits<double>::infinity();
  EXPECT_EQ(
      invalid_argument_of([&] { validate(c); }).rfind("constant_twist.V_WB must be finite", 0), 0u);
  ConstantTwistDriver nan_pose = spinning_driver();
  nan_pose.X_WB0.translation().y() = std::nan("");
  EXPECT_EQ(invalid_argument_of([&] { validate(nan_pose); }),
            "constant_twist.X_WB0 must be finite");
}

}  // namespace
}  // namespace talus

namespace talus {
namespace {

// ------------------------------------------------------------------ one step's motion (issue 15)

TEST(StepMotion, AdvancedFollowsAConstantTwistDriverExactly) {
  const ConstantTwistDriver c = spinning_driver();
  const Pose X = advanced(pose_at(c, 0.7), c.V_WB, 0.05);
  EXPECT_LT(pose_diff(X, pose_at(c, 0.75)), 1e-14);
}

TEST(StepMotion, AdvancedWithoutTurningKeepsTheOrientationBitForBit) {
  const Pose X0 = make_pose(Vec3(1, 2, 3), 0.1, 0.2, 0.3);
  Twist V;
  V.v_WBo = Vec3(0.5, 0.0, -0.25);
  const Pose X = advanced(X0, V, 0.01);
  EXPECT_EQ(max_abs_diff(X.linear(), X0.linear()), 0.0);
  EXPECT_EQ(X.translation().x(), 1.0 + 0.5 * 0.01);
  EXPECT_EQ(X.translation().z(), 3.0 - 0.25 * 0.01);
  EXPECT_EQ(pose_diff(advanced(X0, Twist{}, 0.01), X0), 0.0);
}

TEST(StepMotion, TheStepsSecantCarriesTheStartPoseToTheEndPose) {
  // Across the waypoint at t = 3 the driver's twist changes within the step: the secant twist
  // still lands on the driver's end pose, the twist at the start would not.
  const Driver wp = three_waypoints();
  for (const double t : {1.2, 2.99, 3.2}) {
    const BodyMotion m = step_motion(wp, t, 0.02);
    EXPECT_LT(pose_diff(m.X_WB, pose_at(wp, t)), 1e-15) << t;
    EXPECT_LT(pose_diff(advanced(m.X_WB, m.V_WB, 0.02), pose_at(wp, t + 0.02)), 1e-12) << t;
  }
  const BodyMotion across = step_motion(wp, 2.99, 0.02);
  EXPECT_GT(pose_diff(advanced(across.X_WB, twist_at(wp, 2.99), 0.02), pose_at(wp, 3.01)), 1e-3);
  // A constant twist is its own secant.
  const Driver spin = spinning_driver();
  const BodyMotion m = step_motion(spin, 0.3, 0.01);
  EXPECT_LT(max_abs_diff(m.V_WB.w_W, twist_at(spin, 0.3).w_W), 1e-9);
  EXPECT_LT(max_abs_diff(m.V_WB.v_WBo, twist_at(spin, 0.3).v_WBo), 1e-12);
}

}  // namespace
}  // namespace talus
