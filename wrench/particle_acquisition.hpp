#pragma once
// Wrench-space data from the particle tier (paper 000 §III-B2): a cylindrical foot is pushed into
// a settled particle bed and moved at a constant twist along a path that passes the target
// configuration theta = (depth d, tilt phi) at 0.8 of the path's duration; the particles' reaction
// wrench about p_r is low-pass filtered and read at that instant. This is the WrenchMeasurer that
// acquire_database() calls for every run (wrench/wrench_database.hpp).
//
// Frames: the bed is flat, so the contact frame F_c has the world's axes (x_c = x_W, z_c = z_W)
// and F_r is F_c moved to p_r. The foot's axis is z_B; p_r lies on it reference_height_m above the
// bottom centre p_center; tilt phi is the rotation about +y_W from the surface normal to the axis
// (positive when the axis leans towards +x, as in wrench_contact_step.hpp).
//
// Velocity: a run's velocity (planar (v_x, v_z, omega_y), spatial (v, omega)) is the twist of the
// point p_r, dual to the wrench about p_r: p_r moves in a straight line at v and the foot turns
// about p_r at omega. Depth d is p_center's height below the free surface.

#include <Eigen/Dense>
#include <vector>

#include "core/pose.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/particle_step.hpp"
#include "wrench/wrench_database.hpp"

namespace talus::wrench {

/// The foot and how a run moves it; all lengths in metres, times in seconds.
struct FootPath {
  double foot_radius_m = 0.03;           ///< cylinder radius, > 0
  double foot_length_m = 0.5;            ///< cylinder length along its axis, > 0
  double reference_height_m = 0.25;      ///< p_r above p_center on the axis (paper: 0.25 m)
  Vec2 target_xy_m = Vec2::Zero();       ///< where p_center is when the path passes theta
  double duration_s = 0.5;               ///< t_total of the constant-velocity part, > 0
  double insertion_speed_m_per_s = 0.2;  ///< vertical speed from above the bed to the start, > 0
  double clearance_m = 0.005;            ///< the insertion starts this far above the surface, >= 0
  /// Width of the centred moving average read at the target instant (the low-pass filter of
  /// §III-B2 step 4; zero phase, so it does not shift the reading in time), > 0.
  double filter_window_s = 0.1;
};

/// A settled bed to measure in: every run starts from a copy of it (the paper's "prepare the
/// substrate in a consistent manner").
struct SettledBed {
  particles::ParticleModel model;  ///< without the foot; the foot is appended as the last body
  particles::ParticleState state;
  particles::ParticleWorkspace workspace;  ///< the settling's workspace (warm starts)
  double surface_z_m = 0.0;                ///< free surface (particles::free_surface_z_m)
  long settle_steps = 0;                   ///< steps the settling took
};

/// One run's recorded wrenches (F_r components, one row per step) and its timeline.
struct AcquisitionTrace {
  std::vector<double> t_s;  ///< time since the start of the constant-velocity part [s]
  std::vector<Eigen::VectorXd> wrench;
  double target_time_s = 0.0;  ///< 0.8 duration_s
  Eigen::VectorXd filtered;    ///< the reading at target_time_s
  long insertion_steps = 0;
};

/// Pose of the foot's body frame (origin at the cylinder's centre, z_B its axis) when p_center is
/// at (xy, surface_z + depth) and the axis is tilted by tilt_rad about +y_W.
Pose foot_pose_at(const FootPath& path, double surface_z_m, double depth_m, double tilt_rad);

/// The planar (D = 3) or spatial (D = 6) velocity of a run as a twist of p_r in world axes:
/// (v, omega).
std::pair<Vec3, Vec3> run_twist(const Eigen::VectorXd& velocity);

/// The wrench about p_r in F_r as the database stores it: planar (f_x, f_z, tau_y), spatial
/// (f, tau).
Eigen::VectorXd database_components(const Wrench& w_about_pr, int dimension);

/// Throws std::invalid_argument naming the run and the time when the foot's part in the sand
/// (below surface_z_m, the free surface) would reach the container's side walls during the run's
/// constant-velocity part (time step dt_s): a tilted foot's buried length counts, not only its
/// bottom disc. The scenario reader
/// calls it for every planned run before the bed is settled, measure_in_particles again.
void check_run_inside_walls(const particles::Container& container, const FootPath& path,
                            const AcquisitionRun& run, double surface_z_m, double dt_s);

/// Performs one run and returns its filtered wrench (D components). Throws std::invalid_argument
/// when the path is bad or the foot would leave the container during the run (naming the run's
/// configuration and direction), and particles::ParticleDivergence when the bed diverges.
Eigen::VectorXd measure_in_particles(const SettledBed& bed, const FootPath& path,
                                     const AcquisitionRun& run, AcquisitionTrace* trace = nullptr);

/// Throws std::invalid_argument naming the field when a FootPath value is out of range.
void validate(const FootPath& path);

}  // namespace talus::wrench
