// The solver's pass 1 kernels (particles/projected_jacobi_slots.hpp) and its pair matching.
// The 8-lane form must give exactly the scalar form's bits on every slot: which form computes a
// slot depends on where a thread's part of the list starts and ends, so any difference would make
// 1- and 2-thread runs differ. (Built without AVX2 both sides are the scalar form.)

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "particles/projected_jacobi.hpp"
#include "particles/projected_jacobi_rotating.hpp"
#include "particles/projected_jacobi_slots.hpp"
#include "particles_fixtures.hpp"

namespace talus::particles {
namespace {

// Random iterates and slots: particle pairs and walls, open and overlapping gaps (and exact zero),
// old impulses inside and outside their friction cones, zero sliding velocities. Every
// wall_period-th entry is a wall's: with the default every block of 8 lanes holds one; with 40,
// most blocks hold particle pairs only (the 8-lane forms skip the walls' records there).
struct SlotFixture {
  static constexpr int kParticles = 40;
  static constexpr int kEntries = 203;  // not a multiple of 8: the scalar remainder runs too
  std::vector<float> iterate, normal_gap, surface, impulse;
  std::vector<std::int32_t> slot, row, partner, mirror;

  explicit SlotFixture(int wall_period = 5) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    iterate.resize(kParticles * kIterateStride);
    for (int i = 0; i < kParticles; ++i) {
      float* rec = iterate.data() + i * kIterateStride;
      for (int c = 0; c < 3; ++c) rec[kIterW + c] = 0.1f * unit(rng);
      rec[kIterSplit] = 400.0f + 300.0f * unit(rng);
      for (int c = 0; c < 3; ++c) rec[kIterS + c] = 0.01f * unit(rng);
      rec[kIterS + 3] = 0.0f;
    }
    // Own slots 0 .. kEntries-1, mirror slots after them.
    const int slots = 2 * kEntries;
    normal_gap.resize(slots * kSlotStride);
    surface.resize(slots * kSlotStride);
    impulse.resize(slots * kSlotStride);
    for (float& v : surface) v = unit(rng);  // garbage for particle slots: must not matter
    for (int q = 0; q < kEntries; ++q) {
      const int i = q % kParticles;
      const bool wall = q % wall_period == 3;
      int j = (i + 1 + q % 7) % kParticles;
      slot.push_back(q);
      row.push_back(i);
      partner.push_back(wall ? wall_partner(q % kWallCount) : j);
      mirror.push_back(wall ? -1 : kEntries + q);
      float n[3] = {unit(rng), unit(rng), unit(rng)};
      const float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      float* ng = normal_gap.data() + q * kSlotStride;
      for (int c = 0; c < 3; ++c) ng[c] = n[c] / len;
      ng[3] = q % 11 == 0 ? 0.0f : 1e-4f * unit(rng);
      float* l = impulse.data() + q * kSlotStride;
      const float scale = q % 3 == 0 ? 1e-3f : 1e-5f;  // large: far off the cone
      for (int c = 0; c < 3; ++c) l[c] = scale * unit(rng);
      l[3] = q % 4 == 0 ? 0.0f : 1e-5f * std::abs(unit(rng));
      if (q % 13 == 5) {  // signed zeros: a touching contact with no impulse yet
        ng[3] = -0.0f;
        for (int c = 0; c < 4; ++c) l[c] = -0.0f;
      }
      if (wall) {
        float* sk = surface.data() + q * kSlotStride;
        sk[3] = 0.5f + 0.3f * unit(rng);
        if (q % 2 == 0) {  // a wall at rest under a particle at rest: u = 0 exactly
          for (int c = 0; c < 3; ++c) sk[c] = iterate[i * kIterateStride + kIterW + c];
        }
      }
    }
  }

