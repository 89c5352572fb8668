#pragma once
// Poses and twists in Drake's monogram notation: X_WB is the pose of body frame B in world W
// (p_WB its translation, R_WB its rotation); V_WB the spatial velocity of B in W, expressed in W,
// with the linear part being the velocity of B's origin.

#include <Eigen/Geometry>

namespace talus {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;
using Pose = Eigen::Isometry3d;

/// Spatial velocity of a body frame B in world W, expressed in W.
struct Twist {
  Vec3 w_W = Vec3::Zero();    ///< angular velocity [rad/s]
  Vec3 v_WBo = Vec3::Zero();  ///< velocity of B's origin [m/s]

  /// Velocity [m/s] of the material point of B that is at world position p_WQ.
  Vec3 velocity_of_point(const Pose& X_WB, const Vec3& p_WQ) const {
    return v_WBo + w_W.cross(p_WQ - X_WB.translation());
  }
};

/// A pose from a translation [m] and roll-pitch-yaw angles [rad] (extrinsic X, then Y, then Z,
/// as R = Rz(yaw) * Ry(pitch) * Rx(roll)).
inline Pose make_pose(const Vec3& p_WB, double roll = 0.0, double pitch = 0.0, double yaw = 0.0) {
  Pose X = Pose::Identity();
  X.linear() = (Eigen::AngleAxisd(yaw, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
                Eigen::AngleAxisd(roll, Vec3::UnitX()))
                   .toRotationMatrix();
  X.translation() = p_WB;
  return X;
}

/// The pose B reaches from X_WB moving with the constant twist V_WB for dt_s [s]: its origin
/// advanced by v dt, its orientation turned by the rotation vector w dt (world axes). Exact for a
/// twist constant in world axes over the step; unchanged parts stay bit for bit (no rotation when
/// w = 0).
inline Pose advanced(const Pose& X_WB, const Twist& V_WB, double dt_s) {
  Pose X = X_WB;
  X.translation() = X_WB.translation() + V_WB.v_WBo * dt_s;
  const double angle = V_WB.w_W.norm() * dt_s;
  if (angle != 0.0) {
    X.linear() = Eigen::AngleAxisd(angle, V_WB.w_W.normalized()).toRotationMatrix() * X_WB.linear();
  }
  return X;
}

}  // namespace talus
