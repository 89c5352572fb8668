#pragma once
// A sweep file (`talus sweep SWEEP.toml`): a base scenario and the values to vary, expanded into
// the list of runs, each a scenario document with its values put in (docs/sweep.md).
//
//   [sweep]   name, description (optional), scenario (path, relative to the sweep file),
//             tier (optional, as `talus run --tier`), combine (optional: "none", or
//             "wrench_database" to merge the runs' wrench-space databases, sweep/sweep_combine.hpp)
//   [grid]    dotted key = [value, ...]: every combination, the last key varying fastest
//   [[runs]]  dotted key = value, ...: listed points, each combined with every grid point
//   [[plot]]  pictures of summary figures against a swept value (sweep/sweep_plot.hpp)
//
// A dotted key names a scenario value ("experiment.load_n", "bodies.0.mass_kg"); quoted
// ("experiment.load_n") and bare TOML dotted keys (experiment.load_n) mean the same.

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/scenario_file.hpp"
#include "sweep/sweep_plot.hpp"

namespace talus::sweep {

/// One swept value of one run: the scenario key it sets and the sweep file's TOML value.
struct SweptValue {
  std::string key;                    ///< dotted key, e.g. "experiment.load_n"
  std::vector<std::string> path;      ///< the key split at its dots
  const toml::node* value = nullptr;  ///< in the sweep document (SweepPlan keeps it alive)
  nlohmann::json json;                ///< the value as JSON (tables, tables' CSV columns, HDF5)
};

/// One run of the sweep.
struct SweepRun {
  int index = 0;
  std::string id;  ///< "r0000", ...: the run's folder, result file and HDF5 group
  std::vector<SweptValue> values;
  /// "experiment.load_n=250, soil.preset=dry_sand" (progress lines, errors)
  std::string label() const;
  /// {key: value} of the swept values.
  nlohmann::json parameters() const;
};

struct SweepPlan {
  std::filesystem::path sweep_file;
  std::filesystem::path scenario_file;  ///< the base scenario, as found from the sweep file
  std::string name;
  std::string description;
  std::string tier;               ///< empty: the scenario's own
  std::string combine = "none";   ///< what is made of all runs' outputs at the end
  std::vector<std::string> keys;  ///< every swept key, in the order of first appearance
  std::vector<SweepRun> runs;
  std::vector<SweepPlot> plots;  ///< [[plot]]: pictures of the results (not in the fingerprint)
  /// What identifies the sweep's results: a hash of the base scenario's values, the tier and
  /// every run's id and values (not of either file's comments or layout). An output folder holding
  /// another fingerprint belongs to another sweep.
  std::string fingerprint;

  std::shared_ptr<const ScenarioDocument> sweep_document;
  std::shared_ptr<const ScenarioDocument> base_document;

  /// The scenario of `run`: the base with the run's values put in (and the tier, if set).
  std::shared_ptr<const ScenarioDocument> run_document(const SweepRun& run) const;
};

/// Reads and expands `sweep_file`. Throws ScenarioError naming the file, line and key for a bad
/// sweep file (a missing key, an unknown one, an empty grid, a base scenario that cannot be read).
SweepPlan load_sweep_plan(const std::filesystem::path& sweep_file);

/// Checks every run's scenario as `talus check` would, before any run starts. Throws
/// ScenarioError naming the run and, for a swept value, the sweep file's line and key.
void check_sweep_plan(const SweepPlan& plan);

/// A TOML value as JSON (numbers, strings, booleans, arrays, tables; dates as their text).
nlohmann::json toml_to_json(const toml::node& value);

}  // namespace talus::sweep
