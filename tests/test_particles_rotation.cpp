// Rotating grains (ParticleModel::rotation, particles/projected_jacobi_rotating.hpp): a sphere
// rolls down an incline at (5/7) g sin(theta), rolling friction slows or holds it, collisions
// conserve angular momentum, bodies feel the grains' torques, and any thread count gives the same
// bits.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "particles/particle_io.hpp"
#include "particles_fixtures.hpp"

namespace talus::particles {
namespace {

constexpr double kSphereRadius = 0.01;  // [m]
constexpr double kDensity = 2500.0;     // [kg/m^3]

// One sphere resting on the floor of a wide box, with gravity tilted by theta about y: the floor
// is an incline of slope theta rising toward -x.
struct Incline {
  ParticleModel model;
  ParticleState state;
};

Incline incline(double theta_rad, double rolling_friction, bool rotation) {
  Incline c;
  c.model.time_step_s = 1e-3;
  c.model.iterations = 8;
  c.model.threads = 1;
  c.model.friction = 0.5;
  c.model.wall_friction = 0.5;
  c.model.rotation = rotation;
  c.model.rolling_friction = rolling_friction;
  c.model.contact_margin_m = 0.1 * kSphereRadius;
  c.model.gravity_m_per_s2 =
      kGravity_m_per_s2 * Vec3(std::sin(theta_rad), 0.0, -std::cos(theta_rad));
  c.model.container.box = Aabb{Vec3(-1.0, -1.0, 0.0), Vec3(3.0, 1.0, 1.0)};
  c.state.add(Vec3(0.0, 0.0, kSphereRadius), Vec3::Zero(), kSphereRadius,
              sphere_mass_kg(kSphereRadius, kDensity));
  return c;
}

// Runs the incline to t1 and returns the down-slope acceleration measured between t1/2 and t1
// (after the sphere has settled onto the floor).
double incline_acceleration(Incline& c, int steps) {
  ParticleWorkspace w;
  testing::run(c.model, c.state, w, steps / 2);
  const double v_half = c.state.vx_m_per_s[0];
  testing::run(c.model, c.state, w, steps - steps / 2);
  return (c.state.vx_m_per_s[0] - v_half) / ((steps - steps / 2) * c.model.time_step_s);
}

TEST(ParticlesRotation, SphereRollsDownAnInclineAtFiveSeventhsGSinTheta) {
  const double theta = 20.0 * kPi / 180.0;
  Incline c = incline(theta, 0.0, true);
  const double a = incline_acceleration(c, 500);
  const double expected = 5.0 / 7.0 * kGravity_m_per_s2 * std::sin(theta);
  EXPECT_NEAR(a, expected, 0.01 * expected);
  // Rolling without slipping: the contact point is at rest, v_x = r omega_y.
  EXPECT_NEAR(c.state.wy_rad_per_s[0] * kSphereRadius, c.state.vx_m_per_s[0],
              0.01 * c.state.vx_m_per_s[0]);
  EXPECT_NEAR(c.state.z_m[0], kSphereRadius, 0.02 * kSphereRadius);
}

TEST(ParticlesRotation, WithoutRotationTheSameSphereStaysPut) {
  // Paper 001's grains cannot roll: with tan(20 deg) < friction 0.5 the sphere sticks.
  Incline c = incline(20.0 * kPi / 180.0, 0.0, false);
  incline_acceleration(c, 500);
  EXPECT_LT(std::abs(c.state.vx_m_per_s[0]), 1e-4);
  EXPECT_EQ(c.state.wy_rad_per_s[0], 0.0f);
}

TEST(ParticlesRotation, RollingFrictionAboveTanThetaHoldsTheSphere) {
  const double theta = 15.0 * kPi / 180.0;
  Incline c = incline(theta, 1.2 * std::tan(theta), true);
  incline_acceleration(c, 500);
  EXPECT_LT(std::abs(c.state.vx_m_per_s[0]), 1e-4);
  EXPECT_LT(std::abs(c.state.wy_rad_per_s[0]) * kSphereRadius, 1e-4);
}

TEST(ParticlesRotation, RollingFrictionBelowTanThetaSlowsTheRoll) {
  // m a = m g sin(theta) - F,  I a / r = F r - mu_r r m g cos(theta),  I = 2/5 m r^2
  // => a = (5/7) g (sin(theta) - mu_r cos(theta)).
  const double theta = 20.0 * kPi / 180.0;
  const double mu_r = 0.5 * std::tan(theta);
  Incline c = incline(theta, mu_r, true);
  const double a = incline_acceleration(c, 500);
  const double expected =
      5.0 / 7.0 * kGravity_m_per_s2 * (std::sin(theta) - mu_r * std::cos(theta));
  EXPECT_NEAR(a, expected, 0.02 * expected);
}

// Linear momentum and angular momentum about the origin (orbital plus spin) of all particles.
struct Momenta {
  Vec3 p = Vec3::Zero();
  Vec3 L = Vec3::Zero();
};

Momenta momenta(const ParticleState& s) {
  Momenta m;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double mass = 1.0 / s.inv_mass_per_kg[i];
    const Vec3 v(s.vx_m_per_s[i], s.vy_m_per_s[i], s.vz_m_per_s[i]);
    const Vec3 x(s.x_m[i], s.y_m[i], s.z_m[i]);
    const Vec3 w(s.wx_rad_per_s[i], s.wy_rad_per_s[i], s.wz_rad_per_s[i]);
    m.p += mass * v;
    m.L += x.cross(mass * v) + moment_of_inertia_kg_m2(s, i) * w;
  }
  return m;
}

TEST(ParticlesRotation, GlancingCollisionConservesAngularMomentum) {
  for (const double mu_r : {0.0, 0.1}) {
    ParticleModel model;
    model.gravity_m_per_s2 = Vec3::Zero();
    model.container.kind = Container::Kind::kNone;
    model.friction = 0.8;
    model.rolling_friction = mu_r;
    model.threads = 1;
    model.contact_margin_m = 0.2 * kSphereRadius;
    ParticleState s;
    const double m = sphere_mass_kg(kSphereRadius, kDensity);
    s.add(Vec3(0.0, 0.0, 0.0), Vec3(0.3, 0.0, 0.0), kSphereRadius, m, Vec3(0.0, 0.0, 20.0));
    s.add(Vec3(0.05, 0.012, 0.001), Vec3(-0.1, 0.0, 0.0), 0.8 * kSphereRadius, 0.6 * m);
    const Momenta before = momenta(s);
    ParticleWorkspace w;
    testing::run(model, s, w, 400);
    const Momenta after = momenta(s);
    // The spheres met (the first one was deflected) and friction changed the spins.
    EXPECT_GT(std::abs(s.vy_m_per_s[0]), 0.01) << "mu_r " << mu_r;
    EXPECT_GT(std::abs(s.wz_rad_per_s[1]), 1.0) << "mu_r " << mu_r;
    EXPECT_LT((after.p - before.p).norm(), 1e-5 * before.p.norm()) << "mu_r " << mu_r;
    EXPECT_LT((after.L - before.L).norm(), 1e-4 * before.L.norm()) << "mu_r " << mu_r;
  }
}

TEST(ParticlesRotation, BodyTorqueBalancesTheGrainsAngularMomentumChange) {
  // A spinning, sliding ball of grains lands on a plane body: at every step the body's wrench
  // about R = (0.2, 0, 0) is minus the rate of change of the grains' momentum and angular
  // momentum about R (orbital with the positions at the start of the step, plus spin), gravity's
  // share removed.
  ParticleModel model;
  model.time_step_s = 1e-3;
  model.threads = 1;
  model.rolling_friction = 0.05;
  model.container.kind = Container::Kind::kNone;
  const Vec3 p_WR(0.2, 0.0, 0.0);
  model.bodies.push_back(CoupledBody{"floor", PlaneShape{}, p_WR});
  ParticleState state;
  LatticeBed bed;
  bed.radius_m = testing::kRadius;
  bed.spacing_factor = 1.05;
  bed.jitter = 0.5;
  bed.region = Aabb{Vec3(-0.015, -0.015, 0.008), Vec3(0.015, 0.015, 0.038)};
  const ParticleState cube = make_lattice_bed(bed);
  for (std::size_t i = 0; i < cube.size(); ++i) {
    const Vec3 x(cube.x_m[i], cube.y_m[i], cube.z_m[i]);
    state.add(x, Vec3(0.3, 0.1, -0.2), testing::kRadius, 1.0 / cube.inv_mass_per_kg[i],
              Vec3(5.0, -30.0, 10.0));
  }
  const std::vector<BodyMotion> floor_at_rest = {BodyMotion{}};
  ParticleWorkspace w;
  const double dt = model.time_step_s;
  double total_mass = 0.0;
  for (const float im : state.inv_mass_per_kg) total_mass += 1.0 / im;
  // Float rounding of the grains' own contacts: a floor under the relative tolerances.
  const double impulse_floor = 1e-5 * total_mass * kGravity_m_per_s2 * dt;
  double largest_torque = 0.0;
  for (int k = 0; k < 150; ++k) {
    const ParticleState before = state;
    step(model, state, floor_at_rest, w);
    Vec3 dp = Vec3::Zero(), dL = Vec3::Zero();
    for (std::size_t i = 0; i < state.size(); ++i) {
      const double mass = 1.0 / state.inv_mass_per_kg[i];
      const Vec3 x(before.x_m[i], before.y_m[i], before.z_m[i]);
      const Vec3 dv = Vec3(state.vx_m_per_s[i] - before.vx_m_per_s[i],
                           state.vy_m_per_s[i] - before.vy_m_per_s[i],
                           state.vz_m_per_s[i] - before.vz_m_per_s[i]) -
                      model.gravity_m_per_s2 * dt;
      const Vec3 dw(state.wx_rad_per_s[i] - before.wx_rad_per_s[i],
                    state.wy_rad_per_s[i] - before.wy_rad_per_s[i],
                    state.wz_rad_per_s[i] - before.wz_rad_per_s[i]);
      dp += mass * dv;
      dL += (x - p_WR).cross(mass * dv) + moment_of_inertia_kg_m2(state, i) * dw;
    }
    const Wrench& wr = state.body_wrenches[0];
    EXPECT_LT((wr.f_W * dt + dp).norm(), 1e-3 * wr.f_W.norm() * dt + impulse_floor) << "step " << k;
    // Lever arms about R are about 0.2 m.
    EXPECT_LT((wr.tau_W * dt + dL).norm(), 1e-3 * wr.tau_W.norm() * dt + 0.2 * impulse_floor)
        << "step " << k;
    largest_torque = std::max(largest_torque, wr.tau_W.norm());
  }
  EXPECT_GT(largest_torque, 0.0);
}

// A bed pushed by a blade, rotation on, stepped with `threads` threads.
ParticleState pushed_rotating_bed(int threads, double rolling_friction) {
  ParticleModel model = testing::box_model(0.05, 0.1);
  model.rotation = true;
  model.threads = threads;
  model.rolling_friction = rolling_friction;
  model.bodies.push_back(CoupledBody{"blade", BoxShape{Vec3(0.003, 0.02, 0.02)}, Vec3::Zero()});
  ParticleState state = testing::box_bed(0.05, 0.035);
  ParticleWorkspace w;
  std::vector<BodyMotion> motions(1);
  for (int k = 0; k < 100; ++k) {
    const double t = k * 1e-3;
    const double z = std::max(0.07 - 0.5 * t, 0.045);
    motions[0].X_WB = make_pose(Vec3(0.01 + 0.2 * t, 0.025, z));
    motions[0].V_WB.v_WBo = Vec3(0.2, 0.0, z > 0.045 ? -0.5 : 0.0);
    motions[0].V_WB.w_W = Vec3(0.0, 0.0, 1.0);
    step(model, state, motions, w);
  }
  return state;
}

TEST(ParticlesRotation, OneTwoAndThreeThreadsAreBitIdentical) {
  const ParticleState one = pushed_rotating_bed(1, 0.1);
  double spin = 0.0;
  for (float wy : one.wy_rad_per_s) spin = std::max(spin, double(std::abs(wy)));
  EXPECT_GT(spin, 1.0);  // the grains do turn
  testing::expect_identical(one, pushed_rotating_bed(2, 0.1));
  testing::expect_identical(one, pushed_rotating_bed(3, 0.1));
}

// Kinetic (translation and rotation) plus potential energy of the grains [J].
double mechanical_energy_J(const ParticleModel& model, const ParticleState& s) {
  double e = kinetic_energy_J(s);
  for (std::size_t i = 0; i < s.size(); ++i) {
    e -= model.gravity_m_per_s2.dot(Vec3(s.x_m[i], s.y_m[i], s.z_m[i])) / s.inv_mass_per_kg[i];
  }
  return e;
}

TEST(ParticlesRotation, ACollapsingBedOfRotatingGrainsLosesEnergyAndComesToRest) {
  // A jittered lattice of grains that roll is not stable: its columns topple (at once without
  // rolling friction, one after another over a second with 0.1). The grains then move fast
  // (0.37 m/s, 40 rad/s measured), but only by turning potential energy into motion: the total
  // never rises by more than the split impulse's push-out can lift (a fifth of a radius of the
  // whole bed, as for paper 001's grains), and without rolling friction the bed is at rest within
  // a second.
  for (const double mu_r : {0.0, 0.1}) {
    ParticleModel model = testing::box_model(0.05, 0.1);
    model.rotation = true;
    model.rolling_friction = mu_r;
    ParticleState state = testing::box_bed(0.05, 0.03);
    double mass = 0.0;
    for (const float im : state.inv_mass_per_kg) mass += 1.0 / im;
    const double push_out_bound = mass * kGravity_m_per_s2 * 0.2 * testing::kRadius;
    ParticleWorkspace w;
    double energy = mechanical_energy_J(model, state);
    const double start = energy;
    double fastest = 0.0;
    for (int k = 0; k < 100; ++k) {
      testing::run(model, state, w, 10);
      const double now = mechanical_energy_J(model, state);
      EXPECT_LE(now - energy, push_out_bound) << "mu_r " << mu_r << ", step " << state.step;
      energy = now;
      fastest = std::max(fastest, testing::max_speed(state));
    }
    EXPECT_GT(fastest, 0.05) << "mu_r " << mu_r;  // the bed did collapse
    EXPECT_LT(energy, start) << "mu_r " << mu_r;
    if (mu_r == 0.0) {
      EXPECT_LT(kinetic_energy_J(state) / static_cast<double>(state.size()), 1e-9);
    }
  }
}

TEST(ParticlesRotation, RollingFrictionIsRefusedWhenNegativeOrNotFinite) {
  ParticleModel model;
  for (const double bad : {-0.1, std::nan(""), std::numeric_limits<double>::infinity()}) {
    model.rolling_friction = bad;
    try {
      validate(model);
      ADD_FAILURE() << "rolling_friction " << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("rolling_friction"), std::string::npos) << e.what();
    }
  }
}

