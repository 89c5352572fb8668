#pragma once
// The world of Excavation-v0 (paper 001 §III-C): a 7-joint arm with the Franka Emika Panda's
// kinematics (robots/panda_bucket/panda_bucket.xml) carrying a bucket (bucket.obj, a gridded
// signed-distance body in the flange frame) over a tub of particles. This file builds the world
// (the arm's model, the particle model, the settled bed every episode starts from, the sky
// camera); excavation_env_batch.hpp runs episodes in it.
//
// Frames: world W with z_W up, the floor at z = 0 and the arm's base at the origin; the tool
// frame T is the arm's flange frame (body "flange"), z_T along the flange axis, and the bucket's
// mesh is given in T.

#include <array>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "particles/depth_camera.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "robot/mujoco_model.hpp"

namespace talus::robot {

inline constexpr int kArmJoints = 7;
using JointVector = std::array<double, kArmJoints>;

/// Everything Excavation-v0's options set. Defaults: 3,000 particles of 1.25 cm in a
/// 0.6 m x 0.6 m tub in front of the arm, a 1 ms step, 50 steps per action (0.05 s), 10 s
/// episodes.
struct ExcavationOptions {
  std::filesystem::path arm_path;          ///< the arm's MJCF (7 hinge joints) (required)
  std::filesystem::path bucket_mesh_path;  ///< the bucket (OBJ/STL, closed, frame T) (required)
  std::string tool_body = "flange";        ///< the arm's body the bucket is fixed to
  double bucket_sdf_cell_m = 0.01;         ///< the bucket's signed-distance grid cell [m], > 0

  std::size_t particle_count = 3000;  ///< 1 .. 200,000
  double particle_radius_m = 0.0125;  ///< > 0
  double density_kg_per_m3 = 1631.0;  ///< > 0
  double friction = 0.5;              ///< particle-particle, particle-wall and particle-body
  /// Whether grains rotate (ParticleModel::rotation). false, the default, is paper 001's model,
  /// the one its environments were built on (and the baselines in docs/envs.md were measured in).
  bool rotation = false;
  double rolling_friction = 0.0;  ///< rolling friction coefficient (rotation only)

  double time_step_s = 1e-3;          ///< particle step [s], > 0
  int steps_per_action = 50;          ///< particle steps per env step (0.05 s), >= 1
  int iterations = 3;                 ///< Projected Jacobi sweeps per step, >= 1
  double neighbour_skin_radii = 0.6;  ///< ParticleModel::neighbour_skin_radii, >= 0
  double episode_s = 10.0;            ///< simulated time of an episode [s], > 0

  /// Joint speed at action = +-1 [rad/s], > 0 (the Panda's own limits are 2.175 rad/s for joints
  /// 1-4 and 2.61 rad/s for 5-7; the default keeps the bucket slow enough for the bed).
  double max_joint_speed_rad_per_s = 1.0;
  /// The episode starts at these joint angles [rad] plus a uniform draw in +- start_noise_rad.
  /// The default puts the flange at (0.42, 0, 0.46) m pointing down, the bucket level with its lip
  /// along +x_W, about 0.12 m above the bed.
  JointVector start_joint_rad{0.0, -0.41, 0.0, -2.42, 0.0, 2.01, 0.0};
  double start_noise_rad = 0.05;  ///< >= 0

  Vec2 tub_lo_m{0.25, -0.3};       ///< the tub's inside (x, y) lower corner [m]
  Vec2 tub_hi_m{0.85, 0.3};        ///< upper corner [m]
  double tub_wall_height_m = 0.2;  ///< > the bed's height [m]

  /// Reward per step = mass held [kg] (particles inside the bucket and wholly above the settled
  /// bed's top) + shaping_weight x mass inside the bucket anywhere [kg]; >= 0.
  double shaping_weight = 0.1;
  /// The episode terminates when the particles' force on the bucket, averaged over an env step,
  /// exceeds this [N] (paper 001 §III-C's proposed mitigation for the Panda's low force), > 0.
  /// The force on a kinematic bucket cutting rigid grains is solver-dependent (docs/envs.md
  /// measures it): the scripted scoop peaks at 1.6 kN with the defaults, ramming the bed at
  /// 0.3 m/s at 6-14 kN; the default lets the first through and stops the second.
  double force_limit_N = 2500.0;

  int sky_width_px = 32, sky_height_px = 32;  ///< the sky camera over the tub
  double sky_camera_z_m = 1.5;                ///< its plane: depth = this - height [m]

  int threads = 0;  ///< threads of the settling run; 0: the OpenMP default
};

/// Throws std::invalid_argument naming the option and what was expected.
void validate(const ExcavationOptions& options);

/// The bucket's cavity in T: particles whose centres are in it count as in the bucket.
struct BucketCavity {
  Vec3 lo_T = Vec3::Zero(), hi_T = Vec3::Zero();
};

/// The fixed parts of the world, shared read-only by every environment of a batch.
struct ExcavationWorld {
  ExcavationOptions options;
  JointVector joint_lo_rad{}, joint_hi_rad{};  ///< the MJCF's joint ranges
  int tool_body_id = 0;                        ///< MuJoCo body id of options.tool_body
  std::vector<int> joint_qpos;                 ///< qpos address of each of the 7 joints
  particles::ParticleModel model;  ///< body 0: the bucket; bodies 1-4: the tub's walls (static)
  particles::ParticleState settled_bed;  ///< the bed at rest, the bucket at the start pose
  double bed_top_m = 0.0;                ///< the settled bed's highest particle top [m]
  long settle_steps = 0;
  std::array<Vec3, 8> bucket_corners_T{};  ///< the bucket mesh's bounding-box corners in T [m]
  BucketCavity cavity;
  SkyCamera sky;
  std::vector<CameraBody> scenery;  ///< floor and tub walls, for the cameras
};

/// Builds the world: loads the arm (RobotError naming the file) and the bucket
/// (std::invalid_argument naming the file when it is missing or not closed), fills the tub with
/// a jittered lattice of options.particle_count particles and settles it (at most 3 s).
/// Deterministic.
std::shared_ptr<const ExcavationWorld> make_excavation_world(const ExcavationOptions& options);

/// Puts the arm at joint angles q (qpos only) and computes its positions (mj_kinematics); returns
/// the tool pose X_WT.
Pose set_arm_configuration(const ExcavationWorld& world, MujocoModel& arm, const JointVector& q);

/// The tool's twist for joint speeds qdot at the configuration last set (the tool body's
/// Jacobian, mj_jacBody, times qdot).
Twist tool_twist(const ExcavationWorld& world, MujocoModel& arm, const JointVector& qdot);

/// The bodies' motions for a particle step: the bucket at X_WT with twist V, the walls at rest.
std::vector<BodyMotion> excavation_motions(const ExcavationWorld& world, const Pose& X_WT,
                                           const Twist& V_WT);

/// Mass [kg] of particles in the bucket's cavity, and of those wholly above the bed's top.
struct BucketLoad {
  double in_bucket_kg = 0.0;
  double held_kg = 0.0;
  std::size_t in_bucket = 0, held = 0;  ///< particle counts
};
BucketLoad bucket_load(const ExcavationWorld& world, const particles::ParticleState& state,
                       const Pose& X_WT);

}  // namespace talus::robot
