#pragma once
// The seam between a rigid-body engine (MuJoCo, robot/) and a terrain tier (soil, particles,
// wrench spaces): the engine says where each coupled body is and how it moves; the tier advances
// its own state over dt and returns the wrench the terrain exerts on each body.

#include <span>
#include <string>

#include "core/pose.hpp"
#include "core/shape.hpp"
#include "core/wrench.hpp"

namespace talus {

/// Where a body is and how it moves at one instant.
struct BodyMotion {
  Pose X_WB = Pose::Identity();  ///< pose of body frame B in world
  Twist V_WB;                    ///< spatial velocity of B in world, expressed in world
};

/// A body as a terrain tier sees it: a name for messages, a shape in its body frame, and the
/// point (in the body frame) about which the tier reports its torque.
struct CoupledBody {
  std::string name;
  Shape shape;
  Vec3 p_BR = Vec3::Zero();  ///< torque reference point R in body frame B [m]
};

/// A terrain tier as a coupling partner. One virtual call per step, never per node or particle.
class ContactTier {
 public:
  virtual ~ContactTier() = default;
  /// The bodies this tier was built with, in the order step() expects them.
  virtual std::span<const CoupledBody> bodies() const = 0;
  /// Advances the terrain by dt_s [s] with the bodies at `motions` (one per body, in order) and
  /// writes the wrench the terrain exerts on each body, about its reference point, to `wrenches`.
  virtual void step(double dt_s, std::span<const BodyMotion> motions,
                    std::span<Wrench> wrenches) = 0;
};

}  // namespace talus
