#include "particles/particle_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/units.hpp"

namespace talus::particles {
namespace {

// The identity a new particle of a reordered state takes: one past the largest.
std::size_t next_id(const std::vector<std::uint32_t>& id) {
  return id.empty() ? 0 : std::size_t{*std::max_element(id.begin(), id.end())} + 1;
}

}  // namespace

void ParticleState::add(const Vec3& p_W, const Vec3& v_W, double radius_m_, double mass_kg,
                        const Vec3& w_W) {
  x_m.push_back(static_cast<float>(p_W.x()));
  y_m.push_back(static_cast<float>(p_W.y()));
  z_m.push_back(static_cast<float>(p_W.z()));
  vx_m_per_s.push_back(static_cast<float>(v_W.x()));
  vy_m_per_s.push_back(static_cast<float>(v_W.y()));
  vz_m_per_s.push_back(static_cast<float>(v_W.z()));
  radius_m.push_back(static_cast<float>(radius_m_));
  inv_mass_per_kg.push_back(static_cast<float>(1.0 / mass_kg));
  wx_rad_per_s.push_back(static_cast<float>(w_W.x()));
  wy_rad_per_s.push_back(static_cast<float>(w_W.y()));
  wz_rad_per_s.push_back(static_cast<float>(w_W.z()));
  if (!id.empty()) id.push_back(static_cast<std::uint32_t>(next_id(id)));
}

void ParticleState::resize(std::size_t n) {
  for (auto* a : float_arrays(*this)) a->resize(n, 0.0f);
  if (!id.empty()) {
    std::size_t next = next_id(id);
    const std::size_t kept = std::min(n, id.size());
    id.resize(n);
    for (std::size_t i = kept; i < n; ++i) id[i] = static_cast<std::uint32_t>(next++);
  }
}

std::vector<std::uint32_t> creation_order(const ParticleState& state) {
  std::vector<std::uint32_t> order(state.size());
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  if (!state.id.empty()) {
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return state.id[a] < state.id[b]; });
  }
  return order;
}

ParticleState in_creation_order(const ParticleState& state) {
  const std::vector<std::uint32_t> order = creation_order(state);
  ParticleState out;
  out.resize(state.size());
  const auto from = float_arrays(state);
  const auto to = float_arrays(out);
  for (std::size_t a = 0; a < from.size(); ++a) {
    for (std::size_t k = 0; k < order.size(); ++k) (*to[a])[k] = (*from[a])[order[k]];
  }
  out.time_s = state.time_s;
  out.step = state.step;
  out.body_wrenches = state.body_wrenches;
  return out;
}

const ParticleState& creation_ordered(const ParticleState& state, ParticleState& copy) {
  if (state.id.empty()) return state;
  copy = in_creation_order(state);
  return copy;
}

double sphere_mass_kg(double radius_m, double density_kg_per_m3) {
  return density_kg_per_m3 * 4.0 / 3.0 * kPi * radius_m * radius_m * radius_m;
}

double kinetic_energy_J(const ParticleState& state) {
  double energy = 0.0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const double v2 = double(state.vx_m_per_s[i]) * state.vx_m_per_s[i] +
                      double(state.vy_m_per_s[i]) * state.vy_m_per_s[i] +
                      double(state.vz_m_per_s[i]) * state.vz_m_per_s[i];
    energy += 0.5 * v2 / state.inv_mass_per_kg[i];
    const double w2 = double(state.wx_rad_per_s[i]) * state.wx_rad_per_s[i] +
                      double(state.wy_rad_per_s[i]) * state.wy_rad_per_s[i] +
                      double(state.wz_rad_per_s[i]) * state.wz_rad_per_s[i];
    energy += 0.5 * moment_of_inertia_kg_m2(state, i) * w2;
  }
  return energy;
}

double moment_of_inertia_kg_m2(const ParticleState& state, std::size_t i) {
  const double r = state.radius_m[i];
  return 0.4 * r * r / state.inv_mass_per_kg[i];
}

void validate(const ParticleState& state) {
  const std::size_t n = state.x_m.size();
  const std::pair<const char*, const std::vector<float>*> arrays[] = {
      {"y_m", &state.y_m},
      {"z_m", &state.z_m},
      {"vx_m_per_s", &state.vx_m_per_s},
      {"vy_m_per_s", &state.vy_m_per_s},
      {"vz_m_per_s", &state.vz_m_per_s},
      {"radius_m", &state.radius_m},
      {"inv_mass_per_kg", &state.inv_mass_per_kg},
      {"wx_rad_per_s", &state.wx_rad_per_s},
      {"wy_rad_per_s", &state.wy_rad_per_s},
      {"wz_rad_per_s", &state.wz_rad_per_s}};
  for (const auto& [name, a] : arrays) {
    if (a->size() != n) {
      throw std::invalid_argument(
          fmt::format("particle state: {} holds {} values but x_m holds {}", name, a->size(), n));
    }
  }
  if (!state.id.empty()) {
    if (state.id.size() != n) {
      throw std::invalid_argument(fmt::format(
          "particle state: id holds {} values but x_m holds {} (empty or one per particle)",
          state.id.size(), n));
    }
    const std::vector<std::uint32_t> order = creation_order(state);
    for (std::size_t k = 1; k < n; ++k) {
      if (state.id[order[k]] == state.id[order[k - 1]]) {
        throw std::invalid_argument(
            fmt::format("particle state: particles at indices {} and {} share the id {}",
                        std::min(order[k - 1], order[k]), std::max(order[k - 1], order[k]),
                        state.id[order[k]]));
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const float values[] = {state.x_m[i],          state.y_m[i],          state.z_m[i],
                            state.vx_m_per_s[i],   state.vy_m_per_s[i],   state.vz_m_per_s[i],
                            state.wx_rad_per_s[i], state.wy_rad_per_s[i], state.wz_rad_per_s[i]};
    const char* names[] = {"x_m",          "y_m",          "z_m",
                           "vx_m_per_s",   "vy_m_per_s",   "vz_m_per_s",
                           "wx_rad_per_s", "wy_rad_per_s", "wz_rad_per_s"};
    for (int k = 0; k < 9; ++k) {
      if (!std::isfinite(values[k])) {
        throw std::invalid_argument(
            fmt::format("particle {}: {} = {} is not finite", state.id_of(i), names[k], values[k]));
      }
    }
    if (!(std::isfinite(state.radius_m[i]) && state.radius_m[i] > 0.0f)) {
      throw std::invalid_argument(
          fmt::format("particle {}: radius_m = {} is not > 0", state.id_of(i), state.radius_m[i]));
    }
    if (!(std::isfinite(state.inv_mass_per_kg[i]) && state.inv_mass_per_kg[i] > 0.0f)) {
      throw std::invalid_argument(fmt::format("particle {}: inv_mass_per_kg = {} is not > 0",
                                              state.id_of(i), state.inv_mass_per_kg[i]));
    }
  }
}

}  // namespace talus::particles
