#pragma once
// One foot against the terrain profile (paper 000 §III-C): where its bottom centre p_center and
// reference point p_r are, how deep it is and how it is tilted, and the configuration
// theta = (d, phi) the wrench sets are predicted at. Shared by the implicit whole-robot step
// (wrench_contact_step.hpp) and the explicit coupling tier (wrench_space_tier.hpp), so both read
// the same theta from the same pose.

#include <Eigen/Dense>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/wrench.hpp"
#include "wrench/terrain_profile.hpp"
#include "wrench/wrench_set_predictor.hpp"

namespace talus::wrench {

/// A step that cannot go on: infeasible or ill-posed contact QP, NaN state. The message names the
/// step, the simulated time and the feet involved.
class WrenchStepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One foot at one step.
struct FootContact {
  bool in_contact = false;
  double depth_m = 0.0;   ///< d: signed distance of p_center from the surface (< 0 below) [m]
  double tilt_rad = 0.0;  ///< phi: foot axis from the surface normal, + towards x_c [rad]
  /// d at the data's depth reference (WrenchSetPredictor::configuration_depth): depth_m, or the
  /// lowest point's depth; < 0 is contact [m]
  double configuration_depth_m = 0.0;
  bool clamped = false;  ///< theta was outside the sampled range (or |phi| > pi/2)
  /// theta = (d, phi) given to the predictor: phi clamped to [-pi/2, pi/2], then both into the
  /// sampled range (equal to (depth_m, tilt_rad) when not clamped).
  Eigen::Vector2d theta = Eigen::Vector2d::Zero();
  double slope_rad = 0.0;  ///< surface tangent x_c from world +x towards +z [rad]
  Eigen::Vector2d p_WCenter = Eigen::Vector2d::Zero();  ///< p_center (x, z) [m]
  Eigen::Vector2d p_WR = Eigen::Vector2d::Zero();       ///< p_r (x, z) [m]
  /// The terrain's wrench on the foot about p_r, world axes; planar, so only f_x, f_z and tau_y
  /// are non-zero. Zero off contact.
  Wrench wrench;
};

/// The foot whose frame F has its origin (the bottom centre) at p_WCenter and its axes R_WF (z
/// along the foot's axis), in the world x-z plane of `terrain`. phi clamped as the paper does
/// (|phi| <= pi/2); in contact when the depth at the predictor's reference point is < 0; theta
/// then clamped into the predictor's sampled ranges. The wrench is left zero.
FootContact foot_contact(const TerrainProfile& terrain, const WrenchSetPredictor& predictor,
                         const Eigen::Vector3d& p_WCenter, const Eigen::Matrix3d& R_WF);

/// How far below the predictor's deepest sampled depth a foot may be before the step stops
/// [m]: `margin_m`, or half the sampled depth span when `margin_m` < 0 (the default). Beyond the
/// data W(theta) is clamped to the deepest sets, which resist less than the grains deeper down
/// would, so a foot far past them sinks through the surface with nothing to report it.
double depth_beyond_data_limit_m(const WrenchSetPredictor& predictor, double margin_m);

/// Why `foot` stops the step: "foot '<name>' is ... m deep ..." when it is in contact deeper than
/// the predictor's deepest sampled depth by more than `limit_m`; empty otherwise (the common case
/// costs a comparison: the step calls this for every foot at every step).
std::optional<std::string> depth_beyond_data(const FootContact& foot,
                                             const WrenchSetPredictor& predictor, double limit_m,
                                             const std::string& name);

/// A planar wrench (f_x, f_z, tau_y) [N, N, N m] about the world point p_WR [m] as a
/// talus::Wrench (f_y, tau_x and tau_z zero).
Wrench planar_wrench(const Eigen::Vector3d& w_xz_y, const Vec3& p_WR);

/// The planar components (f_x, f_z, tau_y) of a wrench.
Eigen::Vector3d planar_components(const Wrench& w);

}  // namespace talus::wrench
