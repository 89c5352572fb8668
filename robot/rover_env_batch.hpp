#pragma once
// RoverSlope-v0's episodes (paper 002 §4.3, Fig. 11) stepped in C++: N copies of a robots-tier
// scenario on SCM soil (by default scenarios/robots/rover_slope_env.toml: the four-wheel rover
// before a 15 degree slope of dry sand), each driven by its agent's wheel speeds, stepped in one
// call on threads with Gymnasium's next-step autoreset (talus.envs.make_vec). Each environment owns
// its robot, soil and coupled simulation; an episode starts from a snapshot of the scenario's first
// state, turned by a seeded heading offset. The single environment is a batch of one.

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/splitmix.hpp"
#include "robot/coupled_sim.hpp"
#include "robot/drive_telemetry.hpp"
#include "robot/robot_run.hpp"

namespace talus::robot {

/// RoverSlope-v0's options.
struct RoverEnvOptions {
  std::filesystem::path scenario;  ///< a robots-tier scenario on SCM soil with a [report]
  double control_period_s = 0.1;  ///< simulated time per env step [s], a whole number of tier steps
  double max_wheel_speed_rad_per_s = 3.0;  ///< wheel speed at action = +-1, > 0
  double episode_s = 20.0;                 ///< then truncated [s], > 0
  double goal_x_m = 4.0;  ///< terminated (success) when the chassis reaches this x [m]
  /// Reward = forward progress [m] - energy_weight x wheel energy [J] per step, >= 0.
  double energy_weight = 1e-3;
  double max_heading_offset_rad = 0.1;  ///< each reset turns the rover by a uniform offset, >= 0
  double max_tilt_rad = 1.0;  ///< terminated (a fall) when roll or pitch exceeds this, in (0, pi)
};

/// Throws std::invalid_argument naming the option.
void validate(const RoverEnvOptions& options);

/// The observation of one environment, float32, kObservationSize values:
///   0-2   chassis position x, y, z [m]          3-5   roll, pitch, yaw [rad]
///   6-8   chassis velocity (world) [m/s]       9-11  angular velocity (world) [rad/s]
///   12-15 wheel slip per wheel (1 - v / (omega r), 0 while |omega r| < 1 cm/s)
///   16-19 wheel sinkage per wheel [m]          20-23 wheel joint speeds [rad/s]
inline constexpr int kRoverObservationSize = 24;

/// One environment of a batch.
struct RoverEnvSlot {
  std::unique_ptr<RobotsScenario> scenario;
  std::unique_ptr<CoupledSim> sim;
  std::unique_ptr<DriveRecorder> drive;
  SplitMix64 rng;
  int steps = 0;
  double episode_return = 0.0;
  double energy_J = 0.0;    ///< wheel energy of the last step [J]
  double progress_m = 0.0;  ///< chassis x gained in the last step [m]
  bool ended = false;
  bool reached_goal = false;
  bool left_map = false;    ///< a link came within 2 cm of the soil map's edge (terminated)
  std::string stop_reason;  ///< why the simulation cut the episode short (empty otherwise)
};

class RoverEnvBatch {
 public:
  /// Loads the scenario num_envs times (ScenarioError naming the file, line and key; RobotError
  /// for its model); std::invalid_argument for bad options or a scenario not on SCM soil.
  RoverEnvBatch(const RoverEnvOptions& options, int num_envs);
  ~RoverEnvBatch();

  void reset(std::span<const std::uint64_t> seeds, float* observations);
  void redraw(int i, float* observations);
  /// One env step: actions[4 i .. 4 i + 3] = the four wheel speeds in [-1, 1] (front left, front
  /// right, rear left, rear right, as the scenario's [report] wheel joints). Checked first
  /// (std::invalid_argument naming the environment; nothing moves then). Terminated when the
  /// chassis reaches goal_x_m, tips over max_tilt_rad or a link comes within 2 cm of the soil
  /// map's edge (left_map); truncated after episode_s, or when the coupled simulation fails (a
  /// non-finite state: stop_reason).
  void step(std::span<const double> actions, float* observations, double* rewards,
            std::uint8_t* terminated, std::uint8_t* truncated, int threads);

  int num_envs() const { return static_cast<int>(slots_.size()); }
  int max_steps() const { return max_steps_; }
  const RoverEnvOptions& options() const { return options_; }
  const RoverEnvSlot& slot(int i) const { return slots_.at(static_cast<std::size_t>(i)); }
  /// Environment i seen from the side (the x-z plane through the chassis): segments (x0, z0, x1,
  /// z1) [m] of each wheel's rim (24-gon) and a spoke that turns with it, and of the chassis
  /// origin to each wheel centre.
  std::vector<std::array<double, 4>> side_view(int i) const;
  /// The undisturbed surface height z [m] at (x, y) of environment i's terrain.
  double surface_z(int i, double x_m, double y_m) const;
  /// The slope's start and angle are the scenario's; x of the chassis at the episode's start.
  double start_x_m() const { return start_x_m_; }

 private:
  void start_episode(RoverEnvSlot& s) const;
  void step_one(RoverEnvSlot& s, std::span<const double> speeds, double& reward,
                std::uint8_t& terminated, std::uint8_t& truncated) const;
  void observe(RoverEnvSlot& s, float* out) const;
  bool links_on_map(const RoverEnvSlot& s) const;

  RoverEnvOptions options_;
  int tier_steps_per_action_ = 1;
  int max_steps_ = 1;
  double start_x_m_ = 0.0;
  std::vector<int> wheel_actuators_;  ///< MuJoCo actuator ids in action order
  std::vector<int> wheel_dofs_;       ///< their joints' dof addresses
  std::vector<CoupledLink> wheels_;   ///< the [report] wheel links (the same in every slot)
  int chassis_body_ = -1;
  std::vector<RoverEnvSlot> slots_;
  std::vector<std::unique_ptr<CoupledSim::Snapshot>> starts_;
};

}  // namespace talus::robot
