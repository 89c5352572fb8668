#include "particles/bulldozing_env_batch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "core/env_batch.hpp"

namespace talus::particles {

namespace {

double wrapped_angle(double a) { return std::remainder(a, 2.0 * std::numbers::pi); }

}  // namespace

KinematicBulldozer::KinematicBulldozer(const BulldozingWorld& world)
    : options_(world.options),
      // The bulldozer's centre stays a bounding radius inside the walls (it stops there).
      x_lim_m_(std::max(0.0, world.options.arena_length_m / 2 - world.bounding_radius_m)),
      y_lim_m_(std::max(0.0, world.options.arena_width_m / 2 - world.bounding_radius_m)) {}

void KinematicBulldozer::place(double x_m, double y_m, double yaw_rad) {
  x_m_ = x_m;
  y_m_ = y_m;
  yaw_rad_ = yaw_rad;
}

BodyMotion KinematicBulldozer::drive(double forward, double yaw, double dt) {
  const double v = forward * options_.max_speed_m_per_s, w = yaw * options_.max_yaw_rate_rad_per_s;
  // Unicycle over one step, heading at the step's midpoint; the twist is the motion made.
  const double mid = yaw_rad_ + 0.5 * w * dt;
  next_x_m_ = std::clamp(x_m_ + v * std::cos(mid) * dt, -x_lim_m_, x_lim_m_);
  next_y_m_ = std::clamp(y_m_ + v * std::sin(mid) * dt, -y_lim_m_, y_lim_m_);
  next_yaw_rad_ = wrapped_angle(yaw_rad_ + w * dt);
  BodyMotion motion{bulldozer_pose(x_m_, y_m_, yaw_rad_), Twist{}};
  motion.V_WB.w_W = Vec3(0.0, 0.0, w);
  motion.V_WB.v_WBo = Vec3((next_x_m_ - x_m_) / dt, (next_y_m_ - y_m_) / dt, 0.0);
  return motion;
}

std::string KinematicBulldozer::advance(const Wrench&, double) {
  x_m_ = next_x_m_;
  y_m_ = next_y_m_;
  yaw_rad_ = next_yaw_rad_;
  return {};
}

BulldozingEnvBatch::BulldozingEnvBatch(std::shared_ptr<const BulldozingWorld> world, int num_envs,
                                       const VehicleFactory& vehicle)
    : world_(std::move(world)) {
  if (!world_) throw std::invalid_argument("BulldozingEnvBatch: no world");
  if (num_envs < 1) throw std::invalid_argument("num_envs: expected >= 1");
  const BulldozingOptions& o = world_->options;
  max_steps_ = std::max(
      1, static_cast<int>(std::llround(o.episode_s / (o.steps_per_action * o.time_step_s))));
  slots_.resize(static_cast<std::size_t>(num_envs));
  if (o.vehicle != "kinematic" && !vehicle) {
    throw std::invalid_argument(fmt::format(
        "BulldozingEnvBatch: vehicle '{}' needs its factory (robot::dynamic_bulldozer_factory)",
        o.vehicle));
  }
  for (BulldozingSlot& s : slots_) {
    s.vehicle = vehicle ? vehicle(*world_) : std::make_unique<KinematicBulldozer>(*world_);
  }
}

void BulldozingEnvBatch::start_episode(BulldozingSlot& s) const {
  const BulldozingOptions& o = world_->options;
  // The settled heap moved by a uniform offset: on the flat floor it is as much at rest there.
  const double dx = s.rng.uniform(-o.heap_offset_m, o.heap_offset_m);
  const double dy = s.rng.uniform(-o.heap_offset_m, o.heap_offset_m);
  s.particles = world_->settled_heap;
  for (std::size_t i = 0; i < s.particles.size(); ++i) {
    s.particles.x_m[i] += static_cast<float>(dx);
    s.particles.y_m[i] += static_cast<float>(dy);
  }
  const double x = s.rng.uniform(o.start_lo_m.x(), o.start_hi_m.x());
  const double y = s.rng.uniform(o.start_lo_m.y(), o.start_hi_m.y());
  s.vehicle->place(x, y, s.rng.uniform(-o.start_yaw_max_rad, o.start_yaw_max_rad));
  const Vec3 planar = s.vehicle->planar_pose();
  s.x_m = planar.x();
  s.y_m = planar.y();
  s.yaw_rad = planar.z();
  s.body_wrench = Wrench{};
  s.steps = 0;
  s.in_goal = goal_score(o, s.particles).inside;
  s.episode_return = 0.0;
  s.ended = false;
  s.stop_reason.clear();
}

void BulldozingEnvBatch::reset(std::span<const std::uint64_t> seeds,
                               const BulldozingObservations& out) {
  check_seed_count(seeds, slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].rng.state = seeds[i];
    start_episode(slots_[i]);
    observe(i, out);
  }
}