  SlotPass pass() {
    return SlotPass{
        iterate.data(), normal_gap.data(), surface.data(), impulse.data(), slot.data(), row.data(),
        partner.data(), mirror.data(),     0.9f,           1e3f,           0.2f,        0.5f,
        0.577f};
  }
};

TEST(ParticlesJacobiSlots, LanesAndScalarGiveTheSameBitsForAnyStart) {
  // Without the vector path both sides below are the scalar form: nothing would be compared.
  if (slot_lanes() == 1) GTEST_SKIP() << "the library was built without the 8-lane (AVX2) path";
  EXPECT_EQ(slot_lanes(), 8);
  for (const int wall_period : {5, 40}) {
    for (int begin = 0; begin < 9; ++begin) {
      SlotFixture lanes(wall_period), scalar(wall_period);
      const float lane_change = solve_slots(lanes.pass(), begin, SlotFixture::kEntries);
      float scalar_change = 0.0f;
      const SlotPass p = scalar.pass();
      for (std::int64_t q = begin; q < SlotFixture::kEntries; ++q) {
        scalar_change = std::max(scalar_change, solve_slot(p, q));
      }
      EXPECT_EQ(std::memcmp(lanes.impulse.data(), scalar.impulse.data(),
                            lanes.impulse.size() * sizeof(float)),
                0)
          << "walls every " << wall_period << ", list from entry " << begin;
      EXPECT_EQ(lane_change, scalar_change);
      EXPECT_GT(lane_change, 0.0f);
    }
  }
}

// The slots of SlotFixture with rotating grains: angular iterates and radii, rolling impulses
// inside and outside their cones, and some wall slots turned into body slots (a body's angular
// velocity enters the rolling update).
constexpr std::int64_t kEntries() { return SlotFixture::kEntries; }

struct SpinFixture : SlotFixture {
  std::vector<float> spin, rolling, body_omega = {0.3f, -2.0f, 1.5f, 0.0f, 0.0f, 4.0f};

  explicit SpinFixture(int wall_period = 5) : SlotFixture(wall_period) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    spin.resize(kParticles * kSpinStride);
    for (int i = 0; i < kParticles; ++i) {
      float* rec = spin.data() + i * kSpinStride;
      for (int c = 0; c < 3; ++c) rec[c] = 20.0f * unit(rng);
      rec[kSpinRadius] = 0.005f * (1.0f + 0.3f * unit(rng));
    }
    rolling.resize(impulse.size());
    for (int q = 0; q < kEntries; ++q) {
      float* e = rolling.data() + q * kSlotStride;
      const float scale = q % 3 == 1 ? 1e-5f : 1e-8f;
      for (int c = 0; c < 3; ++c) e[c] = scale * unit(rng);
      if (partner[q] < 0 && q % 2 == 1) partner[q] = body_partner(q % 4 == 1 ? 0 : 1);
    }
  }

  SpinPass spin_pass(float mu_roll) {
    return SpinPass{spin.data(), rolling.data(), body_omega.data(), mu_roll};
  }
};

TEST(ParticlesJacobiSlots, RotatingLanesAndScalarGiveTheSameBitsForAnyStart) {
  if (slot_lanes() == 1) GTEST_SKIP() << "the library was built without the 8-lane (AVX2) path";
  for (const int wall_period : {5, 40}) {
    for (const float mu_roll : {0.0f, 0.1f}) {
      for (int begin = 0; begin < 9; ++begin) {
        SpinFixture lanes(wall_period), scalar(wall_period);
        const float lane_change =
            solve_slots_rotating(lanes.pass(), lanes.spin_pass(mu_roll), begin, kEntries());
        float scalar_change = 0.0f;
        const SlotPass p = scalar.pass();
        const SpinPass r = scalar.spin_pass(mu_roll);
        for (std::int64_t q = begin; q < kEntries(); ++q) {
          scalar_change = std::max(scalar_change, solve_slot_rotating(p, r, q));
        }
        EXPECT_EQ(std::memcmp(lanes.impulse.data(), scalar.impulse.data(),
                              lanes.impulse.size() * sizeof(float)),
                  0)
            << "mu_r " << mu_roll << ", list from entry " << begin;
        EXPECT_EQ(std::memcmp(lanes.rolling.data(), scalar.rolling.data(),
                              lanes.rolling.size() * sizeof(float)),
                  0)
            << "walls every " << wall_period << ", mu_r " << mu_roll << ", list from entry "
            << begin;
        EXPECT_EQ(lane_change, scalar_change);
        EXPECT_GT(lane_change, 0.0f);
      }
    }
  }
}

