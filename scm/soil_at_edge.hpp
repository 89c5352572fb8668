#pragma once
// Soil that reached the edge of an SCM grid. There the map's boundary, not the soil, decides where
// the displaced soil goes, so a run's results depend on the grid's size: the shipped wheels on a
// 0.6 m wide grid piled 12-16 mm of soil against its sides, and their drawbar pull and sinkage
// moved by 1-6 % when the grid was widened to 1 m (docs/scm.md).

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "scm/scm_model.hpp"

namespace talus::scm {

/// The key that sets a [grid] file's extent, as messages name it ([terrain] files: lo_m and hi_m).
inline constexpr const char* kGridExtentKey = "[grid] size_m";

/// Above this change of height at the grid's edge [m] a run warns.
inline constexpr double kSoilAtEdgeTolerance_m = 1e-3;

/// Records `soil_change_at_grid_edge_m` (change_m: ScmState::largest_change_at_edge_m) in
/// `summary` and, above kSoilAtEdgeTolerance_m, a run warning naming `file`, the keys that set the
/// grid's extent (`extent_keys`, "[grid] size_m" or "[terrain] lo_m and hi_m") and its size.
void record_soil_at_edge(const std::filesystem::path& file, const std::string& extent_keys,
                         const ScmModel& m, double change_m, nlohmann::json& summary);

}  // namespace talus::scm
