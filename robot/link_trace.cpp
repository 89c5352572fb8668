// Each coupled link's pose over a robots-tier run without a drive report (link_trace.hpp).

#include "robot/link_trace.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/csv_writer.hpp"
#include "core/image.hpp"
#include "core/plot.hpp"

namespace talus::robot {

double pitch_of(const Pose& X_WB) {
  const Vec3 z = X_WB.linear().col(2);
  return std::atan2(z.x(), z.z());
}

LinkTrace::LinkTrace(std::vector<std::string> link_names)
    : names_(std::move(link_names)), samples_(names_.size()) {}

void LinkTrace::add(double t_s, std::span<const BodyMotion> motions) {
  t_s_.push_back(t_s);
  for (std::size_t l = 0; l < names_.size(); ++l) {
    const BodyMotion& m = motions[l];
    const Vec3 p = m.X_WB.translation();
    samples_[l].push_back(
        {p.x(), p.y(), p.z(), pitch_of(m.X_WB), m.V_WB.v_WBo.norm(), m.V_WB.w_W.norm()});
  }
}

void LinkTrace::write(const std::filesystem::path& dir, const std::string& title) const {
  std::vector<std::string> header = {"t_s"};
  for (const std::string& n : names_) {
    for (const char* q : {"x_m", "y_m", "z_m", "pitch_rad", "speed_m_per_s"}) {
      header.push_back(n + "_" + q);
    }
  }
  CsvWriter csv(dir / "links.csv", header);
  for (std::size_t k = 0; k < t_s_.size(); ++k) {
    std::vector<double> row = {t_s_[k]};
    for (const auto& link : samples_) {
      const Sample& s = link[k];
      row.insert(row.end(), {s.x_m, s.y_m, s.z_m, s.pitch_rad, s.speed_m_per_s});
    }
    csv.write_row(row);
  }
  csv.close();

  PlotSpec height, pitch;
  height.title = title + ": coupled links' height";
  height.y_label = "z [m]";
  pitch.title = title + ": coupled links' pitch (about world y)";
  pitch.y_label = "pitch [rad]";
  for (PlotSpec* p : {&height, &pitch}) {
    p->x_label = "time [s]";
    p->width_px = 900;
    p->height_px = 380;
  }
  for (std::size_t l = 0; l < names_.size(); ++l) {
    PlotSeries z, a;
    z.name = a.name = names_[l];
    z.x = a.x = t_s_;
    for (const Sample& s : samples_[l]) z.y.push_back(s.z_m), a.y.push_back(s.pitch_rad);
    height.series.push_back(std::move(z));
    pitch.series.push_back(std::move(a));
  }
  write_png(dir / "links.png", stack_vertically({plot_lines(height), plot_lines(pitch)}));
}

nlohmann::json LinkTrace::summary() const {
  nlohmann::json links = nlohmann::json::object();
  bool at_rest = !t_s_.empty();
  for (std::size_t l = 0; l < names_.size(); ++l) {
    const std::vector<Sample>& s = samples_[l];
    if (s.empty()) continue;
    double path = 0.0;
    for (std::size_t k = 1; k < s.size(); ++k) {
      path += std::hypot(s[k].x_m - s[k - 1].x_m, s[k].y_m - s[k - 1].y_m, s[k].z_m - s[k - 1].z_m);
    }
    const Sample& end = s.back();
    at_rest = at_rest && end.speed_m_per_s < kRestSpeed && end.angular_speed_rad_per_s < kRestSpeed;
    links[names_[l]] = {{"final_position_m", {end.x_m, end.y_m, end.z_m}},
                        {"final_pitch_rad", end.pitch_rad},
                        {"path_length_m", path},
                        {"travel_x_m", end.x_m - s.front().x_m},
                        {"final_speed_m_per_s", end.speed_m_per_s},
                        {"final_angular_speed_rad_per_s", end.angular_speed_rad_per_s}};
  }
  return {{"links", links}, {"came_to_rest", at_rest}, {"rest_speed_m_per_s", kRestSpeed}};
}

}  // namespace talus::robot
