// talus sweep (issue 22): the sweep file's expansion and its errors, values put into a scenario,
// a one-process sweep's results, resuming, and the output folder's refusals.

#include <gtest/gtest.h>
#include <hdf5.h>
#include <toml++/toml.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "core/scenario_file.hpp"
#include "runner/run_scenario.hpp"
#include "scratch_files.hpp"
#include "sweep/sweep_channel.hpp"
#include "sweep/sweep_folder.hpp"
#include "sweep/sweep_plan.hpp"
#include "sweep/sweep_plot.hpp"
#include "sweep/sweep_results.hpp"
#include "sweep/sweep_runner.hpp"
#include "wrench/velocity_directions.hpp"
#include "wrench/wrench_database.hpp"
#include "wrench/wrench_space_model.hpp"

namespace {

namespace fs = std::filesystem;
using talus::testing_files::read_text;
using talus::testing_files::runtime_error_of;
using talus::testing_files::ScratchDir;
using talus::testing_files::write_text;
using namespace talus::sweep;

const fs::path kPlate = fs::path(TALUS_SOURCE_DIR) / "scenarios/scm/plate_sinkage.toml";

// A sweep file in `dir` over the plate sinkage scenario with `body` after its [sweep] table.
fs::path sweep_file(const fs::path& dir, const std::string& body, const std::string& name = "s") {
  const fs::path file = dir / (name + ".toml");
  write_text(file,
             "[sweep]\nname = \"" + name + "\"\nscenario = \"" + kPlate.string() + "\"\n" + body);
  return file;
}

int sweep_once(const fs::path& file, const fs::path& out, bool retry_failed = false,
               bool replace = false) {
  LocalChannel channel;
  SweepOptions options;
  options.sweep_file = file;
  options.out_dir = out;
  options.quiet = true;
  options.retry_failed = retry_failed;
  options.replace = replace;
  return run_sweep(options, channel);
}

TEST(SweepPlan, GridIsEveryCombinationInFileOrderLastKeyFastest) {
  ScratchDir scratch;
  const SweepPlan plan =
      load_sweep_plan(sweep_file(scratch.path(),
                                 "[grid]\n\"soil.preset\" = [\"dry_sand\", \"lunar_regolith\"]\n"
                                 "experiment.load_n = [250.0, 500.0, 1000.0]\n"));
  ASSERT_EQ(plan.runs.size(), 6u);
  EXPECT_EQ(plan.keys, (std::vector<std::string>{"soil.preset", "experiment.load_n"}));
  EXPECT_EQ(plan.runs[0].id, "r0000");
  EXPECT_EQ(plan.runs[5].id, "r0005");
  EXPECT_EQ(plan.runs[1].label(), "soil.preset=dry_sand, experiment.load_n=500.0");
  EXPECT_EQ(plan.runs[3].label(), "soil.preset=lunar_regolith, experiment.load_n=250.0");
  EXPECT_EQ(plan.runs[4].parameters()["experiment.load_n"], 500.0);
  // A run's description names what the sweep set, after the base file's (which describes the
  // base values: "... 500 N on dry sand" for every run).
  const std::string base = plan.base_document->root().table("scenario").string("description");
  EXPECT_EQ(plan.run_document(plan.runs[3])->root().table("scenario").string("description"),
            base + " (sweep s, run r0003: soil.preset=lunar_regolith, experiment.load_n=250.0)");
  EXPECT_EQ(plan.base_document->root().table("scenario").string("description"), base);

  // A sweep that sets the description itself keeps its value.
  const SweepPlan described = load_sweep_plan(sweep_file(
      scratch.path(), "[grid]\n\"scenario.description\" = [\"first\", \"second\"]\n", "d"));
  EXPECT_EQ(
      described.run_document(described.runs[1])->root().table("scenario").string("description"),
      "second");
}

TEST(SweepPlan, ListedRunsAreCombinedWithTheGrid) {
  ScratchDir scratch;
  const SweepPlan plan = load_sweep_plan(
      sweep_file(scratch.path(),
                 "[grid]\n\"experiment.load_n\" = [250.0, 500.0]\n"
                 "[[runs]]\n\"experiment.hold_s\" = 0.2\n[[runs]]\nexperiment.hold_s = 0.4\n"));
  ASSERT_EQ(plan.runs.size(), 4u);
  EXPECT_EQ(plan.runs[0].label(), "experiment.hold_s=0.2, experiment.load_n=250.0");
  EXPECT_EQ(plan.runs[3].label(), "experiment.hold_s=0.4, experiment.load_n=500.0");
}

TEST(SweepPlan, ANonFiniteValueIsLabelledAsANumber) {
  ScratchDir scratch;
  const SweepPlan plan = load_sweep_plan(
      sweep_file(scratch.path(), "[grid]\n\"experiment.load_n\" = [nan, inf, 250.0]\n"));
  ASSERT_EQ(plan.runs.size(), 3u);
  EXPECT_EQ(plan.runs[0].label(), "experiment.load_n=nan");  // JSON would print null
  EXPECT_EQ(plan.runs[1].label(), "experiment.load_n=inf");
  EXPECT_EQ(plan.runs[2].label(), "experiment.load_n=250.0");
}

TEST(SweepPlan, TheFingerprintFollowsTheRunsNotTheLayout) {
  ScratchDir scratch;
  const auto a = load_sweep_plan(
      sweep_file(scratch.path(), "[grid]\n\"experiment.load_n\" = [250.0, 500.0]\n", "a"));
  const auto b = load_sweep_plan(sweep_file(
      scratch.path(), "# a comment\n[grid]\nexperiment.load_n = [250.0,   500.0]\n", "b"));
  const auto c = load_sweep_plan(
      sweep_file(scratch.path(), "[grid]\n\"experiment.load_n\" = [250.0, 501.0]\n", "c"));
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_NE(a.fingerprint, c.fingerprint);
}

TEST(SweepPlan, ARunsScenarioHasItsValuesAndReadsAsTheBaseWould) {
  ScratchDir scratch;
  const SweepPlan plan = load_sweep_plan(
      sweep_file(scratch.path(), "[grid]\n\"experiment.load_n\" = [250.0, 750.0]\n"));
  const auto doc = plan.run_document(plan.runs[1]);
  EXPECT_DOUBLE_EQ(doc->root().table("experiment").number("load_n", talus::positive("[N]")), 750.0);
  EXPECT_EQ(doc->path(), plan.scenario_file);  // relative paths resolve as the base's do
  EXPECT_EQ(talus::check_scenario_document(doc)["name"], "plate_sinkage");
}

// [sweep] tier and the swept values together: a run's scenario has both, and its errors keep the
// base file's line numbers (with_tier and with_values copy the tree with its sources).
TEST(SweepPlan, ATierAndSweptValuesBothReachTheRunsScenario) {
  ScratchDir scratch;
  const fs::path base = fs::path(TALUS_SOURCE_DIR) / "scenarios/terrain/blade_push.toml";
  const fs::path file = scratch.path() / "t.toml";
  write_text(file, "[sweep]\nname = \"t\"\nscenario = \"" + base.string() +
                       "\"\ntier = \"scm\"\n[grid]\n\"simulation.duration_s\" = [0.4]\n");
  const SweepPlan plan = load_sweep_plan(file);
  const auto doc = plan.run_document(plan.runs[0]);
  EXPECT_EQ(doc->root().table("scenario").string("tier"), "scm");
  EXPECT_DOUBLE_EQ(doc->root().table("simulation").number("duration_s", talus::positive("[s]")),
                   0.4);
  EXPECT_EQ(talus::check_scenario_document(doc)["tier"], "scm");
  const std::string where = doc->root().table("terrain").where("material");
  EXPECT_EQ(where, base.string() + ":17:12: terrain.material") << where;
}

TEST(SweepPlan, TheFingerprintFollowsTheBaseScenariosValuesNotItsComments) {
  ScratchDir scratch;
  const std::string text = read_text(kPlate);
  write_text(scratch.path() / "base.toml", text);
  write_text(scratch.path() / "commented.toml", "# a note\n" + text);
  write_text(scratch.path() / "heavier.toml",
             std::regex_replace(text, std::regex("load_n = 500.0"), "load_n = 600.0"));
  const auto fingerprint = [&](const std::string& base) {
    const fs::path file = scratch.path() / ("s_" + base);
    write_text(file, "[sweep]\nname = \"s\"\nscenario = \"" + base +
                         "\"\n[grid]\n\"experiment.hold_s\" = [0.2]\n");
    return load_sweep_plan(file).fingerprint;
  };
  EXPECT_EQ(fingerprint("base.toml"), fingerprint("commented.toml"));
  EXPECT_NE(fingerprint("base.toml"), fingerprint("heavier.toml"));
}

TEST(SweepPlan, ValuesGoIntoArraysOfTablesByIndex) {
  const auto doc = talus::ScenarioDocument::parse(
      "[[bodies]]\nname = \"a\"\nmass_kg = 1.0\n[[bodies]]\nname = \"b\"\nmass_kg = 2.0\n",
      "base.toml");
  const auto sweep = talus::ScenarioDocument::parse("v = 5.0\n", "sweep.toml");
  const toml::node* value = sweep->toml_root().get("v");
  const auto changed = doc->with_values({{{"bodies", "1", "mass_kg"}, value}});
  const auto bodies = changed->root().tables("bodies");
  EXPECT_DOUBLE_EQ(bodies[1].number("mass_kg", talus::positive("[kg]")), 5.0);
  EXPECT_DOUBLE_EQ(bodies[0].number("mass_kg", talus::positive("[kg]")), 1.0);
  const std::string beyond = runtime_error_of([&] {
    doc->with_values({{{"bodies", "2", "mass_kg"}, value}});
  });
  EXPECT_NE(beyond.find("sweep.toml:1:5: bodies.2.mass_kg: '2' is not an item"), std::string::npos)
      << beyond;
  const std::string through = runtime_error_of([&] {
    doc->with_values({{{"bodies", "0", "name", "x"}, value}});
  });
  EXPECT_NE(through.find("a value, not a table, before 'x'"), std::string::npos) << through;
}

// Bad input is refused before any run, naming the sweep file's line and the key.
TEST(SweepPlan, BadInputNamesTheSweepFilesLineAndKey) {
  ScratchDir scratch;
  const auto refusal = [&](const std::string& body) {
    const fs::path file = sweep_file(scratch.path(), body);
    return runtime_error_of([&] { check_sweep_plan(load_sweep_plan(file)); });
  };
  const std::string s = (scratch.path() / "s.toml").string();
  const std::string unknown = refusal("[grid]\n\"experiment.lod_n\" = [1.0, 2.0]\n");
  EXPECT_NE(unknown.find("sweep run r0000 (experiment.lod_n=1.0): " + s +
                         ":5:23: experiment.lod_n: unknown key"),
            std::string::npos)
      << unknown;
  // A misspelt section: the table made for the value is located at the value (it named the base
  // scenario's file, without a line).
  const std::string section = refusal("[grid]\n\"experimnt.load_n\" = [1.0, 2.0]\n");
  EXPECT_NE(section.find(s + ":5:23: experimnt: unknown key"), std::string::npos) << section;
  const std::string type = refusal("[grid]\n\"experiment.load_n\" = [\"heavy\"]\n");
  EXPECT_NE(type.find(s + ":5:24: experiment.load_n: expected a number"), std::string::npos)
      << type;
  const std::string range = refusal("[grid]\n\"experiment.load_n\" = [100.0, -5.0]\n");
  EXPECT_NE(range.find("sweep run r0001"), std::string::npos) << range;
  EXPECT_NE(range.find(s + ":5:31: experiment.load_n"), std::string::npos) << range;
  const std::string empty = refusal("[grid]\n\"experiment.load_n\" = []\n");
  EXPECT_NE(empty.find(s + ":5:23: grid.experiment.load_n: expected a non-empty array"),
            std::string::npos)
      << empty;
  const std::string scalar = refusal("[grid]\n\"experiment.load_n\" = 5.0\n");
  EXPECT_NE(scalar.find("expected a non-empty array of the values to try, got 5.0"),
            std::string::npos)
      << scalar;
  EXPECT_NE(refusal("").find("the sweep varies nothing"), std::string::npos);
  // A repeated value or run would only run the same inputs again (250 and 250.0 are one load).
  const std::string twice = refusal("[grid]\n\"experiment.load_n\" = [250, 500.0, 250.0]\n");
  EXPECT_NE(twice.find(s + ":5:36: grid.experiment.load_n: 250.0 is listed twice (values 1 and 3"),
            std::string::npos)
      << twice;
  const std::string same_runs = refusal(
      "[[runs]]\n\"experiment.load_n\" = 2.0\n\"soil.preset\" = \"sand\"\n[[runs]]\n"
      "\"experiment.load_n\" = 3.0\n[[runs]]\n\"soil.preset\" = \"sand\"\n"
      "\"experiment.load_n\" = 2.0\n");
  EXPECT_NE(same_runs.find("runs: [[runs]] table 3 sets the same values as table 1"),
            std::string::npos)
      << same_runs;
  EXPECT_EQ(refusal("[grid]\n\"experiment.load_n\" = [250.0, 250.5]\n").find("listed twice"),
            std::string::npos);
  EXPECT_NE(refusal("[grids]\na = [1]\n").find("grids: unknown section"), std::string::npos);
  EXPECT_NE(refusal("[grid]\n\"experiment..load_n\" = [1.0]\n").find("non-empty names"),
            std::string::npos);
  EXPECT_NE(refusal("[grid]\n\"experiment.load_n\" = [1.0]\n[[runs]]\n\"experiment.load_n\" = "
                    "2.0\n")
                .find("set by both [grid] and [[runs]]"),
            std::string::npos);
  EXPECT_NE(refusal("[grid]\n\"experiment.load_n\" = [1.0]\n[[plot]]\nname = \"p\"\n"
                    "x = \"soil.preset\"\ny = \"result.sinkage_m\"\n")
                .find("'soil.preset' is not a swept key; expected one of: experiment.load_n"),
            std::string::npos);
  // A text key along x has no place on the axis: the plot came out empty.
  EXPECT_NE(refusal("[grid]\n\"experiment.load_n\" = [1.0]\n\"soil.preset\" = [\"dry_sand\"]\n"
                    "[[plot]]\nname = \"p\"\nx = \"soil.preset\"\ny = \"result.sinkage_m\"\n")
                .find(":9:5: plot[0].x: 'soil.preset' is not a number in every run that sets it"),
            std::string::npos);
  const fs::path missing = scratch.path() / "m.toml";
  write_text(missing, "[sweep]\nname = \"m\"\nscenario = \"nowhere.toml\"\n[grid]\na = [1]\n");
  EXPECT_NE(
      runtime_error_of([&] { load_sweep_plan(missing); }).find("the base scenario cannot be read"),
      std::string::npos);
}

// Reads the names of the groups under /runs of a sweep.h5.
std::vector<std::string> hdf5_run_groups(const fs::path& file) {
  std::vector<std::string> names;
  const hid_t h5 = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(h5, 0);
  const hid_t runs = H5Gopen2(h5, "runs", H5P_DEFAULT);
  H5G_info_t info;
  H5Gget_info(runs, &info);
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    char name[64] = {};
    H5Lget_name_by_idx(runs, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof(name), H5P_DEFAULT);
    names.emplace_back(name);
  }
  H5Gclose(runs);
  H5Fclose(h5);
  return names;
}

