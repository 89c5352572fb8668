#pragma once
// What a driving robot reports each step (paper 002 Fig. 11): driven distance, vehicle slip
// against it, and the sinkage of each wheel. The rover scenarios write these as CSV and plots.
//
// Slip of the vehicle: s = 1 - v / (omega r), with v the chassis speed along its own x axis,
// omega the mean speed of the driven wheel joints and r the wheel radius (paper 002 §4.3 plots
// this against the driven distance). It is 0 while |omega r| < 0.01 m/s (wheels at rest: slip is
// undefined), 1 for wheels spinning in place, negative when the vehicle runs ahead of its wheels.
// Sinkage of a wheel: the undisturbed surface height under the wheel centre minus its lowest point.

#include <vector>

#include "robot/coupling.hpp"
#include "robot/mujoco_model.hpp"

namespace talus::robot {

struct DriveSample {
  double t_s = 0.0;
  double distance_m = 0.0;     ///< path length of the chassis origin since the recorder began
  double speed_m_per_s = 0.0;  ///< chassis velocity along its x axis
  double wheel_speed_rad_per_s = 0.0;  ///< mean of the driven joints' speeds
  double slip = 0.0;                   ///< 1 - v / (omega r), see above
  std::vector<double> sinkage_m;       ///< per wheel, in link order
};

class DriveRecorder {
 public:
  /// `chassis` is the body whose motion is the vehicle's; `wheels` the coupled wheel links (their
  /// shapes give the radius: cylinder, wheel or sphere); `wheel_joints` the driven hinge joints'
  /// names; `surface_z` the undisturbed terrain height. RobotError for unknown names or a wheel
  /// shape without a radius.
  DriveRecorder(const MujocoModel& robot, const std::string& chassis,
                std::vector<CoupledLink> wheels, const std::vector<std::string>& wheel_joints,
                SurfaceHeight surface_z);

  /// Samples the robot's current qpos and qvel. A MuJoCo step leaves xpos one step behind qpos, so
  /// the recorder runs mj_kinematics itself first. Accumulates the driven distance between calls.
  DriveSample sample(MujocoModel& robot);

  double wheel_radius_m() const { return radius_m_; }

 private:
  int chassis_ = -1;
  std::vector<CoupledLink> wheels_;
  std::vector<int> dofs_;
  SurfaceHeight surface_z_;
  double radius_m_ = 0.0;
  bool started_ = false;
  Vec3 last_p_ = Vec3::Zero();
  double distance_m_ = 0.0;
};

}  // namespace talus::robot
