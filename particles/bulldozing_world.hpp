#pragma once
// The world of Bulldozing-v0 (paper 001 §III-A): a closed arena with a heap of particles, a toy
// bulldozer driven by track steering (forward speed, yaw rate), a goal box, and the two depth
// cameras of the paper's observation. This file builds the world (its particle model, the settled
// heap every episode starts from, the cameras); bulldozing_env_batch.hpp runs episodes in it.
//
// Frames: world W with z_W up and the arena floor at z = 0; the bulldozer's body frame B has x_B
// forward, y_B left, z_B up and its origin on the ground under the middle of the tracks.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <numbers>
#include <string>

#include "particles/depth_camera.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"

namespace talus::particles {

/// Everything Bulldozing-v0's options set. Defaults are the issue's: 10,000 particles of 2 cm in
/// an 8 m x 4 m arena, a 1 ms step, 100 steps per action, 60 s episodes.
struct BulldozingOptions {
  std::filesystem::path mesh_path;  ///< the bulldozer (OBJ/STL, closed, frame B) (required)
  double mesh_sdf_cell_m = 0.02;    ///< its signed-distance grid's cell [m], > 0

  std::size_t particle_count = 10000;  ///< 1 .. 200,000
  double particle_radius_m = 0.02;     ///< > 0
  double density_kg_per_m3 = 1631.0;   ///< > 0
  double friction = 0.5;               ///< particle-particle, particle-wall and particle-body
  /// Whether grains rotate (ParticleModel::rotation). false, the default, is paper 001's model,
  /// the one its environments were built on (and the baselines in docs/envs.md were measured in).
  bool rotation = false;
  double rolling_friction = 0.0;  ///< rolling friction coefficient (rotation only)
  double heap_slope_deg = 25.0;   ///< the initial lattice cone's side slope, in (0, 45] [deg]

  double time_step_s = 1e-3;   ///< particle step [s], > 0
  int steps_per_action = 100;  ///< particle steps per env step (0.1 s of simulation), >= 1
  int iterations = 3;          ///< Projected Jacobi sweeps per step, >= 1
  /// The neighbour list's skin in particle radii (ParticleModel::neighbour_skin_radii; results
  /// are the same bits for any skin, only the speed changes).
  double neighbour_skin_radii = 0.6;  // measured: 0.25 s per pushing step against 0.33 at 0.3
  double episode_s = 60.0;            ///< simulated time of an episode [s], > 0

  /// "kinematic": paper 001's bulldozer, following the command exactly; "dynamic": a MuJoCo body
  /// (vehicle_mjcf_path) whose wheels push on the floor and which feels the particles
  /// (robot/dynamic_bulldozer.hpp).
  std::string vehicle = "kinematic";
  std::filesystem::path vehicle_mjcf_path;  ///< the dynamic vehicle (its body frame = the mesh's)

  double max_speed_m_per_s = 1.0;       ///< forward speed at action[0] = +-1, > 0
  double max_yaw_rate_rad_per_s = 1.5;  ///< yaw rate at action[1] = +-1, > 0

  double arena_length_m = 8.0;  ///< x_W in [-L/2, L/2], > 0
  double arena_width_m = 4.0;   ///< y_W in [-W/2, W/2], > 0
  double wall_height_m = 2.0;   ///< > the heap's height
  Vec2 heap_centre_m{-2.0, 0.0};
  /// Each reset moves the settled heap by a uniform offset within +- this in x and y [m], >= 0.
  double heap_offset_m = 0.25;
  Vec2 goal_lo_m{1.0, -1.0};  ///< goal box (x, y) lower corner [m]
  Vec2 goal_hi_m{3.0, 1.0};   ///< upper corner [m]
  /// The bulldozer starts at a uniform (x, y) in this box [m] ...
  Vec2 start_lo_m{0.2, -1.2};
  Vec2 start_hi_m{0.8, 1.2};
  /// ... and a heading uniform in [-start_yaw_max_rad, start_yaw_max_rad], in [0, pi] [rad].
  double start_yaw_max_rad = std::numbers::pi;

  int ego_width_px = 36, ego_height_px = 36;  ///< the ego camera (paper 001 Fig. 7)
  double ego_fov_y_rad = 1.2;
  double ego_pitch_down_rad = 0.35;           ///< below x_B
  Vec3 p_BC_ego_m{0.0, 0.0, 0.42};            ///< its mount: the cab's front window [m]
  double ego_max_range_m = 6.0;               ///< farther (and nothing seen) reads as this [m]
  int sky_width_px = 72, sky_height_px = 36;  ///< the sky camera over the whole arena
  double sky_camera_z_m = 1.5;                ///< the sky camera's plane: depth = this - height [m]

  int threads = 0;  ///< threads of the settling run; 0: the OpenMP default
};

/// Throws std::invalid_argument naming the option and what was expected.
void validate(const BulldozingOptions& options);

/// The fixed parts of the world, shared read-only by every environment of a batch.
struct BulldozingWorld {
  BulldozingOptions options;
  ParticleModel model;           ///< arena box container, the bulldozer as body 0
  ParticleState settled_heap;    ///< the heap at rest (the bulldozer parked away from it)
  double bounding_radius_m = 0;  ///< of the bulldozer's footprint about B's origin [m]
  long settle_steps = 0;         ///< steps the heap took to come to rest
  SkyCamera sky;
  std::vector<CameraBody> scenery;  ///< what the cameras see besides particles: floor and walls
};

/// Builds the world: loads the mesh (std::invalid_argument naming the file when it is missing or
/// not closed), fills a lattice cone of options.particle_count particles around heap_centre_m and
/// settles it (at most 4 s of simulation). Deterministic.
std::shared_ptr<const BulldozingWorld> make_bulldozing_world(const BulldozingOptions& options);

/// The bulldozer's pose on the floor at (x, y) with heading yaw.
Pose bulldozer_pose(double x_m, double y_m, double yaw_rad);

/// The ego camera of a bulldozer at X_WB.
PerspectiveCamera ego_camera(const BulldozingOptions& options, const Pose& X_WB);

/// Paper 001's per-step reward: (1/n) sum over particles of 100 for a centre inside the goal box
/// (in x, y), else minus its distance to the box [m]. Also counts the particles inside.
struct GoalScore {
  double reward = 0.0;
  std::size_t inside = 0;
};
GoalScore goal_score(const BulldozingOptions& options, const ParticleState& state);

}  // namespace talus::particles
