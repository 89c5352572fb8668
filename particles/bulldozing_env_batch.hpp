#pragma once
// Bulldozing-v0's episodes (paper 001 §III-A) stepped in C++: N environments in one world
// (bulldozing_world.hpp), each with its own particles, bulldozer pose and seeded generator,
// stepped in one call on threads with Gymnasium's next-step autoreset (talus.envs.make_vec).
// The single environment is a batch of one, so the two give the same bits.
//
// The bulldozer is a BulldozerVehicle: kinematic by default, as in the paper (it follows the
// commanded track steering exactly and pushes the particles as a driven signed-distance body), or
// any other vehicle a factory makes (robot/dynamic_bulldozer.hpp: a MuJoCo body whose wheels push
// on the floor and which feels the particles' reaction).

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/splitmix.hpp"
#include "particles/bulldozing_world.hpp"
#include "particles/particle_step.hpp"

namespace talus::particles {

/// How the bulldozer moves, one per environment. A step reads: drive() takes the command and
/// gives the body's pose and twist for the particle step, the particles step, advance() completes
/// the vehicle's step under the particles' wrench on its body.
class BulldozerVehicle {
 public:
  virtual ~BulldozerVehicle() = default;
  /// Puts the vehicle at rest on the floor at (x, y) [m] with heading yaw [rad].
  virtual void place(double x_m, double y_m, double yaw_rad) = 0;
  /// Takes the command (forward, yaw rate in [-1, 1]) for the next dt_s and returns the body's
  /// pose and twist at the start of the step.
  virtual BodyMotion drive(double forward, double yaw, double dt_s) = 0;
  /// Completes the step: on_body is the particles' wrench on the body over it. Returns why the
  /// vehicle's own simulation failed (the episode is then truncated with it), or "" (must not
  /// throw: batches step vehicles on threads).
  virtual std::string advance(const Wrench& on_body, double dt_s) = 0;
  /// The body's pose X_WB now.
  virtual Pose pose() const = 0;
  /// (x [m], y [m], yaw [rad] in (-pi, pi]) of the body frame on the floor now.
  virtual Vec3 planar_pose() const = 0;
};

/// Makes one vehicle for an environment of this world.
using VehicleFactory = std::function<std::unique_ptr<BulldozerVehicle>(const BulldozingWorld&)>;

/// Paper 001's kinematic bulldozer: a unicycle that follows the command exactly (forward speed
/// along x_B, yaw rate about z_W; the twist is the motion made) and stops at the arena's walls
/// (its centre stays a bounding radius inside them). The particles' wrench moves nothing.
class KinematicBulldozer final : public BulldozerVehicle {
 public:
  explicit KinematicBulldozer(const BulldozingWorld& world);
  void place(double x_m, double y_m, double yaw_rad) override;
  BodyMotion drive(double forward, double yaw, double dt_s) override;
  std::string advance(const Wrench& on_body, double dt_s) override;
  Pose pose() const override { return bulldozer_pose(x_m_, y_m_, yaw_rad_); }
  Vec3 planar_pose() const override { return Vec3(x_m_, y_m_, yaw_rad_); }

 private:
  const BulldozingOptions& options_;
  double x_lim_m_, y_lim_m_;
  double x_m_ = 0.0, y_m_ = 0.0, yaw_rad_ = 0.0;
  double next_x_m_ = 0.0, next_y_m_ = 0.0, next_yaw_rad_ = 0.0;  // after the driven step
};

/// One environment of a batch.
struct BulldozingSlot {
  SplitMix64 rng;
  ParticleState particles;
  ParticleWorkspace workspace;
  std::unique_ptr<BulldozerVehicle> vehicle;
  double x_m = 0.0, y_m = 0.0, yaw_rad = 0.0;  ///< the bulldozer on the floor (planar_pose())
  Wrench body_wrench;       ///< the particles' on the bulldozer at the last particle step
  int steps = 0;            ///< env steps this episode
  std::size_t in_goal = 0;  ///< particles inside the goal box now
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
  /// `vehicle` makes each environment's bulldozer (default: KinematicBulldozer, paper 001's;
  /// robot/dynamic_bulldozer.hpp has a MuJoCo body that feels the particles).
  BulldozingEnvBatch(std::shared_ptr<const BulldozingWorld> world, int num_envs,
                     const VehicleFactory& vehicle = {});

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
