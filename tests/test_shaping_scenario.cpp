// Scenario files of the shaping tier and the CLI: every shipped scenario is valid; bad input is
// refused before anything runs, naming file, line, key and expectation, with exit code 2 and an
// existing output folder left untouched; a run writes all its outputs.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/scenario_file.hpp"
#include "runner/run_scenario.hpp"
#include "scratch_files.hpp"
#include "shaping/shaping_scenario.hpp"

namespace talus {
namespace {

namespace fs = std::filesystem;

fs::path write_file(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

const char* kSmallPush = R"([scenario]
name = "small_push"
tier = "shaping"

[heightmap]
size_m = [0.2, 0.1]
cell_size_m = 0.005
initial_height_m = 0.05
repose_angle_deg = 30.0

[[body]]
name = "blade"
[body.shape]
kind = "box"
size_m = [0.005, 0.04, 0.05]
[body.motion]
kind = "straight_push"
start_m = [0.05, 0.05]
end_m = [0.12, 0.05]
depth_m = 0.01
speed_m_per_s = 0.05

[simulation]
time_step_s = 0.05
)";

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return text.replace(pos, from.size(), to);
}

// The message of the ScenarioError that checking `text` raises.
std::string shaping_error_of(const std::string& text) {
  const testing_files::ScratchDir scratch;  // removed at the end of the test
  const fs::path& dir = scratch.path();
  const fs::path file = write_file(dir, "bad.toml", text);
  try {
    check_scenario_file(file);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

TEST(ShapingScenario, EveryShippedScenarioLoads) {
  int count = 0;
  for (const auto& entry :
       fs::directory_iterator(fs::path(TALUS_SOURCE_DIR) / "scenarios/shaping")) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    const nlohmann::json info = check_scenario_file(entry.path());
    EXPECT_EQ(info["tier"], "shaping");
    EXPECT_GT(info["steps"].get<long>(), 0);
    ++count;
  }
  EXPECT_GE(count, 3);
}

TEST(ShapingScenario, UnknownKeyIsRefusedWithLineAndTheKnownKeys) {
  const std::string msg = shaping_error_of(
      with(kSmallPush, "cell_size_m = 0.005", "cell_size_m = 0.005\ncell_sise = 1"));
  EXPECT_NE(msg.find("bad.toml:8:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("heightmap.cell_sise: unknown key"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cell_size_m"), std::string::npos) << msg;
}

TEST(ShapingScenario, WrongTypeNamesWhatWasExpected) {
  const std::string msg =
      shaping_error_of(with(kSmallPush, "cell_size_m = 0.005", "cell_size_m = \"fine\""));
  EXPECT_NE(msg.find("bad.toml:7:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("heightmap.cell_size_m: expected a number > 0 [m], got the string \"fine\""),
            std::string::npos)
      << msg;
}

TEST(ShapingScenario, AMisspeltRequiredKeyIsPointedAtNotJustMissing) {
  // Line 9 holds the typo: the error points there, not at the [heightmap] header.
  const std::string typo =
      shaping_error_of(with(kSmallPush, "repose_angle_deg = 30.0", "repose_angel_deg = 30.0"));
  EXPECT_NE(typo.find("bad.toml:9:20: heightmap.repose_angel_deg: not a key here, and "
                      "'repose_angle_deg' (a number in (0, 90) [deg]) is missing: is this it, "
                      "misspelt?"),
            std::string::npos)
      << typo;
  // Nothing like it in the table: plainly missing, at the table.
  const std::string gone = shaping_error_of(with(kSmallPush, "repose_angle_deg = 30.0\n", ""));
  EXPECT_NE(gone.find("heightmap: missing key 'repose_angle_deg'"), std::string::npos) << gone;
  // A float where an integer is expected is shown as the float it is.
  const std::string fractional = shaping_error_of(with(kSmallPush, "repose_angle_deg = 30.0",
                                                       "repose_angle_deg = 30.0\n"
                                                       "connectivity = 8.0"));
  EXPECT_NE(fractional.find("got the number 8.0"), std::string::npos) << fractional;
}

TEST(ShapingScenario, NegativeCellSizeIsRefused) {
  const std::string msg =
      shaping_error_of(with(kSmallPush, "cell_size_m = 0.005", "cell_size_m = -0.005"));
  EXPECT_NE(msg.find("heightmap.cell_size_m: expected a number > 0 [m], got -0.005"),
            std::string::npos)
      << msg;
}

TEST(ShapingScenario, ReposeAngleOutsideZeroToNinetyIsRefused) {
  for (const char* bad : {"0.0", "90", "120.5", "-3"}) {
    const std::string msg = shaping_error_of(
        with(kSmallPush, "repose_angle_deg = 30.0", std::string("repose_angle_deg = ") + bad));
    EXPECT_NE(msg.find("heightmap.repose_angle_deg: expected a number in (0, 90) [deg]"),
              std::string::npos)
        << msg;
  }
}

TEST(ShapingScenario, AFlowRateAboveTheGridsStabilityBoundIsRefusedAtItsKey) {
  // 8-connected 2-D grid: at most 1/8. The key check allowed 0.5 (a line's bound), and the model's
  // validation then refused it at the [heightmap] table rather than at the key.
  const std::string msg = shaping_error_of(
      with(kSmallPush, "repose_angle_deg = 30.0", "repose_angle_deg = 30.0\nflow_rate = 0.5"));
  EXPECT_NE(msg.find("heightmap.flow_rate: expected a number in [0, 0.125] (0 = derived default"),
            std::string::npos)
      << msg;
}

TEST(ShapingScenario, NonIncreasingWaypointTimesAreRefused) {
  const std::string text = with(kSmallPush, R"(kind = "straight_push"
start_m = [0.05, 0.05]
end_m = [0.12, 0.05]
depth_m = 0.01
speed_m_per_s = 0.05)",
                                R"(kind = "waypoints"
times_s = [0.0, 1.0, 1.0]
positions_m = [[0.05, 0.05, 0.06], [0.1, 0.05, 0.06], [0.12, 0.05, 0.06]])");
  const std::string msg = shaping_error_of(text);
  EXPECT_NE(msg.find("body[0].motion.times_s"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad.toml:18:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not after"), std::string::npos) << msg;
}

TEST(ShapingScenario, MissingKeyNamesTheTableAndTheExpectedForm) {
  const std::string msg = shaping_error_of(with(kSmallPush, "depth_m = 0.01\n", ""));
  EXPECT_NE(msg.find("body[0].motion: missing key 'depth_m': expected a number >= 0 [m] below the "
                     "initial surface"),
            std::string::npos)
      << msg;
}

TEST(ShapingScenario, SyntaxErrorNamesLineAndColumn) {
  const std::string msg =
      shaping_error_of(with(kSmallPush, "initial_height_m = 0.05", "initial_height_m = = 0.05"));
  EXPECT_TRUE(std::regex_search(msg, std::regex("bad\\.toml:8:\\d+: TOML syntax error"))) << msg;
}

TEST(ShapingScenario, MissingSectionAndBadChoiceAreNamed) {
  EXPECT_NE(shaping_error_of(with(kSmallPush, "[simulation]\ntime_step_s = 0.05\n", ""))
                .find("missing table [simulation]"),
            std::string::npos);
  const std::string msg = shaping_error_of(with(kSmallPush, "kind = \"box\"", "kind = \"cube\""));
  EXPECT_NE(msg.find("body[0].shape.kind: expected one of \"box\", \"sphere\""), std::string::npos)
      << msg;
}

// Issue 15: every tier's moved bodies are [[body]] tables; the old [[tool]] is refused.
TEST(ShapingScenario, TheOldToolTableIsRefusedNamingBodyAndItsLine) {
  std::string old = with(kSmallPush, "[[body]]", "[[tool]]");
  old = with(old, "[body.shape]", "[tool.shape]");
  old = with(old, "[body.motion]", "[tool.motion]");
  const std::string msg = shaping_error_of(old);
  EXPECT_NE(msg.find("bad.toml:11:1: tool: renamed to [[body]] (one table for every tier's "
                     "bodies)"),
            std::string::npos)
      << msg;
}

TEST(ShapingScenario, AnUnknownMotionKindNamesTheKindsOfTheShapingTier) {
  const std::string msg =
      shaping_error_of(with(kSmallPush, "kind = \"straight_push\"", "kind = \"static\""));
  EXPECT_NE(msg.find("bad.toml:17:8: body[0].motion.kind: expected one of \"wheel_trench\", "
                     "\"straight_push\", \"trench_plan\", \"waypoints\", \"constant_twist\", got "
                     "\"static\""),
            std::string::npos)
      << msg;
}

TEST(ShapingScenario, ATrenchPlanBladeTakesNoShapeTable) {
  const std::string planned =
      with(with(kSmallPush, "[[body]]",
                "[planner]\nletter = \"T\"\ncell_size_m = 0.01\ndepth_m = 0.01\n\n[[body]]"),
           R"(kind = "straight_push"
start_m = [0.05, 0.05]
end_m = [0.12, 0.05]
depth_m = 0.01
speed_m_per_s = 0.05)",
           "kind = \"trench_plan\"");
  const std::string msg = shaping_error_of(planned);
  EXPECT_NE(msg.find("body[0].shape: a trench_plan motion sizes its body; expected no "
                     "[body.shape]"),
            std::string::npos)
      << msg;
}

TEST(ShapingScenario, TwoBodiesWithOneNameAreRefused) {
  const std::string body = std::string(kSmallPush).substr(std::string(kSmallPush).find("[[body]]"));
  const std::string twice =
      with(kSmallPush, "[simulation]", body.substr(0, body.find("[simulation]")) + "[simulation]");
  const std::string msg = shaping_error_of(twice);
  EXPECT_NE(msg.find("body[1].name: body 'blade' is named twice"), std::string::npos) << msg;
}

TEST(ShapingScenario, RunWritesEveryOutputAndConservesVolume) {
  const testing_files::ScratchDir scratch;  // removed at the end of the test
  const fs::path& dir = scratch.path();
  const fs::path file = write_file(dir, "push.toml", kSmallPush);
  const nlohmann::json summary = run_scenario_file(file, dir / "out");
  for (const char* name : {"summary.json", "steps.csv", "heightmap_final.png",
                           "heightmap_final.npy", "cross_section.csv", "cross_section.png"}) {
    EXPECT_TRUE(fs::exists(dir / "out" / name)) << name;
  }
  EXPECT_LT(summary["volume_relative_error"].get<double>(), 1e-12);
  EXPECT_TRUE(summary["erosion_all_converged"].get<bool>());
  EXPECT_NEAR(summary["cross_section"]["trench_depth_m"].get<double>(), 0.01, 1e-3);
  // No temporary folders are left beside the output.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 2);  // push.toml and out/
}

// A section the blade never crossed (x = 0.19 m, past the push's end at 0.12 m, with the heap
// pushed ahead of it at most up to there) holds no trench: the trench's figures are null with the
// reason, rather than a depth of 0 at the map's edge.
TEST(ShapingScenario, ASectionWithoutATrenchReportsNoTrenchFigures) {
  const testing_files::ScratchDir scratch;
  const fs::path file =
      write_file(scratch.path(), "miss.toml",
                 std::string(kSmallPush) + "\n[output]\ncross_section_x_m = 0.19\n");
  const nlohmann::json summary = run_scenario_file(file, scratch.path() / "out");
  const nlohmann::json& cs = summary["cross_section"];
  EXPECT_TRUE(cs["trench_depth_m"].is_null()) << cs.dump();
  EXPECT_TRUE(cs["trench_width_m"].is_null());
  EXPECT_TRUE(cs["trench_centre_y_m"].is_null());
  EXPECT_NE(cs["no_trench"].get<std::string>().find("lies below the initial level"),
            std::string::npos);
}

int run_cli(const std::string& args, std::string* output = nullptr) {
  // One log per process: ctest runs several CLI tests at once, and a shared file was overwritten
  // by another test's run between this command and the read below.
  const fs::path log =
      fs::temp_directory_path() / ("talus_cli_test_" + std::to_string(::getpid()) + ".log");
  const std::string cmd = std::string(TALUS_CLI) + " " + args + " > " + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  if (output) *output = testing_files::read_text(log);
  fs::remove(log);
  return WEXITSTATUS(status);
}

TEST(ShapingScenario, CliRefusesBadInputWithExitCode2AndLeavesTheOutputFolderAlone) {
  const testing_files::ScratchDir scratch;  // removed at the end of the test
  const fs::path& dir = scratch.path();
  const fs::path good = write_file(dir, "push.toml", kSmallPush);
  std::string out;
  ASSERT_EQ(run_cli("run " + good.string() + " --out " + (dir / "out").string(), &out), 0) << out;
  const std::string earlier = testing_files::read_text(dir / "out" / "summary.json");
  const fs::path bad =
      write_file(dir, "bad.toml", with(kSmallPush, "cell_size_m = 0.005", "cell_size_m = -1"));
  EXPECT_EQ(run_cli("run " + bad.string() + " --replace --out " + (dir / "out").string(), &out), 2);
  EXPECT_NE(out.find("heightmap.cell_size_m"), std::string::npos) << out;
  EXPECT_EQ(testing_files::read_text(dir / "out" / "summary.json"), earlier);
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 3);  // push.toml, bad.toml and out/: no temporary folder left
  EXPECT_EQ(
      run_cli("run " + (dir / "missing.toml").string() + " --out " + (dir / "o2").string(), &out),
      2);
  EXPECT_NE(out.find("missing.toml: no such file (expected a scenario file, .toml)"),
            std::string::npos)
      << out;
  EXPECT_EQ(run_cli("run", &out), 2);
  // An empty --out names no folder: bad input, said in the option's name.
  EXPECT_EQ(run_cli("run " + good.string() + " --out ''", &out), 2);
  EXPECT_NE(out.find("--out '' does not name a folder"), std::string::npos) << out;
}

// A cross section off the bed was drawn silently at the nearest edge; it is refused.
TEST(ShapingScenario, ACrossSectionOffTheBedIsRefusedWithTheBedsRange) {
  const std::string msg =
      shaping_error_of(std::string(kSmallPush) + "\n[output]\ncross_section_x_m = 7.0\n");
  EXPECT_NE(msg.find("output.cross_section_x_m"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[0, 0.2]"), std::string::npos) << msg;
  const testing_files::ScratchDir scratch;
  const fs::path inside =
      write_file(scratch.path(), "inside.toml",
                 std::string(kSmallPush) + "\n[output]\ncross_section_x_m = 0.1\n");
  EXPECT_NO_THROW(check_scenario_file(inside));
}

// An earlier talus output is replaced only with --replace, and only when it holds nothing else;
// a folder of the user's is never written over (issue 16: `--out keep` deleted keep/notes.txt).
TEST(ShapingScenario, CliReplacesOnlyAnEarlierTalusOutputAndOnlyWhenAsked) {
  const testing_files::ScratchDir scratch;  // removed at the end of the test
  const fs::path& dir = scratch.path();
  const fs::path file = write_file(dir, "push.toml", kSmallPush);
  const std::string run = "run " + file.string() + " --out " + (dir / "out").string();
  std::string out;
  ASSERT_EQ(run_cli(run, &out), 0) << out;
  EXPECT_EQ(out.find('\r'), std::string::npos);  // no progress bar when not on a terminal
  EXPECT_EQ(run_cli(run, &out), 2);
  EXPECT_NE(out.find("--replace"), std::string::npos) << out;
  fs::remove(dir / "out" / "steps.csv");
  write_file(dir / "out", "stale.txt", "a file talus did not write");
  EXPECT_EQ(run_cli(run + " --replace", &out), 2);
  EXPECT_NE(out.find("'stale.txt'"), std::string::npos) << out;
  EXPECT_EQ(testing_files::read_text(dir / "out" / "stale.txt"), "a file talus did not write");
  fs::remove(dir / "out" / "stale.txt");
  EXPECT_EQ(run_cli(run + " --replace", &out), 0) << out;
  EXPECT_TRUE(fs::exists(dir / "out" / "steps.csv"));

  fs::create_directories(dir / "keep");
  write_file(dir / "keep", "notes.txt", "x");
  for (const char* flags : {"", " --replace"}) {
    EXPECT_EQ(run_cli("run " + file.string() + " --out " + (dir / "keep").string() + flags, &out),
              2);
    EXPECT_NE(out.find("not a talus output"), std::string::npos) << out;
    EXPECT_EQ(testing_files::read_text(dir / "keep" / "notes.txt"), "x");
  }
  // --out naming the scenario's own folder.
  EXPECT_EQ(run_cli("run " + file.string() + " --replace --out " + dir.string(), &out), 2);
  EXPECT_TRUE(fs::exists(file));
}

TEST(ShapingScenario, CliHelpDescribesTheCommands) {
  // Each command and option is listed with the sentence that explains it, not just its name.
  std::string out;
  EXPECT_EQ(run_cli("--help", &out), 0);
  for (const char* line :
       {"run", "Run a scenario and write its outputs", "check",
        "Read and validate a scenario without running it", "--version", "docs/scenarios.md"}) {
    EXPECT_NE(out.find(line), std::string::npos) << "talus --help lacks '" << line << "':\n" << out;
  }
  EXPECT_EQ(run_cli("run --help", &out), 0);
  for (const char* line :
       {"scenario", "Scenario file (.toml)", "--out", "a new or empty folder", "temporary folder",
        "talus never writes over files it did not write", "--replace", "holds an earlier talus run",
        "--threads", "TALUS_THREADS", "--quiet", "No progress"}) {
    EXPECT_NE(out.find(line), std::string::npos) << "talus run --help lacks '" << line << "':\n"
                                                 << out;
  }
  EXPECT_EQ(run_cli("check --help", &out), 0);
  EXPECT_NE(out.find("exit code 2 if it is wrong"), std::string::npos) << out;
  // An unknown command is refused with exit 2, naming it.
  EXPECT_EQ(run_cli("frobnicate", &out), 2);
  EXPECT_NE(out.find("frobnicate"), std::string::npos) << out;
}

// origin_m gives the bed's lower-left corner: the grid's first sample, the centre of cell (0, 0),
// sits half a cell inside it, and the cells cover exactly [origin, origin + size].
TEST(ShapingScenario, OriginIsTheBedsCornerAndSamplesSitAtCellCentres) {
  const testing_files::ScratchDir scratch;  // removed at the end of the test
  const fs::path& dir = scratch.path();
  const auto doc = ScenarioDocument::load(write_file(
      dir, "push.toml",
      with(kSmallPush, "cell_size_m = 0.005", "cell_size_m = 0.005\norigin_m = [-0.05, -0.01]")));
  const shaping::HeightmapModel& hm = shaping::load_shaping_scenario(doc->root()).model.heightmap;
  EXPECT_EQ(hm.nx, 40);
  EXPECT_EQ(hm.ny, 20);
  EXPECT_DOUBLE_EQ(hm.x0_m, -0.0475);
  EXPECT_DOUBLE_EQ(hm.y0_m, -0.0075);
  EXPECT_DOUBLE_EQ(hm.lo_x_m(), -0.05);
  EXPECT_DOUBLE_EQ(hm.lo_y_m() + hm.ny * hm.cell_size_m, 0.09);
}

TEST(ShapingScenario, NanInTheHeightmapStopsTheRunNamingStepAndCell) {
  const testing_files::ScratchDir scratch;  // removed at the end of the test
  const fs::path& dir = scratch.path();
  const auto doc = ScenarioDocument::load(write_file(dir, "push.toml", kSmallPush));
  shaping::ShapingScenario sc = shaping::load_shaping_scenario(doc->root());
  shaping::ShapingState state = shaping::ShapingState::initial(sc.model, sc.initial);
  const int i = 12, j = 10;  // under the blade's start
  state.heightmap.height_m[static_cast<std::size_t>(j * sc.model.heightmap.nx + i)] =
      std::numeric_limits<double>::quiet_NaN();
  shaping::ShapingWorkspace work;
  try {
    for (int k = 0; k < 3; ++k) shaping::step(sc.model, state, work);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("(12, 10)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("step"), std::string::npos) << msg;
  }
}

// Issue 16: a tool moving 9 cm per step over a 5 mm grid went through the sand and the run
// reported success. The reader refuses it; a model built in code stops at the step.
TEST(ShapingScenario, AToolMovingMoreThanACellPerStepIsRefusedAndStopsTheRun) {
  const std::string fast = with(kSmallPush, "speed_m_per_s = 0.05", "speed_m_per_s = 1.8");
  const std::string msg = shaping_error_of(fast);
  EXPECT_NE(msg.find("bad.toml:24:15: simulation.time_step_s: tool 'blade' moves up to 0.09 m "
                     "per step (1.8 m/s), more than one 0.005 m cell"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("time_step_s <= 0.002778 s"), std::string::npos) << msg;

  const testing_files::ScratchDir scratch;  // removed at the end of the test
  const fs::path& dir = scratch.path();
  const auto doc = ScenarioDocument::load(write_file(dir, "push.toml", kSmallPush));
  shaping::ShapingScenario sc = shaping::load_shaping_scenario(doc->root());
  sc.model.time_step_s = 1.8;  // 9 cm per step at 5 cm/s
  shaping::ShapingState state = shaping::ShapingState::initial(sc.model, sc.initial);
  shaping::ShapingWorkspace work;
  try {
    shaping::step(sc.model, state, work);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("step 1 (t = 1.8000 s): tool 'blade' moved 0.07 m in "
                                         "one step, more than one cell (0.005 m)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace talus
