// The solver's pass 1 kernels (particles/projected_jacobi_slots.hpp) and its pair matching.
// The 8-lane form must give exactly the scalar form's bits on every slot: which form computes a
// slot depends on where a thread's part of the list starts and ends, so any difference would make
// 1- and 2-thread runs differ. (Built without AVX2 both sides are the scalar form.)

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "particles/projected_jacobi.hpp"
#include "particles/projected_jacobi_slots.hpp"

namespace talus::particles {
namespace {

// Random iterates and slots: particle pairs and walls, open and overlapping gaps (and exact zero),
// old impulses inside and outside their friction cones, zero sliding velocities.
struct SlotFixture {
  static constexpr int kParticles = 40;
  static constexpr int kEntries = 203;  // not a multiple of 8: the scalar remainder runs too
  std::vector<float> iterate, normal_gap, surface, impulse;
  std::vector<std::int32_t> slot, row, partner, mirror;

  SlotFixture() {
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
      const bool wall = q % 5 == 3;
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
  for (int begin = 0; begin < 9; ++begin) {
    SlotFixture lanes, scalar;
    const float lane_change = solve_slots(lanes.pass(), begin, SlotFixture::kEntries);
    float scalar_change = 0.0f;
    const SlotPass p = scalar.pass();
    for (std::int64_t q = begin; q < SlotFixture::kEntries; ++q) {
      scalar_change = std::max(scalar_change, solve_slot(p, q));
    }
    EXPECT_EQ(std::memcmp(lanes.impulse.data(), scalar.impulse.data(),
                          lanes.impulse.size() * sizeof(float)),
              0)
        << "list from entry " << begin;
    EXPECT_EQ(lane_change, scalar_change);
    EXPECT_GT(lane_change, 0.0f);
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
  // impulses projected onto the cone.
  EXPECT_GT(pairs, 100);
  EXPECT_GT(on_cone, 10);
  EXPECT_GT(separating, 10);
}

// A row holding a particle whose own row does not hold it back is a detection bug; the solver's
// pair matching must refuse it instead of writing a mirror into a wrong slot.
TEST(ParticlesJacobiSlots, AOneSidedPairIsRefused) {
  ParticleModel model;
  ContactList c;
  // Rows: 0 -> {1}, 1 -> {2}, 2 -> {1}: particle 1's row lacks 0.
  c.start = {0, 1, 2};
  c.end = {1, 2, 3};
  c.partner = {1, 2, 1};
  c.normal_gap.assign(3 * kSlotStride, 0.0f);
  c.surface.assign(3 * kSlotStride, 0.0f);
  c.impulse.assign(3 * kSlotStride, 0.0f);
  for (int k = 0; k < 3; ++k) c.normal_gap[k * kSlotStride + 2] = 1.0f;
  c.used_slots = 3;
  std::vector<float> iterate[2] = {std::vector<float>(3 * kIterateStride, 1.0f),
                                   std::vector<float>(3 * kIterateStride, 1.0f)};
  const std::vector<float> inv_mass(3, 1.0f), zero(3, 0.0f);
  std::vector<double> residual;
  EXPECT_THROW(solve_projected_jacobi(model, inv_mass.data(), zero.data(), zero.data(), zero.data(),
                                      iterate, c, 3, 4, 0.9, residual, 1),
               std::logic_error);
}

}  // namespace
}  // namespace talus::particles
