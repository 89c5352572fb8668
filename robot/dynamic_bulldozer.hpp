#pragma once
// Bulldozing-v0's "dynamic" vehicle (issue 18): the bulldozer as a MuJoCo body that drives on its
// wheels (robots/bulldozer/bulldozer_dynamic.xml: a free body on six driven wheels standing in
// for its tracks, on a floor plane) and feels the particles: each particle step, the particles'
// wrench on the bulldozer's signed-distance body is applied to the MuJoCo body (xfrc_applied at
// its centre of mass) for the MuJoCo step that follows, the explicit staggered coupling of
// robot/coupled_sim.hpp. Paper 001's bulldozer is kinematic (particles/bulldozing_env_batch.hpp's
// KinematicBulldozer); this one slows down, turns and is pushed back by what it pushes.

#include <string>
#include <vector>

#include "particles/bulldozing_env_batch.hpp"
#include "robot/coupling.hpp"
#include "robot/mujoco_model.hpp"

namespace talus::robot {

class DynamicBulldozer final : public particles::BulldozerVehicle {
 public:
  /// Loads world.options.vehicle_mjcf_path (RobotError naming the file: a missing body
  /// "bulldozer" with a free joint, or no "left_*" / "right_*" velocity actuators) and sets its
  /// time step to the particles'.
  explicit DynamicBulldozer(const particles::BulldozingWorld& world);

  /// At rest, wheels on the floor.
  void place(double x_m, double y_m, double yaw_rad) override;
  /// Sets the wheels' target speeds for a skid-steered vehicle: left, right = (v -+ w b) / r with
  /// v = forward x max_speed, w = yaw x max_yaw_rate, b the half distance between the wheel rows
  /// and r the wheel radius. Returns the body's pose and twist now.
  BodyMotion drive(double forward, double yaw, double dt_s) override;
  /// Applies the particles' wrench and takes one MuJoCo step; the body stops at the arena's walls
  /// (its centre stays a bounding radius inside them, its velocity into a wall zeroed).
  std::string advance(const Wrench& on_body, double dt_s) override;
  Pose pose() const override;
  Vec3 planar_pose() const override;

  MujocoModel& robot() { return robot_; }
  /// The bulldozer body's MuJoCo id.
  int body_id() const { return chassis_.body_id; }

 private:
  const particles::BulldozingOptions& options_;
  MujocoModel robot_;
  CoupledLink chassis_;  // frame S = B, for link_motion
  int root_qpos_ = 0, root_dof_ = 0;
  std::vector<int> left_, right_;  // actuator ids
  double wheel_radius_m_ = 0.0, half_track_m_ = 0.0;
  double x_lim_m_ = 0.0, y_lim_m_ = 0.0;
};

/// The factory BulldozingEnvBatch takes for options.vehicle = "dynamic".
particles::VehicleFactory dynamic_bulldozer_factory();

}  // namespace talus::robot
