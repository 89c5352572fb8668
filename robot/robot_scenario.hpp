#pragma once
// The [robot] table of a scenario: a MuJoCo model file, the coupling table and a wheel-speed
// schedule (docs/robots.md lists the keys). A tier's scenario loader (SCM, particles) reads its own
// terrain and calls read_robot_scenario for the robot; then
//   tier  = SomeTier(terrain, tier_bodies(robot.links));
//   check_initial_placement(robot.model, robot.links, surface height of the terrain);
//   CoupledSim sim(robot.model, robot.links, tier, robot.mujoco_steps_per_tier_step);
//   loop: robot.drive.apply(robot.model); sim.step();

#include <optional>
#include <vector>

#include "core/scenario_file.hpp"
#include "robot/coupling.hpp"
#include "robot/mujoco_model.hpp"

namespace talus::robot {

/// Wheels at rest for settle_s, then their speed ramps linearly over ramp_s to speed_rad_per_s
/// (the velocity actuators' control is the target joint speed).
struct WheelSpeedSchedule {
  std::vector<int> actuator_ids;  ///< MuJoCo actuators driven (velocity servos)
  double settle_s = 0.0;          ///< [s] at zero speed first, >= 0
  double ramp_s = 0.0;            ///< [s] of linear ramp, >= 0
  double speed_rad_per_s = 0.0;   ///< target wheel speed [rad/s]

  /// Target speed [rad/s] at time t [s].
  double speed_at(double t_s) const;
  /// Writes speed_at(robot time) to the driven actuators' controls.
  void apply(MujocoModel& robot) const;
};

struct RobotScenario {
  MujocoModel model;  ///< loaded, with the scenario's time step and initial position applied
  std::vector<CoupledLink> links;
  int mujoco_steps_per_tier_step = 1;
  WheelSpeedSchedule drive;  ///< no actuators when the table has no [robot.drive]
};

/// Reads a [robot] table, with MuJoCo's step from `simulation` (read_mujoco_time_step):
///   model = "path"                       (MJCF or URDF, relative to the scenario file)
///   mujoco_steps_per_tier_step = 1       (optional, 1 .. 1000)
///   position_m = [x, y, z]               (optional: the root free joint's initial position)
///   pitch_deg = 0                        (optional: the root free joint's initial tilt about
///                                         world y, applied before yaw)
///   yaw_deg = 0                          (optional: the root free joint's initial heading)
///   [[robot.coupling]] body = "..." | geom = "..."  with optional [robot.coupling.shape]
///                      (read_shape's keys), offset_m = [x, y, z], rpy_deg = [r, p, y] (frame of
///                      an explicit shape in the body; only with a shape)
///   [robot.drive] settle_s, speed_rad_per_s, optional ramp_s, optional actuators = ["..."]
///                 (default: every actuator)
/// Errors are ScenarioErrors naming file, line and key, with MuJoCo's message or the list of
/// names that exist where a name is wrong. [robot] time_step_s is refused, naming
/// [simulation] time_step_s.
RobotScenario read_robot_scenario(const ScenarioTable& table, const ScenarioTable& simulation);

/// [simulation] time_step_s (optional, in (0, 0.1) s): MuJoCo's step of `model`; without it the
/// model keeps its own.
void read_mujoco_time_step(const ScenarioTable& simulation, MujocoModel& model);

}  // namespace talus::robot