// A sweep file given to `talus run`, or a scenario file to `talus sweep`, says which command it is
// for.
TEST(SweepPlan, TheWrongKindOfFileNamesTheCommandItIsFor) {
  ScratchDir scratch;
  const fs::path sweep = sweep_file(scratch.path(), "[grid]\n\"experiment.load_n\" = [1.0]\n");
  EXPECT_NE(runtime_error_of([&] {
              talus::check_scenario_file(sweep);
            }).find("missing table [scenario]: this is a sweep file; run it with `talus sweep`"),
            std::string::npos);
  EXPECT_NE(runtime_error_of([&] {
              load_sweep_plan(kPlate);
            }).find("missing table [sweep]: this is a scenario file; run it with `talus run`"),
            std::string::npos);
}

// A y key no finished run has a number at (a misspelt one) is named, so the sweep can warn that
// its plot is empty; with no finished run nothing is named.
TEST(SweepPlot, YKeysWithoutValuesAreTheOnesNoFinishedRunHas) {
  SweepPlot plot;
  plot.y = {"result.sinkage_m", "result.sinkage_mm"};
  RunRecord ok;
  ok.outcome.status = "ok";
  ok.summary = {{"result", {{"sinkage_m", 0.01}}}};
  RunRecord failed;
  failed.outcome.status = "failed";
  failed.summary = {{"result", {{"sinkage_mm", 10.0}}}};  // a failed run's values do not count
  EXPECT_EQ(y_keys_without_values(plot, {ok, failed}),
            (std::vector<std::string>{"result.sinkage_mm"}));
  EXPECT_TRUE(y_keys_without_values(plot, {failed}).empty());
}

