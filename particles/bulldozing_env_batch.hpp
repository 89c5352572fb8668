#pragma once
// Bulldozing-v0's episodes (paper 001 §III-A) stepped in C++: N environments in one world
// (bulldozing_world.hpp), each with its own particles, bulldozer pose and seeded generator,
// stepped in one call on threads with Gymnasium's next-step autoreset (talus.envs.make_vec).
// The single environment is a batch of one, so the two give the same bits.
//
// The bulldozer is kinematic, as in the paper: it follows the commanded track steering exactly
// (a unicycle: forward speed along x_B, yaw rate about z_W) and pushes the particles as a driven
// signed-distance body; it stops at the arena's walls.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/splitmix.hpp"
#include "particles/bulldozing_world.hpp"
#include "particles/particle_step.hpp"

namespace talus::particles {

/// One environment of a batch.
struct BulldozingSlot {
  SplitMix64 rng;
  ParticleState particles;
  ParticleWorkspace workspace;
  double x_m = 0.0, y_m = 0.0, yaw_rad = 0.0;  ///< the bulldozer on the floor
  int steps = 0;                               ///< env steps this episode
  std::size_t in_goal = 0;                     ///< particles inside the goal box now
  double episode_return = 0.0;
  bool ended = false;  ///< terminated or truncated at the last step: reset at the next one
  /// Why the last episode was cut short by the simulation (a divergence), else empty.
  std::string stop_reason;
};

/// Where a batch writes observations: per environment, ego (ego_height x ego_width float32
/// depths [m]), sky (sky_height x sky_width float32 depths [m]) and pose (x [m], y [m], yaw [rad]),
/// environment i at offset i times each block's size.
struct BulldozingObservations {
  float* ego = nullptr;
  float* sky = nullptr;
  float* pose = nullptr;
};

class BulldozingEnvBatch {
 public:
  BulldozingEnvBatch(std::shared_ptr<const BulldozingWorld> world, int num_envs);

  /// Seeds environment i with seeds[i] and starts its first episode.
  void reset(std::span<const std::uint64_t> seeds, const BulldozingObservations& out);
  /// Starts environment i on the next episode its generator draws.
  void redraw(int i, const BulldozingObservations& out);

  /// One env step (steps_per_action particle steps) in every environment: actions[2 i], [2 i + 1]
  /// = (forward, yaw) in [-1, 1]. All actions are checked first (std::invalid_argument naming
  /// the environment and the value, and then no environment has moved). Environments run in
  /// parallel on up to `threads` threads, or one after another with the particle step on all of
  /// them when there are fewer environments than threads; results do not depend on it. An
  /// episode is truncated after episode_s; a diverging simulation truncates it too, keeps the
  /// last good state and says why in the slot's stop_reason. Next-step autoreset as in
  /// stroke_env_batch.hpp.
  void step(std::span<const double> actions, const BulldozingObservations& out, double* rewards,
            std::uint8_t* terminated, std::uint8_t* truncated, int threads);

  /// The sky camera's depth image of environment i at another size (for pictures).
  DepthImage sky_image(int i, int width_px, int height_px) const;

  int num_envs() const { return static_cast<int>(slots_.size()); }
  int max_steps() const { return max_steps_; }
  const BulldozingWorld& world() const { return *world_; }
  const BulldozingSlot& slot(int i) const { return slots_.at(static_cast<std::size_t>(i)); }

 private:
  void start_episode(BulldozingSlot& s) const;
  void step_one(BulldozingSlot& s, double forward, double yaw, const ParticleModel& model,
                double& reward, std::uint8_t& terminated, std::uint8_t& truncated) const;
  void observe(std::size_t i, const BulldozingObservations& out) const;
  std::vector<CameraBody> camera_bodies(const BulldozingSlot& s, bool walls) const;

  std::shared_ptr<const BulldozingWorld> world_;
  int max_steps_ = 1;
  std::vector<BulldozingSlot> slots_;
};

}  // namespace talus::particles
