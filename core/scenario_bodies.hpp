#pragma once
// Reading bodies from scenario files: the [tool.shape] / [body.shape] tables and the motions that
// every tier understands (waypoints, constant twist). Tier-specific motions (a towed wheel, a
// blade push) are read by the tier's own scenario loader.

#include "core/driver.hpp"
#include "core/scenario_file.hpp"
#include "core/shape.hpp"

namespace talus {

/// A shape table: kind = "box" | "sphere" | "cylinder" | "capsule" | "wheel" | "mesh" with its
/// dimensions in metres (docs/scenarios.md lists the keys; a mesh has file (relative to the
/// scenario file), optional scale (file units to metres, default 1) and sdf_cell_m, see
/// docs/meshes.md). Validated; errors name file, line and key.
Shape read_shape(const ScenarioTable& table);

/// A motion table of kind "waypoints" (times_s, positions_m, optional rpy_deg) or
/// "constant_twist" (position_m, optional rpy_deg, velocity_m_per_s, angular_velocity_rad_per_s).
Driver read_common_driver(const ScenarioTable& table, const std::string& kind);

}  // namespace talus
