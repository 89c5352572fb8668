// Golden state hashes of the particle step: the exact bits of four small runs (a box with a driven
// blade, searched through the neighbour list and through the hash; a cylinder; a periodic box),
// recorded before the detection pass was split into one narrowphase per partner kind (issue 15).
// A refactor must keep them. A change of the physics changes them on purpose: it updates the
// hashes below and says why in its commit message. They are the bits of the Release build with
// -march=native, so they are recorded per instruction set the project's machines have had
// (TALUS_GOLDEN_TARGET, tests/CMakeLists.txt): AMD EPYC with AVX-512 (CPU family 25 model 17,
// which GCC 12 names znver3), AMD EPYC of the first Zen generation (znver1: AVX2, no AVX-512) and
// an Intel Xeon with AVX-512 (family 6 model 167, GCC's rocketlake); the box cases, whose blade is
// a body, round alike on the last two and differently on the first. On a target with no recording
// the test is skipped and prints that target's hashes.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "particles_fixtures.hpp"

namespace talus::particles {
namespace {

// FNV-1a over the bytes of a range.
std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t k = 0; k < bytes; ++k) h = (h ^ p[k]) * 0x100000001b3ull;
  return h;
}

// Hash of every per-particle array and every body wrench of the state.
std::uint64_t state_hash(const ParticleState& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const std::vector<float>* v :
       {&s.x_m, &s.y_m, &s.z_m, &s.vx_m_per_s, &s.vy_m_per_s, &s.vz_m_per_s}) {
    h = fnv1a(v->data(), v->size() * sizeof(float), h);
  }
  for (const Wrench& w : s.body_wrenches) {
    h = fnv1a(w.f_W.data(), 3 * sizeof(double), h);
    h = fnv1a(w.tau_W.data(), 3 * sizeof(double), h);
  }
  return h;
}

enum class Case { kBoxListed, kBoxHashed, kCylinder, kPeriodic };

// 80 steps of a settling 5 cm box bed; in the box cases a blade (a box body) is lowered into it
// and pushed along +x, so every partner kind (particles, walls, a body) is in the rows.
std::uint64_t run_case(Case c, int threads) {
  ParticleModel model = testing::box_model(0.05, 0.1);
  model.rotation = false;  // paper 001's grains: the bits recorded before rotation existed
  model.rolling_friction = 0.0;
  model.threads = threads;
  ParticleState state = testing::box_bed(0.05, 0.035);
  if (c == Case::kBoxHashed) model.neighbour_skin_radii = 0.0;
  if (c == Case::kCylinder) {
    model.container.kind = Container::Kind::kCylinder;
    model.container.cylinder_radius_m = 0.03;
    model.container.cylinder_axis_xy_m = Vec2(0.025, 0.025);
    model.container.box = Aabb{Vec3(-0.005, -0.005, 0.0), Vec3(0.055, 0.055, 0.1)};
    ParticleState inside;
    for (std::size_t i = 0; i < state.size(); ++i) {
      const double dx = state.x_m[i] - 0.025, dy = state.y_m[i] - 0.025;
      if (dx * dx + dy * dy < 0.024 * 0.024) {
        inside.add(Vec3(state.x_m[i], state.y_m[i], state.z_m[i]), Vec3::Zero(), state.radius_m[i],
                   1.0 / state.inv_mass_per_kg[i]);
      }
    }
    state = inside;
  }
  if (c == Case::kPeriodic) model.periodic_axis = 0;
  const bool blade = c == Case::kBoxListed || c == Case::kBoxHashed;
  if (blade) {
    model.bodies.push_back(CoupledBody{"blade", BoxShape{Vec3(0.003, 0.02, 0.02)}, Vec3::Zero()});
  }
  ParticleWorkspace w;
  std::vector<BodyMotion> motions(model.bodies.size());
  for (int k = 0; k < 80; ++k) {
    if (blade) {
      const double t = k * 1e-3;
      const double z = std::max(0.07 - 0.5 * t, 0.045);
      const double x = 0.01 + (t > 0.05 ? 0.2 * (t - 0.05) : 0.0);
      motions[0].X_WB = make_pose(Vec3(x, 0.025, z));
      motions[0].V_WB.v_WBo = Vec3(t > 0.05 ? 0.2 : 0.0, 0.0, z > 0.045 ? -0.5 : 0.0);
    }
    step(model, state, motions, w);
  }
  return state_hash(state);
}

struct Golden {
  Case c;
  const char* name;
  std::uint64_t hash;
};

// One recording of the four cases' bits, and the targets that round to them.
struct GoldenTarget {
  /// TALUS_GOLDEN_TARGET values: GCC's -march=native name, "+avx512" with AVX-512
  std::vector<std::string> targets;
  Golden cases[4];
};

// (The neighbour list and the hash search give the same rows, hence the same bits.)
const GoldenTarget kGoldenTargets[] = {
    {{"znver3", "znver3+avx512"},
     {{Case::kBoxListed, "box, blade, neighbour list", 0x70a4c47ba7bf372aull},
      {Case::kBoxHashed, "box, blade, hash search", 0x70a4c47ba7bf372aull},
      {Case::kCylinder, "cylinder", 0xd4cf5829eb3b4cd0ull},
      {Case::kPeriodic, "periodic along x", 0xc20eb04f7b4ee45dull}}},
    {{"znver1", "rocketlake+avx512"},
     {{Case::kBoxListed, "box, blade, neighbour list", 0x2d956b2ecc8a92c3ull},
      {Case::kBoxHashed, "box, blade, hash search", 0x2d956b2ecc8a92c3ull},
      {Case::kCylinder, "cylinder", 0xd4cf5829eb3b4cd0ull},
      {Case::kPeriodic, "periodic along x", 0xc20eb04f7b4ee45dull}}},
};

#ifdef TALUS_GOLDEN_TARGET
constexpr const char* kThisTarget = TALUS_GOLDEN_TARGET;
#else
constexpr const char* kThisTarget = "";  // not a golden build: the test is skipped
#endif

TEST(ParticlesGolden, StepBitsAreThoseRecordedForEveryPartnerKindAndThreadCount) {
#ifndef TALUS_GOLDEN_BUILD
  GTEST_SKIP() << "the golden hashes are those of the Release build with -march=native; this "
                  "build's flags round differently (tests/CMakeLists.txt)";
#endif
  const std::string target = kThisTarget;
  const GoldenTarget* recorded = nullptr;
  for (const GoldenTarget& g : kGoldenTargets) {
    if (std::find(g.targets.begin(), g.targets.end(), target) != g.targets.end()) recorded = &g;
  }
  if (recorded == nullptr) {
    std::string hashes;
    for (const Golden& g : kGoldenTargets[0].cases) {
      hashes += fmt::format("{}: {:#x}; ", g.name, run_case(g.c, 1));
    }
    GTEST_SKIP() << "no golden hashes recorded for the instruction set '" << target
                 << "' (this machine's -march=native); its hashes: " << hashes;
  }
  for (const Golden& g : recorded->cases) {
    for (int threads : {1, 2}) {
      const std::uint64_t h = run_case(g.c, threads);
      EXPECT_EQ(h, g.hash) << target << ", " << g.name << ", " << threads << " threads: 0x"
                           << std::hex << h;
    }
  }
}

}  // namespace
}  // namespace talus::particles