// Two y keys that end alike (elements of one summary array) are two lines, named by as many
// trailing parts as tell them apart; named by the last part alone they were one zig-zag line.
TEST(SweepPlot, YKeysThatEndAlikeAreSeparateLines) {
  EXPECT_EQ(y_key_names({"result.sinkage_m"}), (std::vector<std::string>{""}));
  EXPECT_EQ(y_key_names({"result.sinkage_m", "result.bekker_m"}),
            (std::vector<std::string>{"sinkage_m", "bekker_m"}));
  EXPECT_EQ(y_key_names({"result.bins.5.slip", "result.bins.11.slip"}),
            (std::vector<std::string>{"5.slip", "11.slip"}));
  EXPECT_EQ(y_key_names({"a.slip", "b.c.slip"}), (std::vector<std::string>{"a.slip", "c.slip"}));
  SweepPlot plot;
  plot.x = "soil.angle";
  plot.y = {"result.bins.5.slip", "result.bins.11.slip"};
  std::vector<RunRecord> records;
  for (const double angle : {16.0, 24.0}) {
    RunRecord r;
    r.outcome.status = "ok";
    r.parameters = {{"soil.angle", angle}};
    r.summary = {{"result", {{"bins", nlohmann::json::array()}}}};
    for (int bin = 0; bin < 12; ++bin) {
      r.summary["result"]["bins"].push_back({{"slip", bin * 0.01 + angle * 0.001}});
    }
    records.push_back(r);
  }
  const talus::PlotSpec spec = sweep_plot_spec(plot, {"soil.angle"}, records);
  ASSERT_EQ(spec.series.size(), 2u);
  EXPECT_EQ(spec.series[0].name, "11.slip");
  EXPECT_EQ(spec.series[0].y,
            (std::vector<double>{11 * 0.01 + 16.0 * 0.001, 11 * 0.01 + 24.0 * 0.001}));
  EXPECT_EQ(spec.series[1].name, "5.slip");
  EXPECT_EQ(spec.series[1].x, (std::vector<double>{16.0, 24.0}));
}

