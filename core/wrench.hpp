#pragma once
// The one wrench type every tier returns: a force and the torque it makes about a named point,
// both expressed in the world frame W.

#include "core/pose.hpp"

namespace talus {

/// Force [N] and torque [N m] about the point p_W [m], all in world coordinates.
struct Wrench {
  Vec3 f_W = Vec3::Zero();    ///< total force [N]
  Vec3 tau_W = Vec3::Zero();  ///< total torque about p_W [N m]
  Vec3 p_W = Vec3::Zero();    ///< the point the torque is taken about [m]

  /// A zero wrench whose torque will be taken about p_W.
  static Wrench about(const Vec3& p_W) { return Wrench{Vec3::Zero(), Vec3::Zero(), p_W}; }

  /// Adds a force f_W [N] acting at the world point p_WQ [m].
  void add_force_at(const Vec3& f_Q_W, const Vec3& p_WQ) {
    f_W += f_Q_W;
    tau_W += (p_WQ - p_W).cross(f_Q_W);
  }

  /// The same wrench with its torque taken about another point p_W_new [m].
  Wrench shifted_to(const Vec3& p_W_new) const {
    return Wrench{f_W, tau_W + (p_W - p_W_new).cross(f_W), p_W_new};
  }

  /// Sum of two wrenches; the result's torque is about this wrench's point.
  Wrench operator+(const Wrench& other) const {
    const Wrench o = other.shifted_to(p_W);
    return Wrench{f_W + o.f_W, tau_W + o.tau_W, p_W};
  }
};

}  // namespace talus
