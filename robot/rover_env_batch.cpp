#include "robot/rover_env_batch.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <numbers>
#include <stdexcept>

#include "core/env_batch.hpp"
#include "core/scenario_file.hpp"

namespace talus::robot {

namespace {

void require(bool ok, const char* option, const char* expected) {
  if (!ok)
    throw std::invalid_argument(fmt::format("RoverSlope: {}: expected {}", option, expected));
}

bool positive(double v) { return std::isfinite(v) && v > 0.0; }

// The coupled wheel links the scenario's [report] names, in its order.
std::vector<CoupledLink> report_wheels(const RobotsScenario& sc) {
  std::vector<CoupledLink> wheels;
  for (const std::string& name : sc.report->wheels) {
    const auto it = std::find_if(sc.robot.links.begin(), sc.robot.links.end(),
                                 [&](const CoupledLink& l) { return l.name == name; });
    if (it == sc.robot.links.end()) {
      throw std::invalid_argument("RoverSlope: scenario: report wheel '" + name +
                                  "' is not a coupled link");
    }
    wheels.push_back(*it);
  }
  return wheels;
}

// Roll, pitch, yaw of a rotation R = Rz(yaw) Ry(pitch) Rx(roll) (MuJoCo's row-major xmat).
Vec3 roll_pitch_yaw(const double* xmat) {
  return Vec3(std::atan2(xmat[7], xmat[8]), -std::asin(std::clamp(xmat[6], -1.0, 1.0)),
              std::atan2(xmat[3], xmat[0]));
}

}  // namespace

void validate(const RoverEnvOptions& o) {
  require(!o.scenario.empty(), "scenario", "a robots-tier scenario file");
  require(positive(o.control_period_s), "control_period_s", "> 0");
  require(positive(o.max_wheel_speed_rad_per_s), "max_wheel_speed_rad_per_s", "> 0");
  require(positive(o.episode_s), "episode_s", "> 0");
  require(std::isfinite(o.goal_x_m), "goal_x_m", "a finite x [m]");
  require(std::isfinite(o.energy_weight) && o.energy_weight >= 0, "energy_weight", ">= 0");
  require(std::isfinite(o.max_heading_offset_rad) && o.max_heading_offset_rad >= 0,
          "max_heading_offset_rad", ">= 0");
  require(positive(o.max_tilt_rad) && o.max_tilt_rad < std::numbers::pi, "max_tilt_rad",
          "in (0, pi)");
}

RoverEnvBatch::RoverEnvBatch(const RoverEnvOptions& options, int num_envs) : options_(options) {
  validate(options_);
  if (num_envs < 1) throw std::invalid_argument("num_envs: expected >= 1");
  if (!std::filesystem::is_regular_file(options_.scenario)) {
    throw std::invalid_argument("RoverSlope: scenario: " + options_.scenario.string() +
                                " is not a file");
  }
  const auto doc = ScenarioDocument::load(options_.scenario);
  slots_.resize(static_cast<std::size_t>(num_envs));
  for (RoverEnvSlot& s : slots_) {
    s.scenario = std::make_unique<RobotsScenario>(load_robots(doc->root()));
    RobotsScenario& sc = *s.scenario;
    if (sc.terrain_kind != "scm" || !sc.report) {
      throw std::invalid_argument(
          "RoverSlope: scenario: expected a robots scenario on SCM soil (terrain = \"scm\") with "
          "a [report] naming the chassis, wheels and wheel joints");
    }
    mj_forward(sc.robot.model.model(), sc.robot.model.data());
    s.sim = std::make_unique<CoupledSim>(sc.robot.model, sc.robot.links, sc.terrain->tier(),
                                         sc.robot.mujoco_steps_per_tier_step);
    std::vector<BodyMotion> start;
    for (const CoupledLink& l : sc.robot.links) start.push_back(link_motion(sc.robot.model, l));
    sc.terrain->prepare(start, {});
    starts_.push_back(std::make_unique<CoupledSim::Snapshot>(s.sim->snapshot()));
  }
  const RobotsScenario& sc = *slots_.front().scenario;
  const mjModel* m = sc.robot.model.model();
  for (const std::string& joint : sc.report->wheel_joints) {
    const int j = mj_name2id(m, mjOBJ_JOINT, joint.c_str());
    if (j < 0) throw std::invalid_argument("RoverSlope: scenario: no joint '" + joint + "'");
    wheel_dofs_.push_back(m->jnt_dofadr[j]);
    int actuator = -1;
    for (int a = 0; a < m->nu; ++a) {
      if (m->actuator_trntype[a] == mjTRN_JOINT && m->actuator_trnid[2 * a] == j) actuator = a;
    }
    if (actuator < 0) {
      throw std::invalid_argument("RoverSlope: scenario: no actuator drives joint '" + joint + "'");
    }
    wheel_actuators_.push_back(actuator);
  }
  chassis_body_ = sc.robot.model.body_id(sc.report->chassis);
  wheels_ = report_wheels(sc);
  if (m->body_jntnum[chassis_body_] < 1 ||
      m->jnt_type[m->body_jntadr[chassis_body_]] != mjJNT_FREE) {
    throw std::invalid_argument("RoverSlope: scenario: the chassis needs a free joint");
  }
  const double tier_dt = slots_.front().sim->tier_time_step_s();
  tier_steps_per_action_ =
      std::max(1, static_cast<int>(std::lround(options_.control_period_s / tier_dt)));
  max_steps_ = std::max(
      1, static_cast<int>(std::lround(options_.episode_s / (tier_steps_per_action_ * tier_dt))));
  start_x_m_ = sc.robot.model.data()->xpos[3 * chassis_body_];
}

RoverEnvBatch::~RoverEnvBatch() = default;

void RoverEnvBatch::start_episode(RoverEnvSlot& s) const {
  const std::size_t i = static_cast<std::size_t>(&s - slots_.data());
  s.sim->restore(*starts_[i]);
  MujocoModel& robot = s.scenario->robot.model;
  const mjModel* m = robot.model();
  mjData* d = robot.data();
  // Turn the chassis about z_W by the seeded heading offset: q <- q_z(offset) q.
  const double offset =
      s.rng.uniform(-options_.max_heading_offset_rad, options_.max_heading_offset_rad);
  double* q = d->qpos + m->jnt_qposadr[m->body_jntadr[chassis_body_]] + 3;
  const Eigen::Quaterniond turned = Eigen::Quaterniond(Eigen::AngleAxisd(offset, Vec3::UnitZ())) *
                                    Eigen::Quaterniond(q[0], q[1], q[2], q[3]);
  q[0] = turned.w();
  q[1] = turned.x();
  q[2] = turned.y();
  q[3] = turned.z();
  for (int a : wheel_actuators_) d->ctrl[a] = 0.0;
  mj_forward(m, d);
  RobotsScenario& sc = *s.scenario;
  RobotTerrain* terrain = sc.terrain.get();
  s.drive = std::make_unique<DriveRecorder>(
      robot, sc.report->chassis, report_wheels(sc), sc.report->wheel_joints,
      [terrain](double x, double y) { return terrain->surface_z(x, y); });
  s.steps = 0;
  s.episode_return = s.energy_J = s.progress_m = 0.0;
  s.ended = s.reached_goal = s.left_map = false;
  s.stop_reason.clear();
}

void RoverEnvBatch::reset(std::span<const std::uint64_t> seeds, float* observations) {
  check_seed_count(seeds, slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].rng.state = seeds[i];
    start_episode(slots_[i]);
    observe(slots_[i], observations + i * kRoverObservationSize);
  }
}

