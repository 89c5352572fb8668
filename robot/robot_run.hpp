#pragma once
// Scenario files of the robots tier (scenarios/robots/*.toml, docs/rover.md): a MuJoCo robot
// ([robot], robot/robot_scenario.hpp) driving on a terrain tier. The terrain is SCM soil, read
// with the SCM tier's own [grid], [soil] and [flow] readers. Outputs: summary.json, drive.csv,
// slip.png, sinkage.png (robot/drive_report.hpp) and ruts.png / ruts.npy (the soil's deformation,
// surface minus base terrain, seen from above).

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/progress.hpp"
#include "core/scenario_file.hpp"

namespace talus::robot {

/// The runner's entry points (runner/run_scenario.cpp's tier table) for [scenario] tier =
/// "robots". check reads and validates the whole file (the MuJoCo model is loaded) and returns
/// {tier, name, steps}; run simulates it into out_dir and returns the summary.
nlohmann::json check_robots(const ScenarioTable& root);
nlohmann::json run_robots(const ScenarioTable& root, const std::filesystem::path& out_dir,
                          const RunProgress& progress);

}  // namespace talus::robot