TEST(Sweep, RunsEveryRunAndRecordsAFailedOneWithoutStopping) {
  ScratchDir scratch;
  const fs::path file = sweep_file(scratch.path(),
                                   "[grid]\n\"experiment.load_n\" = [250.0, 1e6, 500.0]\n"
                                   "[[plot]]\nname = \"sinkage\"\nx = \"experiment.load_n\"\n"
                                   "y = \"result.sinkage_m\"\n");
  const fs::path out = scratch.path() / "out";
  EXPECT_EQ(sweep_once(file, out), 1);  // finished, with a failed run
  const SweepPlan plan = load_sweep_plan(file);
  const RunRecord ok = read_run_record(out / "results/r0000.h5", plan.fingerprint);
  EXPECT_EQ(ok.outcome.status, "ok");
  EXPECT_NEAR(ok.summary["result"]["sinkage_m"].get<double>(), 0.00672, 1e-4);
  EXPECT_EQ(ok.parameters["experiment.load_n"], 250.0);
  const RunRecord failed = read_run_record(out / "results/r0001.h5", plan.fingerprint);
  EXPECT_EQ(failed.outcome.status, "failed");
  EXPECT_EQ(failed.outcome.exit_code, 1);
  EXPECT_NE(failed.outcome.error.find("more than its width"), std::string::npos);
  EXPECT_EQ(read_run_record(out / "results/r0002.h5", plan.fingerprint).outcome.status, "ok");
  EXPECT_EQ(hdf5_run_groups(out / "sweep.h5"),
            (std::vector<std::string>{"r0000", "r0001", "r0002"}));
  const std::string table = read_text(out / "sweep.csv");
  EXPECT_EQ(table.rfind("run,status,exit_code,wall_s,rank,host,experiment.load_n,", 0), 0u);
  EXPECT_NE(table.find("\nr0001,failed,1,"), std::string::npos);
  EXPECT_TRUE(fs::is_regular_file(out / "sinkage.png"));
  EXPECT_TRUE(fs::is_regular_file(out / "runs/r0000/summary.json"));  // each run's own folder
  // Finished runs are not redone; --retry-failed runs the failed one again (and it fails again).
  const auto stamp = fs::last_write_time(out / "results/r0000.h5");
  EXPECT_EQ(sweep_once(file, out), 1);
  EXPECT_EQ(fs::last_write_time(out / "results/r0000.h5"), stamp);
  const auto failed_stamp = fs::last_write_time(out / "results/r0001.h5");
  EXPECT_EQ(sweep_once(file, out, true), 1);
  EXPECT_NE(fs::last_write_time(out / "results/r0001.h5"), failed_stamp);
  EXPECT_EQ(fs::last_write_time(out / "results/r0000.h5"), stamp);
}

