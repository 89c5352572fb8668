#include "core/scenario_terrain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/units.hpp"

namespace talus {

namespace {

// Dry sand: quartz grains of 2650 kg/m^3; phi = 28 deg and a repose angle of 30.5 deg as SCM's
// dry_sand (Wong's dry sand, scm/scm_model.cpp says where they come from).
// Lunar regolith: grain specific gravity 3.1 (Carrier, Olhoeft and Mendell, Lunar Sourcebook
// ch. 9, the recommended value), phi = 35 deg, repose 40 deg as SCM's lunar_regolith.
TerrainMaterial material_of(const std::string& name) {
  if (name == "dry_sand") return {name, 2650.0, deg_to_rad(28.0), deg_to_rad(30.5)};
  if (name == "lunar_regolith") return {name, 3100.0, deg_to_rad(35.0), deg_to_rad(40.0)};
  throw std::invalid_argument(
      fmt::format("unknown material '{}': expected one of dry_sand, "
                  "lunar_regolith",
                  name));
}

}  // namespace

std::vector<std::string> terrain_material_names() { return {"dry_sand", "lunar_regolith"}; }

TerrainMaterial terrain_material(const std::string& name) { return material_of(name); }

Terrain read_terrain(const ScenarioTable& t) {
  Terrain tr;
  tr.lo_m = t.vec2("lo_m", any_finite("[m]"));
  tr.hi_m = t.vec2("hi_m", any_finite("[m]"));
  if (!(tr.hi_m.array() > tr.lo_m.array()).all()) {
    t.fail("hi_m", "must exceed lo_m in x and in y");
  }
  tr.surface_z_m = t.number("surface_z_m", positive("[m] (the material fills z from 0 up to it)"));
  tr.material = terrain_material(t.choice("material", terrain_material_names()));
  tr.cell_size_m = t.number("cell_size_m", positive("[m]"));
  tr.particle_radius_m = t.number("particle_radius_m", positive("[m]"));
  const double shortest = std::min(tr.hi_m.x() - tr.lo_m.x(), tr.hi_m.y() - tr.lo_m.y());
  if (tr.cell_size_m > shortest / 2.0) {
    t.fail("cell_size_m", fmt::format("{} m leaves fewer than 2 cells across the {} m patch",
                                      tr.cell_size_m, shortest));
  }
  if (4.0 * tr.particle_radius_m > std::min(shortest, tr.surface_z_m)) {
    t.fail("particle_radius_m",
           fmt::format("{} m: expected at most a quarter of the patch's width ({} m) and of "
                       "surface_z_m ({} m), so that two grains fit across each",
                       tr.particle_radius_m, shortest, tr.surface_z_m));
  }
  t.refuse_unknown_keys();
  return tr;
}

std::optional<Terrain> read_terrain_instead_of(const ScenarioTable& root,
                                               const std::vector<std::string>& own_tables) {
  if (!root.has("terrain")) return std::nullopt;
  for (const std::string& own : own_tables) {
    if (root.has(own)) {
      root.fail(own, fmt::format("the file has a [terrain]; describe the ground once, with "
                                 "[terrain] or with [{}]",
                                 own));
    }
  }
  return read_terrain(root.table("terrain"));
}

}  // namespace talus
