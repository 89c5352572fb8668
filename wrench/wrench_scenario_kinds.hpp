#pragma once
// The wrench tier's scenario kinds (wrench/wrench_scenario.hpp dispatches on [scenario] kind).
// Each kind has a check (read and validate the whole file, nothing simulated) and a run (simulate
// into an OutputDir the caller commits).

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/output_dir.hpp"
#include "core/progress.hpp"
#include "core/scenario_head.hpp"

namespace talus::wrench {

/// A run whose wrench-space step failed (a foot sank past the data, an infeasible contact QP, a
/// NaN state), thrown after the outputs up to the last good step were written: run_wrench commits
/// them for the user to look at and the CLI exits with 1.
class WrenchRunStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The [scenario] table of a kind among `kinds` (core/scenario_head.hpp; `kind` picks the kind).
ScenarioHead read_wrench_head(const ScenarioTable& root, const std::vector<std::string>& kinds);

/// kind = "acquire": a database from the particle tier (wrench/wrench_acquire_run.cpp).
nlohmann::json check_acquire(const ScenarioTable& root);
nlohmann::json run_acquire(const ScenarioTable& root, OutputDir& out, const RunProgress& progress);

/// kind = "foot_drop", "quadruped" (wrench/wrench_robot_run.cpp): a planar MuJoCo robot on the
/// wrench-space step, one run per [[case]]. A case whose step fails ends the run there: its
/// outputs up to the last good step, the overview and summary.json ("stopped": why) are
/// written, then WrenchRunStopped is thrown.
nlohmann::json check_robot_kind(const ScenarioTable& root);
nlohmann::json run_robot_kind(const ScenarioTable& root, OutputDir& out,
                              const RunProgress& progress);

/// kind = "foot_accuracy" (wrench/wrench_accuracy_run.cpp): the foot under PID control on the
/// wrench-space step and the same path in the particle tier.
nlohmann::json check_accuracy(const ScenarioTable& root);
nlohmann::json run_accuracy(const ScenarioTable& root, OutputDir& out, const RunProgress& progress);

}  // namespace talus::wrench
