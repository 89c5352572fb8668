#include "sweep/sweep_plan.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>

#include "runner/run_scenario.hpp"
#include "sweep/sweep_combine.hpp"

namespace talus::sweep {

namespace {

// "file:line:col" of a value of the sweep file.
std::string where(const toml::node& node, const std::filesystem::path& file) {
  const toml::source_region& src = node.source();
  return fmt::format("{}:{}:{}", file.string(), src.begin.line, src.begin.column);
}

std::vector<std::string> split_key(const std::string& dotted) {
  std::vector<std::string> parts;
  std::stringstream in(dotted);
  for (std::string part; std::getline(in, part, '.');) parts.push_back(part);
  return parts;
}

std::string join_key(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ".") + p;
  return out;
}

// The leaves of a [grid] or [[runs]] table with their dotted keys: a table is walked into (bare
// TOML dotted keys make nested tables), anything else is a leaf.
void collect_leaves(const toml::table& table, std::vector<std::string> prefix,
                    std::vector<std::pair<std::vector<std::string>, const toml::node*>>& leaves) {
  for (const auto& [key, node] : table) {
    std::vector<std::string> path = prefix;
    for (std::string& part : split_key(std::string(key.str()))) path.push_back(std::move(part));
    if (const toml::table* inner = node.as_table()) {
      collect_leaves(*inner, path, leaves);
    } else {
      leaves.emplace_back(std::move(path), &node);
    }
  }
}

void check_key(const std::vector<std::string>& path, const toml::node& node,
               const std::filesystem::path& file, const std::string& section) {
  for (const std::string& part : path) {
    if (part.empty()) {
      throw ScenarioError(
          fmt::format("{}: {}: '{}': expected a dotted key of non-empty names "
                      "(e.g. experiment.load_n)",
                      where(node, file), section, join_key(path)));
    }
  }
}

SweptValue swept(const std::vector<std::string>& path, const toml::node* value) {
  return SweptValue{join_key(path), path, value, toml_to_json(*value)};
}

// talus is deterministic: a value listed twice in a grid array, or two [[runs]] tables with the
// same values, would run the same inputs twice for the same result. Refused, pointing at the
// repeat (JSON compares numbers by value: 250 and 250.0 are the same load).
void refuse_repeated_grid_value(const std::vector<std::string>& path, const toml::array& values,
                                const std::filesystem::path& file) {
  std::vector<nlohmann::json> seen;
  for (std::size_t j = 0; j < values.size(); ++j) {
    nlohmann::json value = toml_to_json(*values.get(j));
    const auto first = std::find(seen.begin(), seen.end(), value);
    if (first != seen.end()) {
      throw ScenarioError(fmt::format(
          "{}: grid.{}: {} is listed twice (values {} and {} of the array): the two runs would "
          "be the same; expected distinct values",
          where(*values.get(j), file), join_key(path), value.dump(), first - seen.begin() + 1,
          j + 1));
    }
    seen.push_back(std::move(value));
  }
}

void refuse_repeated_run_table(const std::vector<std::vector<SweptValue>>& points,
                               const toml::array& tables, const std::filesystem::path& file) {
  const auto values_of = [](const std::vector<SweptValue>& point) {
    std::map<std::string, nlohmann::json> values;
    for (const SweptValue& v : point) values[v.key] = v.json;
    return values;
  };
  std::vector<std::map<std::string, nlohmann::json>> seen;
  for (std::size_t j = 0; j < points.size(); ++j) {
    auto values = values_of(points[j]);
    const auto first = std::find(seen.begin(), seen.end(), values);
    if (first != seen.end()) {
      throw ScenarioError(fmt::format(
          "{}: runs: [[runs]] table {} sets the same values as table {}: the two runs would be "
          "the same; expected distinct runs",
          where(*tables.get(j), file), j + 1, first - seen.begin() + 1));
    }
    seen.push_back(std::move(values));
  }
}

// FNV-1a, 64 bits: a stable fingerprint of a sweep's content (not a security hash; a folder
// holding another sweep's results is refused, not attacked). Hand-written: ten lines, and
// std::hash is not stable across implementations.
std::string fnv1a_hex(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace

nlohmann::json toml_to_json(const toml::node& value) {
  if (const auto* v = value.as_integer()) return v->get();
  if (const auto* v = value.as_floating_point()) return v->get();
  if (const auto* v = value.as_boolean()) return v->get();
  if (const auto* v = value.as_string()) return v->get();
  if (const toml::array* a = value.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const toml::node& item : *a) out.push_back(toml_to_json(item));
    return out;
  }
  if (const toml::table* t = value.as_table()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, item] : *t) out[std::string(key.str())] = toml_to_json(item);
    return out;
  }
  std::stringstream text;  // dates and times
  value.visit([&](const auto& v) { text << v; });
  return text.str();
}