void RoverEnvBatch::redraw(int i, float* observations) {
  RoverEnvSlot& s = slots_.at(static_cast<std::size_t>(i));
  start_episode(s);
  observe(s, observations + static_cast<std::size_t>(i) * kRoverObservationSize);
}

std::vector<std::array<double, 4>> RoverEnvBatch::side_view(int i) const {
  const RoverEnvSlot& s = slots_.at(static_cast<std::size_t>(i));
  MujocoModel& robot = s.scenario->robot.model;
  mj_kinematics(robot.model(), robot.data());  // positions only; the next step recomputes them
  const mjData* d = robot.data();
  const Vec3 p_chassis(d->xpos[3 * chassis_body_], 0.0, d->xpos[3 * chassis_body_ + 2]);
  const double r = s.drive->wheel_radius_m();
  std::vector<std::array<double, 4>> segments;
  for (const CoupledLink& wheel : wheels_) {
    const Pose X_WS = link_motion(robot, wheel).X_WB;
    const Vec3 c = X_WS.translation();
    segments.push_back({p_chassis.x(), p_chassis.z(), c.x(), c.z()});
    const int n = 24;
    for (int k = 0; k < n; ++k) {
      const double a0 = 2.0 * std::numbers::pi * k / n, a1 = 2.0 * std::numbers::pi * (k + 1) / n;
      segments.push_back({c.x() + r * std::cos(a0), c.z() + r * std::sin(a0),
                          c.x() + r * std::cos(a1), c.z() + r * std::sin(a1)});
    }
    // A spoke along the wheel frame's x axis (perpendicular to the hinge), turning with it.
    const Vec3 spoke = X_WS.linear().col(0);
    const double norm = std::hypot(spoke.x(), spoke.z());
    if (norm > 1e-9) {
      segments.push_back(
          {c.x(), c.z(), c.x() + r * spoke.x() / norm, c.z() + r * spoke.z() / norm});
    }
  }
  return segments;
}

