#pragma once
// Small particle beds shared by the particle tier's tests.

#include "particles/particle_bed.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/particle_step.hpp"

namespace talus::particles::testing {

inline constexpr double kRadius = 0.005;  // 5 mm particles

/// A box container of inner size side x side x height [m] with its floor at z = 0.
inline ParticleModel box_model(double side_m, double height_m) {
  ParticleModel model;
  model.dt_s = 1e-3;
  model.iterations = 8;
  model.friction = 0.5;
  model.container.kind = Container::Kind::kBox;
  model.container.box = Aabb{Vec3(0.0, 0.0, 0.0), Vec3(side_m, side_m, height_m)};
  model.threads = 1;
  model.contact_margin_m = 0.1 * kRadius;  // persistent contacts between touching neighbours
  return model;
}

/// A jittered lattice of 5 mm particles filling the lower `fill_height_m` of the box.
inline ParticleState box_bed(double side_m, double fill_height_m, std::uint64_t seed = 7) {
  LatticeBed bed;
  bed.radius_m = kRadius;
  bed.spacing_factor = 1.05;
  bed.jitter = 0.8;
  bed.seed = seed;
  const double inset = 1.03 * kRadius;
  bed.region = Aabb{Vec3(inset, inset, inset), Vec3(side_m - inset, side_m - inset, fill_height_m)};
  return make_lattice_bed(bed);
}

/// Steps `steps` times with no bodies.
inline void run(const ParticleModel& model, ParticleState& state, ParticleWorkspace& w, int steps) {
  for (int k = 0; k < steps; ++k) step(model, state, {}, w);
}

inline double max_speed(const ParticleState& s) {
  double v = 0.0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    v = std::max(v, std::sqrt(double(s.vx_m_per_s[i]) * s.vx_m_per_s[i] +
                              double(s.vy_m_per_s[i]) * s.vy_m_per_s[i] +
                              double(s.vz_m_per_s[i]) * s.vz_m_per_s[i]));
  }
  return v;
}

}  // namespace talus::particles::testing
