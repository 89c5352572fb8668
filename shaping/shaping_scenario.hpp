#pragma once
// Scenario files of the sand-shaping tier (scenarios/shaping/*.toml): loading with validation,
// and running them to their outputs. The file format is documented in docs/scenarios.md.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/progress.hpp"
#include "core/scenario_file.hpp"
#include "core/view_options.hpp"
#include "shaping/shaping_step.hpp"
#include "shaping/tool_motions.hpp"
#include "shaping/trench_planner.hpp"

namespace talus {
class OutputDir;
}

namespace talus::shaping {

/// The [planner] section: a single-stroke trench planned on a binary goal map and cut by a blade.
struct TrenchPlanSetup {
  std::string goal_name;  ///< letter or "custom"
  BinaryMap goal;
  TrenchPlanOptions options;
  PlanPlacement placement;
  double depth_m = 0.0;  ///< below the initial surface
  double seconds_per_cell = 1.0;
  TrenchPlan plan;  ///< planned while loading, so the blade's driver exists before the run
  double planning_wall_s = 0.0;
};

struct ShapingScenario {
  std::filesystem::path file;
  std::string name;
  std::string description;
  ShapingModel model;
  HeightmapState initial;
  double initial_height_m = 0.0;            ///< level of the undisturbed sand [m]
  long steps = 0;                           ///< number of steps the run takes
  std::optional<double> cross_section_x_m;  ///< profile across y at this x (default: grid centre)
  std::optional<TrenchPlanSetup> planner;
  ViewOptions view;  ///< [view]: the frames `talus view` plays
};

/// Reads a shaping scenario from a parsed file whose [scenario] tier is "shaping". Throws
/// ScenarioError naming the file, line and key of the first problem found; nothing runs before
/// the whole file is known to be good.
ShapingScenario load_shaping_scenario(const ScenarioTable& root);

/// Runs the scenario, writing into `out` (an OutputDir's temporary folder): summary.json,
/// steps.csv (one row per step), heightmap_final.png and .npy, cross_section.csv and .png.
/// Returns the summary that was written.
nlohmann::json run_shaping_scenario(const ShapingScenario& scenario, OutputDir& out,
                                    const RunProgress& progress = {});

}  // namespace talus::shaping
