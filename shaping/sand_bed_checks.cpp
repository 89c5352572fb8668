#include "shaping/sand_bed_checks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace talus::shaping {

void require_bed_field(bool ok, const char* bed, const char* field, const char* expected,
                       double got) {
  if (!ok) {
    throw std::invalid_argument(
        fmt::format("{}: {} must be {}, got {}", bed, field, expected, got));
  }
}

void validate_sand_and_blade(const char* bed, double cell_size_m, double sand_height_m,
                             double trench_depth_m, double blade_thickness_m,
                             double repose_angle_rad, double erosion_tolerance_m) {
  require_bed_field(std::isfinite(cell_size_m) && cell_size_m > 0.0, bed, "cell_size_m", "> 0",
                    cell_size_m);
  require_bed_field(std::isfinite(sand_height_m) && sand_height_m > 0.0, bed, "sand_height_m",
                    "> 0", sand_height_m);
  require_bed_field(trench_depth_m > 0.0 && trench_depth_m < sand_height_m, bed, "trench_depth_m",
                    "in (0, sand_height_m)", trench_depth_m);
  require_bed_field(std::isfinite(blade_thickness_m) && blade_thickness_m > 0.0, bed,
                    "blade_thickness_m", "> 0", blade_thickness_m);
  require_bed_field(repose_angle_rad > 0.0 && repose_angle_rad < 0.5 * std::numbers::pi, bed,
                    "repose_angle_rad", "in (0, pi/2)", repose_angle_rad);
  require_bed_field(std::isfinite(erosion_tolerance_m) && erosion_tolerance_m > 0.0, bed,
                    "erosion_tolerance_m", "> 0", erosion_tolerance_m);
}

}  // namespace talus::shaping
