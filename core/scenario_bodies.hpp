#pragma once
// Reading bodies from scenario files: the [[body]] table, one for every tier's kinematically moved
// bodies and tools (docs/scenarios.md), with its [body.shape] and the motions that every tier
// understands (waypoints, constant twist). Tier-specific motions (a towed wheel, a blade push) and
// shapes (a gear) are read by hooks the tier's own scenario loader gives (BodyRules).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/driver.hpp"
#include "core/scenario_file.hpp"
#include "core/shape.hpp"

namespace talus {

/// A shape table: kind = "box" | "sphere" | "cylinder" | "capsule" | "wheel" | "mesh" with its
/// dimensions in metres (docs/scenarios.md lists the keys; a mesh has file (relative to the
/// scenario file), optional scale (file units to metres, default 1) and sdf_cell_m, see
/// docs/meshes.md). Validated; errors name file, line and key.
Shape read_shape(const ScenarioTable& table);

/// Where a body's keys are now, for refuse_moved_key and the message refusing [[tool]].
inline constexpr const char* kBodyTable = "[[body]] (one table for every tier's bodies)";

/// One [[body]] table as read: the one table of every tier's kinematically moved bodies and tools
/// (the shaping tier's tools, the particle tier's bodies, the SCM blade).
struct ScenarioBody {
  std::string name;
  Shape shape;
  Driver driver;
  Vec3 p_BR = Vec3::Zero();  ///< reference_point_m [m, body frame]; read where the tier uses it
};

/// What a tier adds to the reading of its [[body]] tables.
struct BodyRules {
  /// The motion kinds the tier accepts, listed in this order when another is given. "waypoints"
  /// (times_s, positions_m, optional rpy_deg) and "constant_twist" (position_m, optional rpy_deg,
  /// velocity_m_per_s, optional angular_velocity_rad_per_s) are read here, any other kind by
  /// read_tier_motion.
  std::vector<std::string> motion_kinds{"waypoints", "constant_twist"};
  /// Reads a tier's own motion of `kind` for a body of `shape` ([body.motion] is `motion`).
  std::function<Driver(const ScenarioTable& motion, const std::string& kind, const Shape& shape)>
      read_tier_motion;
  /// The shape of a body that its motion sizes (shaping's trench_plan blade), or none: such a
  /// body has no [body.shape].
  std::function<std::optional<Shape>(const ScenarioTable& motion, const std::string& kind)>
      motion_sized_shape;
  /// Reads [body.shape]; read_shape when empty (the particle tier adds gears).
  std::function<Shape(const ScenarioTable& shape)> read_body_shape;
  bool reference_point = false;  ///< whether the tier reads reference_point_m
};

/// Reads one [[body]] table by the tier's `rules`: name, [body.shape], [body.motion] and, where
/// the tier uses it, reference_point_m; refuses keys it does not know.
ScenarioBody read_body(const ScenarioTable& body, const BodyRules& rules);

/// Reads every [[body]] of `root` by `rules`, refusing a name given twice and the shaping tier's
/// old [[tool]] table (naming [[body]]).
std::vector<ScenarioBody> read_bodies(const ScenarioTable& root, const BodyRules& rules);

}  // namespace talus