double RoverEnvBatch::surface_z(int i, double x_m, double y_m) const {
  return slots_.at(static_cast<std::size_t>(i)).scenario->terrain->surface_z(x_m, y_m);
}

bool RoverEnvBatch::links_on_map(const RoverEnvSlot& s) const {
  // Each link's world box grown by 2 cm (far more than a tier step moves it) must lie over the
  // soil: SCM refuses a body outside its map.
  const RobotsScenario& sc = *s.scenario;
  for (const CoupledLink& l : sc.robot.links) {
    const Aabb box = world_bounds(l.shape, link_motion(sc.robot.model, l).X_WB);
    const double margin = 0.02;
    for (const double x : {box.lo.x() - margin, box.hi.x() + margin}) {
      for (const double y : {box.lo.y() - margin, box.hi.y() + margin}) {
        if (!sc.terrain->covers_xy(x, y)) return false;
      }
    }
  }
  return true;
}

void RoverEnvBatch::step_one(RoverEnvSlot& s, std::span<const double> speeds, double& reward,
                             std::uint8_t& terminated, std::uint8_t& truncated) const {
  MujocoModel& robot = s.scenario->robot.model;
  const mjModel* m = robot.model();
  mjData* d = robot.data();
  const double x0 = d->xpos[3 * chassis_body_];
  const double tier_dt = s.sim->tier_time_step_s();
  terminated = truncated = 0;
  s.energy_J = 0.0;
  for (std::size_t k = 0; k < wheel_actuators_.size(); ++k) {
    d->ctrl[wheel_actuators_[k]] = speeds[k] * options_.max_wheel_speed_rad_per_s;
  }
  for (int k = 0; k < tier_steps_per_action_; ++k) {
    try {
      s.sim->step();
    } catch (const std::exception& e) {
      s.stop_reason =
          fmt::format("the coupled step failed at env step {}: {}", s.steps + 1, e.what());
      truncated = 1;
      break;
    }
    for (std::size_t w = 0; w < wheel_actuators_.size(); ++w) {
      s.energy_J +=
          std::abs(d->actuator_force[wheel_actuators_[w]] * d->qvel[wheel_dofs_[w]]) * tier_dt;
    }
    const std::string off = links_off_terrain(options_.scenario, *s.scenario, *s.scenario->terrain,
                                              s.steps + 1, s.sim->time_s());
    if (!off.empty()) {
      s.stop_reason = off;
      truncated = 1;
      break;
    }
    if (!links_on_map(s)) {
      s.left_map = true;  // the end of the world: terminal, like a fall
      break;
    }
  }
  mj_kinematics(m, d);
  const double x1 = d->xpos[3 * chassis_body_];
  s.progress_m = std::isfinite(x1) ? x1 - x0 : 0.0;
  reward = s.progress_m - options_.energy_weight * s.energy_J;
  s.episode_return += reward;
  ++s.steps;
  const Vec3 rpy = roll_pitch_yaw(d->xmat + 9 * chassis_body_);
  if (!truncated) {
    if (s.left_map) {
      terminated = 1;
    } else if (x1 >= options_.goal_x_m) {
      s.reached_goal = true;
      terminated = 1;
    } else if (std::abs(rpy.x()) > options_.max_tilt_rad ||
               std::abs(rpy.y()) > options_.max_tilt_rad) {
      terminated = 1;
    } else if (s.steps >= max_steps_) {
      truncated = 1;
    }
  }
  s.ended = terminated || truncated;
}