namespace {
// A swept value as its label shows it: strings bare, a non-finite number as "nan" or "inf"
// (JSON has no such numbers and would print them as "null"), the rest as JSON.
std::string label_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    return fmt::format("{}", value.get<double>());
  }
  return value.dump();
}
}  // namespace

std::string SweepRun::label() const {
  std::string out;
  for (const SweptValue& v : values) {
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", v.key, label_text(v.json));
  }
  return out.empty() ? "(the base scenario)" : out;
}

nlohmann::json SweepRun::parameters() const {
  nlohmann::json out = nlohmann::json::object();
  for (const SweptValue& v : values) out[v.key] = v.json;
  return out;
}

std::shared_ptr<const ScenarioDocument> SweepPlan::run_document(const SweepRun& run) const {
  std::vector<std::pair<std::vector<std::string>, const toml::node*>> values;
  for (const SweptValue& v : run.values) values.emplace_back(v.path, v.value);
  // The run's description names the values the sweep set: the base file's describes the base
  // values (plate_loads' 250 N run was "20 cm square plate, 500 N on dry sand").
  const ScenarioTable base = base_document->root();
  std::optional<toml::value<std::string>> run_description;
  const bool swept = std::any_of(run.values.begin(), run.values.end(), [](const SweptValue& v) {
    return v.key == "scenario.description";
  });
  if (base.has("scenario") && !swept) {
    const std::string own = base.table("scenario").string_or("description", "");
    run_description.emplace(fmt::format("{}{}(sweep {}, run {}: {})", own, own.empty() ? "" : " ",
                                        name, run.id, run.label()));
    values.emplace_back(std::vector<std::string>{"scenario", "description"}, &*run_description);
  }
  auto doc = base_document->with_values(values);
  return tier.empty() ? doc : doc->with_tier(tier);
}

