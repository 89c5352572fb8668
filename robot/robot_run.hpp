#pragma once
// Scenario files of the robots tier (scenarios/robots/*.toml, docs/rover.md): a MuJoCo robot
// ([robot], robot/robot_scenario.hpp) driving on a terrain tier: SCM soil or a particle bed
// ([scenario] terrain, robot/robot_terrain.hpp), read with that tier's own table readers.
// Outputs: summary.json, drive.csv, slip.png, sinkage.png (robot/drive_report.hpp) and the
// terrain's pictures (SCM: ruts.png / ruts.npy; particles: bed_start.png, bed_end.png,
// bed_view.png).

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/output_dir.hpp"
#include "core/progress.hpp"
#include "core/scenario_file.hpp"
#include "core/view_options.hpp"
#include "robot/robot_scenario.hpp"
#include "robot/robot_terrain.hpp"

namespace talus::robot {

/// [report]: what the drive report follows.
struct DriveReportSpec {
  std::string chassis;
  std::vector<std::string> wheels, wheel_joints;
};

/// A robots-tier scenario as read: the robot (MuJoCo model at its initial state, coupled links,
/// drive schedule), its terrain (the tier the links touch), the run's length.
struct RobotsScenario {
  explicit RobotsScenario(RobotScenario r) : robot(std::move(r)) {}
  RobotScenario robot;
  std::string name, description, terrain_kind;
  std::unique_ptr<RobotTerrain> terrain;
  double duration_s = 0.0;
  long sample_every = 10;
  long steps = 0;
  std::optional<DriveReportSpec> report;  ///< none: the links' poses are reported
  ViewOptions view;                       ///< [view]: the frames `talus view` plays
};

/// Reads and checks a robots-tier scenario without running it (the placement is checked against
/// the terrain); ScenarioError naming file, line and key for bad input.
RobotsScenario load_robots(const ScenarioTable& root);

/// The runner's entry points (runner/run_scenario.cpp's tier table) for [scenario] tier =
/// "robots". check reads and validates the whole file (the MuJoCo model is loaded) and returns
/// {tier, name, steps}; run simulates it into out_dir and returns the summary.
nlohmann::json check_robots(const ScenarioTable& root);

/// Why a coupled run must stop now (a joint position that is not finite, a coupled link off the
/// terrain), naming `file`, the step and the time; "" while the state is sound.
std::string links_off_terrain(const std::filesystem::path& file, const RobotsScenario& sc,
                              const RobotTerrain& terrain, long step, double time_s);
nlohmann::json run_robots(const ScenarioTable& root, const OutputTarget& out_dir,
                          const RunProgress& progress);

}  // namespace talus::robot
