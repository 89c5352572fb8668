#pragma once
// The wrench-space tier as a coupling partner (core/contact_tier.hpp): a rigid-body engine hands
// in each foot's motion, the tier answers with the wrench the medium exerts, chosen from the
// feasible set W(theta) by the maximum-dissipation principle of paper 000 (§III-C, eq. 2) applied
// per foot. WrenchContactStep solves eq. 2 implicitly over the whole robot, with MuJoCo's mass
// matrix; this tier cannot see the robot's dynamics, so it solves eq. 2 for each foot with what
// it is told about the robot at that foot (docs/wrench_space.md §9 derives it):
//
//   A = P M^-1 P^T, the robot's inverse effective inertia at the foot's bottom centre p_center
//   (P: the Jacobian of the planar twist (v_x, v_z, omega_y) at p_center), given per foot;
//   v_free, the twist at p_center the foot would have at the end of the step without this step's
//   contact, predicted from the last two motions: v_free = v + (v - v_prev) - A Q_prev^T c_prev
//   (the last step's change of twist less the part the tier's own impulse made; exact for
//   constant applied forces and an exact A);
//   per foot in contact, with Q the planar transform from p_center to p_r:
//     minimise 1/2 c^T (Q A Q^T + Z^T M_g Z) c + (Q v_free + Z^T M_g v_free)^T c,  Z = A Q^T,
//     subject to c / h in W(theta) (world axes about p_r),
//   which is eq. 2 for one body with inverse inertia A; the wrench handed back is c / h.
//
// Stability: with A' the true inverse inertia and A = A' / r (r the ratio of the assumed to the
// true inertia, scalar for the argument), the velocity error obeys
//   e_{k+1} = 2 (1 - r) e_k - (1 - r) e_{k-1},
// stable for 0 < r < 4/3: underestimating the robot's inertia is always safe, overestimating it by
// more than a third is not. The robots tier computes A from MuJoCo at the initial configuration.
//
// Planar like the wrench sets (D = 3): the tier acts in the world x-z plane; the feet's y motion
// and their rotation about x and z are ignored, and f_y, tau_x, tau_z are zero.

#include <Eigen/Dense>
#include <memory>
#include <span>
#include <vector>

#include "core/contact_tier.hpp"
#include "wrench/contact_wrench_qp.hpp"
#include "wrench/foot_contact.hpp"
#include "wrench/hull_tracker.hpp"
#include "wrench/terrain_profile.hpp"
#include "wrench/wrench_set_predictor.hpp"

namespace talus::wrench {

/// One foot as the tier sees it.
struct WrenchTierFoot {
  /// The body as the coupling sees it (name for messages, shape for pictures). The tier reports
  /// torques about the predictor's p_r and sets p_BR to it (p_r in B).
  CoupledBody body;
  /// The foot frame F in the body frame B: origin at the foot's bottom centre p_center, z along
  /// the foot's axis (towards p_r); the frame the wrench sets were measured in.
  Pose X_BF = Pose::Identity();
  /// M_g [kg, kg, kg m^2 and products] on (v_x, v_z, omega_y) at p_center: the grains moving with
  /// the foot (as FootSpec::granular_inertia); symmetric positive semi-definite.
  Eigen::Matrix3d granular_inertia = Eigen::Matrix3d::Zero();
  /// A = P M^-1 P^T [1/kg, 1/(kg m), 1/(kg m^2)] on (v_x, v_z, omega_y) at p_center: the change
  /// of the foot's twist per unit impulse there; symmetric positive definite.
  Eigen::Matrix3d inverse_inertia = Eigen::Matrix3d::Zero();
};

/// The tier's parameters (immutable once the tier is built).
struct WrenchTierModel {
  std::vector<WrenchTierFoot> feet;
  TerrainProfile terrain = TerrainProfile::plane(0.0);
  /// How far below the data's deepest depth a foot may sink before the step stops [m]; < 0:
  /// half the data's depth span (depth_beyond_data_limit_m).
  double depth_beyond_data_m = -1.0;
};

/// Everything that changes while stepping (a snapshot copies it).
struct WrenchTierState {
  long step = 0;                            ///< steps taken
  std::vector<FootContact> feet;            ///< the last step's contacts, one per foot
  std::vector<std::vector<int>> warm_rows;  ///< per foot: active rows of its last QP
  std::vector<HullTracker> hulls;           ///< per foot: W's hull kept between steps
  std::vector<Eigen::Vector3d> last_twist;  ///< per foot: (v_x, v_z, omega_y) at p_center [m/s]
  std::vector<Eigen::Vector3d> last_contact_dv;  ///< per foot: A Q^T c of the last step
  bool has_last = false;                         ///< a step has been taken (v_prev exists)
  long contact_queries = 0;                      ///< feet in contact, summed over steps
  long clamped_queries = 0;                      ///< of those, theta clamped into the sampled range
};

class WrenchSpaceTier final : public ContactTier {
 public:
  /// Checks the model (feet, M_g symmetric PSD, A symmetric positive definite, planar predictor)
  /// and throws std::invalid_argument naming the foot otherwise. `predictor` must outlive the
  /// tier.
  WrenchSpaceTier(const WrenchSetPredictor& predictor, WrenchTierModel model);

  std::span<const CoupledBody> bodies() const override { return bodies_; }
  /// Throws WrenchStepError (foot_contact.hpp) naming the step and the foot when a foot's
  /// motion is not finite or its QP has no solution.
  void step(double dt_s, std::span<const BodyMotion> motions, std::span<Wrench> wrenches) override;
  std::unique_ptr<Snapshot> snapshot() const override;
  void restore(const Snapshot& snapshot) override;

  const WrenchTierModel& model() const { return model_; }
  const WrenchTierState& state() const { return state_; }

 private:
  Eigen::Vector3d foot_wrench(std::size_t f, double dt_s, const Eigen::Vector3d& v_free);

  const WrenchSetPredictor& predictor_;
  WrenchTierModel model_;
  double depth_beyond_data_m_;  // the allowance past the data's deepest depth [m]
  std::vector<CoupledBody> bodies_;
  WrenchTierState state_;
  ContactWrenchSolver solver_;  // workspace only
  ContactQp qp_;                // reused storage
};

}  // namespace talus::wrench
