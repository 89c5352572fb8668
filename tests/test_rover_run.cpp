// The robots tier of the runner: a short rover scenario on SCM soil runs to its files, and bad
// report names are refused with the names that exist.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/scenario_file.hpp"
#include "robot_test_paths.hpp"
#include "runner/run_scenario.hpp"

namespace talus {
namespace {

namespace fs = std::filesystem;

std::string rover_scenario(const std::string& report_wheels) {
  return R"([scenario]
name = "rover_short"
tier = "robots"

[grid]
size_m = [2.0, 1.2]
origin_m = [-0.8, -0.6]
cell_size_m = 0.04
slope_start_m = 0.9
slope_deg = 15.0

[soil]
preset = "dry_sand"

[flow]
method = "border"

[simulation]
duration_s = 0.4
sample_every = 20

[robot]
model = ")" +
         test_support::rover_file().string() +
         R"("
position_m = [0.0, 0.0, 0.31]
[[robot.coupling]]
body = "wheel_fl"
[[robot.coupling]]
body = "wheel_fr"
[[robot.coupling]]
body = "wheel_rl"
[[robot.coupling]]
body = "wheel_rr"
[robot.drive]
settle_s = 0.2
speed_rad_per_s = 2.0

[report]
chassis = "chassis"
wheels = )" +
         report_wheels +
         R"(
wheel_joints = ["wheel_fl", "wheel_fr", "wheel_rl", "wheel_rr"]
)";
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("talus_rover_run_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

TEST(RoverRun, RobotsTierRunsTheRoverToItsFiles) {
  TempDir tmp;
  const fs::path file = tmp.path / "rover.toml";
  std::ofstream(file) << rover_scenario(R"(["wheel_fl", "wheel_fr", "wheel_rl", "wheel_rr"])");
  const nlohmann::json check = check_scenario_file(file);
  EXPECT_EQ(check["tier"], "robots");
  EXPECT_EQ(check["steps"], 400);
  const nlohmann::json s = run_scenario_file(file, tmp.path / "out", {});
  for (const char* f : {"summary.json", "drive.csv", "slip.png", "sinkage.png", "ruts.png"}) {
    EXPECT_TRUE(fs::exists(tmp.path / "out" / f)) << f;
  }
  EXPECT_NEAR(s["simulated_s"].get<double>(), 0.4, 1e-9);
  // The wheels turned for 0.2 s: the rover moved forward and its wheels sank into the sand.
  const double d = s["result"]["driven_distance_m"];
  EXPECT_GT(d, 0.01);
  EXPECT_LT(d, 0.2);
  EXPECT_GT(s["result"]["max_sinkage_m"]["wheel_rl"].get<double>(), 0.002);
}

// The SCM terrain of a robot reports soil that reached its grid's edge, as the SCM tier's runs
// do: the shipped wheel rig on a 0.24 m wide grid (0.4 m shipped) piles it against the sides.
TEST(RoverRun, AnScmTerrainWarnsOfSoilAtTheGridsEdge) {
  TempDir tmp;
  const fs::path source(TALUS_SOURCE_DIR);
  std::ifstream in(source / "scenarios" / "robots" / "wheel_rig_scm.toml");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto replace = [&text](const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("\"../../robots/wheel_rig/wheel_rig.xml\"",
          "\"" + (source / "robots" / "wheel_rig" / "wheel_rig.xml").string() + "\"");
  replace("duration_s = 3.0", "duration_s = 1.0");
  std::ofstream(tmp.path / "wide.toml") << text;
  const nlohmann::json wide = run_scenario_file(tmp.path / "wide.toml", tmp.path / "a", {});
  EXPECT_LT(wide["terrain_details"]["soil_change_at_grid_edge_m"].get<double>(), 1e-3);
  EXPECT_FALSE(wide.contains("warnings")) << wide["warnings"].dump();
  replace("size_m = [2.2, 0.4]", "size_m = [2.2, 0.24]");
  replace("origin_m = [-0.3, -0.2]", "origin_m = [-0.3, -0.12]");
  std::ofstream(tmp.path / "narrow.toml") << text;
  const nlohmann::json narrow = run_scenario_file(tmp.path / "narrow.toml", tmp.path / "b", {});
  EXPECT_GT(narrow["terrain_details"]["soil_change_at_grid_edge_m"].get<double>(), 5e-3);
  ASSERT_EQ(narrow["warnings"].size(), 1u) << narrow.dump();
  const std::string warning = narrow["warnings"][0];
  EXPECT_NE(warning.find("narrow.toml: the soil at the edge of the grid moved "), std::string::npos)
      << warning;
  EXPECT_NE(warning.find("([grid] size_m: 2.2 x 0.24 m)"), std::string::npos) << warning;
  // summary.json says what the returned summary says.
  std::ifstream written(tmp.path / "b" / "summary.json");
  EXPECT_EQ(nlohmann::json::parse(written)["warnings"], narrow["warnings"]);
}

TEST(RoverRun, UnknownReportWheelListsTheCoupledLinks) {
  TempDir tmp;
  const fs::path file = tmp.path / "rover.toml";
  std::ofstream(file) << rover_scenario(R"(["wheel_fl", "wheel_xx"])");
  try {
    check_scenario_file(file);
    ADD_FAILURE() << "accepted an unknown wheel";
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(test_support::contains(what, "report.wheels")) << what;
    EXPECT_TRUE(test_support::contains(what, "'wheel_xx' is not a coupled link")) << what;
    EXPECT_TRUE(test_support::contains(what, "wheel_rr")) << what;
  }
}

// A robot without a free or slide joint (a URDF, which MuJoCo welds to the world) is checked
// with a warning that it cannot travel; the shipped wheel rig (slide joints) has none.
TEST(RoverRun, CheckWarnsOfARobotWeldedToTheWorld) {
  TempDir tmp;
  const fs::path shipped = fs::path(TALUS_SOURCE_DIR) / "scenarios/robots/wheel_rig_scm.toml";
  EXPECT_TRUE(check_scenario_file(shipped)["warnings"].empty());
  std::stringstream text;
  text << std::ifstream(shipped).rdbuf();
  std::string scenario = text.str();
  scenario = scenario.substr(0, scenario.find("[robot.drive]"));  // the rig's joints and report
  const std::string model_key = "model = \"../../robots/wheel_rig/wheel_rig.xml\"";
  ASSERT_NE(scenario.find(model_key), std::string::npos);
  scenario.replace(scenario.find(model_key), model_key.size(),
                   "model = \"" + test_support::robot_data("wheel.urdf").string() + "\"");
  const fs::path file = tmp.path / "urdf_wheel.toml";
  std::ofstream(file) << scenario;
  const nlohmann::json warnings = check_scenario_file(file)["warnings"];
  ASSERT_EQ(warnings.size(), 1u) << warnings.dump();
  const std::string w = warnings[0];
  EXPECT_TRUE(test_support::contains(w, "robot.model")) << w;
  EXPECT_TRUE(test_support::contains(w, "wheel.urdf has no free or slide joint")) << w;
  EXPECT_TRUE(test_support::contains(w, "welded to the world")) << w;
}

}  // namespace
}  // namespace talus
