#pragma once
// [terrain]: level ground described once for the three tiers that simulate the ground itself
// (the shaping heightmap, SCM soil, the particle bed), so that a scenario such as a blade push
// switches tier by its [scenario] tier line alone (`talus run FILE --tier scm` runs it on another
// tier without editing it). Each tier builds its own ground from it: docs/scenarios.md,
// "One terrain for three tiers", lists what each tier derives and the defaults it uses.

#include <optional>
#include <string>
#include <vector>

#include "core/pose.hpp"
#include "core/scenario_file.hpp"

namespace talus {

/// A named granular material: the properties more than one tier reads. SCM's Bekker-Wong and
/// Janosi parameters for the same names are in scm/scm_model.cpp (named_soil), which takes its
/// friction and repose angles from here.
struct TerrainMaterial {
  std::string name;
  /// A grain's own (solid) density [kg/m^3], not the bulk density: the particle tier's spheres.
  double grain_density_kg_per_m3 = 0.0;
  /// Internal friction angle phi [rad]: SCM's shear strength; the particle tier's Coulomb
  /// friction coefficient between grains is tan(phi).
  double friction_angle_rad = 0.0;
  /// Angle of repose [rad]: the shaping tier's erosion and SCM's soil flow relax slopes to it.
  double repose_angle_rad = 0.0;
};

/// The material names [terrain] material accepts, in the order messages list them.
std::vector<std::string> terrain_material_names();
/// The named material; throws std::invalid_argument for an unknown name.
TerrainMaterial terrain_material(const std::string& name);

/// [terrain]: a level patch of ground in the world frame (z up).
struct Terrain {
  Vec2 lo_m = Vec2::Zero();  ///< lo_m: the patch's corner of smallest x and y [m]
  Vec2 hi_m = Vec2::Zero();  ///< hi_m: the opposite corner [m]
  /// surface_z_m: height of the level surface [m]; the material fills z in [0, surface_z_m].
  double surface_z_m = 0.0;
  TerrainMaterial material;        ///< material: one of terrain_material_names()
  double cell_size_m = 0.0;        ///< cell_size_m: the heightmap tiers' grid spacing [m]
  double particle_radius_m = 0.0;  ///< particle_radius_m: the particle tier's grain radius [m]
};

/// Reads [terrain] (every key required; unknown keys refused).
Terrain read_terrain(const ScenarioTable& table);

/// Reads [terrain] when the file has one, refusing the tier's own ground tables (`own_tables`,
/// e.g. {"heightmap"}) beside it: the ground is described once. Returns nullopt without one.
std::optional<Terrain> read_terrain_instead_of(const ScenarioTable& root,
                                               const std::vector<std::string>& own_tables);

}  // namespace talus