TEST(ParticlesRotation, StateFilesKeepSpinAndOldFilesLoadWithZeroSpin) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "talus_rotation_io";
  std::filesystem::create_directories(dir);
  ParticleState s;
  s.add(Vec3(0.1, 0.2, 0.3), Vec3(1.0, 0.0, 0.0), 0.01, 0.02, Vec3(4.0, -5.0, 6.0));
  save_particle_state(s, dir / "v2.bin");
  const LoadedParticleState loaded = load_particle_state_with_version(dir / "v2.bin");
  EXPECT_EQ(loaded.version, 2u);
  EXPECT_EQ(loaded.state.wx_rad_per_s, s.wx_rad_per_s);
  EXPECT_EQ(loaded.state.wz_rad_per_s, s.wz_rad_per_s);
  // A version-1 file (8 arrays, no angular velocities), written byte by byte.
  std::string bytes("TALUSPS\0", 8);
  auto put = [&bytes](const auto& v) { bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(std::uint32_t{1});
  put(std::uint32_t{8});
  put(std::uint64_t{1});
  put(0.5);
  put(std::int64_t{7});
  for (const float v : {0.1f, 0.2f, 0.3f, 1.0f, 0.0f, 0.0f, 0.01f, 50.0f}) put(v);
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  put(h);
  {
    std::ofstream f(dir / "v1.bin", std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  const LoadedParticleState old = load_particle_state_with_version(dir / "v1.bin");
  EXPECT_EQ(old.version, 1u);
  ASSERT_EQ(old.state.size(), 1u);
  EXPECT_EQ(old.state.vx_m_per_s[0], 1.0f);
  EXPECT_EQ(old.state.wx_rad_per_s, std::vector<float>{0.0f});
  EXPECT_EQ(old.state.step, 7);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace talus::particles
