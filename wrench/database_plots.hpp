#pragma once
// Pictures of a wrench-space database: the measured wrench sets (f_x against f_z, one point per
// velocity direction) of several configurations in one chart.

#include <string>

#include "core/image.hpp"
#include "wrench/wrench_database.hpp"

namespace talus::wrench {

/// The wrench sets at tilt `tilt_rad`, one point cloud per depth in contact (the acquire kind's
/// wrench_sets.png).
RgbImage plot_wrench_sets_by_depth(const WrenchDatabase& db, double tilt_rad,
                                   const std::string& title);

/// The wrench sets at depth `depth_m`, one point cloud per tilt >= 0 (negative tilts are the
/// mirror images of positive ones in a symmetric acquisition; a merged acquisition's
/// database.png: how the tilt changes the set).
RgbImage plot_wrench_sets_by_tilt(const WrenchDatabase& db, double depth_m,
                                  const std::string& title);

/// The largest upward resistance (max f_z over the directions) against tilt, one line per depth
/// in contact: how much weight the foot can carry as it tips over (database.png's second panel).
RgbImage plot_support_by_tilt(const WrenchDatabase& db, const std::string& title);

}  // namespace talus::wrench
