#pragma once
// A MuJoCo robot coupled to one terrain tier (docs/robots.md). Explicit, staggered coupling: the
// tier sees the bodies at the start of a tier step, its wrenches are held over the MuJoCo steps of
// that tier step.
//
// Stability (docs/robots.md derives it): a body of mass m on a terrain of effective vertical
// stiffness k_eff and damping ratio zeta, with one MuJoCo step per tier step (semi-implicit Euler,
// force from the start of the step), is stable for
//     omega dt < 2 (sqrt(1 + zeta^2) - zeta),  omega = sqrt(k_eff / m),
// i.e. dt_max ~ 2 / omega for light damping. With n > 1 MuJoCo steps per tier step the held
// wrench also needs damping: 2 zeta > omega dt_tier (n - 1) / (2 n), and omega^2 dt_tier^2 / n +
// 4 zeta omega dt_tier < 4. `explicit_coupling_stable` evaluates both.

#include <span>
#include <vector>

#include "core/contact_tier.hpp"
#include "robot/coupling.hpp"
#include "robot/mujoco_model.hpp"

namespace talus::robot {

/// The largest stable tier step [s] for one MuJoCo step per tier step: 2 (sqrt(1 + zeta^2) - zeta)
/// / omega with omega = sqrt(k_eff / m) [rad/s] (k_eff [N/m], m [kg], zeta [-] >= 0).
double explicit_coupling_dt_max_s(double stiffness_n_per_m, double mass_kg, double damping_ratio);

/// True when the linear test problem (mass on a spring-damper, force held over n MuJoCo steps of
/// dt_tier / n) is asymptotically stable: the eigenvalues of its step map lie inside the unit
/// circle.
bool explicit_coupling_stable(double stiffness_n_per_m, double mass_kg, double damping_ratio,
                              double dt_tier_s, int mujoco_steps_per_tier_step);

/// A robot, its coupled links and the tier they touch. Holds references: the robot and the tier
/// must outlive it.
class CoupledSim {
 public:
  /// `links` must be the links the tier was built with (tier.bodies() has the same names in the
  /// same order; RobotError otherwise). Each tier step is `mujoco_steps_per_tier_step` (>= 1)
  /// MuJoCo steps of the model's time step.
  CoupledSim(MujocoModel& robot, std::vector<CoupledLink> links, ContactTier& tier,
             int mujoco_steps_per_tier_step = 1);

  /// One tier step: read the links' motions from MuJoCo, step the tier, apply its wrenches to the
  /// bodies (xfrc_applied at each body's centre of mass), advance MuJoCo by n steps. Throws
  /// std::runtime_error naming the step's start time and the quantity when the tier's wrench on a
  /// link is not finite, or when MuJoCo found the robot's acceleration NaN, infinite or huge (it
  /// then resets the robot to its start, so the state after that throw is not the step's).
  void step();

  /// Tier step [s] = n x MuJoCo's time step.
  double tier_time_step_s() const;
  int mujoco_steps_per_tier_step() const { return substeps_; }
  double time_s() const { return robot_.time_s(); }

  const std::vector<CoupledLink>& links() const { return links_; }
  /// The motions of the links' frames S handed to the tier at the last step.
  std::span<const BodyMotion> motions() const { return motions_; }
  /// The wrench on each link at the last step, about its body's centre of mass (as applied).
  std::span<const Wrench> wrenches() const { return applied_; }

  MujocoModel& robot() { return robot_; }
  ContactTier& tier() { return tier_; }

  /// The robot's and the tier's states and the last step's motions and wrenches: restore()
  /// makes the coupled simulation continue bit for bit from the moment of the snapshot.
  struct Snapshot {
    MujocoModel::Snapshot robot;
    std::unique_ptr<ContactTier::Snapshot> tier;
    std::vector<BodyMotion> motions;
    std::vector<Wrench> tier_wrenches, applied;
  };
  Snapshot snapshot() const;
  void restore(const Snapshot& snapshot);

 private:
  void read_motions();
  void apply_wrenches();
  void check_tier_wrenches(double t_start_s) const;

  MujocoModel& robot_;
  std::vector<CoupledLink> links_;
  ContactTier& tier_;
  int substeps_;
  std::vector<BodyMotion> motions_;
  std::vector<Wrench> tier_wrenches_;  // as the tier returned them (about its reference point)
  std::vector<Wrench> applied_;        // shifted to the body's centre of mass
};

/// The motion of link frame S at the robot's current kinematics and velocities (needs xpos, xquat
/// and cvel current, e.g. after mj_forward or mj_step1): X_WS, and the twist of S in world with
/// the velocity of S's origin.
BodyMotion link_motion(const MujocoModel& robot, const CoupledLink& link);

}  // namespace talus::robot
