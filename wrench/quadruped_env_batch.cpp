#include "wrench/quadruped_env_batch.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>

#include "core/env_batch.hpp"
#include "wrench/wrench_database.hpp"

namespace talus::wrench {

namespace {

void require(bool ok, const char* option, const char* expected) {
  if (!ok) {
    throw std::invalid_argument(
        fmt::format("QuadrupedGranular: {}: expected {}", option, expected));
  }
}

bool finite_and_positive(double v) { return std::isfinite(v) && v > 0.0; }

int root_dof(const mjModel* m, const char* joint) {
  const int j = mj_name2id(m, mjOBJ_JOINT, joint);
  if (j < 0) {
    throw std::invalid_argument(
        fmt::format("QuadrupedGranular: model: no joint '{}' (expected a planar root: root_x, "
                    "root_z, root_pitch)",
                    joint));
  }
  return m->jnt_dofadr[j];
}

}  // namespace

void validate(const QuadrupedEnvOptions& o) {
  require(!o.model.empty(), "model", "the quadruped's MJCF file");
  require(!o.database.empty(), "database", "a wrench database (HDF5)");
  require(!o.feet.empty(), "feet", "at least one foot site");
  require(finite_and_positive(o.mass_scale), "mass_scale", "> 0");
  require(o.granular_inertia.allFinite() && (o.granular_inertia.array() >= 0).all(),
          "granular_inertia", ">= 0");
  require(finite_and_positive(o.control_period_s), "control_period_s", "> 0");
  require(finite_and_positive(o.max_joint_target_rad), "max_joint_target_rad", "> 0");
  require(finite_and_positive(o.episode_s), "episode_s", "> 0");
  require(std::isfinite(o.effort_weight) && o.effort_weight >= 0, "effort_weight", ">= 0");
  require(std::isfinite(o.initial_joint_noise_rad) && o.initial_joint_noise_rad >= 0,
          "initial_joint_noise_rad", ">= 0");
  require(finite_and_positive(o.fall_pitch_rad), "fall_pitch_rad", "> 0");
  require(std::isfinite(o.fall_height_m), "fall_height_m", "a finite height [m]");
}

QuadrupedEnvBatch::QuadrupedEnvBatch(const QuadrupedEnvOptions& options, int num_envs)
    : options_(options) {
  validate(options_);
  if (num_envs < 1) throw std::invalid_argument("num_envs: expected >= 1");
  for (const auto& [path, what] :
       {std::pair{options_.model, "model"}, std::pair{options_.database, "database"}}) {
    if (!std::filesystem::is_regular_file(path)) {
      throw std::invalid_argument(
          fmt::format("QuadrupedGranular: {}: {} is not a file", what, path.string()));
    }
  }
  predictor_ = std::make_shared<const WrenchSpaceModel>(load_database(options_.database));
  WrenchStepModel step_model;
  for (const std::string& site : options_.feet) {
    step_model.feet.push_back(FootSpec{site, site, options_.granular_inertia.asDiagonal()});
  }
  slots_.resize(static_cast<std::size_t>(num_envs));
  for (QuadrupedEnvSlot& s : slots_) {
    s.robot = std::make_unique<robot::MujocoModel>(robot::MujocoModel::load(options_.model));
    mjModel* m = s.robot->model();
    // As wrench_robot_run.cpp's mass_scale: MuJoCo recomputes composite inertias every step.
    for (int b = 0; b < m->nbody; ++b) {
      m->body_mass[b] *= options_.mass_scale;
      for (int a = 0; a < 3; ++a) m->body_inertia[3 * b + a] *= options_.mass_scale;
    }
    mj_forward(m, s.robot->data());
    s.step = std::make_unique<WrenchContactStep>(*s.robot, *predictor_, step_model);
    s.start = std::make_unique<robot::MujocoModel::Snapshot>(s.robot->snapshot());
    s.start_state = s.step->state();
  }
  const mjModel* m = slots_.front().robot->model();
  body_ = slots_.front().robot->body_id(options_.body);
  dof_x_ = root_dof(m, "root_x");
  dof_z_ = root_dof(m, "root_z");
  dof_pitch_ = root_dof(m, "root_pitch");
  qpos_x_ = m->jnt_qposadr[m->dof_jntid[dof_x_]];
  qpos_z_ = m->jnt_qposadr[m->dof_jntid[dof_z_]];
  qpos_pitch_ = m->jnt_qposadr[m->dof_jntid[dof_pitch_]];
  for (int a = 0; a < m->nu; ++a) {
    if (m->actuator_trntype[a] != mjTRN_JOINT) {
      throw std::invalid_argument("QuadrupedGranular: model: every actuator must drive a joint");
    }
    const int j = m->actuator_trnid[2 * a];
    joint_qpos_.push_back(m->jnt_qposadr[j]);
    joint_dof_.push_back(m->jnt_dofadr[j]);
  }
  layout_ = {m->nu, static_cast<int>(options_.feet.size())};
  const double h = slots_.front().step->time_step_s();
  physics_steps_per_action_ =
      std::max(1, static_cast<int>(std::lround(options_.control_period_s / h)));
  max_steps_ = std::max(
      1, static_cast<int>(std::lround(options_.episode_s / (physics_steps_per_action_ * h))));
}

QuadrupedEnvBatch::~QuadrupedEnvBatch() = default;

std::vector<std::string> QuadrupedEnvBatch::actuator_names() const {
  return slots_.front().robot->actuator_names();
}

std::vector<std::array<double, 4>> QuadrupedEnvBatch::stick_figure(int i) const {
  const QuadrupedEnvSlot& s = slots_.at(static_cast<std::size_t>(i));
  const mjModel* m = s.robot->model();
  mjData* d = s.robot->data();
  mj_kinematics(m, d);  // positions only; the next step recomputes them anyway
  std::vector<std::array<double, 4>> segments;
  for (int b = 1; b < m->nbody; ++b) {
    const int parent = m->body_parentid[b];
    if (parent == 0) continue;
    segments.push_back(
        {d->xpos[3 * parent], d->xpos[3 * parent + 2], d->xpos[3 * b], d->xpos[3 * b + 2]});
  }
  for (int site = 0; site < m->nsite; ++site) {
    const int b = m->site_bodyid[site];
    segments.push_back(
        {d->xpos[3 * b], d->xpos[3 * b + 2], d->site_xpos[3 * site], d->site_xpos[3 * site + 2]});
  }
  return segments;
}

void QuadrupedEnvBatch::start_episode(QuadrupedEnvSlot& s) const {
  s.robot->restore(*s.start);
  s.step->restore(s.start_state);
  mjModel* m = s.robot->model();
  mjData* d = s.robot->data();
  const double noise = options_.initial_joint_noise_rad;
  for (std::size_t k = 0; k < joint_qpos_.size(); ++k) {
    d->qpos[joint_qpos_[k]] += s.rng.uniform(-noise, noise);
    d->ctrl[k] = 0.0;
  }
  mj_forward(m, d);
  s.steps = 0;
  s.episode_return = s.effort = s.progress_m = 0.0;
  s.ended = s.fell = false;
  s.stop_reason.clear();
}

void QuadrupedEnvBatch::reset(std::span<const std::uint64_t> seeds, float* observations) {
  check_seed_count(seeds, slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].rng.state = seeds[i];
    start_episode(slots_[i]);
    observe(slots_[i], observations + i * static_cast<std::size_t>(layout_.size()));
  }
}

