#pragma once
// Excavation-v0's episodes (paper 001 §III-C) stepped in C++: N environments in one world
// (excavation_world.hpp), each with its own particles, arm configuration (its own MuJoCo data)
// and seeded generator, stepped in one call on threads with Gymnasium's next-step autoreset
// (talus.envs.make_vec). The single environment is a batch of one, so the two give the same bits.
//
// The arm is kinematic, as in the paper: the action's joint velocities are integrated exactly
// (joint angles stop at their ranges) and the bucket pushes the particles as a driven
// signed-distance body; the particles' wrench on the bucket is measured, not fed back.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/splitmix.hpp"
#include "core/wrench.hpp"
#include "particles/particle_step.hpp"
#include "robot/excavation_world.hpp"

namespace talus::robot {

/// Floats per environment in the state observation: joint angles (7) [rad], joint speeds (7)
/// [rad/s], tool position (3) [m] and orientation quaternion (w, x, y, z) (4), and the particles'
/// force (3) [N] and torque about the tool origin (3) [N m] on the bucket, in W, averaged over
/// the env step.
inline constexpr int kExcavationStateSize = 27;

/// One environment of a batch.
struct ExcavationSlot {
  ExcavationSlot(std::shared_ptr<const ExcavationWorld> world);
  SplitMix64 rng;
  particles::ParticleState particles;
  particles::ParticleWorkspace workspace;
  MujocoModel arm;
  JointVector q_rad{}, qdot_rad_per_s{};
  Pose X_WT = Pose::Identity();  ///< the tool now
  Wrench wrench;                 ///< the particles' on the bucket, mean over the last env step
  BucketLoad load;               ///< now
  int steps = 0;                 ///< env steps this episode
  double episode_return = 0.0;
  bool ended = false;  ///< terminated or truncated at the last step: reset at the next one
  /// Why the last episode ended early: the force limit or the floor (terminated), or a divergence
  /// (truncated); empty otherwise.
  std::string stop_reason;
};

/// Where a batch writes observations: per environment, the state (kExcavationStateSize floats)
/// and the sky camera's depths (sky_height x sky_width float32 [m]), environment i at offset i
/// times each block's size.
struct ExcavationObservations {
  float* state = nullptr;
  float* sky = nullptr;
};

class ExcavationEnvBatch {
 public:
  ExcavationEnvBatch(std::shared_ptr<const ExcavationWorld> world, int num_envs);

  /// Seeds environment i with seeds[i] and starts its first episode.
  void reset(std::span<const std::uint64_t> seeds, const ExcavationObservations& out);
  /// Starts environment i on the next episode its generator draws.
  void redraw(int i, const ExcavationObservations& out);

  /// One env step (steps_per_action particle steps) in every environment: actions[7 i .. 7 i + 6]
  /// = joint velocities in [-1, 1] (times max_joint_speed_rad_per_s). All actions are checked
  /// first (std::invalid_argument naming the environment and the value, and then no environment
  /// has moved). Threads as BulldozingEnvBatch::step. An episode terminates when the mean force
  /// on the bucket exceeds force_limit_N or the bucket reaches below the floor, and is truncated
  /// after episode_s or when the particle simulation diverges (the last good state is kept);
  /// the slot's stop_reason says which. Next-step autoreset as in stroke_env_batch.hpp.
  void step(std::span<const double> actions, const ExcavationObservations& out, double* rewards,
            std::uint8_t* terminated, std::uint8_t* truncated, int threads);

  /// The sky camera's depth image of environment i at another size (for pictures).
  DepthImage sky_image(int i, int width_px, int height_px) const;
  /// World positions of the arm's body origins, base to tool (for pictures) [m].
  std::vector<Vec3> arm_points(int i) const;

  int num_envs() const { return static_cast<int>(slots_.size()); }
  int max_steps() const { return max_steps_; }
  const ExcavationWorld& world() const { return *world_; }
  const ExcavationSlot& slot(int i) const { return slots_.at(static_cast<std::size_t>(i)); }

 private:
  void start_episode(ExcavationSlot& s) const;
  void step_one(ExcavationSlot& s, std::span<const double> action,
                const particles::ParticleModel& model, double& reward, std::uint8_t& terminated,
                std::uint8_t& truncated) const;
  void observe(std::size_t i, const ExcavationObservations& out) const;
  std::vector<CameraBody> camera_bodies(const ExcavationSlot& s) const;

  std::shared_ptr<const ExcavationWorld> world_;
  int max_steps_ = 1;
  std::vector<ExcavationSlot> slots_;
};

}  // namespace talus::robot
