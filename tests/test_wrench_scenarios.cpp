// The wrench tier's robot scenarios (issue 6): foot_drop, quadruped and foot_accuracy run end to
// end on synthetic databases written by the test (ellipsoids growing with depth: the tests check
// the scenarios' mechanics and outputs, not a medium), and their bad input.

#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/scenario_file.hpp"
#include "runner/run_scenario.hpp"
#include "wrench/foot_contact.hpp"
#include "wrench/velocity_directions.hpp"
#include "wrench/wrench_database.hpp"
#include "wrench/wrench_scenario_kinds.hpp"

namespace talus::wrench {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path =
      fs::temp_directory_path() / ("talus_wrench_scenarios_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

// W(theta): the unit sphere's 26 cube directions opposing motion, (f_x, f_z, tau_y) scaled by
// (shear x force, force, force / 10) x depth / 4.5 cm, lifted by a third of a unit in f_z.
void write_synthetic_database(const fs::path& file, double force_N, double shear = 1.0) {
  WrenchDatabase db;
  const double depths[] = {0.0, -0.015, -0.03, -0.045, -0.06};
  const double tilts[] = {-0.6, -0.3, 0.0, 0.3, 0.6};
  db.configurations.resize(25, 2);
  int row = 0;
  for (const double d : depths) {
    for (const double t : tilts) db.configurations.row(row++) << d, t;
  }
  db.velocity_directions = velocity_directions(26);
  db.velocity_scale = (Eigen::VectorXd(3) << 0.02, 0.02, 0.3).finished();
  Eigen::MatrixXd surface = -db.velocity_directions;
  surface.col(0) *= shear;
  surface.col(2) *= 0.1;
  surface.col(1).array() += 0.33;
  for (int j = 0; j < 25; ++j) {
    db.wrenches.push_back(force_N * (-db.configurations(j, 0) / 0.045) * surface);
  }
  db.medium = MediumDescription{"synthetic", 0.004, 2600.0, 0.6, "test_wrench_scenarios"};
  save_database(db, file);
}

std::string foot_drop(const fs::path& db, const std::string& extra_case = "") {
  return "[scenario]\nname = \"drop\"\ntier = \"wrench\"\nkind = \"foot_drop\"\n"
         "[robot]\nmodel = \"" +
         (fs::path(TALUS_SOURCE_DIR) / "robots/paper_foot/paper_foot.xml").string() +
         "\"\nbody = \"foot\"\nfeet = [\"bottom\"]\n"
         "granular_inertia = [14.714, 14.714, 0.122]\n"
         "[simulation]\nduration_s = 1.5\n"
         "[[case]]\nname = \"upright\"\ndatabase = \"" +
         db.string() + "\"\ninitial_joints = [\"z\"]\ninitial_values = [0.01]\n" + extra_case;
}

TEST(WrenchScenarios, FootDroppedUprightOnFlatGroundComesToRestUpright) {
  TempDir tmp;
  write_synthetic_database(tmp.path / "w.h5", 200.0);
  const fs::path file = tmp.path / "drop.toml";
  std::ofstream(file) << foot_drop(tmp.path / "w.h5");
  EXPECT_EQ(check_scenario_file(file)["steps"], 1500);
  const nlohmann::json s = run_scenario_file(file, tmp.path / "out", {});
  for (const char* f : {"summary.json", "overview.png", "upright.png", "upright.csv"}) {
    EXPECT_TRUE(fs::exists(tmp.path / "out" / f)) << f;
  }
  // The log's first row has the foot where it starts, 1 cm above the ground (it said depth 0).
  std::ifstream csv(tmp.path / "out" / "upright.csv");
  std::string header, first;
  std::getline(csv, header);
  std::getline(csv, first);
  EXPECT_EQ(header.find("t_s,body_x_m,body_z_m,body_pitch_rad,bottom_in_contact,bottom_depth_m"),
            0u);
  EXPECT_EQ(first.find("0,0,0.01,0,0,0.01,"), 0u) << first;
  const nlohmann::json& c = s["cases"][0];
  EXPECT_TRUE(c["body"]["at_rest"].get<bool>()) << c.dump(1);
  EXPECT_LT(std::abs(c["body"]["final_pitch_rad"].get<double>()), 1e-6);
  const nlohmann::json& foot = c["feet"]["bottom"];
  // Sunk into the medium, within the sampled range, carrying the weight (7.357 kg).
  EXPECT_LT(foot["final_depth_m"].get<double>(), 0.0);
  EXPECT_GT(foot["final_depth_m"].get<double>(), -0.06);
  EXPECT_NEAR(foot["final_wrench_W"][1].get<double>(), 7.357 * 9.81, 0.5);
  EXPECT_EQ(c["clamped_queries"], 0);
  EXPECT_FALSE(s.contains("warnings"));
}

TEST(WrenchScenarios, AFootSinkingFarPastTheDataStopsTheRunNamingStepAndDepth) {
  // A medium a tenth as strong: at the deepest sampled 6 cm it carries 20 N x 1.33 of the foot's
  // 72 N, so the foot sinks on past the data.
  TempDir tmp;
  write_synthetic_database(tmp.path / "weak.h5", 20.0);
  const fs::path file = tmp.path / "sink.toml";
  std::ofstream(file) << foot_drop(
      tmp.path / "weak.h5",
      "[[case]]\nname = \"later\"\ndatabase = \"" + (tmp.path / "weak.h5").string() + "\"\n");
  try {
    run_scenario_file(file, tmp.path / "out", {});
    FAIL() << "expected the run to stop";
  } catch (const WrenchRunStopped& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("sink.toml: drop: case 'upright': step "), std::string::npos) << what;
    EXPECT_NE(what.find("foot 'bottom' is -0.09"), std::string::npos) << what;
    EXPECT_NE(what.find("deepest -0.06 m, more than the 0.03 m allowed"), std::string::npos)
        << what;
  }
  // The outputs up to the last good step are in place (README: a run whose physics fails keeps
  // its folder), with summary.json saying why; the case after the failed one was not run.
  const fs::path out = tmp.path / "out";
  for (const char* f : {"summary.json", "overview.png", "upright.png", "upright.csv"}) {
    EXPECT_TRUE(fs::exists(out / f)) << f;
  }
  EXPECT_FALSE(fs::exists(out / "later.csv"));
  const nlohmann::json stopped = nlohmann::json::parse(std::ifstream(out / "summary.json"));
  EXPECT_NE(stopped["stopped"].get<std::string>().find("case 'upright': step "), std::string::npos);
  ASSERT_EQ(stopped["cases"].size(), 1u);
  const nlohmann::json& c = stopped["cases"][0];
  EXPECT_NE(c["stopped"].get<std::string>().find("foot 'bottom' is -0.09"), std::string::npos);
  // The last sample is the state before the step that failed: the foot already past the data.
  EXPECT_LT(c["feet"]["bottom"]["final_depth_m"].get<double>(), -0.085);
  EXPECT_NEAR(c["duration_s"].get<double>(), 1e-3 * c["steps"].get<double>(), 1e-9);
  // Allowed on purpose ([simulation] depth_beyond_data_m): it runs on, clamped and counted.
  std::string text = foot_drop(tmp.path / "weak.h5");
  const std::string duration = "duration_s = 1.5";
  text.replace(text.find(duration), duration.size(), "duration_s = 0.3\ndepth_beyond_data_m = 10");
  std::ofstream(file) << text;
  const nlohmann::json s = run_scenario_file(file, tmp.path / "out2", {});
  EXPECT_GT(s["cases"][0]["clamped_queries"].get<long>(), 0);
  ASSERT_EQ(s["warnings"].size(), 1u);  // and says so
  EXPECT_NE(s["warnings"][0].get<std::string>().find(
                "case 'upright': " + std::to_string(s["cases"][0]["clamped_queries"].get<long>()) +
                " of "),
            std::string::npos)
      << s["warnings"];
  EXPECT_LT(s["cases"][0]["feet"]["bottom"]["final_depth_m"].get<double>(), -0.09);
  // A negative allowance is refused at check.
  text.replace(text.find("depth_beyond_data_m = 10"), 24, "depth_beyond_data_m = -1");
  std::ofstream(file) << text;
  try {
    check_scenario_file(file);
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("depth_beyond_data_m"), std::string::npos) << e.what();
  }
}

