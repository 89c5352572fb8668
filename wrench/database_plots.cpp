#include "wrench/database_plots.hpp"

#include <fmt/format.h>

#include <limits>

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
    if (db.configurations(j, 0) != depth_m) continue;
    plot.series.push_back(
        point_cloud(fmt::format("tilt {:g} rad", db.configurations(j, 1)), db.wrenches[j]));
  }
  return plot_lines(plot);
}

}  // namespace talus::wrench