TEST(ParticlesJacobiSlots, MirrorsTakeTheNegatedImpulseAndTheSamePushOut) {
  SlotFixture f;
  solve_slots(f.pass(), 0, SlotFixture::kEntries);
  int pairs = 0, on_cone = 0, separating = 0;
  for (int q = 0; q < SlotFixture::kEntries; ++q) {
    const float* own = f.impulse.data() + q * kSlotStride;
    const float* ng = f.normal_gap.data() + q * kSlotStride;
    const float ln = own[0] * ng[0] + own[1] * ng[1] + own[2] * ng[2];
    EXPECT_GE(own[3], 0.0f) << "entry " << q;
    if (ln <= 1e-12f) ++separating;
    const float t[3] = {own[0] - ln * ng[0], own[1] - ln * ng[1], own[2] - ln * ng[2]};
    const float lt = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    const float mu = f.partner[q] >= 0 ? 0.577f : f.surface[q * kSlotStride + 3];
    EXPECT_LE(lt, mu * std::max(ln, 0.0f) * 1.0001f + 1e-12f) << "entry " << q;
    if (lt > 0.0f && std::abs(lt - mu * ln) <= 1e-4f * lt) ++on_cone;
    if (f.partner[q] < 0) continue;
    ++pairs;
    const float* mirrored = f.impulse.data() + f.mirror[q] * kSlotStride;
    for (int c = 0; c < 3; ++c) EXPECT_EQ(mirrored[c], -own[c]) << "entry " << q;
    EXPECT_EQ(mirrored[3], own[3]) << "entry " << q;
  }
  // The fixture reaches every branch of the update: pairs, clamped (separating) normals and
  // impulses projected onto the cone (measured: 163 pairs, 83 on the cone, 104 separating).
  EXPECT_GT(pairs, 100);
  EXPECT_GT(on_cone, 10);
  EXPECT_GT(separating, 10);
}

// Rows as the detection pass writes them (canonical order), for particles with no other data: a
// unit normal and zero impulses in every slot.
ContactList rows_of(const std::vector<std::vector<std::int32_t>>& partners,
                    const std::vector<std::int64_t>& chunk_bounds) {
  ContactList c;
  for (const auto& row : partners) {
    c.start.push_back(static_cast<std::int32_t>(c.partner.size()));
    c.partner.insert(c.partner.end(), row.begin(), row.end());
    c.end.push_back(static_cast<std::int32_t>(c.partner.size()));
  }
  const std::size_t slots = c.partner.size();
  c.normal_gap.assign(slots * kSlotStride, 0.0f);
  c.surface.assign(slots * kSlotStride, 0.0f);
  c.impulse.assign(slots * kSlotStride, 0.0f);
  for (std::size_t k = 0; k < slots; ++k) c.normal_gap[k * kSlotStride + 2] = 1.0f;
  c.used_slots = static_cast<std::int64_t>(slots);
  c.chunk_bounds = chunk_bounds;
  return c;
}

// Solves `rows` with `threads` threads; returns whether the solver refused them.
bool refused(ContactList rows, int threads) {
  const std::size_t n = rows.particles();
  ParticleModel model;
  std::vector<float> iterate[2] = {std::vector<float>(n * kIterateStride, 1.0f),
                                   std::vector<float>(n * kIterateStride, 1.0f)};
  const std::vector<float> inv_mass(n, 1.0f), zero(n, 0.0f);
  std::vector<double> residual;
  try {
    solve_projected_jacobi(model, inv_mass.data(), zero.data(), zero.data(), zero.data(), iterate,
                           rows, n, 4, 0.9, residual, threads);
  } catch (const std::logic_error&) {
    return true;
  }
  return false;
}

// A pair listed in one row only is a detection bug; the solver's pair matching must refuse it
// instead of writing a mirror into a wrong slot or summing a slot nobody writes. Every
// orientation: the lower row lacks the pair or the higher one does, in one chunk (cursor) or
// across two threads' chunks (scan and count).
TEST(ParticlesJacobiSlots, AOneSidedPairIsRefused) {
  // The symmetric rows are accepted, with 1 thread and split 2 | 2 between 2 threads.
  const std::vector<std::vector<std::int32_t>> good = {{1, 3}, {0, 2}, {1, 3}, {0, 2}};
  ASSERT_FALSE(refused(rows_of(good, {}), 1));
  ASSERT_FALSE(refused(rows_of(good, {0, 2, 4}), 2));
  // Row 1 lacks 0 (it lists 2 instead: the cursor lands on the wrong partner).
  EXPECT_TRUE(refused(rows_of({{1}, {2}, {1}}, {}), 1));
  // Row 0 lacks 1 while row 1 lists 0 (a cursor left on a lower partner that never came).
  EXPECT_TRUE(refused(rows_of({{}, {0}}, {}), 1));
  EXPECT_TRUE(refused(rows_of({{2}, {0, 2}, {0, 1}}, {}), 1));
  // Across chunks 0-1 | 2-3: row 3 lacks 0 (the scan from row 0 fails) ...
  EXPECT_TRUE(refused(rows_of({{1, 3}, {0, 2}, {1, 3}, {2}}, {0, 2, 4}), 2));
  // ... and row 0 lacks 3 while row 3 lists 0 (only the count sees it).
  EXPECT_TRUE(refused(rows_of({{1}, {0, 2}, {1, 3}, {0, 2}}, {0, 2, 4}), 2));
}