TEST(WrenchScenarios, AFootStartingPastTheDataIsRefusedAtCheck) {
  TempDir tmp;
  write_synthetic_database(tmp.path / "w.h5", 200.0);
  const fs::path file = tmp.path / "deep.toml";
  std::string text = foot_drop(tmp.path / "w.h5");
  text.replace(text.find("initial_values = [0.01]"), 23, "initial_values = [-0.2]");
  std::ofstream(file) << text;
  try {
    check_scenario_file(file);
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deep.toml:16:18: case[0].initial_values: at the case's start, foot "
                        "'bottom' is -0.2 m deep"),
              std::string::npos)
        << what;
  }
}

TEST(WrenchScenarios, SimulationTimeStepSetsMujocosStep) {
  TempDir tmp;
  write_synthetic_database(tmp.path / "w.h5", 200.0);
  const fs::path file = tmp.path / "drop.toml";
  std::string text = foot_drop(tmp.path / "w.h5");
  const std::string duration = "duration_s = 1.5";
  text.replace(text.find(duration), duration.size(), "duration_s = 0.5\ntime_step_s = 0.002");
  std::ofstream(file) << text;
  EXPECT_EQ(check_scenario_file(file)["steps"], 250);  // 0.5 s of 2 ms, not the model's 1 ms
  const nlohmann::json s = run_scenario_file(file, tmp.path / "out", {});
  EXPECT_EQ(s["cases"][0]["steps"], 250) << s.dump(1);
}