TEST(Sweep, ARestartRunsOnlyWhatIsUnfinishedAndIndexesEachRunOnce) {
  ScratchDir scratch;
  const fs::path file =
      sweep_file(scratch.path(), "[grid]\n\"experiment.load_n\" = [250.0, 500.0, 750.0]\n");
  const fs::path out = scratch.path() / "out";
  ASSERT_EQ(sweep_once(file, out), 0);
  const std::string first = read_text(out / "results/r0001.h5");
  // As a kill would leave it: one result missing, a half-written temporary, a stale index.
  fs::remove(out / "results/r0002.h5");
  write_text(out / "results/.r0002.h5.tmp-99999-0", "half");
  write_text(out / ".sweep.h5.tmp-99999-3", "half");
  ASSERT_EQ(sweep_once(file, out), 0);
  EXPECT_EQ(read_text(out / "results/r0001.h5"), first);  // untouched
  EXPECT_TRUE(fs::is_regular_file(out / "results/r0002.h5"));
  EXPECT_FALSE(fs::exists(out / "results/.r0002.h5.tmp-99999-0"));
  EXPECT_FALSE(fs::exists(out / ".sweep.h5.tmp-99999-3"));
  EXPECT_EQ(hdf5_run_groups(out / "sweep.h5"),
            (std::vector<std::string>{"r0000", "r0001", "r0002"}));
}

