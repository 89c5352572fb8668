#include "robot/drive_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/csv_writer.hpp"
#include "core/image.hpp"
#include "core/plot.hpp"

namespace talus::robot {

namespace {

// "What: run" when the run has a name (a folder of plots from several runs stays readable).
std::string titled(const std::string& what, const std::string& run_name) {
  return run_name.empty() ? what : what + ": " + run_name;
}

}  // namespace

PlotSpec slip_plot(const PlotSeries& slip_percent, const std::string& run_name) {
  PlotSpec spec;
  spec.title = titled("Vehicle slip", run_name);
  spec.x_label = "driven distance [m]";
  spec.y_label = "slip [%]";
  // While the wheel barely turns (landing, settling) slip = 1 - v / (omega r) divides by a rim
  // speed near zero: a few samples of -400 % squashed the driving part into a flat line. The
  // axis then shows -100 to 100 % (the series clips at the frame) and says so; drive.csv keeps
  // every value.
  const bool off_scale = std::any_of(slip_percent.y.begin(), slip_percent.y.end(),
                                     [](double y) { return std::abs(y) > 100.0; });
  if (off_scale) {
    spec.y_min = -100.0;
    spec.y_max = 100.0;
    spec.y_label = "slip [%] (clipped to -100..100; drive.csv has all)";
  }
  spec.series = {slip_percent};
  spec.legend = LegendPlacement::None;
  return spec;
}

void write_drive_report(const std::filesystem::path& dir, const std::vector<DriveSample>& samples,
                        const std::vector<std::string>& wheel_names, const std::string& run_name) {
  std::vector<std::string> header = {"t_s", "distance_m", "speed_m_per_s", "wheel_speed_rad_per_s",
                                     "slip"};
  for (const std::string& w : wheel_names) header.push_back("sinkage_" + w + "_m");
  CsvWriter csv(dir / "drive.csv", header);
  PlotSeries slip{"vehicle slip", {}, {}, std::nullopt, 2, false};
  std::vector<PlotSeries> sinkage;
  for (const std::string& w : wheel_names) sinkage.push_back(PlotSeries{w, {}, {}, {}, 2, false});
  std::vector<double> row;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const DriveSample& s = samples[i];
    if (s.sinkage_m.size() != wheel_names.size()) {
      throw std::invalid_argument(fmt::format("drive sample {} has {} sinkages for {} wheels", i,
                                              s.sinkage_m.size(), wheel_names.size()));
    }
    row = {s.t_s, s.distance_m, s.speed_m_per_s, s.wheel_speed_rad_per_s, s.slip};
    row.insert(row.end(), s.sinkage_m.begin(), s.sinkage_m.end());
    csv.write_row(row);
    slip.x.push_back(s.distance_m);
    slip.y.push_back(100.0 * s.slip);
    for (std::size_t w = 0; w < wheel_names.size(); ++w) {
      sinkage[w].x.push_back(s.distance_m);
      sinkage[w].y.push_back(1000.0 * s.sinkage_m[w]);
    }
  }
  csv.close();
  write_png(dir / "slip.png", plot_lines(slip_plot(slip, run_name)));
  PlotSpec sink_plot;
  sink_plot.title = titled("Wheel sinkage", run_name);
  sink_plot.x_label = "driven distance [m]";
  sink_plot.y_label = "sinkage [mm]";
  sink_plot.series = std::move(sinkage);
  write_png(dir / "sinkage.png", plot_lines(sink_plot));
}

}  // namespace talus::robot