void BulldozingEnvBatch::redraw(int i, const BulldozingObservations& out) {
  start_episode(slots_.at(static_cast<std::size_t>(i)));
  observe(static_cast<std::size_t>(i), out);
}

void BulldozingEnvBatch::step_one(BulldozingSlot& s, double forward, double yaw,
                                  const ParticleModel& model, double& reward,
                                  std::uint8_t& terminated, std::uint8_t& truncated) const {
  const BulldozingOptions& o = world_->options;
  terminated = truncated = 0;
  for (int k = 0; k < o.steps_per_action; ++k) {
    const BodyMotion motion = s.vehicle->drive(forward, yaw, o.time_step_s);
    try {
      particles::step(model, s.particles, std::span(&motion, 1), s.workspace);
    } catch (const ParticleDivergence& e) {
      s.stop_reason =
          fmt::format("the particle simulation diverged at env step {}: {}", s.steps + 1, e.what());
      truncated = 1;
      break;
    }
    s.body_wrench = s.particles.body_wrenches.front();
    const std::string failed = s.vehicle->advance(s.body_wrench, o.time_step_s);
    if (!failed.empty()) {
      s.stop_reason =
          fmt::format("the bulldozer's simulation failed at env step {}: {}", s.steps + 1, failed);
      truncated = 1;
      break;
    }
  }
  const Vec3 planar = s.vehicle->planar_pose();
  s.x_m = planar.x();
  s.y_m = planar.y();
  s.yaw_rad = planar.z();
  const GoalScore score = goal_score(o, s.particles);
  reward = score.reward;
  s.in_goal = score.inside;
  s.episode_return += reward;
  ++s.steps;
  if (s.steps >= max_steps_) truncated = 1;
  s.ended = terminated || truncated;
}

void BulldozingEnvBatch::step(std::span<const double> actions, const BulldozingObservations& out,
                              double* rewards, std::uint8_t* terminated, std::uint8_t* truncated,
                              int threads) {
  const std::size_t n = slots_.size();
  check_unit_actions(actions, n, 2);
  ParticleModel model = world_->model;
  model.threads = threads_per_env(n, threads);
  step_each_env(n, threads, [&](std::size_t i) {
    BulldozingSlot& s = slots_[i];
    if (s.ended) {
      start_episode(s);
      rewards[i] = 0.0;
      terminated[i] = truncated[i] = 0;
    } else {
      step_one(s, actions[2 * i], actions[2 * i + 1], model, rewards[i], terminated[i],
               truncated[i]);
    }
    observe(i, out);
  });
}

std::vector<CameraBody> BulldozingEnvBatch::camera_bodies(const BulldozingSlot& s,
                                                          bool walls) const {
  std::vector<CameraBody> bodies;
  if (walls) {
    bodies = world_->scenery;
  } else {
    bodies.push_back(world_->scenery.front());  // the floor
  }
  bodies.push_back({world_->model.bodies.front().shape, s.vehicle->pose()});
  return bodies;
}

void BulldozingEnvBatch::observe(std::size_t i, const BulldozingObservations& out) const {
  const BulldozingSlot& s = slots_[i];
  const BulldozingOptions& o = world_->options;
  const ParticleSpheres spheres{s.particles.x_m, s.particles.y_m, s.particles.z_m,
                                s.particles.radius_m};
  // Threads: the caller's loop owns them; each image is rendered on this thread.
  const DepthImage ego =
      render_depth(ego_camera(o, s.vehicle->pose()), spheres, camera_bodies(s, true));
  const DepthImage sky = render_depth(world_->sky, spheres, camera_bodies(s, false));
  const std::size_t ego_size = ego.depth_m.size(), sky_size = sky.depth_m.size();
  const float far = static_cast<float>(o.ego_max_range_m);
  for (std::size_t p = 0; p < ego_size; ++p) {
    const float d = ego.depth_m[p];
    out.ego[i * ego_size + p] = std::isfinite(d) ? std::min(d, far) : far;
  }
  const float floor = static_cast<float>(o.sky_camera_z_m);
  for (std::size_t p = 0; p < sky_size; ++p) {
    const float d = sky.depth_m[p];
    out.sky[i * sky_size + p] = std::isfinite(d) ? std::clamp(d, 0.0f, floor) : floor;
  }
  out.pose[3 * i] = static_cast<float>(s.x_m);
  out.pose[3 * i + 1] = static_cast<float>(s.y_m);
  out.pose[3 * i + 2] = static_cast<float>(s.yaw_rad);
}

DepthImage BulldozingEnvBatch::sky_image(int i, int width_px, int height_px) const {
  const BulldozingSlot& s = slots_.at(static_cast<std::size_t>(i));
  SkyCamera camera = world_->sky;
  camera.width_px = width_px;
  camera.height_px = height_px;
  const ParticleSpheres spheres{s.particles.x_m, s.particles.y_m, s.particles.z_m,
                                s.particles.radius_m};
  return render_depth(camera, spheres, camera_bodies(s, false));
}

}  // namespace talus::particles
