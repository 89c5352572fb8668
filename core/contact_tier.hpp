#pragma once
// The seam between a rigid-body engine (MuJoCo, robot/) and a terrain tier (soil, particles,
// wrench spaces): the engine says where each coupled body is and how it moves; the tier advances
// its own state over dt and returns the wrench the terrain exerts on each body.

#include <memory>
#include <span>
#include <stdexcept>
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
  /// Advances the terrain by dt_s [s] with the bodies at `motions` (one per body, in order: the
  /// pose and twist at the START of the step, the one timing every tier and driver shares) and
  /// writes the wrench the terrain exerts on each body, about the point its Wrench names, to
  /// `wrenches`. A velocity-level tier (particles) moves the bodies with the twist during the
  /// step; a position-level tier (SCM, shaping) answers at the pose the body reaches at the
  /// step's end, advanced(X, V, dt_s) (core/pose.hpp); the wrench-space tier predicts the
  /// step's end velocity from its last two steps.
  virtual void step(double dt_s, std::span<const BodyMotion> motions,
                    std::span<Wrench> wrenches) = 0;

  /// A copy of everything the tier's next steps read (its State), opaque to the caller: restoring
  /// it makes the tier continue bit for bit as it did from the moment of the snapshot (tree
  /// search, model-predictive control, fast environment reset). Tiers without one throw.
  class Snapshot {
   public:
    virtual ~Snapshot() = default;
  };
  virtual std::unique_ptr<Snapshot> snapshot() const {
    throw std::logic_error("this terrain tier keeps no snapshots");
  }
  /// Puts back a snapshot this tier (or one built the same way) took; throws
  /// std::invalid_argument for another tier's snapshot.
  virtual void restore(const Snapshot& /*snapshot*/) {
    throw std::logic_error("this terrain tier keeps no snapshots");
  }
};

/// A tier's snapshot holding a copy of its State.
template <class State>
class StateSnapshot final : public ContactTier::Snapshot {
 public:
  explicit StateSnapshot(State held) : state(std::move(held)) {}
  State state;
};

/// The State held by `snapshot`, which must come from a tier whose state is a `State`.
template <class State>
const State& snapshot_state(const ContactTier::Snapshot& snapshot, const char* tier) {
  const auto* held = dynamic_cast<const StateSnapshot<State>*>(&snapshot);
  if (held == nullptr) {
    throw std::invalid_argument(std::string("restore: the snapshot was not taken from a ") + tier +
                                " tier");
  }
  return held->state;
}

}  // namespace talus
