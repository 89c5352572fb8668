// The checks of a state against its model before a run (check_initial_state): container,
// overlaps, the no-tunnelling bound. Apart from particle_state.cpp so that the state and its
// file format stand without the model and the spatial hash (the fuzz targets link only those).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/units.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/spatial_hash.hpp"

namespace talus::particles {

// Positions and radii are stored as float: messages print them to 6 significant digits, as
// "0.005 m" rather than float32's "0.004999999888241291 m".

namespace {

void check_inside_container(const ParticleModel& model, const ParticleState& state) {
  const Container& c = model.container;
  if (c.kind == Container::Kind::kNone) return;
  static const char* kAxis[] = {"x", "y", "z"};
  for (std::size_t i = 0; i < state.size(); ++i) {
    const double p[3] = {state.x_m[i], state.y_m[i], state.z_m[i]};
    const double r = state.radius_m[i];
    const double slack = model.overlap_tolerance * r;
    for (int a = 0; a < 3; ++a) {
      if (c.kind == Container::Kind::kCylinder && a < 2) continue;
      if (a == model.periodic_axis) {
        if (!(p[a] >= c.box.lo[a] && p[a] < c.box.hi[a])) {
          throw std::invalid_argument(
              fmt::format("particle {}: {} = {:.6g} m lies outside the periodic range [{}, {}) m",
                          i, kAxis[a], p[a], c.box.lo[a], c.box.hi[a]));
        }
        continue;
      }
      if (p[a] - r < c.box.lo[a] - slack || p[a] + r > c.box.hi[a] + slack) {
        throw std::invalid_argument(fmt::format(
            "particle {}: {} = {:.6g} m with radius {:.6g} m is outside the container [{}, {}] m",
            i, kAxis[a], p[a], r, c.box.lo[a], c.box.hi[a]));
      }
    }
    if (c.kind == Container::Kind::kCylinder) {
      const double rho =
          std::hypot(p[0] - c.cylinder_axis_xy_m.x(), p[1] - c.cylinder_axis_xy_m.y());
      if (rho + r > c.cylinder_radius_m + slack) {
        throw std::invalid_argument(
            fmt::format("particle {}: at {:.6g} m from the cylinder axis with radius {:.6g} m it "
                        "is outside the cylinder of radius {} m",
                        i, rho, r, c.cylinder_radius_m));
      }
    }
  }
}

void check_overlaps(const ParticleModel& model, const ParticleState& state) {
  const std::size_t n = state.size();
  if (n < 2) return;
  const float max_r = *std::max_element(state.radius_m.begin(), state.radius_m.end());
  SpatialHash hash;
  build_spatial_hash(hash, Broadphase::kSortedCells, make_cell_grid(model, max_r), 2.0,
                     state.x_m.data(), state.y_m.data(), state.z_m.data(), n, 1);
  const int pa = model.periodic_axis;
  const double period = pa >= 0 ? model.container.box.hi[pa] - model.container.box.lo[pa] : 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    hash.for_each_in_neighbourhood(hash.cx[i], hash.cy[i], hash.cz[i], [&](std::int32_t j) {
      if (static_cast<std::size_t>(j) <= i) return;
      double d[3] = {double(state.x_m[i]) - state.x_m[j], double(state.y_m[i]) - state.y_m[j],
                     double(state.z_m[i]) - state.z_m[j]};
      if (pa >= 0) d[pa] -= period * std::nearbyint(d[pa] / period);
      const double dist = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      const double ri = state.radius_m[i];
      const double rj = state.radius_m[j];
      const double depth = ri + rj - dist;
      if (depth > model.overlap_tolerance * std::min(ri, rj)) {
        throw std::invalid_argument(
            fmt::format("particles {} and {} overlap by {:.6g} m, more than overlap_tolerance {} "
                        "of the smaller radius {:.6g} m",
                        i, j, depth, model.overlap_tolerance, std::min(ri, rj)));
      }
    });
  }
}

}  // namespace

void check_no_tunnelling(const ParticleModel& model, const ParticleState& state) {
  if (state.size() == 0) return;
  const float min_r = *std::min_element(state.radius_m.begin(), state.radius_m.end());
  if (model.expected_speed_m_per_s * model.time_step_s > min_r) {
    throw std::invalid_argument(fmt::format(
        "particle model: time_step_s = {} s violates the no-tunnelling bound: at "
        "expected_speed_m_per_s = {} m/s a particle travels {:.6g} m per step, more than the "
        "smallest radius {:.6g} m; expected time_step_s <= {:.4g} s",
        model.time_step_s, model.expected_speed_m_per_s,
        model.expected_speed_m_per_s * model.time_step_s, min_r,
        min_r / model.expected_speed_m_per_s));
  }
}

void check_initial_state(const ParticleModel& model, const ParticleState& state) {
  validate(model);
  validate(state);
  if (state.size() == 0) return;
  check_no_tunnelling(model, state);
  for (std::size_t i = 0; i < state.size(); ++i) {
    const double speed = std::sqrt(double(state.vx_m_per_s[i]) * state.vx_m_per_s[i] +
                                   double(state.vy_m_per_s[i]) * state.vy_m_per_s[i] +
                                   double(state.vz_m_per_s[i]) * state.vz_m_per_s[i]);
    if (speed > model.expected_speed_m_per_s) {
      throw std::invalid_argument(fmt::format(
          "particle {}: speed {} m/s exceeds expected_speed_m_per_s = {} m/s (the no-tunnelling "
          "bound is checked at that speed)",
          i, speed, model.expected_speed_m_per_s));
    }
  }
  check_inside_container(model, state);
  check_overlaps(model, state);
}

}  // namespace talus::particles
