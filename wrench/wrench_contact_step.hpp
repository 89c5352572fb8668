#pragma once
// The wrench-space contact step of paper 000 (§III-C, eq. 2) on a MuJoCo model, planar (D = 3:
// the robot moves in the world x-z plane, wrenches (f_x, f_z, tau_y)). Per step of h = MuJoCo's
// time step:
//
//   1. smooth dynamics (MuJoCo): kinematics, mass matrix M, bias and actuator forces, so the
//      velocity without contact is v_free = v + h M^-1 (tau_actuator + tau_passive - bias);
//   2. contact detection: per foot, theta = (d, phi) against the terrain profile, d of its bottom
//      centre p_center or its lowest point (as the data measure it); phi clamped to
//      [-pi/2, pi/2], theta into the sampled range (counted); in contact when d < 0; a foot
//      deeper than the data by more than WrenchStepModel::depth_beyond_data_m stops the step;
//   3. wrench-set prediction: W(theta_i) from the predictor in half-space form (each foot's hull
//      kept between steps, hull_tracker.hpp), rotated into world axes on slopes;
//   4. QP set-up: contact Jacobians at p_r, the p_center Jacobians and the granular inertia M_g
//      give eq. 2 over the contact impulses c (docs/wrench_space.md §6);
//   5. QP solve (contact_wrench_qp.hpp), warm-started with the previous step's active rows;
//   6. integration: v' = v_free + M^-1 J^T c, q advanced with v' (mj_integratePos).
//
// MuJoCo's own constraint solver is switched off (the feet's contacts are this step's); models
// with equality constraints or joint limits are refused, since they would be silently ignored.

#include <Eigen/Dense>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "robot/mujoco_model.hpp"
#include "wrench/contact_wrench_qp.hpp"
#include "wrench/foot_contact.hpp"
#include "wrench/terrain_profile.hpp"
#include "wrench/wrench_set_predictor.hpp"

namespace talus::wrench {

/// One foot: an MJCF site whose origin is the bottom centre p_center and whose z axis is the
/// foot's axis (towards p_r), with the grains' inertia M_g on (v_x, v_z, omega_y) at p_center.
struct FootSpec {
  std::string name;  ///< for messages and logs
  std::string site;  ///< MJCF site name
  /// M_g [kg, kg, kg m^2] (paper §IV-C1: diag(14.714, 14.714, 0.122), twice the foot's inertia).
  Eigen::Matrix3d granular_inertia = Eigen::Matrix3d::Zero();
};

/// The step's parameters (immutable once the step is built).
struct WrenchStepModel {
  std::vector<FootSpec> feet;
  TerrainProfile terrain = TerrainProfile::plane(0.0);
  /// How far below the data's deepest depth a foot may sink before the step stops with a
  /// WrenchStepError [m]; < 0: half the data's depth span (depth_beyond_data_limit_m).
  double depth_beyond_data_m = -1.0;
};

/// Wall-clock seconds (steady clock) spent per stage, summed over the steps taken.
struct StageSeconds {
  double mujoco = 0.0;      ///< smooth dynamics, Jacobians, M^-1 J^T, integration
  double prediction = 0.0;  ///< contact detection, W(theta): RBF prediction and qhull
  double qp_setup = 0.0;    ///< H and g of eq. 2
  double qp_solve = 0.0;    ///< the contact QP
};

/// Everything that changes while stepping.
struct WrenchStepState {
  long step = 0;                            ///< steps taken
  std::vector<FootContact> feet;            ///< this step's contacts, one per foot
  std::vector<std::vector<int>> warm_rows;  ///< per foot: active rows of its last contact
  std::vector<HullTracker> hulls;           ///< per foot: W's hull kept between steps
  long contact_queries = 0;                 ///< feet in contact, summed over steps
  long clamped_queries = 0;                 ///< of those, theta clamped into the sampled range
  int last_qp_iterations = 0;
  long hull_reuses = 0;  ///< W's hull from the previous step's triangles (maybe after edge flips)
  long hull_runs = 0;    ///< W's hull from qhull
  /// Largest QP stationarity residual over the steps [m/s, rad/s] (KKT check of every solve).
  double worst_stationarity = 0.0;
  StageSeconds seconds;
};

class WrenchContactStep {
 public:
  /// Checks the model against the robot: planar predictor (D = 3), sites that exist, no equality
  /// constraints or joint limits. Switches MuJoCo's own constraint solver and collisions off.
  /// `robot` and `predictor` must outlive the step.
  WrenchContactStep(robot::MujocoModel& robot, const WrenchSetPredictor& predictor,
                    WrenchStepModel model);

  /// Advances by MuJoCo's time step. Throws WrenchStepError when the QP is infeasible or
  /// ill-posed, or the state turns non-finite (never a silent zero).
  void step();

  const WrenchStepModel& model() const { return model_; }
  const WrenchStepState& state() const { return state_; }
  /// Puts back a state this step had (state(), copied): with the robot's MuJoCo state restored
  /// alongside (MujocoModel::restore), the step continues bit for bit from that moment. Throws
  /// std::invalid_argument for a state of another number of feet.
  void restore(const WrenchStepState& state);
  double time_step_s() const;

 private:
  void smooth_dynamics();
  FootContact foot_at(std::size_t f) const;
  void detect_contacts();
  void predict_wrench_sets();
  void assemble_qp();
  void solve_qp();
  void integrate();
  std::string contact_names(const std::vector<int>& contacts) const;

  robot::MujocoModel& robot_;
  const WrenchSetPredictor& predictor_;
  WrenchStepModel model_;
  double depth_beyond_data_m_;  // the allowance past the data's deepest depth [m]
  WrenchStepState state_;
  std::vector<int> site_ids_;
  std::vector<int> body_ids_;

  // Per-step work (sized on first use).
  using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::vector<int> contacts_;          // feet in contact this step
  std::vector<Eigen::Vector3d> p_WR_;  // per foot: p_r in world (3-D, for mj_jac)
  Eigen::VectorXd v_free_;
  RowMatrix J_;      // kD x nv: contact wrench Jacobian at p_r
  RowMatrix P_;      // kD x nv: p_center Jacobian
  RowMatrix JMinv_;  // kD x nv: J M^-1
  ContactQp qp_;
  ContactQpSolution solution_;
  ContactWrenchSolver solver_;
};

}  // namespace talus::wrench
