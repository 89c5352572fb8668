// SCM bad input: non-physical soil, coarse grids, bodies off the map, scenario files.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/scenario_file.hpp"
#include "core/units.hpp"
#include "error_message.hpp"
#include "runner/run_scenario.hpp"
#include "scm/scm_scenario.hpp"
#include "scm/scm_step.hpp"

namespace talus::scm {
namespace {

using test_support::invalid_argument_of;

ScmModel good_model() {
  ScmModel m;
  m.cell_size_m = 0.01;
  m.nx = 61;
  m.ny = 61;
  m.soil = named_soil("dry_sand");
  return m;
}

TEST(ScmInputs, NamedSoilsAreValidAndUnknownNamesListed) {
  for (const std::string& n : named_soil_names()) EXPECT_NO_THROW(validate(named_soil(n))) << n;
  EXPECT_NE(invalid_argument_of([] { named_soil("mud"); }).find("dry_sand, lunar_regolith"),
            std::string::npos);
}

TEST(ScmInputs, NonPhysicalSoilIsRefused) {
  auto msg = [](auto change) {
    SoilParameters s = named_soil("dry_sand");
    change(s);
    return invalid_argument_of([&] { validate(s); });
  };
  EXPECT_NE(msg([](SoilParameters& s) { s.kphi = -1.0; }).find("soil.kphi = -1"),
            std::string::npos);
  EXPECT_NE(msg([](SoilParameters& s) {
              s.exponent_n = 0.0;
            }).find("soil.n = 0: expected an exponent > 0"),
            std::string::npos);
  EXPECT_NE(msg([](SoilParameters& s) {
              s.friction_angle_rad = deg_to_rad(90.0);
            }).find("soil.friction_angle_deg = 90: expected an angle in (0, 90) deg"),
            std::string::npos);
  EXPECT_NE(msg([](SoilParameters& s) { s.friction_angle_rad = 0.0; }).find("friction_angle_deg"),
            std::string::npos);
  EXPECT_NE(msg([](SoilParameters& s) { s.janosi_shear_modulus_m = 0.0; }).find("janosi"),
            std::string::npos);
  EXPECT_NE(msg([](SoilParameters& s) {
              s.kc = 0.0;
              s.kphi = 0.0;
            }).find("kc / b + kphi"),
            std::string::npos);
}

std::string step_error(ScmModel m, const Pose& X_WB) {
  ScmState s(m);
  ScmWorkspace w;
  std::vector<BodyMotion> motion(1);
  motion[0].X_WB = X_WB;
  std::vector<Wrench> wrench(1);
  try {
    step(m, s, motion, wrench, w);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(ScmInputs, BodyOutsideTheMapIsRefusedByName) {
  ScmModel m = good_model();
  m.bodies = {CoupledBody{"wheel", CylinderShape{0.1, 0.05}, Vec3::Zero()}};
  const std::string e = step_error(m, make_pose(Vec3(0.55, 0.3, 0.1), kPi / 2));
  EXPECT_NE(e.find("body 'wheel' spans x [0.45, 0.65] m"), std::string::npos) << e;
  EXPECT_NE(e.find("outside the map x [0, 0.6] m"), std::string::npos) << e;
}

TEST(ScmInputs, GridTooCoarseForTheBodyIsRefused) {
  ScmModel m = good_model();
  m.bodies = {CoupledBody{"pin", BoxShape{Vec3(0.004, 0.004, 0.05)}, Vec3::Zero()}};
  const std::string e = step_error(m, make_pose(Vec3(0.3, 0.3, 0.04)));
  EXPECT_NE(e.find("body 'pin' covers 1 x 1 nodes: the grid (cell_size_m = 0.01) is too coarse"),
            std::string::npos)
      << e;
}

std::string scenario_error(const std::string& text) {
  try {
    const auto doc = ScenarioDocument::parse(text, "bad.toml");
    load_scm_scenario(doc->root());
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

const char* kPlate = R"(
[scenario]
name = "p"
tier = "scm"
[grid]
size_m = [0.5, 0.5]
cell_size_m = 0.01
[soil]
preset = "dry_sand"
SOIL
[flow]
method = "border"
[simulation]
time_step_s = 0.001
[experiment]
kind = "plate_sinkage"
size_m = [0.2, 0.2, 0.04]
centre_m = [0.255, 0.255]
load_n = 500.0
)";

std::string plate_with(const std::string& soil_line) {
  std::string t = kPlate;
  t.replace(t.find("SOIL"), 4, soil_line);
  return t;
}

TEST(ScmInputs, ScenarioSoilErrorsNameFileLineAndKey) {
  EXPECT_EQ(scenario_error(plate_with("")), "");
  const std::string e = scenario_error(plate_with("friction_angle_deg = 95.0"));
  EXPECT_NE(e.find("bad.toml:"), std::string::npos) << e;
  EXPECT_NE(e.find("soil"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an angle in (0, 90) deg"), std::string::npos) << e;
  EXPECT_NE(scenario_error(plate_with("n = -1.0")).find("soil.n = -1: expected an exponent > 0"),
            std::string::npos);
  EXPECT_NE(scenario_error(plate_with("kphi = -5.0")).find("soil.kphi = -5"), std::string::npos);
  EXPECT_NE(scenario_error(plate_with("stiffness = 3.0")).find("stiffness"), std::string::npos);
}

TEST(ScmInputs, FlowApproximationKeysAreRangeChecked) {
  auto with_flow = [](const std::string& lines) {
    std::string t = plate_with("");
    t.replace(t.find("method = \"border\""), 17, "method = \"fields\"\n" + lines);
    return t;
  };
  EXPECT_EQ(scenario_error(with_flow("cluster_nodes = 1\nfield_stride = 1")), "");
  EXPECT_NE(scenario_error(with_flow("cluster_nodes = 0")).find("cluster_nodes"),
            std::string::npos);
  EXPECT_NE(scenario_error(with_flow("field_stride = 65")).find("field_stride"), std::string::npos);
  EXPECT_EQ(scenario_error(with_flow("cluster_span_m = 0.1\nfield_spacing_m = 0")), "");
  EXPECT_NE(scenario_error(with_flow("cluster_span_m = -0.1")).find("cluster_span_m"),
            std::string::npos);
  // One size per approximation: in nodes or in metres.
  EXPECT_NE(scenario_error(with_flow("cluster_nodes = 3\ncluster_span_m = 0.06"))
                .find("give cluster_nodes or cluster_span_m, not both"),
            std::string::npos);
  EXPECT_NE(scenario_error(with_flow("field_stride = 2\nfield_spacing_m = 0.04"))
                .find("give field_stride or field_spacing_m, not both"),
            std::string::npos);
  ScmModel m = good_model();
  m.flow.field_stride = -1;
  EXPECT_NE(invalid_argument_of([&] { validate(m); }).find("flow.field_stride = -1"),
            std::string::npos);
  m.flow.field_stride = 0;
  m.flow.field_spacing_m = 65.5 * m.cell_size_m;  // 65 nodes
  EXPECT_NE(
      invalid_argument_of([&] { validate(m); }).find("flow.field_stride = 65 (field_spacing_m"),
      std::string::npos);
  m.flow.field_spacing_m = 0.04;
  m.flow.cluster_nodes = -2;
  EXPECT_NE(invalid_argument_of([&] { validate(m); }).find("flow.cluster_nodes = -2"),
            std::string::npos);
}

const char* kBladeBody = R"([[body]]
name = "blade"
[body.shape]
kind = "box"
size_m = [0.01, 0.12, 0.2]
[body.motion]
kind = "waypoints"
times_s = [0.0, 0.5, 2.5]
positions_m = [[0.2, 0.2, 0.1], [0.2, 0.2, 0.05], [0.4, 0.2, 0.05]]
rpy_deg = [[0.0, 5.0, 0.0], [0.0, 5.0, 0.0], [0.0, 5.0, 0.0]]
)";

const std::string kBlade = R"([scenario]
name = "b"
tier = "scm"
[grid]
size_m = [0.5, 0.5]
cell_size_m = 0.01
[soil]
preset = "dry_sand"
[flow]
method = "border"
[simulation]
time_step_s = 0.002
[experiment]
kind = "blade"
)" + std::string(kBladeBody);

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

long steps_of(const std::string& text) {
  const auto doc = ScenarioDocument::parse(text, "bad.toml");
  return load_scm_scenario(doc->root()).steps;
}

TEST(ScmInputs, TheBladeRunsForSimulationDurationOrItsMotion) {
  EXPECT_EQ(steps_of(kBlade), 1250);  // the waypoints' 2.5 s in steps of 2 ms
  const auto doc = ScenarioDocument::parse(kBlade, "blade.toml");
  const BladeTest blade = load_scm_scenario(doc->root()).blade;
  EXPECT_EQ(std::get<BoxShape>(blade.shape).half_extents_m, Vec3(0.005, 0.06, 0.1));
  EXPECT_TRUE(pose_at(blade.driver, 2.5).translation().isApprox(Vec3(0.4, 0.2, 0.05), 1e-12));
  EXPECT_EQ(
      steps_of(replaced(kBlade, "time_step_s = 0.002", "time_step_s = 0.002\nduration_s = 1.0")),
      500);
}

TEST(ScmInputs, TheBladesOldDurationKeyIsRefusedNamingTheNewOne) {
  const std::string e =
      scenario_error(replaced(kBlade, "kind = \"blade\"", "kind = \"blade\"\nduration_s = 1.0"));
  EXPECT_NE(e.find("bad.toml:15:14: experiment.duration_s: moved to [simulation] duration_s"),
            std::string::npos)
      << e;
}

// Issue 15: the blade is a [[body]] as in every tier; [experiment] keeps only its kind.
TEST(ScmInputs, TheBladesOldKeysInExperimentAreRefusedNamingBody) {
  const std::string size = scenario_error(
      replaced(kBlade, "kind = \"blade\"", "kind = \"blade\"\nsize_m = [0.01, 0.12, 0.2]"));
  EXPECT_NE(size.find("bad.toml:15:10: experiment.size_m: moved to [[body]] (one table for every "
                      "tier's bodies)"),
            std::string::npos)
      << size;
  const std::string motion = scenario_error(replaced(
      kBlade, "kind = \"blade\"", "kind = \"blade\"\n[experiment.motion]\nkind = \"waypoints\""));
  EXPECT_NE(motion.find("experiment.motion: moved to [[body]]"), std::string::npos) << motion;
}

TEST(ScmInputs, ABladeRunMovesExactlyOneBoxAlongWaypoints) {
  const std::string two = scenario_error(std::string(kBlade) + kBladeBody);
  EXPECT_NE(two.find("body: a blade run moves exactly one [[body]], the blade; got 2"),
            std::string::npos)
      << two;
  const std::string none = scenario_error(replaced(kBlade, kBladeBody, ""));
  EXPECT_NE(none.find("a blade run moves exactly one [[body]], the blade; got 0"),
            std::string::npos)
      << none;
  const std::string sphere = scenario_error(replaced(
      kBlade, "kind = \"box\"\nsize_m = [0.01, 0.12, 0.2]", "kind = \"sphere\"\nradius_m = 0.1"));
  EXPECT_NE(sphere.find("body[0].shape.kind: the blade must be a shape of kind \"box\""),
            std::string::npos)
      << sphere;
  const std::string twist =
      scenario_error(replaced(kBlade, "kind = \"waypoints\"", "kind = \"constant_twist\""));
  EXPECT_NE(
      twist.find("body[0].motion.kind: expected one of \"waypoints\", got \"constant_twist\""),
      std::string::npos)
      << twist;
}

TEST(ScmInputs, PlateAndWheelRunsRefuseABody) {
  const std::string e = scenario_error(plate_with("") + kBladeBody);
  EXPECT_NE(e.find("body: unknown key"), std::string::npos) << e;
}

TEST(ScmInputs, PlateAndWheelRunsRefuseADurationNamingTheKeysThatSetTheirLength) {
  const std::string plate = scenario_error(
      replaced(plate_with(""), "time_step_s = 0.001", "time_step_s = 0.001\nduration_s = 1.0"));
  EXPECT_NE(plate.find("bad.toml:15:14: simulation.duration_s: a plate_sinkage run lasts "
                       "[experiment] ramp_s + hold_s"),
            std::string::npos)
      << plate;
  std::ifstream in(std::filesystem::path(TALUS_SOURCE_DIR) / "scenarios" / "scm" /
                   "single_wheel.toml");
  const std::string wheel_text((std::istreambuf_iterator<char>(in)), {});
  const std::string wheel = scenario_error(
      replaced(wheel_text, "time_step_s = 0.001", "time_step_s = 0.001\nduration_s = 1.0"));
  EXPECT_NE(wheel.find("bad.toml:22:14: simulation.duration_s: a single_wheel run lasts "
                       "[experiment] settle_s + drive_s"),
            std::string::npos)
      << wheel;
}

// The text of a shipped SCM scenario file.
std::string shipped_text(const char* name) {
  std::ifstream in(std::filesystem::path(TALUS_SOURCE_DIR) / "scenarios" / "scm" / name);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::string shipped_slip_sweep() { return shipped_text("slip_sweep.toml"); }

// An empty folder of this process under the system's temporary folder (removed first if left).
std::filesystem::path empty_temp_dir(const std::string& stem) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / (stem + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(ScmInputs, ASlipSweepComparesWithTheOtherMethodOnly) {
  const std::string same = scenario_error(
      replaced(shipped_slip_sweep(), "compare_method = \"border\"", "compare_method = \"fields\""));
  EXPECT_NE(same.find("experiment.compare_method: \"fields\" is [flow] method already: expected "
                      "the other method"),
            std::string::npos)
      << same;
  const std::string unknown = scenario_error(
      replaced(shipped_slip_sweep(), "compare_method = \"border\"", "compare_method = \"exact\""));
  EXPECT_NE(unknown.find("experiment.compare_method"), std::string::npos) << unknown;
}

TEST(ScmInputs, ASlipSweepWithCompareMethodRunsBothMethods) {
  // Two slips, short phases: both sweeps' CSVs, the side-by-side plot and the second sweep in
  // the summary under "compare".
  std::string text =
      replaced(shipped_slip_sweep(), "slips = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]",
               "slips = [0.1, 0.3]");
  text = replaced(text, "settle_s = 0.3", "settle_s = 0.1");
  text = replaced(text, "drive_s = 1.0", "drive_s = 0.2");
  const std::filesystem::path dir = empty_temp_dir("talus_scm_compare");
  std::ofstream(dir / "sweep.toml") << text;
  const nlohmann::json s = run_scenario_file(dir / "sweep.toml", dir / "out", {});
  for (const char* f : {"slip_sweep.csv", "slip_sweep_border.csv", "slip_sweep_methods.png"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / "out" / f)) << f;
  }
  const nlohmann::json& r = s.contains("result") ? s["result"] : s;
  ASSERT_TRUE(r.contains("compare")) << r.dump();
  EXPECT_EQ(r["compare"]["method"], "border");
  ASSERT_EQ(r["compare"]["sweep"].size(), 2u);
  ASSERT_EQ(r["sweep"].size(), 2u);
  // The two methods are different runs: their sinkages differ.
  EXPECT_NE(r["compare"]["sweep"][0]["mean_sinkage_m"].get<double>(),
            r["sweep"][0]["mean_sinkage_m"].get<double>());
  std::filesystem::remove_all(dir);
}

// A plate still sinking at the end of its hold (the rig has not reached the load) says so: the
// shipped plate settles (no warning), a hold of 0 s stops it at a fraction of the load.
TEST(ScmInputs, APlateStillSinkingAtTheEndOfItsHoldIsWarnedOf) {
  const std::string shipped = shipped_text("plate_sinkage.toml");
  const std::filesystem::path dir = empty_temp_dir("talus_scm_hold");
  std::ofstream(dir / "settled.toml") << shipped;
  const nlohmann::json settled = run_scenario_file(dir / "settled.toml", dir / "a", {});
  EXPECT_GE(settled["result"]["load_carried_fraction"].get<double>(), 0.99);
  EXPECT_FALSE(settled.contains("warnings")) << settled["warnings"].dump();
  std::ofstream(dir / "short.toml") << replaced(shipped, "hold_s = 0.5", "hold_s = 0.0");
  const nlohmann::json sinking = run_scenario_file(dir / "short.toml", dir / "b", {});
  EXPECT_LT(sinking["result"]["load_carried_fraction"].get<double>(), 0.99);
  ASSERT_EQ(sinking["warnings"].size(), 1u);
  EXPECT_NE(sinking["warnings"][0].get<std::string>().find("short.toml: the soil carries "),
            std::string::npos);
  EXPECT_NE(sinking["warnings"][0].get<std::string>().find(
                "the plate is still sinking and sinkage_m is not its equilibrium"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// Soil pushed to the grid's edge is held there by the boundary: a run says how far the edge moved
// and warns above a millimetre. The shipped multipass grid (1.6 x 1.0 m) leaves it free; the
// 1.2 x 0.6 m grid it had before piled 12.9 mm against its sides.
TEST(ScmInputs, SoilThatReachesTheGridsEdgeIsWarnedOf) {
  const std::string shipped = shipped_text("multipass.toml");
  const std::filesystem::path dir = empty_temp_dir("talus_scm_edge");
  std::ofstream(dir / "wide.toml") << shipped;
  const nlohmann::json wide = run_scenario_file(dir / "wide.toml", dir / "a", {});
  EXPECT_LT(wide["result"]["soil_change_at_grid_edge_m"].get<double>(), 1e-4);
  EXPECT_FALSE(wide.contains("warnings")) << wide["warnings"].dump();
  std::ofstream(dir / "narrow.toml")
      << replaced(replaced(shipped, "size_m = [1.6, 1.0]", "size_m = [1.2, 0.6]"),
                  "start_m = [0.5, 0.5]", "start_m = [0.35, 0.3]");
  const nlohmann::json narrow = run_scenario_file(dir / "narrow.toml", dir / "b", {});
  EXPECT_GT(narrow["result"]["soil_change_at_grid_edge_m"].get<double>(), 5e-3);
  ASSERT_EQ(narrow["warnings"].size(), 1u) << narrow.dump();
  const std::string warning = narrow["warnings"][0];
  EXPECT_NE(warning.find("narrow.toml: the soil at the edge of the grid moved "), std::string::npos)
      << warning;
  EXPECT_NE(warning.find("reached the boundary of the grid ([grid] size_m: 1.2 x 0.6 m)"),
            std::string::npos)
      << warning;
  std::filesystem::remove_all(dir);
}

TEST(ScmInputs, ShippedScenariosParse) {
  const std::filesystem::path dir = std::filesystem::path(TALUS_SOURCE_DIR) / "scenarios" / "scm";
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".toml") continue;
    const auto doc = ScenarioDocument::load(entry.path());
    EXPECT_NO_THROW(check_scm(doc->root())) << entry.path();
    ++n;
  }
  EXPECT_EQ(n, 6);
}

}  // namespace
}  // namespace talus::scm
