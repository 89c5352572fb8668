#pragma once
// Drivers: a body's pose X_WB(t) and twist V_WB(t) given as functions of time (ARCHITECTURE.md,
// principle 3). The twist is always the analytic derivative of the pose law, never a finite
// difference of poses (GranularGym's finite-difference body velocities are what we avoid).
//
// Twists follow core/pose.hpp: w_W is the angular velocity expressed in W, v_WBo the velocity of
// B's origin. Time is in seconds, lengths in metres, angles in radians.

#include <variant>
#include <vector>

#include "core/contact_tier.hpp"
#include "core/pose.hpp"

namespace talus {

/// Constant spatial velocity from an initial pose: B's origin moves at V_WB.v_WBo and B turns at
/// V_WB.w_W about its own origin,
///   p_WB(t) = p_WB0 + v_WBo t,   R_WB(t) = exp([w_W] t) R_WB0   (w_W fixed in the world frame),
/// for any t, negative included.
struct ConstantTwistDriver {
  Pose X_WB0 = Pose::Identity();  ///< pose at t = 0
  Twist V_WB;                     ///< constant twist [rad/s, m/s]
};

/// Piecewise motion through waypoints: on [times_s[k], times_s[k+1]) the position moves linearly
/// and the rotation by spherical linear interpolation (the shorter way, world-fixed axis) from
/// poses[k] to poses[k+1]. The pose is held before the first waypoint and after the last.
struct WaypointDriver {
  std::vector<double> times_s;  ///< strictly increasing waypoint times [s], at least 2
  std::vector<Pose> poses;      ///< pose of B in W at each time, same count as times_s
};

using Driver = std::variant<ConstantTwistDriver, WaypointDriver>;

/// Throws std::invalid_argument naming the offending field or waypoint: non-finite values, a
/// rotation that is not proper orthonormal (to 1e-9), fewer than 2 waypoints, counts that differ,
/// or a time not after its predecessor ("waypoint 3: time 1 s is not after waypoint 2's 1 s").
void validate(const Driver& driver);

/// Pose X_WB of the body at time t_s [s]. Assumes validate() passed.
Pose pose_at(const Driver& driver, double t_s);

/// Twist V_WB at time t_s [s], the exact time derivative of pose_at. For waypoints it is constant
/// on each segment and right-continuous: at a waypoint time it is the outgoing segment's twist;
/// zero before the first waypoint and from the last one on. Assumes validate() passed.
Twist twist_at(const Driver& driver, double t_s);

/// The largest speed of B's origin at any time [m/s]: |v_WBo| of a constant twist, the fastest
/// segment of waypoints (each moves at a constant velocity). Assumes validate() passed.
double max_speed_m_per_s(const Driver& driver);

/// Time [s] after which the driver's pose no longer changes: the last waypoint time, or +infinity
/// for a constant twist.
double end_time_s(const Driver& driver);

/// The motion a tier is handed for the step [t_s, t_s + dt_s] of a kinematically driven body:
/// the pose at t_s and the constant twist that carries it to the pose at t_s + dt_s (the step's
/// secant: translation over dt, the rotation between the two poses as a rotation vector over dt).
/// A tier that acts at the end of the step (SCM, shaping: advanced(X, V, dt)) then meets the
/// driver's own end pose, to rounding; for a driver of constant twist it is twist_at.
BodyMotion step_motion(const Driver& driver, double t_s, double dt_s);

}  // namespace talus
