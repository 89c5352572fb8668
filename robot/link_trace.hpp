#pragma once
// What a robots-tier run without a drive report ([report] absent: a walker, a dropped foot)
// records: each coupled link's position and pitch over time, written as links.csv and links.png
// (height and pitch against time), and summarised by the final pose, the path length and whether
// the robot came to rest.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "core/contact_tier.hpp"

namespace talus::robot {

class LinkTrace {
 public:
  /// A speed below this [m/s], and an angular speed below this [rad/s], at the end counts as at
  /// rest.
  static constexpr double kRestSpeed = 1e-3;

  explicit LinkTrace(std::vector<std::string> link_names);

  /// Records the links' motions (one per link, in order; the body frames) at time t_s [s].
  void add(double t_s, std::span<const BodyMotion> motions);

  /// Writes links.csv (t_s, then per link x_m, y_m, z_m, pitch_rad, speed_m_per_s) and links.png
  /// into `dir` (which must exist).
  void write(const std::filesystem::path& dir, const std::string& title) const;

  /// Per link: final position [m], final pitch [rad], path length [m], final speed [m/s] and
  /// angular speed [rad/s]; and whether every link came to rest.
  nlohmann::json summary() const;

 private:
  struct Sample {
    double x_m, y_m, z_m, pitch_rad, speed_m_per_s, angular_speed_rad_per_s;
  };
  std::vector<std::string> names_;
  std::vector<double> t_s_;
  std::vector<std::vector<Sample>> samples_;  // per link
};

/// The pitch of a pose [rad]: the rotation about world y that tips its z axis towards +x (0 for
/// an upright frame).
double pitch_of(const Pose& X_WB);

}  // namespace talus::robot
