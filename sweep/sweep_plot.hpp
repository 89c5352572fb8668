#pragma once
// A sweep's pictures: [[plot]] tables of the sweep file, each a chart of summary figures against
// a swept value, one line per combination of the other swept values.
//
//   [[plot]]  name (file name of the picture, <name>.png in the sweep's folder), x (a swept key
//             with numeric values), y (a summary key or a list of them, dotted as in sweep.csv
//             without "summary.", e.g. "result.sinkage_m"), title, x_label and y_label (optional)

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/plot.hpp"
#include "core/scenario_file.hpp"

namespace talus::sweep {

struct SweepPlot {
  std::string name;
  std::string title;
  std::string x;               ///< a swept key
  std::vector<std::string> y;  ///< summary keys
  std::string x_label;
  std::string y_label;
};

/// True for a non-empty JSON array whose elements are all objects (a summary's per-case list).
bool is_array_of_objects(const nlohmann::json& value);

/// How a sweep's table and plots name element `index` of such an array: its "name" string (a
/// scenario's [[case]] name), else its index ("0", "1", ...).
std::string summary_element_name(const nlohmann::json& element, std::size_t index);

/// Reads the [[plot]] tables of a sweep file; `swept_keys` are the keys its runs vary, of which
/// `numeric_keys` take a number in every run that sets them. Throws ScenarioError naming the line
/// and key for an x that is not swept or not numeric (a line plot needs numbers along x).
std::vector<SweepPlot> read_sweep_plots(const ScenarioTable& root,
                                        const std::vector<std::string>& swept_keys,
                                        const std::vector<std::string>& numeric_keys);

struct RunRecord;

/// How the chart's legend names each of `y_keys`: the fewest trailing dotted parts that tell the
/// keys apart ("sinkage_m"; "5.mean_slip" and "11.mean_slip" for two elements of one array), the
/// same number of parts for every key; empty names for a single key.
std::vector<std::string> y_key_names(const std::vector<std::string>& y_keys);

/// The lines of `plot`'s chart (draw_sweep_plot): one per y key and combination of the other
/// swept values, named y_key_names' name then those values, points in x order.
PlotSpec sweep_plot_spec(const SweepPlot& plot, const std::vector<std::string>& keys,
                         const std::vector<RunRecord>& records);

/// The chart of `plot` over the finished runs `records` (failed runs and runs without a y value
/// are left out; their count is noted under the title). `keys`: every swept key.
RgbImage draw_sweep_plot(const SweepPlot& plot, const std::vector<std::string>& keys,
                         const std::vector<RunRecord>& records);

/// The y keys of `plot` that no successful run of `records` has a number at (a misspelt key
/// plots nothing); empty when no run succeeded, since then nothing can be told.
std::vector<std::string> y_keys_without_values(const SweepPlot& plot,
                                               const std::vector<RunRecord>& records);

}  // namespace talus::sweep
