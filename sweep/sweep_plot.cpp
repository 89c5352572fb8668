#include "sweep/sweep_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/plot.hpp"
#include "sweep/sweep_results.hpp"

namespace talus::sweep {

bool is_array_of_objects(const nlohmann::json& value) {
  if (!value.is_array() || value.empty()) return false;
  for (const auto& element : value) {
    if (!element.is_object()) return false;
  }
  return true;
}

std::string summary_element_name(const nlohmann::json& element, std::size_t index) {
  const auto name = element.find("name");
  if (name != element.end() && name->is_string() && !name->get<std::string>().empty()) {
    return name->get<std::string>();
  }
  return std::to_string(index);
}

namespace {

// The element of an array of objects that `part` names (summary_element_name) or numbers (its
// index, also for named elements), or null.
const nlohmann::json* named_element(const nlohmann::json& array, const std::string& part) {
  if (!is_array_of_objects(array)) return nullptr;
  for (std::size_t i = 0; i < array.size(); ++i) {
    if (summary_element_name(array[i], i) == part) return &array[i];
  }
  if (!part.empty() && part.size() < 10 &&
      std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const std::size_t index = std::stoul(part);
    if (index < array.size()) return &array[index];
  }
  return nullptr;
}

// The summary value at a dotted key ("result.sinkage_m", "cases.upright_flat.body.travel_m"), or
// null.
nlohmann::json at_key(const nlohmann::json& summary, const std::string& dotted) {
  const nlohmann::json* node = &summary;
  std::size_t from = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', from);
    const std::string part = dotted.substr(from, dot == std::string::npos ? dot : dot - from);
    if (node->is_object() && node->contains(part)) {
      node = &(*node)[part];
    } else if (const nlohmann::json* element = named_element(*node, part)) {
      node = element;
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) return *node;
    from = dot + 1;
  }
}

std::string value_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::vector<SweepPlot> read_sweep_plots(const ScenarioTable& root,
                                        const std::vector<std::string>& swept_keys,
                                        const std::vector<std::string>& numeric_keys) {
  std::vector<SweepPlot> plots;
  if (!root.has("plot")) return plots;
  for (const ScenarioTable& t : root.named_tables("plot")) {
    SweepPlot plot;
    plot.name = t.string("name");
    plot.x = t.string("x");
    if (std::find(swept_keys.begin(), swept_keys.end(), plot.x) == swept_keys.end()) {
      std::string known;
      for (const std::string& k : swept_keys) known += (known.empty() ? "" : ", ") + k;
      t.fail("x", fmt::format("'{}' is not a swept key; expected one of: {}", plot.x, known));
    }
    if (std::find(numeric_keys.begin(), numeric_keys.end(), plot.x) == numeric_keys.end()) {
      // Its points would have no place along x: the plot came out empty, "(2 values missing)".
      t.fail("x", fmt::format("'{}' is not a number in every run that sets it; a plot's x must "
                              "be a numeric swept key",
                              plot.x));
    }
    try {
      plot.y = {t.string("y")};
    } catch (const ScenarioError&) {
      plot.y = t.strings("y");  // a list; its error names what was found
    }
    plot.title = t.string_or("title", plot.name);
    plot.x_label = t.string_or("x_label", plot.x);
    plot.y_label = t.string_or("y_label", plot.y.size() == 1 ? plot.y[0] : "");
    t.refuse_unknown_keys();
    plots.push_back(std::move(plot));
  }
  return plots;
}

std::vector<std::string> y_keys_without_values(const SweepPlot& plot,
                                               const std::vector<RunRecord>& records) {
  std::vector<std::string> missing;
  bool any_ok = false;
  for (const std::string& y_key : plot.y) {
    bool found = false;
    for (const RunRecord& r : records) {
      if (r.outcome.status != "ok") continue;
      any_ok = true;
      found = found || at_key(r.summary, y_key).is_number();
    }
    if (!found) missing.push_back(y_key);
  }
  return any_ok ? missing : std::vector<std::string>{};
}

std::vector<std::string> y_key_names(const std::vector<std::string>& y_keys) {
  if (y_keys.size() < 2) return std::vector<std::string>(y_keys.size());
  // The key's last `parts` dotted parts (the whole key when it has fewer).
  auto suffix = [](const std::string& key, int parts) {
    std::size_t at = key.size();
    for (int p = 0; p < parts; ++p) {
      if (at == 0) return key;
      at = key.rfind('.', at - 1);
      if (at == std::string::npos) return key;
    }
    return key.substr(at + 1);
  };
  for (int parts = 1;; ++parts) {
    std::vector<std::string> names;
    for (const std::string& key : y_keys) names.push_back(suffix(key, parts));
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    const bool distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    bool whole = true;
    for (std::size_t k = 0; k < y_keys.size(); ++k) whole = whole && names[k] == y_keys[k];
    if (distinct || whole) return names;  // whole keys: repeated keys stay repeated
  }
}

PlotSpec sweep_plot_spec(const SweepPlot& plot, const std::vector<std::string>& keys,
                         const std::vector<RunRecord>& records) {
  // One line per y key and combination of the other swept values, points in x order. Lines are
  // named by their y key's short name: named by its last dotted part alone, two elements of one
  // array (result.slip_by_distance.5.mean_slip and .11.mean_slip) fell into one zig-zag line.
  const std::vector<std::string> y_names = y_key_names(plot.y);
  std::map<std::string, std::vector<std::pair<double, double>>> lines;
  int left_out = 0;
  for (const RunRecord& r : records) {
    const nlohmann::json x = r.parameters.value(plot.x, nlohmann::json());
    // Legend names stay short: the other swept values alone when one other key varies.
    std::string group;
    const bool name_keys = keys.size() > 2;
    for (const std::string& k : keys) {
      if (k == plot.x || !r.parameters.contains(k)) continue;
      const std::string v = value_text(r.parameters[k]);
      group += (group.empty() ? "" : ", ") + (name_keys ? k + "=" + v : v);
    }
    for (std::size_t k = 0; k < plot.y.size(); ++k) {
      const nlohmann::json y = at_key(r.summary, plot.y[k]);
      if (r.outcome.status != "ok" || !x.is_number() || !y.is_number()) {
        ++left_out;
        continue;
      }
      std::string name = y_names[k];
      if (!group.empty()) name += (name.empty() ? "" : ", ") + group;
      lines[name].emplace_back(x.get<double>(), y.get<double>());
    }
  }
  PlotSpec spec;
  spec.title =
      left_out > 0 ? fmt::format("{} ({} values missing)", plot.title, left_out) : plot.title;
  spec.x_label = plot.x_label;
  spec.y_label = plot.y_label;
  spec.width_px = 1000;
  spec.height_px = 600;
  for (auto& [name, points] : lines) {
    std::sort(points.begin(), points.end());
    PlotSeries s;
    s.name = name;
    s.markers = true;
    for (const auto& [x, y] : points) {
      s.x.push_back(x);
      s.y.push_back(y);
    }
    spec.series.push_back(std::move(s));
  }
  return spec;
}

RgbImage draw_sweep_plot(const SweepPlot& plot, const std::vector<std::string>& keys,
                         const std::vector<RunRecord>& records) {
  return plot_lines(sweep_plot_spec(plot, keys, records));
}

}  // namespace talus::sweep
