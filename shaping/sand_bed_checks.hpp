#pragma once
// The checks the learning environments' sand beds share (stroke_env.hpp's StrokeBed and
// trench_heightmap.hpp's TrenchHeightmapBed): a flat bed of sand, a blade's depth and thickness,
// the angle of repose and the erosion's tolerance.

namespace talus::shaping {

/// Throws std::invalid_argument "<bed>: <field> must be <expected>, got <value>" unless `ok`.
void require_bed_field(bool ok, const char* bed, const char* field, const char* expected,
                       double got);

/// The shared fields, each named in the error: cell_size_m > 0, sand_height_m > 0,
/// trench_depth_m in (0, sand_height_m), blade_thickness_m > 0, repose_angle_rad in (0, pi/2),
/// erosion_tolerance_m > 0.
void validate_sand_and_blade(const char* bed, double cell_size_m, double sand_height_m,
                             double trench_depth_m, double blade_thickness_m,
                             double repose_angle_rad, double erosion_tolerance_m);

}  // namespace talus::shaping
