#include "particles/repose_angle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/units.hpp"

namespace talus::particles {

ReposeMeasurement measure_repose_angle(const ParticleState& state, const ReposeOptions& options) {
  if (!(options.bin_m >= 0.0) || !(options.lo_fraction >= 0.0) ||
      !(options.hi_fraction > options.lo_fraction) || !(options.hi_fraction <= 1.0) ||
      !std::isfinite(options.ground_z_m)) {
    throw std::invalid_argument(
        "repose angle: expected bin_m >= 0, 0 <= lo_fraction < hi_fraction <= 1, finite "
        "ground_z_m");
  }
  // Particles resting on the ground or on others (not the ones that rolled away below it).
  double sx = 0.0, sy = 0.0, sr = 0.0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (state.z_m[i] < options.ground_z_m) continue;
    sx += state.x_m[i];
    sy += state.y_m[i];
    sr += state.radius_m[i];
    ++count;
  }
  if (count == 0) throw std::invalid_argument("repose angle: no particle lies above the ground");
  ReposeMeasurement m;
  const double n = static_cast<double>(count);
  m.centre_xy_m = Vec2(sx / n, sy / n);
  const double bin = options.bin_m > 0.0 ? options.bin_m : 4.0 * sr / n;
  double r_max = 0.0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (state.z_m[i] < options.ground_z_m) continue;
    r_max = std::max(
        r_max, std::hypot(state.x_m[i] - m.centre_xy_m.x(), state.y_m[i] - m.centre_xy_m.y()));
  }
  const auto bins = static_cast<std::size_t>(std::floor(r_max / bin)) + 1;
  m.h_m.assign(bins, 0.0);
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (state.z_m[i] < options.ground_z_m) continue;
    const double r = std::hypot(state.x_m[i] - m.centre_xy_m.x(), state.y_m[i] - m.centre_xy_m.y());
    const auto k = std::min(bins - 1, static_cast<std::size_t>(std::floor(r / bin)));
    m.h_m[k] = std::max(m.h_m[k], state.z_m[i] + state.radius_m[i] - options.ground_z_m);
  }
  const auto peak =
      static_cast<std::size_t>(std::max_element(m.h_m.begin(), m.h_m.end()) - m.h_m.begin());
  m.height_m = m.h_m[peak];
  double s1 = 0.0, sr_ = 0.0, sh = 0.0, srr = 0.0, srh = 0.0;
  m.in_flank.assign(bins, false);
  for (std::size_t k = 0; k < bins; ++k) {
    m.r_m.push_back((static_cast<double>(k) + 0.5) * bin);
    const double h = m.h_m[k];
    if (k < peak || h < options.lo_fraction * m.height_m || h > options.hi_fraction * m.height_m) {
      continue;
    }
    m.in_flank[k] = true;
    ++m.flank_bins;
    const double r = m.r_m.back();
    s1 += 1.0;
    sr_ += r;
    sh += h;
    srr += r * r;
    srh += r * h;
  }
  const double det = s1 * srr - sr_ * sr_;
  if (m.flank_bins < 3 || !(det > 0.0)) {
    throw std::invalid_argument(fmt::format(
        "repose angle: only {} rings of {:.4g} m lie on the flank between {:g} % and {:g} % of "
        "the pile height {:.4g} m; the pile is too small or too flat to measure",
        m.flank_bins, bin, 100 * options.lo_fraction, 100 * options.hi_fraction, m.height_m));
  }
  m.slope = (s1 * srh - sr_ * sh) / det;
  m.intercept_m = (sh - m.slope * sr_) / s1;
  m.angle_deg = std::atan(-m.slope) * 180.0 / kPi;
  m.mean_radius_m = sr / n;
  double first_r = 0.0, last_r = 0.0;
  bool any = false;
  for (std::size_t k = 0; k < bins; ++k) {
    if (!m.in_flank[k]) continue;
    if (!any) first_r = m.r_m[k];
    last_r = m.r_m[k];
    any = true;
  }
  m.flank_drop_m = -m.slope * (last_r - first_r);
  return m;
}

std::string why_not_a_pile(const ReposeMeasurement& m) {
  const double diameter = 2.0 * m.mean_radius_m;
  if (m.flank_drop_m >= diameter) return "";
  return fmt::format(
      "the fitted flank falls {:.1f} mm over its {} rings, less than one grain diameter ({:.3g} "
      "mm): the grains lie in a layer {:.3g} mm high, not a pile, and its angle is not measured",
      1e3 * m.flank_drop_m, m.flank_bins, 1e3 * diameter, 1e3 * m.height_m);
}

}  // namespace talus::particles
