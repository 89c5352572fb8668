#include "sweep/sweep_combine.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <map>

#include "core/atomic_file.hpp"
#include "core/image.hpp"
#include "core/json_file.hpp"
#include "core/plot.hpp"
#include "sweep/sweep_folder.hpp"
#include "sweep/sweep_plan.hpp"
#include "wrench/database_plots.hpp"
#include "wrench/wrench_database.hpp"
#include "wrench/wrench_space_model.hpp"

namespace talus::sweep {

namespace fs = std::filesystem;

std::vector<std::string> combine_kinds() { return {"none", "wrench_database"}; }

std::string combine_refusal(const std::string& combine, const ScenarioDocument& base,
                            const std::string& tier) {
  if (combine != "wrench_database") return "";
  const toml::table& root = base.toml_root();
  const std::string file_tier = root["scenario"]["tier"].value_or(std::string());
  const std::string kind = root["scenario"]["kind"].value_or(std::string());
  if ((tier.empty() ? file_tier : tier) != "wrench" || kind != "acquire") {
    return fmt::format(
        "\"wrench_database\" merges the databases of wrench-tier scenarios of kind \"acquire\"; "
        "{} is a {} scenario{}",
        base.path().string(), tier.empty() ? file_tier : tier,
        kind.empty() ? "" : fmt::format(" of kind \"{}\"", kind));
  }
  return "";
}

namespace {

// The keys a part of a merged database must share with every other part (merge_databases
// refuses parts of another medium, other directions or scales, another reference point or depth
// reference): sweeping one would fail the merge after every run had been measured.
bool is_shared_by_the_parts(const std::string& key) {
  static const char* const kShared[] = {"grid.directions", "grid.velocity_scale", "grid.depth_at",
                                        "foot.reference_height_m"};
  if (key.rfind("medium.", 0) == 0 || key.rfind("particles.", 0) == 0) return true;
  return std::find(std::begin(kShared), std::end(kShared), key) != std::end(kShared);
}

// The numbers of a run's `grid.<name>` array: its swept value, else the base scenario's.
std::vector<double> grid_values(const SweepPlan& plan, const SweepRun& run, const char* name) {
  const std::string key = std::string("grid.") + name;
  std::vector<double> out;
  for (const SweptValue& v : run.values) {
    if (v.key != key || !v.json.is_array()) continue;
    for (const auto& x : v.json) {
      if (x.is_number()) out.push_back(x.get<double>());
    }
    return out;
  }
  if (const toml::array* a = plan.base_document->toml_root()["grid"][name].as_array()) {
    for (const toml::node& x : *a) {
      if (const auto d = x.value<double>()) out.push_back(*d);
    }
  }
  return out;
}

}  // namespace

std::string combined_runs_refusal(const SweepPlan& plan) {
  if (plan.combine != "wrench_database") return "";
  for (const std::string& key : plan.keys) {
    if (is_shared_by_the_parts(key)) {
      return fmt::format(
          "{} is swept, but the parts of one database must share it (one medium, one set of "
          "directions and velocity scales, one reference point and depth reference); sweep "
          "grid.depths_m, grid.tilts_rad or the bed",
          key);
    }
  }
  // No configuration measured by two runs (the merge refuses it).
  std::map<std::pair<double, double>, const SweepRun*> measured_by;
  for (const SweepRun& run : plan.runs) {
    for (const double d : grid_values(plan, run, "depths_m")) {
      for (const double t : grid_values(plan, run, "tilts_rad")) {
        const auto [at, first] = measured_by.emplace(std::make_pair(d, t), &run);
        const SweepRun* other = at->second;
        if (!first && other != &run) {
          return fmt::format(
              "runs {} ({}) and {} ({}) both measure depth {:g} m, tilt {:g} rad: the parts of "
              "one database must measure each configuration once",
              other->id, other->label(), run.id, run.label(), d, t);
        }
      }
    }
  }
  return "";
}

std::vector<std::string> combined_files(const std::string& combine) {
  if (combine == "wrench_database") return {"database.h5", "database.json", "database.png"};
  return {};
}

std::string combine_runs(const SweepPlan& plan, const SweepPaths& paths) {
  const fs::path& dir = paths.root;
  if (plan.combine != "wrench_database") return "";
  std::vector<wrench::WrenchDatabase> parts;
  std::vector<std::string> names;
  for (const SweepRun& run : plan.runs) {
    const fs::path file = paths.run_dir(run.id) / "database.h5";
    parts.push_back(wrench::load_database(file));
    names.push_back(fmt::format("{} ({})", file.string(), run.label()));
  }
  const wrench::WrenchDatabase db = wrench::merge_databases(parts, names);
  replace_file_atomically(dir / "database.h5",
                          [&](const fs::path& temp) { wrench::save_database(db, temp); });
  nlohmann::json summary = {{"database", "database.h5"},
                            {"parts", plan.runs.size()},
                            {"configurations", db.configuration_count()},
                            {"directions", db.direction_count()},
                            {"medium", db.medium.name}};
  summary.update(wrench::database_quality(db));
  replace_file_atomically(dir / "database.json",
                          [&](const fs::path& temp) { talus::write_json(temp, summary); });
  // The deepest depth's wrench sets, one per tilt, and the support against tilt at every depth:
  // what the parts add up to.
  double deepest = 0.0;  // a loop, not minCoeff(): GCC bug 105593 warns in its AVX-512 kernel
  for (int j = 0; j < db.configuration_count(); ++j) {
    deepest = std::min(deepest, db.configurations(j, 0));
  }
  const RgbImage picture = stack_vertically(
      {wrench::plot_wrench_sets_by_tilt(
           db, deepest,
           fmt::format("{}: wrench sets {:g} mm deep, by tilt", plan.name, -1e3 * deepest)),
       wrench::plot_support_by_tilt(
           db, fmt::format("{}: largest upward f_z by tilt, {} depths", plan.name,
                           db.depth_reference == wrench::DepthReference::kLowestPoint
                               ? "lowest-point"
                               : "bottom-centre"))});
  replace_file_atomically(dir / "database.png",
                          [&](const fs::path& temp) { write_png(temp, picture); });
  return fmt::format(
      "merged the {} runs' wrench-space databases into {} ({} configurations x {} "
      "directions)",
      plan.runs.size(), (dir / "database.h5").string(), db.configuration_count(),
      db.direction_count());
}

}  // namespace talus::sweep
