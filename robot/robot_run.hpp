#pragma once
// Scenario files of the robots tier (scenarios/robots/*.toml, docs/rover.md): a MuJoCo robot
// ([robot], robot/robot_scenario.hpp) driving on a terrain tier: SCM soil or a particle bed
// ([scenario] terrain, robot/robot_terrain.hpp), read with that tier's own table readers.
// Outputs: summary.json, drive.csv, slip.png, sinkage.png (robot/drive_report.hpp) and the
// terrain's pictures (SCM: ruts.png / ruts.npy; particles: bed_start.png, bed_end.png,
// bed_view.png).

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/output_dir.hpp"
#include "core/progress.hpp"
#include "core/scenario_file.hpp"

namespace talus::robot {

/// The runner's entry points (runner/run_scenario.cpp's tier table) for [scenario] tier =
/// "robots". check reads and validates the whole file (the MuJoCo model is loaded) and returns
/// {tier, name, steps}; run simulates it into out_dir and returns the summary.
nlohmann::json check_robots(const ScenarioTable& root);
nlohmann::json run_robots(const ScenarioTable& root, const OutputTarget& out_dir,
                          const RunProgress& progress);

}  // namespace talus::robot