TEST(WrenchScenarios, QuadrupedDroppedOnASlopeRestsHigherOnTheStifferMedium) {
  TempDir tmp;
  write_synthetic_database(tmp.path / "stiff.h5", 1200.0);
  write_synthetic_database(tmp.path / "soft.h5", 600.0);
  const fs::path file = tmp.path / "quad.toml";
  std::string toml =
      "[scenario]\nname = \"quad\"\ntier = \"wrench\"\nkind = \"quadruped\"\n"
      "[robot]\nmodel = \"" +
      (fs::path(TALUS_SOURCE_DIR) / "robots/quadruped/quadruped.xml").string() +
      "\"\nbody = \"torso\"\nfeet = [\"fl_bottom\", \"fr_bottom\", \"hl_bottom\", "
      "\"hr_bottom\"]\ngranular_inertia = [2.0, 2.0, 0.02]\n"
      "[simulation]\nduration_s = 5.0\n";
  for (const char* medium : {"stiff", "soft"}) {
    toml += std::string("[[case]]\nname = \"") + medium + "\"\ndatabase = \"" +
            (tmp.path / (std::string(medium) + ".h5")).string() +
            "\"\nterrain_points_m = [[-3.0, 0.6], [0.5, 0.0], [4.0, 0.0]]\n"
            "initial_joints = [\"root_x\", \"root_z\", \"root_pitch\"]\n"
            "initial_values = [-1.8, 0.4243, 0.1701]\n";
  }
  std::ofstream(file) << toml;
  const nlohmann::json s = run_scenario_file(file, tmp.path / "out", {});
  const nlohmann::json& stiff = s["cases"][0]["body"];
  const nlohmann::json& soft = s["cases"][1]["body"];
  // Both media hold it on the 0.17 rad slope (their shear strength is as large as the normal
  // one); it comes to rest higher (less sunk) on the stiffer medium.
  EXPECT_TRUE(stiff["at_rest"].get<bool>()) << stiff.dump(1);
  EXPECT_TRUE(soft["at_rest"].get<bool>()) << soft.dump(1);
  const double sink_stiff = s["cases"][0]["feet"]["hl_bottom"]["final_depth_m"];
  const double sink_soft = s["cases"][1]["feet"]["hl_bottom"]["final_depth_m"];
  EXPECT_GT(sink_stiff, sink_soft);
  EXPECT_LT(sink_soft, 0.0);
}

TEST(WrenchScenarios, BadRobotScenarioInputNamesTheKey) {
  TempDir tmp;
  write_synthetic_database(tmp.path / "w.h5", 200.0);
  const fs::path file = tmp.path / "bad.toml";
  std::ofstream(file) << foot_drop(
      tmp.path / "w.h5", "[[case]]\nname = \"b\"\ndatabase = \"" + (tmp.path / "w.h5").string() +
                             "\"\ninitial_joints = [\"knee\"]\ninitial_values = [0.1]\n");
  try {
    check_scenario_file(file);
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("initial_joints"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("knee"), std::string::npos) << e.what();
  }
  std::ofstream(file) << foot_drop(tmp.path / "missing.h5");
  try {
    check_scenario_file(file);
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(tmp.path / "out"));
}

