#include "runner/run_scenario.hpp"

#include "core/output_dir.hpp"
#include "core/scenario_file.hpp"
#include "shaping/shaping_scenario.hpp"

namespace talus {

namespace {

// The tiers a scenario can name in [scenario] tier; more arrive with their issues.
const std::vector<std::string> kTiers = {"shaping"};

std::string read_tier(const ScenarioTable& root) {
  return root.table("scenario").choice("tier", kTiers);
}

}  // namespace

nlohmann::json check_scenario_file(const std::filesystem::path& scenario_file) {
  const auto doc = ScenarioDocument::load(scenario_file);
  const ScenarioTable root = doc->root();
  const std::string tier = read_tier(root);
  const shaping::ShapingScenario sc = shaping::load_shaping_scenario(root);
  return {{"tier", tier}, {"name", sc.name}, {"steps", sc.steps}};
}

nlohmann::json run_scenario_file(const std::filesystem::path& scenario_file,
                                 const std::filesystem::path& out_dir,
                                 const RunProgress& progress) {
  const auto doc = ScenarioDocument::load(scenario_file);
  const ScenarioTable root = doc->root();
  read_tier(root);
  // Everything is read and checked before the output folder is touched.
  const shaping::ShapingScenario sc = shaping::load_shaping_scenario(root);
  OutputDir out(out_dir);
  nlohmann::json summary = shaping::run_shaping_scenario(sc, out, progress);
  out.commit();
  return summary;
}

}  // namespace talus