// The mirrors the pair pass finds in a real bed: after a step every pair's two copies hold
// exactly negated impulses and the same push-out, for 1, 2 and 3 threads (chunk boundaries, and so
// the cursor and scan cases, move with the thread count).
TEST(ParticlesJacobiSlots, MirrorsOfADetectedBedAreExactNegatives) {
  for (int threads : {1, 2, 3}) {
    ParticleModel model = testing::box_model(0.05, 0.2);
    model.threads = threads;
    ParticleState state = testing::box_bed(0.05, 0.06);  // a small bed, settling
    ParticleWorkspace w;
    testing::run(model, state, w, 150);
    const ContactList& c = state.contacts;
    std::size_t pairs = 0;
    for (std::size_t i = 0; i < c.particles(); ++i) {
      for (std::int32_t k = c.start[i]; k < c.end[i]; ++k) {
        const std::int32_t j = c.partner[static_cast<std::size_t>(k)];
        if (j <= static_cast<std::int32_t>(i)) continue;
        const auto* first = c.partner.data() + c.start[static_cast<std::size_t>(j)];
        const auto* last = c.partner.data() + c.end[static_cast<std::size_t>(j)];
        const auto* at = std::find(first, last, static_cast<std::int32_t>(i));
        ASSERT_NE(at, last) << "pair " << i << ", " << j;
        const float* own = c.impulse.data() + static_cast<std::size_t>(k) * kSlotStride;
        const float* other =
            c.impulse.data() + static_cast<std::size_t>(at - c.partner.data()) * kSlotStride;
        for (int a = 0; a < 3; ++a) {
          ASSERT_EQ(other[a], -own[a]) << threads << " threads, pair " << i << ", " << j;
        }
        ASSERT_EQ(other[3], own[3]) << threads << " threads, pair " << i << ", " << j;
        ++pairs;
      }
    }
    EXPECT_GT(pairs, 100u) << threads << " threads";  // 159 measured
  }
}

// A solve of 100,000 computed entries or more (kClaimedPartsMinEntries) cuts its sweeps into
// parts that the threads claim as they come free; which thread takes a part must not change a
// bit. A touching lattice of rotating grains, 34 x 34 x 31 (each grain's six neighbours within
// the contact margin: about 3 entries a grain), stepped with 1 thread (one part) and with 2 and 3
// (claimed parts).
TEST(ParticlesJacobiSlots, ClaimedPartsOfALargeSolveGiveTheSameBitsForAnyThreadCount) {
  const double side = 0.35, height = 0.32;
  ParticleModel model = testing::box_model(side, height);
  model.rotation = true;
  model.rolling_friction = 0.1;
  model.iterations = 4;
  LatticeBed bed;
  bed.radius_m = testing::kRadius;
  bed.spacing_factor = 1.0;
  bed.jitter = 0.0;
  const double inset = 1.01 * testing::kRadius;
  bed.region = Aabb{Vec3(inset, inset, inset), Vec3(side - inset, side - inset, height - inset)};
  const ParticleState start = make_lattice_bed(bed);
  std::vector<ParticleState> finals;
  for (const int threads : {1, 2, 3}) {
    model.threads = threads;
    ParticleState state = start;
    ParticleWorkspace w;
    testing::run(model, state, w, 3);
    ASSERT_GE(distinct_contact_count(state.contacts), 100000u) << "the claimed parts are not used";
    finals.push_back(state);
  }
  testing::expect_identical(finals[0], finals[1]);
  testing::expect_identical(finals[0], finals[2]);
}

}  // namespace
}  // namespace talus::particles
