#include "robot/robot_scenario.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>

#include "core/scenario_bodies.hpp"
#include "core/scenario_head.hpp"
#include "core/units.hpp"

namespace talus::robot {

double WheelSpeedSchedule::speed_at(double t_s) const {
  if (t_s <= settle_s) return 0.0;
  if (ramp_s <= 0.0) return speed_rad_per_s;
  return speed_rad_per_s * std::min(1.0, (t_s - settle_s) / ramp_s);
}

void WheelSpeedSchedule::apply(MujocoModel& robot) const {
  const double speed = speed_at(robot.time_s());
  for (const int a : actuator_ids) robot.data()->ctrl[a] = speed;
}

namespace {

CouplingEntry read_entry(const ScenarioTable& t) {
  CouplingEntry e;
  e.body = t.string_or("body", "");
  e.geom = t.string_or("geom", "");
  if (e.body.empty() && e.geom.empty()) t.fail("", "name a MuJoCo 'body' or 'geom' to couple");
  if (const auto shape = t.optional_table("shape")) {
    e.shape = read_shape(*shape);
    const Vec3 offset = t.has("offset_m") ? t.vec3("offset_m", any_finite("[m]")) : Vec3::Zero();
    const Vec3 rpy = t.has("rpy_deg") ? t.vec3("rpy_deg", any_finite("[deg]")) : Vec3::Zero();
    e.X_BS = make_pose(offset, deg_to_rad(rpy.x()), deg_to_rad(rpy.y()), deg_to_rad(rpy.z()));
  } else if (t.has("offset_m") || t.has("rpy_deg")) {
    t.fail(t.has("offset_m") ? "offset_m" : "rpy_deg",
           "only an explicit [shape] takes an offset; a geom's shape keeps the geom's pose");
  }
  t.refuse_unknown_keys();
  return e;
}

void place_root(const ScenarioTable& t, MujocoModel& robot) {
  const char* given = t.has("position_m")  ? "position_m"
                      : t.has("pitch_deg") ? "pitch_deg"
                      : t.has("yaw_deg")   ? "yaw_deg"
                                           : nullptr;
  if (given == nullptr) return;
  mjModel* m = robot.model();
  if (m->njnt == 0 || m->jnt_type[0] != mjJNT_FREE) {
    t.fail(given, "the model's first joint is not a free joint, so the robot cannot be placed");
  }
  mjData* d = robot.data();
  const int q = m->jnt_qposadr[0];
  if (t.has("position_m")) {
    const Vec3 p = t.vec3("position_m", any_finite("[m]"));
    for (int i = 0; i < 3; ++i) d->qpos[q + i] = p[i];
  }
  // The model's orientation, pitched about world y, then turned about world z.
  const double pitch = deg_to_rad(t.number_or("pitch_deg", 0.0, any_finite("[deg]")));
  const double yaw = deg_to_rad(t.number_or("yaw_deg", 0.0, any_finite("[deg]")));
  const Quat q0(d->qpos[q + 3], d->qpos[q + 4], d->qpos[q + 5], d->qpos[q + 6]);
  const Quat turned = Quat(Eigen::AngleAxisd(yaw, Vec3::UnitZ())) *
                      Quat(Eigen::AngleAxisd(pitch, Vec3::UnitY())) * q0;
  d->qpos[q + 3] = turned.w();
  d->qpos[q + 4] = turned.x();
  d->qpos[q + 5] = turned.y();
  d->qpos[q + 6] = turned.z();
  mj_forward(m, d);
}

WheelSpeedSchedule read_drive(const ScenarioTable& t, const MujocoModel& robot) {
  WheelSpeedSchedule s;
  s.settle_s = t.number("settle_s", non_negative("[s]"));
  s.speed_rad_per_s = t.number("speed_rad_per_s", any_finite("[rad/s]"));
  s.ramp_s = t.number_or("ramp_s", 0.0, non_negative("[s]"));
  if (t.has("actuators")) {
    for (const std::string& name : t.strings("actuators")) {
      try {
        s.actuator_ids.push_back(robot.actuator_id(name));
      } catch (const RobotError& e) {
        t.fail("actuators", e.what());
      }
    }
  } else {
    for (int a = 0; a < robot.model()->nu; ++a) s.actuator_ids.push_back(a);
  }
  if (s.actuator_ids.empty()) t.fail("", "the model has no actuators to drive");
  t.refuse_unknown_keys();
  return s;
}

}  // namespace

void read_mujoco_time_step(const ScenarioTable& simulation, MujocoModel& model) {
  if (simulation.has("time_step_s")) {
    model.set_time_step_s(simulation.number("time_step_s", in_open_range(0.0, 0.1, "[s]")));
  }
}

RobotScenario read_robot_scenario(const ScenarioTable& t, const ScenarioTable& simulation) {
  const std::filesystem::path file =
      (t.file().parent_path() / t.string("model")).lexically_normal();
  std::optional<MujocoModel> loaded;
  try {
    loaded.emplace(MujocoModel::load(file));
  } catch (const RobotError& e) {
    t.fail("model", e.what());
  }
  RobotScenario r{std::move(*loaded), {}, 1, {}};
  refuse_moved_key(t, "time_step_s", kTimeStepKey);
  read_mujoco_time_step(simulation, r.model);
  r.mujoco_steps_per_tier_step = t.integer_or("mujoco_steps_per_tier_step", 1, 1, 1000);
  place_root(t, r.model);

  const auto entries = t.tables("coupling");
  if (entries.empty()) t.fail("coupling", "expected at least one [[robot.coupling]] entry");
  std::vector<CouplingEntry> read;
  for (const ScenarioTable& entry : entries) {
    read.push_back(read_entry(entry));
    try {
      resolve_coupling(r.model, {read.back()});  // one at a time: the error points at its entry
    } catch (const RobotError& e) {
      entry.fail(read.back().body.empty() ? "geom" : "body", e.what());
    }
  }
  try {
    r.links = resolve_coupling(r.model, read);
  } catch (const RobotError& e) {
    t.fail("coupling", e.what());
  }
  if (const auto drive = t.optional_table("drive")) r.drive = read_drive(*drive, r.model);
  t.refuse_unknown_keys();
  return r;
}

}  // namespace talus::robot