TEST(Sweep, FilesTalusDidNotWriteAreRefusedAndLeftAsTheyAre) {
  ScratchDir scratch;
  const fs::path file = sweep_file(scratch.path(), "[grid]\n\"experiment.load_n\" = [250.0]\n");
  const fs::path out = scratch.path() / "out";
  ASSERT_EQ(sweep_once(file, out), 0);
  const SweepPlan plan = load_sweep_plan(file);

  // A damaged or foreign sweep.h5.
  write_text(out / "sweep.h5", "my notes, not HDF5");
  EXPECT_NE(runtime_error_of([&] {
              SweepFolder folder(out, plan);
            }).find("sweep.h5: cannot be read as HDF5 (damaged, or not an HDF5 file)"),
            std::string::npos);
  EXPECT_EQ(sweep_once(file, out), 2);
  EXPECT_EQ(read_text(out / "sweep.h5"), "my notes, not HDF5");
  const hid_t foreign =
      H5Fcreate((out / "sweep.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(foreign);
  const std::string foreign_bytes = read_text(out / "sweep.h5");
  EXPECT_NE(runtime_error_of([&] {
              SweepFolder folder(out, plan);
            }).find("not a talus sweep file (no 'talus_sweep' attribute)"),
            std::string::npos);
  EXPECT_EQ(read_text(out / "sweep.h5"), foreign_bytes);
  fs::remove(out / "sweep.h5");

  // Someone else's file in the folder, a foreign sweep.csv, another sweep's folder.
  write_text(out / "notes.txt", "mine");
  EXPECT_NE(
      runtime_error_of([&] { SweepFolder folder(out, plan); }).find("notes.txt: not written by"),
      std::string::npos);
  fs::remove(out / "notes.txt");
  write_text(out / "sweep.csv", "a,b\n1,2\n");
  EXPECT_NE(runtime_error_of([&] {
              SweepFolder folder(out, plan);
            }).find("not a sweep table talus wrote"),
            std::string::npos);
  EXPECT_EQ(read_text(out / "sweep.csv"), "a,b\n1,2\n");
  fs::remove(out / "sweep.csv");
  const fs::path other =
      sweep_file(scratch.path(), "[grid]\n\"experiment.load_n\" = [300.0]\n", "o");
  EXPECT_NE(runtime_error_of([&] {
              SweepFolder folder(out, load_sweep_plan(other));
            }).find("holds the results of another sweep"),
            std::string::npos);
  EXPECT_EQ(sweep_once(file, out), 0);  // its own folder still resumes

  // A folder of the user's, a file named as --out.
  const fs::path mine = scratch.path() / "mine";
  fs::create_directories(mine);
  write_text(mine / "data.txt", "keep");
  EXPECT_EQ(sweep_once(file, mine), 2);
  EXPECT_EQ(talus::testing_files::listing(mine), (std::vector<std::string>{"data.txt"}));
  write_text(scratch.path() / "afile", "keep");
  EXPECT_EQ(sweep_once(file, scratch.path() / "afile"), 2);
  EXPECT_EQ(read_text(scratch.path() / "afile"), "keep");
}

TEST(Sweep, AFolderAnotherSweepHoldsIsRefusedUntilThatSweepLetsGo) {
  ScratchDir scratch;
  const fs::path file = sweep_file(scratch.path(), "[grid]\n\"experiment.load_n\" = [250.0]\n");
  const fs::path out = scratch.path() / "out";
  ASSERT_EQ(sweep_once(file, out), 0);
  const SweepPlan plan = load_sweep_plan(file);
  {
    const SweepFolder holder(out, plan);  // a sweep resuming the folder, not yet exited
    const std::string message = runtime_error_of([&] { SweepFolder second(out, plan); });
    EXPECT_NE(message.find("another talus sweep is writing this folder now"), std::string::npos)
        << message;
    EXPECT_NE(message.find("wait for that, then run again"), std::string::npos) << message;
    EXPECT_EQ(sweep_once(file, out), 2);
  }
  EXPECT_EQ(sweep_once(file, out), 0);  // the holder has let go: the folder resumes
}

TEST(Sweep, AFolderOrAMissingPathGivenAsTheSweepFileIsNamedAsSuch) {
  ScratchDir scratch;
  for (const fs::path& given : {scratch.path(), scratch.path() / "missing.toml"}) {
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(sweep_once(given, scratch.path() / "out"), 2);
    const std::string said = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("expected a sweep file"), std::string::npos) << said;
  }
  EXPECT_FALSE(fs::exists(scratch.path() / "out"));
}

TEST(Sweep, ReplaceEmptiesAnEarlierSweepsFolderOnlyWhenAllOfItIsTheSweeps) {
  ScratchDir scratch;
  const fs::path out = scratch.path() / "out";
  const fs::path first = sweep_file(scratch.path(),
                                    "[grid]\n\"experiment.load_n\" = [250.0, 400.0]\n"
                                    "[[plot]]\nname = \"old\"\nx = \"experiment.load_n\"\n"
                                    "y = \"result.sinkage_m\"\n",
                                    "first");
  ASSERT_EQ(sweep_once(first, out), 0);
  const fs::path second =
      sweep_file(scratch.path(), "[grid]\n\"experiment.load_n\" = [300.0]\n", "second");
  EXPECT_EQ(sweep_once(second, out), 2);  // another sweep's folder: refused without --replace
  EXPECT_TRUE(fs::exists(out / "old.png"));
  // Something of the user's inside a run folder: --replace refuses and removes nothing.
  write_text(out / "runs/r0001/my_notes.txt", "keep");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(sweep_once(second, out, false, true), 2);
  const std::string inside = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(inside.find("holds a file talus did not write ('my_notes.txt')"), std::string::npos)
      << inside;
  EXPECT_EQ(read_text(out / "runs/r0001/my_notes.txt"), "keep");
  EXPECT_TRUE(fs::exists(out / "results/r0001.h5"));
  fs::remove(out / "runs/r0001/my_notes.txt");
  // A file of the user's beside the run folders is named as what it is, not as a run folder.
  write_text(out / "runs/notes.txt", "keep");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(sweep_once(second, out, false, true), 2);
  const std::string beside = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(beside.find("notes.txt: not a run folder talus wrote"), std::string::npos) << beside;
  EXPECT_EQ(read_text(out / "runs/notes.txt"), "keep");
  fs::remove(out / "runs/notes.txt");
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(sweep_once(second, out, false, true), 0);
  const std::string report = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(report.find("(1 run: 1 this time, 0 before; 0 failed;"), std::string::npos) << report;
  EXPECT_EQ(talus::testing_files::listing(out / "results"), (std::vector<std::string>{"r0000.h5"}));
  EXPECT_FALSE(fs::exists(out / "old.png"));
  EXPECT_EQ(read_run_record(out / "results/r0000.h5", load_sweep_plan(second).fingerprint)
                .parameters["experiment.load_n"],
            300.0);
}

// A wrench-space acquisition split into one run per tilt and merged (combine = "wrench_database")
// gives the very database of the acquisition done in one run (bed settling and path shortened
// here: the merge, not the physics, is under test).
TEST(Sweep, AnAcquisitionSplitByTiltMergesIntoTheOneRunDatabase) {
  ScratchDir scratch;
  const fs::path base = fs::path(TALUS_SOURCE_DIR) / "scenarios/wrench/acquire_demo.toml";
  // Short paths and a quick insertion: the merge is what is tested, not the wrenches (with 0.08 s
  // paths inserted at 0.2 m/s the test took 61 s of CI's sanitized run, 5.0 s in Release; 2.5 s
  // now).
  const std::string shortened =
      "\"settle.min_steps\" = 50\n\"settle.max_steps\" = 100\n\"path.duration_s\" = 0.04\n"
      "\"path.filter_window_s\" = 0.015\n\"path.insertion_speed_m_per_s\" = 0.5\n";
  const fs::path file = scratch.path() / "by_tilt.toml";
  write_text(file, "[sweep]\nname = \"by_tilt\"\nscenario = \"" + base.string() +
                       "\"\ncombine = \"wrench_database\"\n[[runs]]\n" + shortened +
                       "[grid]\n\"grid.tilts_rad\" = [[0.0], [-0.3, 0.3]]\n");
  const fs::path out = scratch.path() / "out";
  ASSERT_EQ(sweep_once(file, out), 0);
  const SweepPlan plan = load_sweep_plan(file);
  const auto values = talus::ScenarioDocument::parse(
      shortened + "\"grid.tilts_rad\" = [-0.3, 0.0, 0.3]\n", scratch.path() / "one.toml");
  std::vector<std::pair<std::vector<std::string>, const toml::node*>> put;
  for (const auto& [key, node] : values->toml_root()) {
    std::vector<std::string> path;
    std::stringstream parts{std::string(key.str())};
    for (std::string part; std::getline(parts, part, '.');) path.push_back(part);
    put.emplace_back(path, &node);
  }
  talus::run_scenario_document(plan.base_document->with_values(put), scratch.path() / "one");
  const auto whole = talus::wrench::load_database(scratch.path() / "one/database.h5");
  const auto merged = talus::wrench::load_database(out / "database.h5");
  ASSERT_EQ(merged.configuration_count(), 6);
  EXPECT_EQ(merged.configurations, whole.configurations);
  for (int j = 0; j < whole.configuration_count(); ++j) {
    EXPECT_EQ(merged.wrenches[static_cast<std::size_t>(j)],
              whole.wrenches[static_cast<std::size_t>(j)])
        << j;
  }
  EXPECT_NE(read_text(out / "database.json").find("\"concavity\""), std::string::npos);
  EXPECT_TRUE(fs::is_regular_file(out / "database.png"));
}

TEST(Sweep, CombineRefusesAScenarioItCannotMerge) {
  ScratchDir scratch;
  const fs::path file = sweep_file(
      scratch.path(), "combine = \"wrench_database\"\n[grid]\n\"experiment.load_n\" = [1.0]\n");
  EXPECT_NE(runtime_error_of([&] { load_sweep_plan(file); })
                .find(":4:11: sweep.combine: \"wrench_database\" merges the databases of "
                      "wrench-tier scenarios of kind \"acquire\"; "),
            std::string::npos)
      << runtime_error_of([&] { load_sweep_plan(file); });
}

// Parts that cannot merge are refused when the sweep is read, not after every run was measured
// (a review's sweeps ran 39-50 s, then failed the merge).
TEST(Sweep, CombineRefusesPartsThatCannotMergeBeforeAnyRun) {
  ScratchDir scratch;
  const fs::path base = fs::path(TALUS_SOURCE_DIR) / "scenarios/wrench/acquire_demo.toml";
  const auto refusal = [&](const std::string& grid) {
    const fs::path file = scratch.path() / "parts.toml";
    write_text(file, "[sweep]\nname = \"parts\"\nscenario = \"" + base.string() +
                         "\"\ncombine = \"wrench_database\"\n[grid]\n" + grid);
    return runtime_error_of([&] { load_sweep_plan(file); });
  };
  const std::string twice = refusal("\"grid.tilts_rad\" = [[0.0], [0.0, 0.3]]\n");
  EXPECT_NE(twice.find("parts.toml:4:11: sweep.combine: runs r0000 (grid.tilts_rad=[0.0]) and "
                       "r0001 (grid.tilts_rad=[0.0,0.3]) both measure depth 0 m, tilt 0 rad"),
            std::string::npos)
      << twice;
  const std::string medium = refusal("\"particles.friction\" = [0.5, 0.6]\n");
  EXPECT_NE(medium.find("sweep.combine: particles.friction is swept, but the parts of one "
                        "database must share it"),
            std::string::npos)
      << medium;
  EXPECT_NE(refusal("\"grid.directions\" = [26, 58]\n").find("grid.directions is swept"),
            std::string::npos);
  // Disjoint parts, as the shipped sweep splits its tilts, are accepted.
  EXPECT_EQ(refusal("\"grid.tilts_rad\" = [[0.0], [-0.3, 0.3]]\n"), "(no exception)");
}

TEST(WrenchDatabaseMerge, PartsMergeInAcquisitionOrderAndMustBeOneAcquisitions) {
  using talus::wrench::WrenchDatabase;
  const auto part = [](std::vector<std::pair<double, double>> configurations, double friction) {
    WrenchDatabase db;
    db.velocity_directions = Eigen::MatrixXd::Identity(3, 3);
    db.velocity_scale.resize(3);
    db.velocity_scale << 0.02, 0.02, 0.3;
    db.medium = {"m", 0.004, 2650.0, friction, "test"};
    db.configurations.resize(static_cast<Eigen::Index>(configurations.size()), 2);
    for (std::size_t j = 0; j < configurations.size(); ++j) {
      db.configurations.row(static_cast<Eigen::Index>(j)) << configurations[j].first,
          configurations[j].second;
      db.wrenches.push_back(Eigen::MatrixXd::Constant(3, 3, configurations[j].second + 1.0));
    }
    return db;
  };
  const WrenchDatabase a = part({{0.0, 0.3}, {-0.02, 0.3}}, 0.5);
  const WrenchDatabase b = part({{0.0, 0.0}, {-0.02, 0.0}}, 0.5);
  const WrenchDatabase merged = talus::wrench::merge_databases({a, b}, {"a", "b"});
  Eigen::MatrixX2d expected(4, 2);
  expected << 0.0, 0.0, 0.0, 0.3, -0.02, 0.0, -0.02, 0.3;
  EXPECT_EQ(merged.configurations, expected);
  EXPECT_DOUBLE_EQ(merged.wrenches[1](0, 0), 1.3);  // (0, 0.3) came with its wrenches
  EXPECT_NE(runtime_error_of([&] {
              talus::wrench::merge_databases({a, part({{0.0, 0.0}}, 0.6)}, {"a", "c"});
            }).find("c: medium differs from a's"),
            std::string::npos);
  EXPECT_NE(runtime_error_of([&] {
              talus::wrench::merge_databases({a, a}, {"a", "a2"});
            }).find("both measured depth 0 m, tilt 0.3 rad"),
            std::string::npos);
  WrenchDatabase lowest = part({{0.0, 0.6}}, 0.5);
  lowest.depth_reference = talus::wrench::DepthReference::kLowestPoint;
  lowest.foot_radius_m = 0.04;
  EXPECT_NE(runtime_error_of([&] {
              talus::wrench::merge_databases({a, lowest}, {"a", "d"});
            }).find("d: depth_reference differs from a's"),
            std::string::npos);
  WrenchDatabase lowest_b = part({{0.0, 0.9}}, 0.5);
  lowest_b.depth_reference = talus::wrench::DepthReference::kLowestPoint;
  lowest_b.foot_radius_m = 0.04;
  const WrenchDatabase both = talus::wrench::merge_databases({lowest, lowest_b}, {"d", "e"});
  EXPECT_EQ(both.depth_reference, talus::wrench::DepthReference::kLowestPoint);
  EXPECT_EQ(both.foot_radius_m, 0.04);
}

// Every shipped sweep file (sweeps/, the wrench-space media's data/wrench/*.sweep.toml) reads and
// every run of it checks.
TEST(SweepPlan, ShippedSweepFilesCheck) {
  int checked = 0;
  for (const char* dir : {"sweeps", "data/wrench"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(TALUS_SOURCE_DIR) / dir)) {
      const std::string name = entry.path().filename().string();
      const bool sweep = std::string(dir) == "sweeps" ? entry.path().extension() == ".toml"
                                                      : name.ends_with(".sweep.toml");
      if (!sweep) continue;
      const SweepPlan plan = load_sweep_plan(entry.path());
      EXPECT_NO_THROW(check_sweep_plan(plan)) << entry.path();
      EXPECT_GE(plan.runs.size(), 2u) << entry.path();
      ++checked;
    }
  }
  EXPECT_GE(checked, 4);
}

