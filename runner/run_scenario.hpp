#pragma once
// Runs a scenario file of any tier: parse and validate the whole file first, then simulate into a
// temporary folder that becomes `out_dir` only when the run completed (ARCHITECTURE.md, data flow).

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/output_dir.hpp"
#include "core/progress.hpp"

namespace talus {

/// Reads and validates `scenario_file` without running it; returns its tier and name. Throws
/// ScenarioError (file, line, key, expectation) when the file cannot run as written. A non-empty
/// `tier` replaces the file's [scenario] tier (ScenarioDocument::with_tier).
nlohmann::json check_scenario_file(const std::filesystem::path& scenario_file,
                                   const std::string& tier = "");

/// Runs `scenario_file` and writes its outputs to `out_dir.dir`: a new or empty folder, or an
/// earlier talus output when `out_dir.existing` allows replacing it (core/output_target.hpp),
/// which is replaced only once the run completed; on any error an existing folder is left
/// untouched. The target is checked before anything runs. Returns summary.json's content.
/// Throws ScenarioError for bad input, OutputTargetError for a folder talus may not write,
/// std::runtime_error when the run fails. A non-empty `tier` replaces the file's [scenario] tier.
nlohmann::json run_scenario_file(const std::filesystem::path& scenario_file,
                                 const OutputTarget& out_dir, const RunProgress& progress = {},
                                 const std::string& tier = "");
class ScenarioDocument;

/// check_scenario_file() for a parsed scenario (`talus sweep`: a scenario with swept values).
nlohmann::json check_scenario_document(const std::shared_ptr<const ScenarioDocument>& doc);
/// run_scenario_file() for a parsed scenario.
nlohmann::json run_scenario_document(const std::shared_ptr<const ScenarioDocument>& doc,
                                     const OutputTarget& out_dir, const RunProgress& progress = {});

/// The tiers a scenario's [scenario] tier (or `tier` above) may name.
std::vector<std::string> scenario_tier_names();

}  // namespace talus
