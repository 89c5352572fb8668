#include "robot/drive_telemetry.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <variant>

namespace talus::robot {

namespace {

double radius_of(const Shape& shape) {
  if (const auto* c = std::get_if<CylinderShape>(&shape)) return c->radius_m;
  if (const auto* w = std::get_if<WheelShape>(&shape)) return w->radius_m;
  if (const auto* s = std::get_if<SphereShape>(&shape)) return s->radius_m;
  return 0.0;
}

}  // namespace

DriveRecorder::DriveRecorder(const MujocoModel& robot, const std::string& chassis,
                             std::vector<CoupledLink> wheels,
                             const std::vector<std::string>& wheel_joints, SurfaceHeight surface_z)
    : chassis_(robot.body_id(chassis)),
      wheels_(std::move(wheels)),
      surface_z_(std::move(surface_z)) {
  const mjModel* m = robot.model();
  // The vehicle's body translates: a free joint (the rover) or slides (a single-wheel rig's
  // carriage), never a hinge or ball (a wheel is no vehicle body).
  bool translates = m->body_jntnum[chassis_] >= 1;
  for (int k = 0; k < m->body_jntnum[chassis_]; ++k) {
    const int type = m->jnt_type[m->body_jntadr[chassis_] + k];
    translates = translates && (type == mjJNT_FREE || type == mjJNT_SLIDE);
  }
  if (!translates) {
    throw RobotError(
        fmt::format("{}: body '{}' has no free joint or slide joints; the vehicle's "
                    "body must translate",
                    robot.file().string(), chassis));
  }
  if (wheels_.empty()) throw RobotError(robot.file().string() + ": no wheels to record");
  for (const CoupledLink& w : wheels_) {
    const double r = radius_of(w.shape);
    if (r <= 0.0) {
      throw RobotError(
          fmt::format("{}: wheel '{}' is a {}; a wheel must be a cylinder, wheel or "
                      "sphere",
                      robot.file().string(), w.name, shape_kind(w.shape)));
    }
    radius_m_ += r / static_cast<double>(wheels_.size());
  }
  const auto joints = robot.joint_names();
  for (const std::string& name : wheel_joints) {
    const int j = mj_name2id(m, mjOBJ_JOINT, name.c_str());
    if (j < 0 || m->jnt_type[j] != mjJNT_HINGE) {
      throw RobotError(fmt::format("{}: no hinge joint named '{}'; the model's joints are: {}",
                                   robot.file().string(), name, join_names(joints)));
    }
    dofs_.push_back(m->jnt_dofadr[j]);
  }
  if (dofs_.empty()) throw RobotError(robot.file().string() + ": no driven wheel joints named");
}

DriveSample DriveRecorder::sample(MujocoModel& robot) {
  const mjModel* m = robot.model();
  mjData* d = robot.data();
  mj_kinematics(m, d);
  DriveSample s;
  s.t_s = d->time;
  const Vec3 p(d->xpos[3 * chassis_], d->xpos[3 * chassis_ + 1], d->xpos[3 * chassis_ + 2]);
  if (started_) distance_m_ += (p - last_p_).norm();
  started_ = true;
  last_p_ = p;
  s.distance_m = distance_m_;
  // The velocity of the chassis origin in world axes. mj_objectVelocity reads cvel, which a
  // MuJoCo step leaves one step behind qvel: bring cdof and cvel up to date first.
  mj_comPos(m, d);
  mj_comVel(m, d);
  mjtNum v6[6];
  mj_objectVelocity(m, d, mjOBJ_XBODY, chassis_, v6, 0);
  const Vec3 v(v6[3], v6[4], v6[5]);
  const Vec3 x_axis(d->xmat[9 * chassis_], d->xmat[9 * chassis_ + 3], d->xmat[9 * chassis_ + 6]);
  s.speed_m_per_s = v.dot(x_axis);
  for (const int j : dofs_)
    s.wheel_speed_rad_per_s += d->qvel[j] / static_cast<double>(dofs_.size());
  const double rim_speed = s.wheel_speed_rad_per_s * radius_m_;
  s.slip = std::abs(rim_speed) < 1e-2 ? 0.0 : 1.0 - s.speed_m_per_s / rim_speed;
  for (const CoupledLink& w : wheels_) {
    const Pose X_WS = link_pose(robot, w);
    const Vec3 c = X_WS.translation();
    s.sinkage_m.push_back(surface_z_(c.x(), c.y()) - world_bounds(w.shape, X_WS).lo.z());
  }
  return s;
}

}  // namespace talus::robot
