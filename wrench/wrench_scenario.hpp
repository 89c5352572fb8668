#pragma once
// Scenario files of the wrench-space tier (scenarios/wrench/*.toml, docs/wrench_space.md §8):
// [scenario] tier = "wrench" and a kind:
//   "acquire"        a wrench-space database from the particle tier (wrench/wrench_acquire_run.cpp)
//   "foot_drop"      the paper's foot dropped on flat ground and slopes (§IV-C2)
//   "foot_accuracy"  the foot under PID control along a path, against the particle tier (§IV-C1)
//   "quadruped"      the planar quadruped pushing its front feet, trotting, dropped on a slope
//                    (§IV-C3-4)

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/output_dir.hpp"
#include "core/progress.hpp"
#include "core/scenario_file.hpp"

namespace talus::wrench {

/// The runner's entry points (runner/run_scenario.cpp) for [scenario] tier = "wrench": check reads
/// and validates the whole file (databases and MJCF loaded) and returns {tier, name, steps}; run
/// simulates it into out_dir (committed when complete) and returns the summary.
nlohmann::json check_wrench(const ScenarioTable& root);
nlohmann::json run_wrench(const ScenarioTable& root, const OutputTarget& out_dir,
                          const RunProgress& progress);

}  // namespace talus::wrench
