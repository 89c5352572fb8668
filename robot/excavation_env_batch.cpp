#include "robot/excavation_env_batch.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/env_batch.hpp"

namespace talus::robot {

using namespace talus::particles;

ExcavationSlot::ExcavationSlot(std::shared_ptr<const ExcavationWorld> world)
    : arm(MujocoModel::load(world->options.arm_path)) {}

ExcavationEnvBatch::ExcavationEnvBatch(std::shared_ptr<const ExcavationWorld> world, int num_envs)
    : world_(std::move(world)) {
  if (!world_) throw std::invalid_argument("ExcavationEnvBatch: no world");
  if (num_envs < 1) throw std::invalid_argument("num_envs: expected >= 1");
  const ExcavationOptions& o = world_->options;
  max_steps_ = std::max(
      1, static_cast<int>(std::llround(o.episode_s / (o.steps_per_action * o.time_step_s))));
  slots_.reserve(static_cast<std::size_t>(num_envs));
  for (int i = 0; i < num_envs; ++i) slots_.emplace_back(world_);
}

void ExcavationEnvBatch::start_episode(ExcavationSlot& s) const {
  const ExcavationOptions& o = world_->options;
  for (int j = 0; j < kArmJoints; ++j) {
    const double q = o.start_joint_rad[j] + s.rng.uniform(-o.start_noise_rad, o.start_noise_rad);
    s.q_rad[j] = std::clamp(q, world_->joint_lo_rad[j], world_->joint_hi_rad[j]);
  }
  s.qdot_rad_per_s.fill(0.0);
  s.particles = world_->settled_bed;
  s.X_WT = set_arm_configuration(*world_, s.arm, s.q_rad);
  s.wrench = Wrench::about(s.X_WT.translation());
  s.load = bucket_load(*world_, s.particles, s.X_WT);
  s.steps = 0;
  s.episode_return = 0.0;
  s.ended = false;
  s.stop_reason.clear();
}

void ExcavationEnvBatch::reset(std::span<const std::uint64_t> seeds,
                               const ExcavationObservations& out) {
  check_seed_count(seeds, slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].rng.state = seeds[i];
    start_episode(slots_[i]);
    observe(i, out);
  }
}

void ExcavationEnvBatch::redraw(int i, const ExcavationObservations& out) {
  start_episode(slots_.at(static_cast<std::size_t>(i)));
  observe(static_cast<std::size_t>(i), out);
}

void ExcavationEnvBatch::step_one(ExcavationSlot& s, std::span<const double> action,
                                  const ParticleModel& model, double& reward,
                                  std::uint8_t& terminated, std::uint8_t& truncated) const {
  const ExcavationOptions& o = world_->options;
  const double dt = o.time_step_s;
  terminated = truncated = 0;
  Wrench sum = Wrench::about(Vec3::Zero());
  int substeps = 0;
  for (int k = 0; k < o.steps_per_action; ++k) {
    // Joint angles integrated exactly and stopped at their ranges; the twist is the motion made.
    JointVector q1{}, qdot{};
    for (int j = 0; j < kArmJoints; ++j) {
      q1[j] = std::clamp(s.q_rad[j] + action[j] * o.max_joint_speed_rad_per_s * dt,
                         world_->joint_lo_rad[j], world_->joint_hi_rad[j]);
      qdot[j] = (q1[j] - s.q_rad[j]) / dt;
    }
    const Twist V_WT = tool_twist(*world_, s.arm, qdot);  // at s.q_rad, set last
    const std::vector<BodyMotion> motions = excavation_motions(*world_, s.X_WT, V_WT);
    try {
      particles::step(model, s.particles, motions, s.workspace);
    } catch (const ParticleDivergence& e) {
      s.stop_reason =
          fmt::format("the particle simulation diverged at env step {}: {}", s.steps + 1, e.what());
      truncated = 1;
      break;
    }
    // The bucket's wrench about its origin at this step, summed in W about the world origin so
    // that steps at different poses add up.
    const Wrench& w = s.particles.body_wrenches.front();
    sum.f_W += w.f_W;
    sum.tau_W += w.tau_W + w.p_W.cross(w.f_W);
    ++substeps;
    s.q_rad = q1;
    s.qdot_rad_per_s = qdot;
    s.X_WT = set_arm_configuration(*world_, s.arm, s.q_rad);
  }
  const Vec3 p_WT = s.X_WT.translation();
  s.wrench = Wrench::about(p_WT);
  if (substeps > 0) {
    s.wrench.f_W = sum.f_W / substeps;
    s.wrench.tau_W = sum.tau_W / substeps - p_WT.cross(s.wrench.f_W);
  }
  s.load = bucket_load(*world_, s.particles, s.X_WT);
  reward = s.load.held_kg + o.shaping_weight * s.load.in_bucket_kg;
  s.episode_return += reward;
  ++s.steps;
  if (!truncated) {
    const double force_N = s.wrench.f_W.norm();
    double lowest_m = INFINITY;
    for (const Vec3& c_T : world_->bucket_corners_T)
      lowest_m = std::min(lowest_m, (s.X_WT * c_T).z());
    if (force_N > o.force_limit_N) {
      s.stop_reason = fmt::format(
          "the particles' force on the bucket, {:.1f} N, exceeded force_limit_N = {} N at env "
          "step {}",
          force_N, o.force_limit_N, s.steps);
      terminated = 1;
    } else if (lowest_m < 0.0) {
      s.stop_reason = fmt::format("the bucket reached {:.3f} m below the floor at env step {}",
                                  -lowest_m, s.steps);
      terminated = 1;
    }
  }
  if (!terminated && s.steps >= max_steps_) truncated = 1;
  s.ended = terminated || truncated;
}

