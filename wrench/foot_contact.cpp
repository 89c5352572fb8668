// One foot against the terrain profile: theta = (d, phi) and its clamping (foot_contact.hpp).

#include "wrench/foot_contact.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace talus::wrench {

FootContact foot_contact(const TerrainProfile& terrain, const WrenchSetPredictor& predictor,
                         const Eigen::Vector3d& p_WCenter, const Eigen::Matrix3d& R_WF) {
  const Eigen::Vector3d p_WR = p_WCenter + R_WF * predictor.reference_point_m();
  const Eigen::Vector2d axis_W(R_WF(0, 2), R_WF(2, 2));
  FootContact foot;
  foot.p_WCenter = Eigen::Vector2d(p_WCenter.x(), p_WCenter.z());
  foot.p_WR = Eigen::Vector2d(p_WR.x(), p_WR.z());
  foot.wrench = Wrench::about(p_WR);
  const SurfacePoint surface = terrain.closest_point(foot.p_WCenter);
  foot.slope_rad = surface.slope_rad;
  foot.depth_m = surface.signed_distance_m;
  foot.tilt_rad = std::atan2(axis_W.dot(surface.tangent_W), axis_W.dot(surface.normal_W));
  // phi in [-pi/2, pi/2] (the paper's clamp), the depth at the data's reference point of the
  // foot (its lowest point, or the bottom centre as in the paper), then theta into the sampled box.
  const double phi = std::clamp(foot.tilt_rad, -M_PI / 2, M_PI / 2);
  foot.configuration_depth_m = predictor.configuration_depth(foot.depth_m, phi);
  foot.in_contact = foot.configuration_depth_m < 0.0;
  if (!foot.in_contact) return foot;
  const Eigen::Vector2d depth_range = predictor.depth_range();
  const Eigen::Vector2d tilt_range = predictor.tilt_range();
  const double depth = std::clamp(foot.configuration_depth_m, depth_range[0], depth_range[1]);
  const double tilt = std::clamp(phi, tilt_range[0], tilt_range[1]);
  foot.clamped = depth != foot.configuration_depth_m || tilt != foot.tilt_rad;
  foot.theta = Eigen::Vector2d(depth, tilt);
  return foot;
}

double depth_beyond_data_limit_m(const WrenchSetPredictor& predictor, double margin_m) {
  if (margin_m >= 0.0) return margin_m;
  const Eigen::Vector2d range = predictor.depth_range();
  return 0.5 * (range[1] - range[0]);
}

std::optional<std::string> depth_beyond_data(const FootContact& foot,
                                             const WrenchSetPredictor& predictor, double limit_m,
                                             const std::string& name) {
  const double deepest = predictor.depth_range()[0];
  if (!foot.in_contact || foot.configuration_depth_m >= deepest - limit_m) return std::nullopt;
  return fmt::format(
      "foot '{}' is {:.4g} m deep (tilt {:.4g} rad), {:.4g} m below the wrench-space data's "
      "deepest {:.4g} m, more than the {:.4g} m allowed: the clamped data cannot hold it and it "
      "would sink through the surface; use data measured deeper or a lighter robot, or set "
      "[simulation] depth_beyond_data_m",
      name, foot.configuration_depth_m, foot.tilt_rad, deepest - foot.configuration_depth_m,
      deepest, limit_m);
}

Wrench planar_wrench(const Eigen::Vector3d& w_xz_y, const Vec3& p_WR) {
  return Wrench{Vec3(w_xz_y[0], 0.0, w_xz_y[1]), Vec3(0.0, w_xz_y[2], 0.0), p_WR};
}

Eigen::Vector3d planar_components(const Wrench& w) {
  return Eigen::Vector3d(w.f_W.x(), w.f_W.z(), w.tau_W.y());
}

}  // namespace talus::wrench
