// Bad input and divergence in the particle tier: refused with the item named; the last good state
// is kept.

#include <gtest/gtest.h>

#include <limits>

#include "error_message.hpp"
#include "particles_fixtures.hpp"

namespace talus::particles {
namespace {

using talus::test_support::invalid_argument_of;
using testing::kRadius;

ParticleState two_particles(const Vec3& a, const Vec3& b) {
  ParticleState s;
  const double m = sphere_mass_kg(kRadius, 1631.0);
  s.add(Vec3(0.02, 0.02, 0.02), Vec3::Zero(), kRadius, m);
  s.add(a, Vec3::Zero(), kRadius, m);
  s.add(b, Vec3::Zero(), kRadius, m);
  return s;
}

TEST(ParticlesInput, OverlappingParticlesAreNamed) {
  const ParticleModel model = testing::box_model(0.1, 0.1);
  const std::string msg = invalid_argument_of([&] {
    check_initial_state(model, two_particles(Vec3(0.05, 0.05, 0.05), Vec3(0.058, 0.05, 0.05)));
  });
  EXPECT_NE(msg.find("particles 1 and 2 overlap"), std::string::npos) << msg;
  // Within the tolerance (5 % of the radius) is accepted.
  EXPECT_NO_THROW(
      check_initial_state(model, two_particles(Vec3(0.05, 0.05, 0.05), Vec3(0.0599, 0.05, 0.05))));
}

TEST(ParticlesInput, TimeStepBeyondTheNoTunnellingBoundIsRefused) {
  ParticleModel model = testing::box_model(0.1, 0.1);
  model.expected_speed_m_per_s = 2.0;
  model.time_step_s = 0.004;  // 8 mm per step > 5 mm radius
  const std::string msg = invalid_argument_of([&] {
    check_initial_state(model, two_particles(Vec3(0.05, 0.05, 0.05), Vec3(0.07, 0.05, 0.05)));
  });
  EXPECT_NE(msg.find("no-tunnelling"), std::string::npos) << msg;
  model.time_step_s = 0.002;
  EXPECT_NO_THROW(
      check_initial_state(model, two_particles(Vec3(0.05, 0.05, 0.05), Vec3(0.07, 0.05, 0.05))));
  ParticleState fast = two_particles(Vec3(0.05, 0.05, 0.05), Vec3(0.07, 0.05, 0.05));
  fast.vz_m_per_s[2] = 3.0f;
  EXPECT_NE(
      invalid_argument_of([&] { check_initial_state(model, fast); }).find("particle 2: speed"),
      std::string::npos);
}

TEST(ParticlesInput, ParticlesOutsideTheContainerAreNamed) {
  ParticleModel model = testing::box_model(0.1, 0.1);
  std::string msg = invalid_argument_of([&] {
    check_initial_state(model, two_particles(Vec3(0.05, 0.05, 0.05), Vec3(0.05, 0.05, 0.098)));
  });
  EXPECT_NE(msg.find("particle 2: z"), std::string::npos) << msg;
  model.container.kind = Container::Kind::kCylinder;
  model.container.cylinder_radius_m = 0.03;
  model.container.cylinder_axis_xy_m = Vec2(0.05, 0.05);
  msg = invalid_argument_of([&] {
    check_initial_state(model, two_particles(Vec3(0.05, 0.05, 0.05), Vec3(0.079, 0.05, 0.05)));
  });
  // Particle 0 at (0.02, 0.02) is outside the cylinder too, and is named first.
  EXPECT_NE(msg.find("particle 0: at"), std::string::npos) << msg;
}

TEST(ParticlesInput, BadModelFieldsAndStateArraysAreNamed) {
  ParticleModel model = testing::box_model(0.1, 0.1);
  model.iterations = 0;
  EXPECT_NE(invalid_argument_of([&] { validate(model); }).find("iterations"), std::string::npos);
  model = testing::box_model(0.1, 0.1);
  model.relaxation = 2.0;  // over-relaxation converges below 2 only
  EXPECT_NE(invalid_argument_of([&] { validate(model); }).find("relaxation"), std::string::npos);
  model.relaxation = 1.9;
  EXPECT_NO_THROW(validate(model));
  model = testing::box_model(0.1, 0.1);
  model.periodic_axis = 1;
  model.container.kind = Container::Kind::kNone;
  EXPECT_NE(invalid_argument_of([&] { validate(model); }).find("periodic_axis"), std::string::npos);
  model = testing::box_model(0.1, 0.1);
  model.bodies.push_back(CoupledBody{"blade", BoxShape{Vec3(0.1, -1.0, 0.1)}, Vec3::Zero()});
  EXPECT_NE(invalid_argument_of([&] { validate(model); }).find("body 'blade'"), std::string::npos);
  ParticleState s = two_particles(Vec3(0.05, 0.05, 0.05), Vec3(0.07, 0.05, 0.05));
  s.radius_m[1] = -1.0f;
  EXPECT_NE(invalid_argument_of([&] { validate(s); }).find("particle 1: radius_m"),
            std::string::npos);
  s.radius_m.pop_back();
  EXPECT_NE(invalid_argument_of([&] { validate(s); }).find("radius_m holds 2 values"),
            std::string::npos);
}

TEST(ParticlesInput, NaNStopsTheRunNamingStepAndParticleAndKeepsTheState) {
  const ParticleModel model = testing::box_model(0.1, 0.1);
  ParticleState state = two_particles(Vec3(0.05, 0.05, 0.05), Vec3(0.07, 0.05, 0.05));
  ParticleWorkspace w;
  step(model, state, {}, w);
  state.vx_m_per_s[2] = std::numeric_limits<float>::quiet_NaN();
  const ParticleState before = state;
  try {
    step(model, state, {}, w);
    FAIL() << "no divergence reported";
  } catch (const ParticleDivergence& e) {
    EXPECT_EQ(e.step(), 2);
    EXPECT_EQ(e.particle(), 2u);
    EXPECT_NE(std::string(e.what()).find("particle 2"), std::string::npos) << e.what();
  }
  EXPECT_EQ(state.step, 1);
  EXPECT_EQ(state.z_m, before.z_m);
  EXPECT_EQ(state.x_m, before.x_m);
}

TEST(ParticlesInput, KineticEnergyBoundStopsTheRun) {
  ParticleModel model = testing::box_model(0.1, 0.1);
  ParticleState state = two_particles(Vec3(0.05, 0.05, 0.05), Vec3(0.07, 0.05, 0.05));
  state.vy_m_per_s[1] = 0.5f;
  model.max_kinetic_energy_J = 0.5 * 0.25 * sphere_mass_kg(kRadius, 1631.0) * 0.5;
  ParticleWorkspace w;
  try {
    step(model, state, {}, w);
    FAIL() << "no divergence reported";
  } catch (const ParticleDivergence& e) {
    EXPECT_EQ(e.step(), 1);
    EXPECT_EQ(e.particle(), 1u);
    EXPECT_NE(std::string(e.what()).find("kinetic energy"), std::string::npos) << e.what();
  }
  EXPECT_EQ(state.step, 0);
}

}  // namespace
}  // namespace talus::particles
