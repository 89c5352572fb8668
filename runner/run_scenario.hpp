#pragma once
// Runs a scenario file of any tier: parse and validate the whole file first, then simulate into a
// temporary folder that becomes `out_dir` only when the run completed (ARCHITECTURE.md, data flow).

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/progress.hpp"

namespace talus {

/// Reads and validates `scenario_file` without running it; returns its tier and name. Throws
/// ScenarioError (file, line, key, expectation) when the file cannot run as written.
nlohmann::json check_scenario_file(const std::filesystem::path& scenario_file);

/// Runs `scenario_file` and writes its outputs to `out_dir` (replacing an existing folder only once
/// the run completed; on any error an existing folder is left untouched). Returns summary.json's
/// content. Throws ScenarioError for bad input, std::runtime_error when the run fails.
nlohmann::json run_scenario_file(const std::filesystem::path& scenario_file,
                                 const std::filesystem::path& out_dir,
                                 const RunProgress& progress = {});

}  // namespace talus
