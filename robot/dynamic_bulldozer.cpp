#include "robot/dynamic_bulldozer.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>

#include "robot/coupled_sim.hpp"

namespace talus::robot {

DynamicBulldozer::DynamicBulldozer(const particles::BulldozingWorld& world)
    : options_(world.options), robot_(MujocoModel::load(world.options.vehicle_mjcf_path)) {
  const mjModel* m = robot_.model();
  const std::string file = options_.vehicle_mjcf_path.string();
  chassis_.name = "bulldozer";
  chassis_.body_id = robot_.body_id("bulldozer");
  const int joint = m->body_jntadr[chassis_.body_id];
  if (joint < 0 || m->jnt_type[joint] != mjJNT_FREE) {
    throw RobotError(fmt::format("{}: body 'bulldozer' needs a free joint", file));
  }
  root_qpos_ = m->jnt_qposadr[joint];
  root_dof_ = m->jnt_dofadr[joint];
  const std::vector<std::string> names = robot_.actuator_names();
  for (int a = 0; a < m->nu; ++a) {
    const bool left = names[static_cast<std::size_t>(a)].rfind("left_", 0) == 0;
    const bool right = names[static_cast<std::size_t>(a)].rfind("right_", 0) == 0;
    if (!left && !right) continue;
    (left ? left_ : right_).push_back(a);
    const int wheel_body = m->jnt_bodyid[m->actuator_trnid[2 * a]];
    wheel_radius_m_ = m->geom_size[3 * m->body_geomadr[wheel_body]];
    half_track_m_ = std::abs(m->body_pos[3 * wheel_body + 1]);
  }
  if (left_.empty() || right_.empty() || !(wheel_radius_m_ > 0) || !(half_track_m_ > 0)) {
    throw RobotError(fmt::format(
        "{}: expected velocity actuators named left_* and right_* on wheels off the centre line "
        "(found: {})",
        file, join_names(names)));
  }
  robot_.set_time_step_s(options_.time_step_s);
  x_lim_m_ = std::max(0.0, options_.arena_length_m / 2 - world.bounding_radius_m);
  y_lim_m_ = std::max(0.0, options_.arena_width_m / 2 - world.bounding_radius_m);
}

void DynamicBulldozer::place(double x_m, double y_m, double yaw_rad) {
  robot_.reset();
  mjData* d = robot_.data();
  const double q[] = {x_m, y_m, 0.0, std::cos(yaw_rad / 2), 0.0, 0.0, std::sin(yaw_rad / 2)};
  std::copy(std::begin(q), std::end(q), d->qpos + root_qpos_);
  mj_forward(robot_.model(), d);
}

BodyMotion DynamicBulldozer::drive(double forward, double yaw, double) {
  const double v = forward * options_.max_speed_m_per_s, w = yaw * options_.max_yaw_rate_rad_per_s;
  mjData* d = robot_.data();
  for (int a : left_) d->ctrl[a] = (v - w * half_track_m_) / wheel_radius_m_;
  for (int a : right_) d->ctrl[a] = (v + w * half_track_m_) / wheel_radius_m_;
  // Positions and velocities of the state mj_step left (what link_motion reads), without the
  // collision and constraint passes of a full mj_forward that mj_step repeats anyway.
  mj_kinematics(robot_.model(), d);
  mj_comPos(robot_.model(), d);
  mj_comVel(robot_.model(), d);
  return link_motion(robot_, chassis_);
}

std::string DynamicBulldozer::advance(const Wrench& on_body, double) {
  const mjModel* m = robot_.model();
  mjData* d = robot_.data();
  const int b = chassis_.body_id;
  const Vec3 p_WCm(d->xipos[3 * b], d->xipos[3 * b + 1], d->xipos[3 * b + 2]);
  const Wrench at_cm = on_body.shifted_to(p_WCm);
  for (int j = 0; j < 3; ++j) {
    d->xfrc_applied[6 * b + j] = at_cm.f_W[j];
    d->xfrc_applied[6 * b + 3 + j] = at_cm.tau_W[j];
  }
  mj_step(m, d);
  for (int i = 0; i < 7; ++i) {
    if (!std::isfinite(d->qpos[root_qpos_ + i])) {
      return fmt::format("MuJoCo's state of the bulldozer became {} (qpos[{}])",
                         d->qpos[root_qpos_ + i], root_qpos_ + i);
    }
  }
  if (d->warning[mjWARN_BADQACC].number > 0) {
    return "MuJoCo reported a bad acceleration and reset the bulldozer (mjWARN_BADQACC)";
  }
  // The walls: the centre stops a bounding radius inside them, its velocity into them zeroed.
  const double lim[] = {x_lim_m_, y_lim_m_};
  for (int axis = 0; axis < 2; ++axis) {
    double& p = d->qpos[root_qpos_ + axis];
    double& v = d->qvel[root_dof_ + axis];  // free joint: world-frame linear velocity first
    if (std::abs(p) > lim[axis]) {
      p = std::clamp(p, -lim[axis], lim[axis]);
      if (v * p > 0) v = 0.0;
    }
  }
  return {};
}

// A free body's qpos is its frame's pose in W, current after mj_step (where xpos and xquat still
// hold the step's start).
Pose DynamicBulldozer::pose() const {
  const double* q = robot_.data()->qpos + root_qpos_;
  Pose X_WB = Pose::Identity();
  X_WB.linear() = Quat(q[3], q[4], q[5], q[6]).normalized().toRotationMatrix();
  X_WB.translation() = Vec3(q[0], q[1], q[2]);
  return X_WB;
}

Vec3 DynamicBulldozer::planar_pose() const {
  const Pose X_WB = pose();
  const Vec3 x_B = X_WB.linear().col(0);
  return Vec3(X_WB.translation().x(), X_WB.translation().y(), std::atan2(x_B.y(), x_B.x()));
}

particles::VehicleFactory dynamic_bulldozer_factory() {
  return [](const particles::BulldozingWorld& world) {
    return std::make_unique<DynamicBulldozer>(world);
  };
}

}  // namespace talus::robot
