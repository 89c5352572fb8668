#include "runner/run_scenario.hpp"

#include <array>

#include "core/output_dir.hpp"
#include "core/scenario_file.hpp"
#include "core/view_recorder.hpp"
#include "particles/particle_scenario.hpp"
#include "robot/robot_run.hpp"
#include "scm/scm_scenario.hpp"
#include "shaping/shaping_scenario.hpp"
#include "wrench/wrench_scenario.hpp"

namespace talus {

namespace {

// One entry per tier a scenario can name in [scenario] tier. `check` reads and validates the
// whole file and returns {tier, name, steps, view} (view: whether the run records frames for
// `talus view` and --video); `run` reads it, then simulates into an OutputDir
// that it commits when the run completed (nothing is written before the file was checked).
struct TierEntry {
  const char* name;
  nlohmann::json (*check)(const ScenarioTable& root);
  nlohmann::json (*run)(const ScenarioTable& root, const OutputTarget& out_dir,
                        const RunProgress& progress);
};

nlohmann::json check_shaping(const ScenarioTable& root) {
  const shaping::ShapingScenario sc = shaping::load_shaping_scenario(root);
  return {{"tier", "shaping"},
          {"name", sc.name},
          {"steps", sc.steps},
          {"view", view_frame_interval(sc.steps, sc.view.frames) > 0}};
}

nlohmann::json run_shaping(const ScenarioTable& root, const OutputTarget& out_dir,
                           const RunProgress& progress) {
  const shaping::ShapingScenario sc = shaping::load_shaping_scenario(root);
  OutputDir out(out_dir);
  nlohmann::json summary = shaping::run_shaping_scenario(sc, out, progress);
  out.commit();
  return summary;
}

nlohmann::json check_particles(const ScenarioTable& root) {
  const particles::ParticleScenario sc = particles::load_particle_scenario(root);
  // A drag-only scenario (no main run) records no view.
  return {{"tier", "particles"},
          {"name", sc.name},
          {"steps", sc.total_steps()},
          {"view", sc.steps > 0 && view_frame_interval(sc.steps, sc.view.frames) > 0}};
}

// A diverged run still commits its folder: it holds the last good state and the logs so far.
nlohmann::json run_particles(const ScenarioTable& root, const OutputTarget& out_dir,
                             const RunProgress& progress) {
  const particles::ParticleScenario sc = particles::load_particle_scenario(root);
  OutputDir out(out_dir);
  try {
    nlohmann::json summary = particles::run_particle_scenario(sc, out, progress);
    out.commit();
    return summary;
  } catch (const particles::ParticleRunDiverged&) {
    out.commit();
    throw;
  }
}

const std::array kTiers = {
    TierEntry{"shaping", check_shaping, run_shaping},
    TierEntry{"scm", scm::check_scm, scm::run_scm},
    TierEntry{"particles", check_particles, run_particles},
    TierEntry{"robots", robot::check_robots, robot::run_robots},
    TierEntry{"wrench", wrench::check_wrench, wrench::run_wrench},
};

const TierEntry& read_tier(const ScenarioTable& root) {
  if (!root.has("scenario") && root.has("sweep")) {
    root.fail("", "missing table [scenario]: this is a sweep file; run it with `talus sweep`");
  }
  return root.table("scenario").choice_entry("tier", kTiers);
}

std::shared_ptr<const ScenarioDocument> load_document(const std::filesystem::path& scenario_file,
                                                      const std::string& tier) {
  const auto doc = ScenarioDocument::load(scenario_file);
  return tier.empty() ? doc : doc->with_tier(tier);
}

}  // namespace

std::vector<std::string> scenario_tier_names() {
  std::vector<std::string> names;
  for (const TierEntry& t : kTiers) names.emplace_back(t.name);
  return names;
}

nlohmann::json check_scenario_document(const std::shared_ptr<const ScenarioDocument>& doc) {
  const ScenarioTable root = doc->root();
  return read_tier(root).check(root);
}

nlohmann::json run_scenario_document(const std::shared_ptr<const ScenarioDocument>& doc,
                                     const OutputTarget& out_dir, const RunProgress& progress) {
  const ScenarioTable root = doc->root();
  const TierEntry& entry = read_tier(root);
  // Before any work: a folder talus may not write is refused now, not after a long run.
  check_output_target(out_dir.dir, out_dir.existing);
  return entry.run(root, out_dir, progress);
}

nlohmann::json check_scenario_file(const std::filesystem::path& scenario_file,
                                   const std::string& tier) {
  return check_scenario_document(load_document(scenario_file, tier));
}

nlohmann::json run_scenario_file(const std::filesystem::path& scenario_file,
                                 const OutputTarget& out_dir, const RunProgress& progress,
                                 const std::string& tier) {
  return run_scenario_document(load_document(scenario_file, tier), out_dir, progress);
}

}  // namespace talus