void RoverEnvBatch::step(std::span<const double> actions, float* observations, double* rewards,
                         std::uint8_t* terminated, std::uint8_t* truncated, int threads) {
  const std::size_t n = slots_.size(), a = wheel_actuators_.size();
  check_unit_actions(actions, n, a);
  // Fewer instances than threads: one after another, each soil step running its wheels side by
  // side on the threads (scm_step.cpp, for_each_box).
  step_each_env(n, threads, [&](std::size_t i) {
    RoverEnvSlot& s = slots_[i];
    if (s.ended) {
      start_episode(s);
      rewards[i] = 0.0;
      terminated[i] = truncated[i] = 0;
    } else {
      step_one(s, actions.subspan(i * a, a), rewards[i], terminated[i], truncated[i]);
    }
    observe(s, observations + i * kRoverObservationSize);
  });
}

void RoverEnvBatch::observe(RoverEnvSlot& s, float* out) const {
  MujocoModel& robot = s.scenario->robot.model;
  const mjModel* m = robot.model();
  const mjData* d = robot.data();
  const DriveSample sample = s.drive->sample(robot);  // runs mj_kinematics
  const double* xmat = d->xmat + 9 * chassis_body_;
  const Vec3 rpy = roll_pitch_yaw(xmat);
  const int dof = m->jnt_dofadr[m->body_jntadr[chassis_body_]];
  Eigen::Matrix3d R_WB;
  R_WB << xmat[0], xmat[1], xmat[2], xmat[3], xmat[4], xmat[5], xmat[6], xmat[7], xmat[8];
  const Vec3 w_W = R_WB * Vec3(d->qvel[dof + 3], d->qvel[dof + 4], d->qvel[dof + 5]);
  const Vec3 x_chassis = R_WB.col(0);
  double values[kRoverObservationSize] = {};
  for (int k = 0; k < 3; ++k) {
    values[k] = d->xpos[3 * chassis_body_ + k];
    values[3 + k] = rpy[k];
    values[6 + k] = d->qvel[dof + k];
    values[9 + k] = w_W[k];
  }
  const double r = s.drive->wheel_radius_m();
  for (std::size_t w = 0; w < wheels_.size() && w < 4; ++w) {
    const double omega = d->qvel[wheel_dofs_[w]];
    const double v = link_motion(robot, wheels_[w]).V_WB.v_WBo.dot(x_chassis);
    values[12 + w] = std::abs(omega * r) < 0.01 ? 0.0 : 1.0 - v / (omega * r);
    values[16 + w] = w < sample.sinkage_m.size() ? sample.sinkage_m[w] : 0.0;
    values[20 + w] = omega;
  }
  for (int k = 0; k < kRoverObservationSize; ++k) {
    out[k] = std::isfinite(values[k]) ? static_cast<float>(values[k]) : 0.0f;
  }
}

}  // namespace talus::robot
