#pragma once
// The terrain surface the wrench-space step tests each foot against (paper 000, §III-C): a planar
// profile z(x) in the world x-z plane, piecewise linear through given points, the end segments
// extended as rays. Two points give a plane of any slope; many give a heightmap profile (e.g. a
// slope that flattens, §IV-C3). The medium lies below the profile.

#include <Eigen/Dense>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/scenario_file.hpp"
#include "core/view_recorder.hpp"

namespace talus::wrench {

class TerrainError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Closest point of the surface to a query point, with the local contact frame F_c.
struct SurfacePoint {
  Eigen::Vector2d p_WC;  ///< closest surface point (x, z) [m]
  Eigen::Vector2d
      normal_W;  ///< unit outward normal z_c in world (x, z), pointing out of the medium
  Eigen::Vector2d tangent_W;  ///< unit tangent x_c in world (x, z), x_c = (n_z, -n_x) (+x side)
  double signed_distance_m;   ///< (p - p_WC) . normal_W: negative below the surface [m]
  double slope_rad;           ///< angle of x_c from world +x towards +z [rad]
};

class TerrainProfile {
 public:
  /// Points (x_k, z_k) in world [m] with strictly increasing x; at least two. `where` prefixes
  /// errors (e.g. the scenario file and key).
  explicit TerrainProfile(std::vector<Eigen::Vector2d> points_W,
                          const std::string& where = "terrain");
  /// A straight line through (0, height_m) rising at slope_rad towards +x.
  static TerrainProfile plane(double slope_rad, double height_m = 0.0);

  const std::vector<Eigen::Vector2d>& points() const { return points_; }
  /// Surface height z(x) [m].
  double height_at(double x_m) const;
  /// The closest surface point to p_W = (x, z) and the contact frame there. Among the segments
  /// (end ones as rays), the nearest wins; ties go to the lower index, which keeps it
  /// deterministic.
  SurfacePoint closest_point(const Eigen::Vector2d& p_W) const;

 private:
  std::vector<Eigen::Vector2d> points_;
};

/// The profile a scenario table gives: terrain_points_m = [[x, z], ...] (strictly increasing x)
/// or slope_rad (a plane through the origin, in (-1.5, 1.5) rad; default 0, flat at z = 0). Bad
/// input fails with a ScenarioError naming the key.
TerrainProfile read_terrain_profile(const ScenarioTable& table);

/// The grid on which `talus view` draws a profile (a function of x only: the tier is planar): 2 cm
/// nodes from 1 m behind x_start_m to 3 m ahead, 1 m wide in y about y_start_m.
ViewHeightmapGrid profile_view_grid(double x_start_m, double y_start_m);

/// The profile's heights on `grid` (row-major, iy nx + ix), into `heights_m`.
void profile_view_heights(const TerrainProfile& profile, const ViewHeightmapGrid& grid,
                          std::vector<double>& heights_m);

}  // namespace talus::wrench
