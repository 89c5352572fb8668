#include "wrench/wrench_scenario.hpp"

#include "core/output_dir.hpp"
#include "wrench/wrench_scenario_kinds.hpp"

namespace talus::wrench {

namespace {

struct KindEntry {
  const char* name;
  nlohmann::json (*check)(const ScenarioTable& root);
  nlohmann::json (*run)(const ScenarioTable& root, OutputDir& out, const RunProgress& progress);
};

const KindEntry kKinds[] = {
    {"acquire", check_acquire, run_acquire},
    {"foot_drop", check_robot_kind, run_robot_kind},
    {"quadruped", check_robot_kind, run_robot_kind},
    {"foot_accuracy", check_accuracy, run_accuracy},
};

const KindEntry& read_kind(const ScenarioTable& root) {
  return root.table("scenario").choice_entry("kind", kKinds);
}

}  // namespace

ScenarioHead read_wrench_head(const ScenarioTable& root, const std::vector<std::string>& kinds) {
  return read_scenario_head(root, "wrench", {{"kind", kinds, ""}});
}

nlohmann::json check_wrench(const ScenarioTable& root) { return read_kind(root).check(root); }

nlohmann::json run_wrench(const ScenarioTable& root, const OutputTarget& out_dir,
                          const RunProgress& progress) {
  const KindEntry& kind = read_kind(root);
  kind.check(root);  // nothing is written before the whole file was read and checked
  OutputDir out(out_dir);
  try {
    nlohmann::json summary = kind.run(root, out, progress);
    out.commit();
    return summary;
  } catch (const WrenchRunStopped&) {
    out.commit();  // the outputs up to the last good step, for the user to look at
    throw;
  }
}

}  // namespace talus::wrench
