#pragma once
// QuadrupedGranular-v0's episodes (paper 000 §IV-C3-4) stepped in C++: N copies of the planar
// quadruped (robots/quadruped/quadruped.xml: torso and four legs of hip, knee and ankle in the
// x-z plane) on the wrench-space contact step over a granular medium's database (pebbles or
// sand), each driven by its agent's joint position targets, stepped in one call on threads with
// Gymnasium's next-step autoreset. The wrench-space model (the database's interpolants) is loaded
// once and shared read-only; each environment owns its robot and step state. An episode starts
// from the model's initial state with its leg joints moved by seeded offsets.

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/splitmix.hpp"
#include "robot/mujoco_model.hpp"
#include "wrench/wrench_contact_step.hpp"
#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {

/// QuadrupedGranular-v0's options; defaults are those of scenarios/wrench/quadruped.toml.
struct QuadrupedEnvOptions {
  std::filesystem::path model;     ///< the planar quadruped's MJCF (required)
  std::filesystem::path database;  ///< the medium's wrench database, HDF5 (required)
  std::vector<std::string> feet{"fl_bottom", "fr_bottom", "hl_bottom", "hr_bottom"};
  std::string body = "torso";
  double mass_scale = 0.25;                           ///< every body's mass times this
  Eigen::Vector3d granular_inertia{0.5, 0.5, 0.005};  ///< M_g per foot [kg, kg, kg m^2]
  double control_period_s = 0.01;         ///< simulated time per env step, whole MuJoCo steps [s]
  double max_joint_target_rad = 0.5;      ///< joint target at action = +-1 [rad], > 0
  double episode_s = 10.0;                ///< then truncated [s]
  double effort_weight = 1e-4;            ///< reward = progress [m] - this x sum(tau^2) dt
  double initial_joint_noise_rad = 0.02;  ///< each reset moves every leg joint by up to this
  double fall_pitch_rad = 0.8;            ///< terminated when |pitch| exceeds this
  double fall_height_m = 0.45;            ///< or the body's origin drops below this z [m]
};

/// Throws std::invalid_argument naming the option.
void validate(const QuadrupedEnvOptions& options);

/// Observation layout (float32): body x, z, pitch; their rates; the leg joints' positions and
/// speeds (actuator order); per foot its depth below the surface [m] (negative: in the grains).
struct QuadrupedObservationLayout {
  int joints = 0;
  int feet = 0;
  int size() const { return 6 + 2 * joints + feet; }
};

struct QuadrupedEnvSlot {
  std::unique_ptr<robot::MujocoModel> robot;
  std::unique_ptr<WrenchContactStep> step;
  std::unique_ptr<robot::MujocoModel::Snapshot> start;
  WrenchStepState start_state;
  SplitMix64 rng;
  int steps = 0;
  double episode_return = 0.0;
  double effort = 0.0;      ///< sum(tau^2) dt of the last step [N^2 m^2 s]
  double progress_m = 0.0;  ///< body x gained in the last step
  bool ended = false;
  bool fell = false;
  std::string stop_reason;
};

class QuadrupedEnvBatch {
 public:
  /// Loads the model and the database (RobotError, DatabaseError naming the file);
  /// std::invalid_argument for bad options.
  QuadrupedEnvBatch(const QuadrupedEnvOptions& options, int num_envs);
  ~QuadrupedEnvBatch();

  void reset(std::span<const std::uint64_t> seeds, float* observations);
  void redraw(int i, float* observations);
  /// One env step: actions[j i .. j i + j - 1] = joint targets in [-1, 1] for the j actuators
  /// (times max_joint_target_rad). Checked first. Terminated on a fall; truncated after
  /// episode_s or when the wrench step fails (stop_reason: an infeasible QP, a foot deeper than
  /// the data, a non-finite state).
  void step(std::span<const double> actions, float* observations, double* rewards,
            std::uint8_t* terminated, std::uint8_t* truncated, int threads);

  int num_envs() const { return static_cast<int>(slots_.size()); }
  int max_steps() const { return max_steps_; }
  const QuadrupedObservationLayout& layout() const { return layout_; }
  int actuators() const { return layout_.joints; }
  const QuadrupedEnvOptions& options() const { return options_; }
  const QuadrupedEnvSlot& slot(int i) const { return slots_.at(static_cast<std::size_t>(i)); }
  std::vector<std::string> actuator_names() const;
  /// Environment i's robot as segments (x0, z0, x1, z1) [m] in the x-z plane: every body to its
  /// parent (not the world) and every site to its body, at the current state.
  std::vector<std::array<double, 4>> stick_figure(int i) const;

 private:
  void start_episode(QuadrupedEnvSlot& s) const;
  void step_one(QuadrupedEnvSlot& s, std::span<const double> targets, double& reward,
                std::uint8_t& terminated, std::uint8_t& truncated) const;
  void observe(const QuadrupedEnvSlot& s, float* out) const;

  QuadrupedEnvOptions options_;
  std::shared_ptr<const WrenchSpaceModel> predictor_;
  QuadrupedObservationLayout layout_;
  int physics_steps_per_action_ = 1;
  int max_steps_ = 1;
  int body_ = -1;
  int dof_x_ = -1, dof_z_ = -1, dof_pitch_ = -1;  ///< the root's slide x, slide z, hinge y
  int qpos_x_ = -1, qpos_z_ = -1, qpos_pitch_ = -1;
  std::vector<int> joint_qpos_, joint_dof_;  ///< of the actuated joints
  std::vector<QuadrupedEnvSlot> slots_;
};

}  // namespace talus::wrench