SweepPlan load_sweep_plan(const std::filesystem::path& sweep_file) {
  SweepPlan plan;
  plan.sweep_file = sweep_file;
  plan.sweep_document = ScenarioDocument::load(sweep_file, "sweep file");
  const ScenarioTable root = plan.sweep_document->root();

  if (!root.has("sweep") && root.has("scenario")) {
    root.fail("", "missing table [sweep]: this is a scenario file; run it with `talus run`");
  }
  const ScenarioTable head = root.table("sweep");
  plan.name = head.string("name");
  plan.description = head.string_or("description", "");
  const std::string scenario = head.string("scenario");
  plan.tier = head.string_or("tier", "");
  if (!plan.tier.empty()) head.choice("tier", scenario_tier_names());
  plan.combine = head.choice_or("combine", "none", combine_kinds());
  head.refuse_unknown_keys();
  plan.scenario_file = std::filesystem::path(scenario).is_absolute()
                           ? std::filesystem::path(scenario)
                           : sweep_file.parent_path() / scenario;
  try {
    plan.base_document = ScenarioDocument::load(plan.scenario_file);
  } catch (const ScenarioError& e) {
    head.fail("scenario", fmt::format("the base scenario cannot be read: {}", e.what()));
  }
  const std::string refused = combine_refusal(plan.combine, *plan.base_document, plan.tier);
  if (!refused.empty()) head.fail("combine", refused);

  // Grid: every combination of the listed values.
  const toml::table& doc = plan.sweep_document->toml_root();
  std::vector<std::pair<std::vector<std::string>, const toml::node*>> grid;
  if (const toml::node* node = doc.get("grid")) {
    if (!node->is_table()) root.fail("grid", "expected a table of dotted key = [values]");
    collect_leaves(*node->as_table(), {}, grid);
    // toml++ keeps a table's keys sorted; the grid keeps the file's order.
    std::stable_sort(grid.begin(), grid.end(), [](const auto& a, const auto& b) {
      const auto& pa = a.second->source().begin;
      const auto& pb = b.second->source().begin;
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    for (const auto& [path, value] : grid) {
      check_key(path, *value, sweep_file, "grid");
      const toml::array* values = value->as_array();
      if (values == nullptr || values->empty()) {
        throw ScenarioError(
            fmt::format("{}: grid.{}: expected a non-empty array of the values to try, got {}",
                        where(*value, sweep_file), join_key(path),
                        values ? "an empty array" : toml_to_json(*value).dump()));
      }
      refuse_repeated_grid_value(path, *values, sweep_file);
    }
  }
  // Listed points.
  std::vector<std::vector<SweptValue>> points;
  if (const toml::node* node = doc.get("runs")) {
    const toml::array* list = node->as_array();
    if (list == nullptr || !list->is_array_of_tables() || list->empty()) {
      root.fail("runs", "expected [[runs]] tables of dotted key = value");
    }
    for (const toml::node& item : *list) {
      std::vector<std::pair<std::vector<std::string>, const toml::node*>> leaves;
      collect_leaves(*item.as_table(), {}, leaves);
      if (leaves.empty()) {
        throw ScenarioError(
            fmt::format("{}: runs: a [[runs]] table sets no value", where(item, sweep_file)));
      }
      std::vector<SweptValue> point;
      for (const auto& [path, value] : leaves) {
        check_key(path, *value, sweep_file, "runs");
        point.push_back(swept(path, value));
      }
      points.push_back(std::move(point));
    }
    refuse_repeated_run_table(points, *list, sweep_file);
  }
  for (const std::string& key : root.keys()) {
    if (key != "sweep" && key != "grid" && key != "runs" && key != "plot") {
      root.fail(key, "unknown section; expected one of: grid, plot, runs, sweep");
    }
  }
  if (grid.empty() && points.empty()) {
    root.fail("", "the sweep varies nothing: expected a [grid] table or [[runs]] tables");
  }
  if (points.empty()) points.emplace_back();

  // Runs: each listed point with each grid point, the last grid key varying fastest.
  std::size_t grid_points = 1;
  for (const auto& g : grid) grid_points *= g.second->as_array()->size();
  for (const std::vector<SweptValue>& point : points) {
    for (std::size_t k = 0; k < grid_points; ++k) {
      SweepRun run;
      run.values = point;
      std::size_t rest = k;
      std::vector<SweptValue> from_grid(grid.size());
      for (std::size_t g = grid.size(); g-- > 0;) {
        const toml::array& values = *grid[g].second->as_array();
        from_grid[g] = swept(grid[g].first, values.get(rest % values.size()));
        rest /= values.size();
      }
      for (SweptValue& v : from_grid) {
        for (const SweptValue& p : point) {
          if (p.key == v.key) {
            throw ScenarioError(fmt::format("{}: {}: set by both [grid] and [[runs]]",
                                            where(*p.value, sweep_file), v.key));
          }
        }
        run.values.push_back(std::move(v));
      }
      plan.runs.push_back(std::move(run));
    }
  }
  const int width = std::max<int>(4, static_cast<int>(std::to_string(plan.runs.size() - 1).size()));
  // The base scenario as its values (toml++'s canonical text), not its comments or layout.
  std::ostringstream base_values;
  base_values << plan.base_document->toml_root();
  nlohmann::json identity = {{"scenario", base_values.str()}, {"tier", plan.tier}};
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    SweepRun& run = plan.runs[i];
    run.index = static_cast<int>(i);
    run.id = fmt::format("r{:0{}d}", i, width);
    for (const SweptValue& v : run.values) {
      if (std::find(plan.keys.begin(), plan.keys.end(), v.key) == plan.keys.end()) {
        plan.keys.push_back(v.key);
      }
    }
    identity["runs"].push_back({run.id, run.parameters()});
  }
  plan.fingerprint = fnv1a_hex(identity.dump());
  const std::string cannot_combine = combined_runs_refusal(plan);
  if (!cannot_combine.empty()) head.fail("combine", cannot_combine);
  std::vector<std::string> numeric_keys;
  for (const std::string& key : plan.keys) {
    // Every run that sets the key sets a number (a run that does not set it has no point).
    const bool numeric = std::all_of(plan.runs.begin(), plan.runs.end(), [&](const SweepRun& r) {
      return std::none_of(r.values.begin(), r.values.end(),
                          [&](const SweptValue& v) { return v.key == key && !v.json.is_number(); });
    });
    if (numeric) numeric_keys.push_back(key);
  }
  plan.plots = read_sweep_plots(root, plan.keys, numeric_keys);
  return plan;
}

void check_sweep_plan(const SweepPlan& plan) {
  for (const SweepRun& run : plan.runs) {
    try {
      check_scenario_document(plan.run_document(run));
    } catch (const ScenarioError& e) {
      throw ScenarioError(fmt::format("sweep run {} ({}): {}", run.id, run.label(), e.what()));
    }
  }
}

}  // namespace talus::sweep