void ExcavationEnvBatch::step(std::span<const double> actions, const ExcavationObservations& out,
                              double* rewards, std::uint8_t* terminated, std::uint8_t* truncated,
                              int threads) {
  const std::size_t n = slots_.size();
  check_unit_actions(actions, n, kArmJoints);
  ParticleModel model = world_->model;
  model.threads = threads_per_env(n, threads);
  step_each_env(n, threads, [&](std::size_t i) {
    ExcavationSlot& s = slots_[i];
    if (s.ended) {
      start_episode(s);
      rewards[i] = 0.0;
      terminated[i] = truncated[i] = 0;
    } else {
      step_one(s, actions.subspan(kArmJoints * i, kArmJoints), model, rewards[i], terminated[i],
               truncated[i]);
    }
    observe(i, out);
  });
}

std::vector<CameraBody> ExcavationEnvBatch::camera_bodies(const ExcavationSlot& s) const {
  std::vector<CameraBody> bodies = world_->scenery;
  bodies.push_back({world_->model.bodies.front().shape, s.X_WT});
  return bodies;
}

void ExcavationEnvBatch::observe(std::size_t i, const ExcavationObservations& out) const {
  const ExcavationSlot& s = slots_[i];
  float* state = out.state + i * kExcavationStateSize;
  for (int j = 0; j < kArmJoints; ++j) {
    state[j] = static_cast<float>(s.q_rad[j]);
    state[kArmJoints + j] = static_cast<float>(s.qdot_rad_per_s[j]);
  }
  const Vec3 p = s.X_WT.translation();
  Quat q(s.X_WT.linear());
  if (q.w() < 0) q.coeffs() = -q.coeffs();  // one of the two equal quaternions: w >= 0
  const float tool[] = {float(p.x()), float(p.y()), float(p.z()), float(q.w()),
                        float(q.x()), float(q.y()), float(q.z())};
  std::copy(std::begin(tool), std::end(tool), state + 14);
  for (int r = 0; r < 3; ++r) {
    state[21 + r] = static_cast<float>(s.wrench.f_W[r]);
    state[24 + r] = static_cast<float>(s.wrench.tau_W[r]);
  }
  const ParticleSpheres spheres{s.particles.x_m, s.particles.y_m, s.particles.z_m,
                                s.particles.radius_m};
  const DepthImage sky = render_depth(world_->sky, spheres, camera_bodies(s));
  const float floor = static_cast<float>(world_->options.sky_camera_z_m);
  const std::size_t size = sky.depth_m.size();
  for (std::size_t p_i = 0; p_i < size; ++p_i) {
    const float d = sky.depth_m[p_i];
    out.sky[i * size + p_i] = std::isfinite(d) ? std::clamp(d, 0.0f, floor) : floor;
  }
}

DepthImage ExcavationEnvBatch::sky_image(int i, int width_px, int height_px) const {
  const ExcavationSlot& s = slots_.at(static_cast<std::size_t>(i));
  SkyCamera camera = world_->sky;
  camera.width_px = width_px;
  camera.height_px = height_px;
  const ParticleSpheres spheres{s.particles.x_m, s.particles.y_m, s.particles.z_m,
                                s.particles.radius_m};
  return render_depth(camera, spheres, camera_bodies(s));
}

std::vector<Vec3> ExcavationEnvBatch::arm_points(int i) const {
  const ExcavationSlot& s = slots_.at(static_cast<std::size_t>(i));
  const mjModel* m = s.arm.model();
  const mjData* d = s.arm.data();
  std::vector<Vec3> points;
  for (int b = 1; b < m->nbody; ++b) {
    points.emplace_back(d->xpos[3 * b], d->xpos[3 * b + 1], d->xpos[3 * b + 2]);
    if (b == world_->tool_body_id) break;
  }
  return points;
}

}  // namespace talus::robot
