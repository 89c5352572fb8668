// [terrain]: one description of level ground that the shaping, SCM and particle tiers each build
// their ground from (core/scenario_terrain.hpp), and the shipped three-tier blade push file.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "core/scenario_file.hpp"
#include "core/scenario_terrain.hpp"
#include "core/units.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_scenario.hpp"
#include "scm/scm_scenario.hpp"
#include "shaping/shaping_scenario.hpp"

namespace talus {
namespace {

const std::filesystem::path kBladePush =
    std::filesystem::path(TALUS_SOURCE_DIR) / "scenarios" / "terrain" / "blade_push.toml";

ScenarioTable blade_push_as(const std::string& tier) {
  return ScenarioDocument::load(kBladePush)->with_tier(tier)->root();
}

std::string error_loading(const std::string& text, const std::string& tier) {
  try {
    const auto doc = ScenarioDocument::parse(text, "terrain.toml");
    if (tier == "shaping") shaping::load_shaping_scenario(doc->root());
    if (tier == "scm") scm::load_scm_scenario(doc->root());
    if (tier == "particles") particles::load_particle_scenario(doc->root());
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

// A valid three-tier file for `tier`, with `terrain` as its [terrain] body and `extra` appended.
std::string terrain_file(const std::string& tier, const std::string& terrain,
                         const std::string& extra = "") {
  return "[scenario]\nname = \"t\"\ntier = \"" + tier + "\"\n[terrain]\n" + terrain +
         "\n[simulation]\ntime_step_s = 0.001\nduration_s = 0.1\n"
         "[[body]]\nname = \"blade\"\n[body.shape]\nkind = \"box\"\nsize_m = [0.02, 0.1, 0.1]\n"
         "[body.motion]\nkind = \"waypoints\"\ntimes_s = [0.0, 0.1]\n"
         "positions_m = [[0.1, 0.0, 0.1], [0.12, 0.0, 0.1]]\n" +
         extra;
}

const std::string kScmTerrainTable =
    "lo_m = [0.0, -0.1]\nhi_m = [0.3, 0.1]\nsurface_z_m = 0.05\nmaterial = \"dry_sand\"\n"
    "cell_size_m = 0.005\nparticle_radius_m = 0.005";

TEST(ScenarioTerrain, TheBladePushFileBuildsTheSameGroundOnThreeTiers) {
  const double repose = deg_to_rad(30.5);
  // Shaping: cells over the patch, level at the surface.
  const shaping::ShapingScenario sh = shaping::load_shaping_scenario(blade_push_as("shaping"));
  EXPECT_EQ(sh.model.heightmap.nx, 120);
  EXPECT_EQ(sh.model.heightmap.ny, 60);
  // The patch's corner is the grid's lower cell edge; cell (0, 0)'s centre is half a cell inside.
  EXPECT_DOUBLE_EQ(sh.model.heightmap.lo_y_m(), -0.15);
  EXPECT_DOUBLE_EQ(sh.model.heightmap.y0_m, -0.1475);
  EXPECT_DOUBLE_EQ(sh.initial_height_m, 0.08);
  EXPECT_DOUBLE_EQ(sh.model.heightmap.erosion.repose_angle_rad, repose);
  ASSERT_EQ(sh.model.tools.size(), 1u);
  // SCM: nodes spanning the same patch at the same height, dry sand, paper 002's flow fields, and
  // the body pushed as a blade.
  const scm::ScmScenario sc = scm::load_scm_scenario(blade_push_as("scm"));
  EXPECT_EQ(sc.model.nx, 121);
  EXPECT_EQ(sc.model.ny, 61);
  EXPECT_DOUBLE_EQ(sc.model.y0_m, -0.15);  // node (0, 0) at the corner
  EXPECT_DOUBLE_EQ(sc.model.base_height_m, 0.08);
  EXPECT_EQ(sc.model.method, scm::FlowMethod::Fields);
  EXPECT_DOUBLE_EQ(sc.model.soil.kphi, scm::named_soil("dry_sand").kphi);
  EXPECT_DOUBLE_EQ(sc.model.soil.repose_angle_rad, repose);
  EXPECT_EQ(sc.experiment, scm::Experiment::Blade);
  EXPECT_DOUBLE_EQ(std::get<BoxShape>(sc.blade.shape).half_extents_m.y(), 0.09);
  EXPECT_EQ(sc.steps, 1300);
  // Particles: a box over the patch filled to the surface with grains of the material.
  const particles::ParticleScenario pa =
      particles::load_particle_scenario(blade_push_as("particles"));
  EXPECT_DOUBLE_EQ(pa.model.friction, std::tan(deg_to_rad(28.0)));
  EXPECT_DOUBLE_EQ(pa.model.body_friction, pa.model.friction);
  EXPECT_DOUBLE_EQ(pa.model.container.box.lo.y(), -0.15);
  EXPECT_DOUBLE_EQ(pa.model.container.box.hi.x(), 0.6);
  EXPECT_NEAR(particles::free_surface_z_m(pa.initial), 0.08, 0.005);  // the nearest layer
  EXPECT_FLOAT_EQ(pa.initial.radius_m[0], 0.005f);
  EXPECT_NEAR(1.0 / pa.initial.inv_mass_per_kg[0],
              2650.0 * 4.0 / 3.0 * M_PI * 0.005 * 0.005 * 0.005, 1e-9);
  ASSERT_EQ(pa.model.bodies.size(), 1u);
  ASSERT_TRUE(pa.settle.has_value());
  EXPECT_EQ(pa.steps, 1300);
}

// The driven wheel: a wheel shape at a constant twist, which SCM runs as the [terrain] file's one
// body and the particle tier clears of the grains it starts in.
TEST(ScenarioTerrain, TheDrivenWheelFileLoadsOnThreeTiers) {
  const std::filesystem::path file = kBladePush.parent_path() / "driven_wheel.toml";
  const auto doc = ScenarioDocument::load(file);
  const scm::ScmScenario sc = scm::load_scm_scenario(doc->with_tier("scm")->root());
  EXPECT_TRUE(std::holds_alternative<WheelShape>(sc.blade.shape));
  EXPECT_TRUE(std::holds_alternative<ConstantTwistDriver>(sc.blade.driver));
  EXPECT_EQ(sc.blade.name, "wheel");
  EXPECT_EQ(sc.steps, 2000);
  EXPECT_EQ(sc.grid_extent_keys, "[terrain] lo_m and hi_m");  // what a warning of its edge names
  const particles::ParticleScenario pa =
      particles::load_particle_scenario(doc->with_tier("particles")->root());
  EXPECT_GT(pa.particles_removed_in_bodies, 100u);  // the wheel starts 2 cm deep
  const shaping::ShapingScenario sh =
      shaping::load_shaping_scenario(doc->with_tier("shaping")->root());
  EXPECT_EQ(sh.steps, 2000);
}

TEST(ScenarioTerrain, ScmNeedsADurationForABodyThatNeverStops) {
  const std::string wheel =
      "[scenario]\nname = \"w\"\ntier = \"scm\"\n[terrain]\n" + kScmTerrainTable +
      "\n[simulation]\ntime_step_s = 0.001\n[[body]]\nname = \"wheel\"\n[body.shape]\n"
      "kind = \"wheel\"\nradius_m = 0.05\nwidth_m = 0.04\n[body.motion]\nkind = "
      "\"constant_twist\"\nposition_m = [0.1, 0.0, 0.09]\nvelocity_m_per_s = [0.1, 0.0, 0.0]\n";
  EXPECT_NE(error_loading(wheel, "scm").find("simulation: missing key 'duration_s'"),
            std::string::npos)
      << error_loading(wheel, "scm");
}

TEST(ScenarioTerrain, WithTierChangesOnlyTheTierAndLeavesTheFileAlone) {
  const auto doc = ScenarioDocument::load(kBladePush);
  const auto scm_doc = doc->with_tier("scm");
  EXPECT_EQ(scm_doc->root().table("scenario").string("tier"), "scm");
  EXPECT_EQ(doc->root().table("scenario").string("tier"), "particles");
  EXPECT_EQ(scm_doc->root().table("terrain").string("material"), "dry_sand");
}

TEST(ScenarioTerrain, EveryTierRefusesItsOwnGroundTablesBesideATerrain) {
  EXPECT_NE(
      error_loading(terrain_file("shaping", kScmTerrainTable, "[heightmap]\nsize_m = [1.0, 1.0]\n"),
                    "shaping")
          .find("the file has a [terrain]; describe the ground once, with [terrain] or "
                "with [heightmap]"),
      std::string::npos);
  EXPECT_NE(
      error_loading(terrain_file("scm", kScmTerrainTable, "[soil]\npreset = \"dry_sand\"\n"), "scm")
          .find("with [terrain] or with [soil]"),
      std::string::npos);
  EXPECT_NE(
      error_loading(terrain_file("particles", kScmTerrainTable, "[bed]\nkind = \"lattice\"\n"),
                    "particles")
          .find("with [terrain] or with [bed]"),
      std::string::npos);
}

TEST(ScenarioTerrain, BadTerrainKeysAreNamed) {
  std::string t = kScmTerrainTable;
  t.replace(t.find("dry_sand"), 8, "gravel");
  EXPECT_NE(error_loading(terrain_file("scm", t), "scm")
                .find("terrain.toml:8:12: terrain.material: expected one of \"dry_sand\", "
                      "\"lunar_regolith\", got \"gravel\""),
            std::string::npos)
      << error_loading(terrain_file("scm", t), "scm");
  t = kScmTerrainTable;
  t.replace(t.find("hi_m = [0.3, 0.1]"), 17, "hi_m = [0.3, -0.2]");
  EXPECT_NE(error_loading(terrain_file("shaping", t), "shaping")
                .find("terrain.hi_m: must exceed lo_m in x and in y"),
            std::string::npos);
  t = kScmTerrainTable;
  t.replace(t.find("particle_radius_m = 0.005"), 25, "particle_radius_m = 0.02");
  EXPECT_NE(error_loading(terrain_file("particles", t), "particles")
                .find("terrain.particle_radius_m: 0.02 m: expected at most a quarter"),
            std::string::npos);
  EXPECT_NE(
      error_loading(terrain_file("particles", kScmTerrainTable + "\ndepth_m = 1"), "particles")
          .find("depth_m"),
      std::string::npos);
}

TEST(ScenarioTerrain, SmallTerrainFilesLoadOnEveryTier) {
  for (const char* tier : {"shaping", "scm", "particles"}) {
    EXPECT_EQ(error_loading(terrain_file(tier, kScmTerrainTable), tier), "") << tier;
  }
}

// SCM's named soils take their friction and repose angles from the material of the same name,
// which the other tiers read: one value for every tier.
TEST(ScenarioTerrain, ScmSoilsShareTheMaterialsAngles) {
  for (const std::string& name : terrain_material_names()) {
    const TerrainMaterial m = terrain_material(name);
    EXPECT_DOUBLE_EQ(scm::named_soil(name).friction_angle_rad, m.friction_angle_rad) << name;
    EXPECT_DOUBLE_EQ(scm::named_soil(name).repose_angle_rad, m.repose_angle_rad) << name;
    EXPECT_GT(m.grain_density_kg_per_m3, 2000.0) << name;
  }
  EXPECT_THROW(terrain_material("gravel"), std::invalid_argument);
}

}  // namespace
}  // namespace talus
