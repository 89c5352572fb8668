#include "wrench/database_plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

#include "core/plot.hpp"

namespace talus::wrench {

namespace {

// Markers only: a NaN between points breaks the line into single points.
PlotSeries point_cloud(std::string name, const Eigen::MatrixXd& w) {
  PlotSeries s;
  s.name = std::move(name);
  s.markers = true;
  for (int i = 0; i < w.rows(); ++i) {
    if (i > 0) {
      s.x.push_back(std::numeric_limits<double>::quiet_NaN());
      s.y.push_back(std::numeric_limits<double>::quiet_NaN());
    }
    s.x.push_back(w(i, 0));
    s.y.push_back(w(i, 1));
  }
  return s;
}

PlotSpec wrench_chart(const std::string& title) {
  PlotSpec plot;
  plot.title = title;
  plot.x_label = "f_x [N]";
  plot.y_label = "f_z [N]";
  plot.equal_aspect = true;
  plot.width_px = 900;
  return plot;
}

}  // namespace

RgbImage plot_wrench_sets_by_depth(const WrenchDatabase& db, double tilt_rad,
                                   const std::string& title) {
  PlotSpec plot = wrench_chart(title);
  for (int j = 0; j < db.configuration_count(); ++j) {
    if (db.configurations(j, 1) != tilt_rad || db.configurations(j, 0) == 0.0) continue;
    plot.series.push_back(
        point_cloud(fmt::format("depth {:g} mm", 1e3 * db.configurations(j, 0)), db.wrenches[j]));
  }
  return plot_lines(plot);
}

RgbImage plot_wrench_sets_by_tilt(const WrenchDatabase& db, double depth_m,
                                  const std::string& title) {
  PlotSpec plot = wrench_chart(title);
  for (int j = 0; j < db.configuration_count(); ++j) {
    if (db.configurations(j, 0) != depth_m || db.configurations(j, 1) < 0.0) continue;
    plot.series.push_back(
        point_cloud(fmt::format("tilt {:g} rad", db.configurations(j, 1)), db.wrenches[j]));
  }
  return plot_lines(plot);
}

RgbImage plot_support_by_tilt(const WrenchDatabase& db, const std::string& title) {
  // Configurations by depth (surface first), each depth's points in ascending tilt.
  std::map<double, std::map<double, double>, std::greater<>> by_depth;
  for (int j = 0; j < db.configuration_count(); ++j) {
    if (db.configurations(j, 0) == 0.0) continue;
    // A loop, not maxCoeff(): GCC bug 105593 warns in its AVX-512 kernel.
    const Eigen::MatrixXd& w = db.wrenches[static_cast<std::size_t>(j)];
    double largest = w(0, 1);
    for (Eigen::Index i = 1; i < w.rows(); ++i) largest = std::max(largest, w(i, 1));
    by_depth[db.configurations(j, 0)][db.configurations(j, 1)] = largest;
  }
  PlotSpec plot;
  plot.title = title;
  plot.x_label = "tilt [rad]";
  plot.y_label = "largest f_z [N]";
  plot.width_px = 900;
  plot.y_min = 0.0;
  double top = 0.0;
  for (const auto& [depth, by_tilt] : by_depth) {
    PlotSeries s;
    s.name = fmt::format("depth {:g} mm", 1e3 * depth);
    s.markers = true;
    for (const auto& [tilt, f_z] : by_tilt) {
      s.x.push_back(tilt);
      s.y.push_back(f_z);
      top = std::max(top, f_z);
    }
    plot.series.push_back(std::move(s));
  }
  // Headroom above the data for the legend: the largest values sit at the chart's sides.
  if (top > 0.0) plot.y_max = 1.45 * top;
  return plot_lines(plot);
}

}  // namespace talus::wrench