// A part of a split acquisition (one tilt, or a pair) cannot give the spline's concavity or the
// quadratic's cross validation: its run says so instead of failing after its measurements.
TEST(WrenchDatabaseMerge, APartsQualityIsSkippedWithItsReasonNotAFailure) {
  using talus::wrench::WrenchDatabase;
  const auto grid = [](std::vector<double> tilts) {
    WrenchDatabase db;
    db.velocity_directions = talus::wrench::velocity_directions(26);
    db.velocity_scale.resize(3);
    db.velocity_scale << 0.02, 0.02, 0.3;
    db.medium = {"m", 0.004, 2650.0, 0.5, "test"};
    std::vector<std::pair<double, double>> rows;
    for (const double d : {0.0, -0.015, -0.03, -0.045, -0.06}) {
      for (const double t : tilts) rows.emplace_back(d, t);
    }
    db.configurations.resize(static_cast<Eigen::Index>(rows.size()), 2);
    std::srand(3);
    for (std::size_t j = 0; j < rows.size(); ++j) {
      db.configurations.row(static_cast<Eigen::Index>(j)) << rows[j].first, rows[j].second;
      const Eigen::MatrixXd w = Eigen::MatrixXd::Random(26, 3) * 10.0;
      db.wrenches.push_back(rows[j].first == 0.0 ? Eigen::MatrixXd(Eigen::MatrixXd::Zero(26, 3))
                                                 : w);
    }
    return db;
  };
  const nlohmann::json one_tilt = talus::wrench::database_quality(grid({0.0}));
  EXPECT_NE(one_tilt.value("quality_not_computed", "").find("5 depth(s) and 1 tilt(s)"),
            std::string::npos)
      << one_tilt.dump();
  const nlohmann::json pair = talus::wrench::database_quality(grid({-0.3, 0.3}));
  EXPECT_TRUE(pair.contains("concavity"));
  EXPECT_FALSE(pair.contains("cross_validation"));
  const nlohmann::json whole = talus::wrench::database_quality(grid({-0.3, 0.0, 0.3}));
  EXPECT_TRUE(whole.contains("concavity") && whole.contains("cross_validation"));
}

TEST(Sweep, BadInputLeavesNoOutputFolder) {
  ScratchDir scratch;
  const fs::path file = sweep_file(scratch.path(), "[grid]\n\"experiment.lod_n\" = [250.0]\n");
  EXPECT_EQ(sweep_once(file, scratch.path() / "out"), 2);
  EXPECT_FALSE(fs::exists(scratch.path() / "out"));
}

}  // namespace