// The message of the ScenarioError that checking `text` raises ("(no error)" when it passes).
std::string check_error(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
  try {
    check_scenario_file(file);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(no error)";
}

// Issue 16: each of these passed `talus check` and failed the run with exit 1 and no file or line.
TEST(WrenchScenarios, CheckRefusesWhatTheRunWouldRefuseAtTheKey) {
  TempDir tmp;
  const fs::path db = tmp.path / "w.h5", file = tmp.path / "bad.toml";
  write_synthetic_database(db, 200.0);
  const std::string good = foot_drop(db);
  EXPECT_EQ(check_error(file, good), "(no error)");

  std::string msg = check_error(file, good.substr(0, good.find("feet = ")) + "feet = [\"toe\"]" +
                                          good.substr(good.find("\ngranular_inertia")));
  EXPECT_NE(msg.find("bad.toml:8:8: robot.feet: no site 'toe' in"), std::string::npos) << msg;
  EXPECT_NE(msg.find("its sites are: bottom, top"), std::string::npos) << msg;

  msg = check_error(file, good + "[[case]]\nname = \"ramp\"\ndatabase = \"" + db.string() +
                              "\"\nterrain_points_m = [[0.0, 0.1], [0.0, 0.0]]\n");
  EXPECT_NE(msg.find("case[1].terrain_points_m: terrain profile: point 1 has x = 0 m"),
            std::string::npos)
      << msg;

  std::string fot = good;
  fot.replace(fot.find("body = \"foot\""), 13, "body = \"fot\"");
  msg = check_error(file, fot);
  EXPECT_NE(msg.find("bad.toml:7:8: robot.body: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("no body named 'fot'"), std::string::npos) << msg;

  // A case named like the all-cases plot would write its own plot over it.
  std::string overview = good;
  overview.replace(overview.find("name = \"upright\""), 16, "name = \"overview\"");
  msg = check_error(file, overview);
  EXPECT_NE(msg.find("case[0].name: 'overview' is the all-cases plot's name"), std::string::npos)
      << msg;

  const fs::path junk = tmp.path / "junk.h5";
  std::ofstream(junk) << "not hdf5\n";
  msg = check_error(file, foot_drop(junk));
  EXPECT_NE(msg.find("case[0].database: " + junk.string() + ": not an HDF5 file"),
            std::string::npos)
      << msg;

  // A database holding a NaN wrench.
  const fs::path holed = tmp.path / "nan.h5";
  write_synthetic_database(holed, 200.0);
  {
    const hid_t h5 = H5Fopen(holed.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t set = H5Dopen2(h5, "wrenches", H5P_DEFAULT);
    std::vector<double> values(25 * 26 * 3);
    H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    values[100] = std::nan("");
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(set);
    H5Fclose(h5);
  }
  msg = check_error(file, foot_drop(holed));
  EXPECT_NE(msg.find("case[0].database: " + holed.string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("NaN or infinite"), std::string::npos) << msg;
}

TEST(WrenchScenarios, FootAccuracyComparesBothTiersAlongThePath) {
  TempDir tmp;
  write_synthetic_database(tmp.path / "w.h5", 200.0);
  const fs::path file = tmp.path / "acc.toml";
  std::ofstream(file)
      << "[scenario]\nname = \"acc\"\ntier = \"wrench\"\nkind = \"foot_accuracy\"\n"
         "[robot]\nmodel = \"" +
             (fs::path(TALUS_SOURCE_DIR) / "robots/paper_foot/paper_foot.xml").string() +
             "\"\ngranular_inertia = [14.714, 14.714, 0.122]\n"
             "[wrench_space]\ndatabase = \"" +
             (tmp.path / "w.h5").string() +
             "\"\n[pid]\nkp = [8000.0, 20000.0, 300.0]\n"
             "ki = [4000.0, 6000.0, 1000.0]\nkd = [200.0, 400.0, 10.0]\n"
             "[medium]\nname = \"g\"\n"
             "[particles]\nradius_m = 0.005\ndensity_kg_per_m3 = 2650.0\n"
             "friction = 0.6\n"
             "[bed]\nkind = \"lattice\"\nlo_m = [0.0051, 0.0051, 0.0051]\n"
             "hi_m = [0.1549, 0.1149, 0.05]\nseed = 3\n"
             "[container]\nkind = \"box\"\nlo_m = [0.0, 0.0, 0.0]\n"
             "hi_m = [0.16, 0.12, 0.4]\n"
             "[simulation]\ntime_step_s = 0.001\n"
             "[solver]\niterations = 4\n"
             "[settle]\nmax_steps = 1500\nmin_steps = 100\n"
             "kinetic_energy_per_particle_J = 1e-9\n"
             "[foot]\nradius_m = 0.04\n"
             "[[path]]\nname = \"down\"\nt_s = [0.0, 0.1, 0.5]\n"
             "x_m = [0.0, 0.0, 0.0]\ndepth_m = [0.005, 0.0, -0.02]\n"
             "tilt_rad = [0.0, 0.0, 0.0]\n";
  // Progress counts the settling and both tiers' paths against the total check states, to the end
  // (it stopped after the settling).
  const long total = check_scenario_file(file)["steps"].get<long>();
  long last_done = 0, calls = 0;
  bool same_total = true;
  const nlohmann::json s =
      run_scenario_file(file, tmp.path / "out", [&](long done, long all, double) {
        EXPECT_GE(done, last_done);
        last_done = done;
        same_total = same_total && all == total;
        ++calls;
      });
  EXPECT_TRUE(same_total);
  EXPECT_EQ(last_done, total);
  EXPECT_GT(calls, 1000);  // the paths' 2 x 500 steps report too
  EXPECT_TRUE(fs::exists(tmp.path / "out" / "down.png"));
  EXPECT_TRUE(fs::exists(tmp.path / "out" / "down.csv"));
  const nlohmann::json& p = s["paths"][0];
  EXPECT_GT(p["samples_compared"].get<long>(), 300);
  // Both tiers resist the downward push: the particle tier's RMS f_z, and the wrench-space f_z
  // at the path's last moving step (the row before the last of down.csv, column
  // f_z_wrench_space_N; in the last row the path holds still).
  EXPECT_GT(p["error"]["f_z"]["particle_rms"].get<double>(), 1.0);
  std::ifstream csv(tmp.path / "out" / "down.csv");
  std::string line, last, before_last;
  while (std::getline(csv, line)) {
    before_last = last;
    last = line;
  }
  std::stringstream row(before_last);
  std::vector<double> values;
  for (std::string cell; std::getline(row, cell, ',');) values.push_back(std::stod(cell));
  ASSERT_EQ(values.size(), 19u);
  EXPECT_GT(values[4], 1.0);
  // The history-free references: the database's wrench for the path's own motion (straight
  // down, a sampled direction) resists it, and the split of the error is reported.
  EXPECT_GT(values[13], 1.0);
  EXPECT_NEAR(values[18], 0.0, 1e-9);
  const nlohmann::json& split = p["history_free_reference"];
  EXPECT_GT(split["samples"].get<long>(), 300);
  for (const char* part : {"fresh_bed_vs_particles", "max_dissipation_vs_fresh_bed",
                           "wrench_space_vs_max_dissipation", "max_dissipation_vs_particles"}) {
    EXPECT_TRUE(std::isfinite(split[part]["f_z"]["relative"].get<double>())) << part;
  }
  // The relative error is the RMS error over the particle tier's RMS.
  EXPECT_NEAR(p["error"]["f_z"]["relative"].get<double>(),
              p["error"]["f_z"]["rms_error"].get<double>() /
                  p["error"]["f_z"]["particle_rms"].get<double>(),
              1e-12);
  // The PID keeps the foot within 5 mm of the path in depth.
  EXPECT_LT(p["max_depth_tracking_error_m"].get<double>(), 0.005);
}

// The shipped wrench scenarios and acquisition files read and check (their databases load, their
// MJCF has the joints, sites and actuators they name).
TEST(WrenchScenarios, ShippedScenariosAndAcquisitionFilesCheck) {
  int checked = 0;
  for (const char* dir : {"scenarios/wrench", "data/wrench"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(TALUS_SOURCE_DIR) / dir)) {
      if (entry.path().extension() != ".toml") continue;
      // <medium>.sweep.toml is a sweep file (tests/test_sweep.cpp checks those).
      if (entry.path().stem().extension() == ".sweep") continue;
      const nlohmann::json info = check_scenario_file(entry.path());
      EXPECT_EQ(info["tier"], "wrench") << entry.path();
      EXPECT_GT(info["steps"].get<long>(), 0) << entry.path();
      ++checked;
    }
  }
  EXPECT_GE(checked, 6);
}

}  // namespace
}  // namespace talus::wrench
