#include "core/driver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace talus {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

// Tolerance on |R^T R - I| and |det R - 1| for a pose to count as rigid.
constexpr double kRotationTol = 1e-9;

void require_rigid(const std::string& what, const Pose& X) {
  const Mat3 R = X.linear();
  if (!X.matrix().allFinite()) {
    throw std::invalid_argument(fmt::format("{} must be finite", what));
  }
  const double orthogonality = (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff();
  const double det = R.determinant();
  if (orthogonality > kRotationTol || std::abs(det - 1.0) > kRotationTol) {
    throw std::invalid_argument(fmt::format(
        "{} rotation must be proper orthonormal (|R^T R - I| and |det R - 1| <= {}), got "
        "|R^T R - I| = {} and det R = {}",
        what, kRotationTol, orthogonality, det));
  }
}

// Rotation taking R_from to R_to about a world-fixed axis, R_to = exp(angle [axis]) R_from, with
// angle in [0, pi]: the shorter way, which is what quaternion slerp interpolates.
struct WorldRotation {
  Vec3 axis_W = Vec3::UnitZ();  // unit
  double angle_rad = 0.0;
};

WorldRotation rotation_between(const Mat3& R_from, const Mat3& R_to) {
  Quat q(R_to * R_from.transpose());
  q.normalize();
  if (q.w() < 0.0) q.coeffs() = -q.coeffs();  // the same rotation, with angle <= pi
  const double s = q.vec().norm();
  WorldRotation r;
  if (s > 0.0) {
    r.axis_W = q.vec() / s;
    r.angle_rad = 2.0 * std::atan2(s, q.w());
  }
  return r;
}

// Index k of the segment [times[k], times[k+1]) holding t, or -1 before the first waypoint and
// the last index from the last waypoint on.
std::ptrdiff_t segment_of(const std::vector<double>& times, double t) {
  const auto after = std::upper_bound(times.begin(), times.end(), t);
  return (after - times.begin()) - 1;
}

Pose constant_pose(const ConstantTwistDriver& c, double t) {
  Pose X = c.X_WB0;
  X.translation() = c.X_WB0.translation() + c.V_WB.v_WBo * t;
  const double w = c.V_WB.w_W.norm();
  if (w > 0.0) {
    X.linear() = Eigen::AngleAxisd(w * t, c.V_WB.w_W / w).toRotationMatrix() * c.X_WB0.linear();
  }
  return X;
}

Pose waypoint_pose(const WaypointDriver& wp, double t) {
  const std::ptrdiff_t k = segment_of(wp.times_s, t);
  if (k < 0) return wp.poses.front();
  if (k + 1 >= static_cast<std::ptrdiff_t>(wp.times_s.size())) return wp.poses.back();
  const auto i = static_cast<std::size_t>(k);
  const double s = (t - wp.times_s[i]) / (wp.times_s[i + 1] - wp.times_s[i]);
  const Pose& X0 = wp.poses[i];
  const Pose& X1 = wp.poses[i + 1];
  const WorldRotation rot = rotation_between(X0.linear(), X1.linear());
  Pose X = Pose::Identity();
  X.translation() = X0.translation() + s * (X1.translation() - X0.translation());
  X.linear() = Eigen::AngleAxisd(s * rot.angle_rad, rot.axis_W).toRotationMatrix() * X0.linear();
  return X;
}

Twist waypoint_twist(const WaypointDriver& wp, double t) {
  const std::ptrdiff_t k = segment_of(wp.times_s, t);
  if (k < 0 || k + 1 >= static_cast<std::ptrdiff_t>(wp.times_s.size())) return Twist{};
  const auto i = static_cast<std::size_t>(k);
  const double dt = wp.times_s[i + 1] - wp.times_s[i];
  const Pose& X0 = wp.poses[i];
  const Pose& X1 = wp.poses[i + 1];
  const WorldRotation rot = rotation_between(X0.linear(), X1.linear());
  Twist V;
  V.v_WBo = (X1.translation() - X0.translation()) / dt;
  V.w_W = rot.axis_W * (rot.angle_rad / dt);
  return V;
}

void validate_constant(const ConstantTwistDriver& c) {
  require_rigid("constant_twist.X_WB0", c.X_WB0);
  if (!c.V_WB.w_W.allFinite() || !c.V_WB.v_WBo.allFinite()) {
    throw std::invalid_argument(fmt::format(
        "constant_twist.V_WB must be finite, got w_W = ({}, {}, {}) rad/s and v_WBo = ({}, {}, {}) "
        "m/s",
        c.V_WB.w_W.x(), c.V_WB.w_W.y(), c.V_WB.w_W.z(), c.V_WB.v_WBo.x(), c.V_WB.v_WBo.y(),
        c.V_WB.v_WBo.z()));
  }
}

void validate_waypoints(const WaypointDriver& wp) {
  if (wp.times_s.size() != wp.poses.size()) {
    throw std::invalid_argument(
        fmt::format("waypoints: times_s has {} entries but poses has {}; they must match",
                    wp.times_s.size(), wp.poses.size()));
  }
  if (wp.times_s.size() < 2) {
    throw std::invalid_argument(
        fmt::format("waypoints: need at least 2 waypoints, got {}", wp.times_s.size()));
  }
  for (std::size_t i = 0; i < wp.times_s.size(); ++i) {
    if (!std::isfinite(wp.times_s[i])) {
      throw std::invalid_argument(
          fmt::format("waypoint {}: time must be finite, got {} s", i, wp.times_s[i]));
    }
    if (i > 0 && !(wp.times_s[i] > wp.times_s[i - 1])) {
      throw std::invalid_argument(
          fmt::format("waypoint {}: time {} s is not after waypoint {}'s {} s", i, wp.times_s[i],
                      i - 1, wp.times_s[i - 1]));
    }
    require_rigid(fmt::format("waypoint {}: pose", i), wp.poses[i]);
  }
}

}  // namespace

