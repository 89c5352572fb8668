#pragma once
// Small particle beds shared by the particle tier's tests.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "particles/particle_bed.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/particle_step.hpp"

namespace talus::particles::testing {

inline constexpr double kRadius = 0.005;  // 5 mm particles

/// A box container of inner size side x side x height [m] with its floor at z = 0, holding paper
/// 001's grains (rotation off): the tests written for that model keep it, unchanged
/// (test_particles_rotation.cpp tests rotating grains).
inline ParticleModel box_model(double side_m, double height_m) {
  ParticleModel model;
  model.rotation = false;
  model.time_step_s = 1e-3;
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

/// Every state array and body wrench of a and b equal to the bit.
inline void expect_identical(const ParticleState& a, const ParticleState& b) {
  ASSERT_EQ(a.size(), b.size());
  const std::size_t bytes = a.size() * sizeof(float);
  EXPECT_EQ(std::memcmp(a.x_m.data(), b.x_m.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(a.y_m.data(), b.y_m.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(a.z_m.data(), b.z_m.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(a.vx_m_per_s.data(), b.vx_m_per_s.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(a.vy_m_per_s.data(), b.vy_m_per_s.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(a.vz_m_per_s.data(), b.vz_m_per_s.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(a.wx_rad_per_s.data(), b.wx_rad_per_s.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(a.wy_rad_per_s.data(), b.wy_rad_per_s.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(a.wz_rad_per_s.data(), b.wz_rad_per_s.data(), bytes), 0);
  ASSERT_EQ(a.body_wrenches.size(), b.body_wrenches.size());
  for (std::size_t k = 0; k < a.body_wrenches.size(); ++k) {
    EXPECT_EQ(a.body_wrenches[k].f_W, b.body_wrenches[k].f_W);
    EXPECT_EQ(a.body_wrenches[k].tau_W, b.body_wrenches[k].tau_W);
  }
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

/// The particles' total linear momentum [kg m/s].
inline Vec3 momentum(const ParticleState& s) {
  Vec3 p = Vec3::Zero();
  for (std::size_t i = 0; i < s.size(); ++i) {
    p += Vec3(s.vx_m_per_s[i], s.vy_m_per_s[i], s.vz_m_per_s[i]) / s.inv_mass_per_kg[i];
  }
  return p;
}

}  // namespace talus::particles::testing