void QuadrupedEnvBatch::redraw(int i, float* observations) {
  QuadrupedEnvSlot& s = slots_.at(static_cast<std::size_t>(i));
  start_episode(s);
  observe(s, observations + static_cast<std::size_t>(i) * static_cast<std::size_t>(layout_.size()));
}

void QuadrupedEnvBatch::step_one(QuadrupedEnvSlot& s, std::span<const double> targets,
                                 double& reward, std::uint8_t& terminated,
                                 std::uint8_t& truncated) const {
  mjData* d = s.robot->data();
  const double h = s.step->time_step_s();
  const double x0 = d->qpos[qpos_x_];
  terminated = truncated = 0;
  s.effort = 0.0;
  for (std::size_t k = 0; k < targets.size(); ++k) {
    d->ctrl[k] = targets[k] * options_.max_joint_target_rad;
  }
  for (int k = 0; k < physics_steps_per_action_; ++k) {
    try {
      s.step->step();
    } catch (const std::exception& e) {
      s.stop_reason =
          fmt::format("the wrench step failed at env step {}: {}", s.steps + 1, e.what());
      truncated = 1;
      break;
    }
    for (std::size_t a = 0; a < targets.size(); ++a) {
      s.effort += d->actuator_force[a] * d->actuator_force[a] * h;
    }
  }
  const double x1 = d->qpos[qpos_x_];
  s.progress_m = std::isfinite(x1) ? x1 - x0 : 0.0;
  reward = s.progress_m - options_.effort_weight * s.effort;
  s.episode_return += reward;
  ++s.steps;
  if (!truncated) {
    if (std::abs(d->qpos[qpos_pitch_]) > options_.fall_pitch_rad ||
        s.robot->model()->body_pos[3 * body_ + 2] + d->qpos[qpos_z_] < options_.fall_height_m) {
      s.fell = true;
      terminated = 1;
    } else if (s.steps >= max_steps_) {
      truncated = 1;
    }
  }
  s.ended = terminated || truncated;
}

