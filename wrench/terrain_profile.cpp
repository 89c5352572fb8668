#include "wrench/terrain_profile.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace talus::wrench {

TerrainProfile::TerrainProfile(std::vector<Eigen::Vector2d> points_W, const std::string& where)
    : points_(std::move(points_W)) {
  if (points_.size() < 2) {
    throw TerrainError(fmt::format("{}: a terrain profile needs at least 2 points, got {}", where,
                                   points_.size()));
  }
  for (size_t k = 0; k < points_.size(); ++k) {
    if (!points_[k].allFinite()) {
      throw TerrainError(fmt::format("{}: point {} is not finite", where, k));
    }
    if (k > 0 && !(points_[k].x() > points_[k - 1].x())) {
      throw TerrainError(fmt::format(
          "{}: point {} has x = {} m, expected more than the previous point's {} m (x must "
          "increase)",
          where, k, points_[k].x(), points_[k - 1].x()));
    }
  }
}

TerrainProfile TerrainProfile::plane(double slope_rad, double height_m) {
  if (!(std::abs(slope_rad) < M_PI / 2)) {
    throw TerrainError(
        fmt::format("terrain plane: slope {} rad, expected |slope| < pi/2", slope_rad));
  }
  return TerrainProfile({Eigen::Vector2d(-1.0, height_m - std::tan(slope_rad)),
                         Eigen::Vector2d(1.0, height_m + std::tan(slope_rad))},
                        "terrain plane");
}

double TerrainProfile::height_at(double x_m) const {
  size_t k = 1;
  while (k + 1 < points_.size() && x_m > points_[k].x()) ++k;
  const Eigen::Vector2d& a = points_[k - 1];
  const Eigen::Vector2d& b = points_[k];
  return a.y() + (b.y() - a.y()) * (x_m - a.x()) / (b.x() - a.x());
}

SurfacePoint TerrainProfile::closest_point(const Eigen::Vector2d& p_W) const {
  SurfacePoint best{};
  double best_distance = std::numeric_limits<double>::infinity();
  const size_t segments = points_.size() - 1;
  for (size_t k = 0; k < segments; ++k) {
    const Eigen::Vector2d& a = points_[k];
    const Eigen::Vector2d& b = points_[k + 1];
    const Eigen::Vector2d t = (b - a).normalized();
    double s = (p_W - a).dot(t);
    // The first segment extends to -infinity, the last to +infinity (rays).
    if (k > 0) s = std::max(s, 0.0);
    if (k + 1 < segments) s = std::min(s, (b - a).norm());
    const Eigen::Vector2d p_c = a + s * t;
    const double distance = (p_W - p_c).norm();
    if (distance < best_distance) {
      best_distance = distance;
      best.p_WC = p_c;
      best.tangent_W = t;
      // Outward normal: the tangent turned +90 degrees in (x, z) points up (out of the medium).
      best.normal_W = Eigen::Vector2d(-t.y(), t.x());
      best.signed_distance_m = (p_W - p_c).dot(best.normal_W);
      best.slope_rad = std::atan2(t.y(), t.x());
    }
  }
  return best;
}

TerrainProfile read_terrain_profile(const ScenarioTable& table) {
  if (!table.has("terrain_points_m")) {
    return TerrainProfile::plane(
        table.number_or("slope_rad", 0.0, in_open_range(-1.5, 1.5, "[rad]")));
  }
  std::vector<Eigen::Vector2d> points;
  for (const auto& row : table.number_rows("terrain_points_m", 2, any_finite("[m]"))) {
    points.emplace_back(row[0], row[1]);
  }
  try {
    return TerrainProfile(points, "terrain profile");
  } catch (const std::exception& e) {  // TerrainError or std::invalid_argument
    table.fail("terrain_points_m", e.what());
  }
}

ViewHeightmapGrid profile_view_grid(double x_start_m, double y_start_m) {
  constexpr double kCellM = 0.02;
  return ViewHeightmapGrid{201, 51, kCellM, x_start_m - 1.0, y_start_m - 0.5};
}

void profile_view_heights(const TerrainProfile& profile, const ViewHeightmapGrid& grid,
                          std::vector<double>& heights_m) {
  heights_m.clear();
  for (int j = 0; j < grid.ny; ++j) {
    for (int i = 0; i < grid.nx; ++i) {
      heights_m.push_back(profile.height_at(grid.origin_x_m + i * grid.cell_m));
    }
  }
}

}  // namespace talus::wrench