void validate(const Driver& driver) {
  std::visit(Overloaded{[](const ConstantTwistDriver& c) { validate_constant(c); },
                        [](const WaypointDriver& wp) { validate_waypoints(wp); }},
             driver);
}

Pose pose_at(const Driver& driver, double t_s) {
  return std::visit(
      Overloaded{[t_s](const ConstantTwistDriver& c) { return constant_pose(c, t_s); },
                 [t_s](const WaypointDriver& wp) { return waypoint_pose(wp, t_s); }},
      driver);
}

Twist twist_at(const Driver& driver, double t_s) {
  return std::visit(Overloaded{[](const ConstantTwistDriver& c) { return c.V_WB; },
                               [t_s](const WaypointDriver& wp) { return waypoint_twist(wp, t_s); }},
                    driver);
}

double max_speed_m_per_s(const Driver& driver) {
  return std::visit(
      Overloaded{[](const ConstantTwistDriver& d) { return d.V_WB.v_WBo.norm(); },
                 [](const WaypointDriver& wp) {
                   double fastest = 0.0;
                   for (std::size_t k = 1; k < wp.times_s.size(); ++k) {
                     const Vec3 step = wp.poses[k].translation() - wp.poses[k - 1].translation();
                     fastest = std::max(fastest, step.norm() / (wp.times_s[k] - wp.times_s[k - 1]));
                   }
                   return fastest;
                 }},
      driver);
}

double end_time_s(const Driver& driver) {
  return std::visit(
      Overloaded{[](const ConstantTwistDriver&) { return std::numeric_limits<double>::infinity(); },
                 [](const WaypointDriver& wp) {
                   if (wp.times_s.empty()) {
                     throw std::invalid_argument("waypoints: times_s is empty");
                   }
                   return wp.times_s.back();
                 }},
      driver);
}

BodyMotion step_motion(const Driver& driver, double t_s, double dt_s) {
  const Pose start = pose_at(driver, t_s), end = pose_at(driver, t_s + dt_s);
  BodyMotion m;
  m.X_WB = start;
  m.V_WB.v_WBo = (end.translation() - start.translation()) / dt_s;
  const Eigen::AngleAxisd turn(end.linear() * start.linear().transpose());
  m.V_WB.w_W = turn.axis() * (turn.angle() / dt_s);
  return m;
}

}  // namespace talus