void QuadrupedEnvBatch::step(std::span<const double> actions, float* observations, double* rewards,
                             std::uint8_t* terminated, std::uint8_t* truncated, int threads) {
  const std::size_t n = slots_.size(), a = static_cast<std::size_t>(layout_.joints);
  check_unit_actions(actions, n, a);
  const std::size_t stride = static_cast<std::size_t>(layout_.size());
#pragma omp parallel for schedule(static) num_threads(std::max(1, threads))
  for (std::size_t i = 0; i < n; ++i) {
    QuadrupedEnvSlot& s = slots_[i];
    if (s.ended) {
      start_episode(s);
      rewards[i] = 0.0;
      terminated[i] = truncated[i] = 0;
    } else {
      step_one(s, actions.subspan(i * a, a), rewards[i], terminated[i], truncated[i]);
    }
    observe(s, observations + i * stride);
  }
}

void QuadrupedEnvBatch::observe(const QuadrupedEnvSlot& s, float* out) const {
  const mjData* d = s.robot->data();
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(layout_.size()));
  // Root joints: qpos and dof addresses of 1-dof joints; their qpos index equals jnt_qposadr.
  // The root's slides move the torso from its place in the model (body_pos, under the world).
  const mjModel* m = s.robot->model();
  v.push_back(m->body_pos[3 * body_] + d->qpos[qpos_x_]);
  v.push_back(m->body_pos[3 * body_ + 2] + d->qpos[qpos_z_]);
  v.push_back(d->qpos[qpos_pitch_]);
  for (const int dof : {dof_x_, dof_z_, dof_pitch_}) v.push_back(d->qvel[dof]);
  for (const int q : joint_qpos_) v.push_back(d->qpos[q]);
  for (const int dof : joint_dof_) v.push_back(d->qvel[dof]);
  const auto& feet = s.step->state().feet;
  for (int f = 0; f < layout_.feet; ++f) {
    v.push_back(static_cast<std::size_t>(f) < feet.size()
                    ? feet[static_cast<std::size_t>(f)].depth_m
                    : 0.0);
  }
  for (std::size_t k = 0; k < v.size(); ++k) {
    out[k] = std::isfinite(v[k]) ? static_cast<float>(v[k]) : 0.0f;
  }
}

}  // namespace talus::wrench
