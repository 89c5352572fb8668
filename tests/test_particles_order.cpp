// Particles kept in spatial order (particle_order.hpp): the Morton sort, the reorder that carries
// every per-particle array, the identities and the warm-start contacts, the step's periodic sort
// (deterministic for any thread count, following an unsorted run to rounding), the identities in
// messages and state files, and the bad input.

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "error_message.hpp"
#include "particles/particle_bed_random.hpp"
#include "particles/particle_io.hpp"
#include "particles/particle_order.hpp"
#include "particles_fixtures.hpp"
#include "scratch_files.hpp"

namespace talus::particles {
namespace {

using testing::box_bed;
using testing::box_model;
using testing::kRadius;

// A settling box bed of rotating grains after `steps` steps: rows hold particles and walls, and
// the contacts carry impulses and rolling impulses to warm-start the next step.
struct SettlingBed {
  ParticleModel model;
  ParticleState state;
};

SettlingBed settling_bed(int steps) {
  SettlingBed b{box_model(0.05, 0.1), box_bed(0.05, 0.035)};
  b.model.rotation = true;
  b.model.rolling_friction = 0.1;
  ParticleWorkspace w;
  testing::run(b.model, b.state, w, steps);
  return b;
}

std::vector<std::uint32_t> shuffled_indices(std::size_t n, unsigned seed) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  return order;
}

// The Morton key of particle i's cell, as spatial_order computes it.
std::uint64_t key_of(const ParticleState& s, std::size_t i, float cell) {
  const float lo_x = *std::min_element(s.x_m.begin(), s.x_m.end());
  const float lo_y = *std::min_element(s.y_m.begin(), s.y_m.end());
  const float lo_z = *std::min_element(s.z_m.begin(), s.z_m.end());
  const auto c = [cell](float v, float lo) {
    return static_cast<std::uint32_t>(std::floor((v - lo) / cell));
  };
  return morton_key(c(s.x_m[i], lo_x), c(s.y_m[i], lo_y), c(s.z_m[i], lo_z));
}

TEST(SpatialOrder, MortonKeyInterleavesTheBitsOfXYZ) {
  EXPECT_EQ(morton_key(1, 0, 0), 1u);
  EXPECT_EQ(morton_key(0, 1, 0), 2u);
  EXPECT_EQ(morton_key(0, 0, 1), 4u);
  EXPECT_EQ(morton_key(3, 0, 0), 9u);  // bits 0 and 3
  EXPECT_EQ(morton_key(0, 2, 1), 0b10100u);
  EXPECT_EQ(morton_key((1u << 21) - 1, 0, 0), 0x1249249249249249ull);
}

TEST(SpatialOrder, PutsAShuffledBedAlongTheCurve) {
  ParticleState s = box_bed(0.05, 0.035);
  reorder_particles(s, shuffled_indices(s.size(), 3));
  const float cell = static_cast<float>(2.0 * kRadius);
  const std::vector<std::uint32_t> order = spatial_order(s, cell);
  ASSERT_EQ(order.size(), s.size());
  std::vector<std::uint32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k) ASSERT_EQ(sorted[k], k) << "not a permutation";
  for (std::size_t k = 1; k < order.size(); ++k) {
    const std::uint64_t a = key_of(s, order[k - 1], cell), b = key_of(s, order[k], cell);
    ASSERT_LE(a, b) << "at " << k;
    if (a == b) {
      EXPECT_LT(order[k - 1], order[k]) << "a cell's particles keep their order";
    }
  }
  EXPECT_THROW(spatial_order(s, 0.0f), std::invalid_argument);
}

TEST(SpatialOrder, ARandomBedComesInSpatialOrder) {
  RandomBed bed;
  bed.region = Aabb{Vec3(0.0, 0.0, 0.0), Vec3(0.1, 0.1, 0.1)};
  bed.count = 400;
  bed.radius_m = 0.004;
  const ParticleState s = make_random_bed(bed);
  EXPECT_TRUE(s.id.empty());
  const float cell = static_cast<float>(2.0 * bed.radius_m);
  for (std::size_t k = 1; k < s.size(); ++k) ASSERT_LE(key_of(s, k - 1, cell), key_of(s, k, cell));
}

TEST(ReorderParticles, CarriesEveryArrayAndTheIdentities) {
  const ParticleState before = settling_bed(5).state;
  ParticleState s = before;
  const std::vector<std::uint32_t> order = shuffled_indices(s.size(), 1);
  reorder_particles(s, order);
  ASSERT_EQ(s.id.size(), s.size());
  for (std::size_t k = 0; k < s.size(); ++k) {
    const std::size_t i = order[k];
    ASSERT_EQ(s.id[k], i);
    EXPECT_EQ(s.x_m[k], before.x_m[i]);
    EXPECT_EQ(s.y_m[k], before.y_m[i]);
    EXPECT_EQ(s.z_m[k], before.z_m[i]);
    EXPECT_EQ(s.vx_m_per_s[k], before.vx_m_per_s[i]);
    EXPECT_EQ(s.vy_m_per_s[k], before.vy_m_per_s[i]);
    EXPECT_EQ(s.vz_m_per_s[k], before.vz_m_per_s[i]);
    EXPECT_EQ(s.wx_rad_per_s[k], before.wx_rad_per_s[i]);
    EXPECT_EQ(s.wy_rad_per_s[k], before.wy_rad_per_s[i]);
    EXPECT_EQ(s.wz_rad_per_s[k], before.wz_rad_per_s[i]);
    EXPECT_EQ(s.radius_m[k], before.radius_m[i]);
    EXPECT_EQ(s.inv_mass_per_kg[k], before.inv_mass_per_kg[i]);
  }
  // A second reorder moves the identities along with the values.
  const ParticleState once = s;
  const std::vector<std::uint32_t> again = shuffled_indices(s.size(), 2);
  reorder_particles(s, again);
  for (std::size_t k = 0; k < s.size(); ++k) {
    ASSERT_EQ(s.id[k], once.id[again[k]]);
    ASSERT_EQ(s.x_m[k], before.x_m[s.id[k]]);
  }
  EXPECT_EQ(creation_order(s)[0], std::find(s.id.begin(), s.id.end(), 0u) - s.id.begin());
}

TEST(ReorderParticles, CarriesTheWarmStartContactsPairByPair) {
  const ParticleState before = settling_bed(20).state;
  const ContactList& old = before.contacts;
  ASSERT_EQ(old.particles(), before.size());
  ASSERT_FALSE(old.rolling.empty());
  ParticleState s = before;
  const std::vector<std::uint32_t> order = shuffled_indices(s.size(), 5);
  reorder_particles(s, order);
  std::vector<std::uint32_t> new_index(s.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    new_index[order[k]] = static_cast<std::uint32_t>(k);
  const ContactList& c = s.contacts;
  ASSERT_EQ(c.particles(), s.size());
  std::size_t particle_pairs = 0, walls = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const std::uint32_t k = new_index[i];
    ASSERT_EQ(c.slots(k), old.slots(i));
    for (std::int32_t t = c.start[k] + 1; t < c.end[k]; ++t) {
      ASSERT_LT(partner_key(c.partner[t - 1]), partner_key(c.partner[t])) << "canonical order";
    }
    for (std::int32_t so = old.start[i]; so < old.end[i]; ++so) {
      const std::int32_t p = old.partner[so];
      const std::int32_t renumbered = p >= 0 ? static_cast<std::int32_t>(new_index[p]) : p;
      const auto* hit =
          std::find(c.partner.data() + c.start[k], c.partner.data() + c.end[k], renumbered);
      ASSERT_NE(hit, c.partner.data() + c.end[k]) << "particle " << i << " lost partner " << p;
      const auto sn = static_cast<std::size_t>(hit - c.partner.data());
      for (std::size_t a = 0; a < kSlotStride; ++a) {
        EXPECT_EQ(c.impulse[sn * kSlotStride + a], old.impulse[so * kSlotStride + a]);
        EXPECT_EQ(c.rolling[sn * kSlotStride + a], old.rolling[so * kSlotStride + a]);
        EXPECT_EQ(c.normal_gap[sn * kSlotStride + a], old.normal_gap[so * kSlotStride + a]);
      }
      (p >= 0 ? particle_pairs : walls) += 1;
    }
  }
  EXPECT_GT(particle_pairs, before.size());  // the bed is in contact
  EXPECT_GT(walls, 0u);
  const std::vector<std::uint32_t> too_short(order.begin(), order.end() - 1);
  EXPECT_THROW(reordered_contacts(old, too_short, new_index), std::invalid_argument);
}

TEST(ReorderParticles, RefusesAnOrderThatIsNotAPermutation) {
  ParticleState s = box_bed(0.05, 0.02);
  std::vector<std::uint32_t> order(s.size());
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  order[3] = 4;
  EXPECT_THAT(test_support::invalid_argument_of([&] { reorder_particles(s, order); }),
              ::testing::HasSubstr("order[4] = 4 is out of range or repeated"));
  order.pop_back();
  EXPECT_THROW(reorder_particles(s, order), std::invalid_argument);
  EXPECT_TRUE(s.id.empty()) << "a refused order leaves the state as it was";
}

// Positions of `s` by identity.
std::vector<float> by_id(const ParticleState& s, const std::vector<float>& values) {
  std::vector<float> out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) out[s.id_of(i)] = values[i];
  return out;
}

TEST(SortedStep, FollowsTheUnsortedRunToRounding) {
  SettlingBed plain = settling_bed(0);
  ParticleState start = plain.state;
  reorder_particles(start, shuffled_indices(start.size(), 9));  // a bed in no spatial order
  start.id.clear();
  ParticleState unsorted = start, sorted = start;
  ParticleModel sorting = plain.model;
  sorting.sort_every_steps = 10;
  ParticleWorkspace wu, ws;
  testing::run(plain.model, unsorted, wu, 60);
  testing::run(sorting, sorted, ws, 60);
  ASSERT_EQ(sorted.id.size(), sorted.size());
  std::size_t moved = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) moved += sorted.id[i] != i;
  EXPECT_GT(moved, sorted.size() / 2) << "the sort put the shuffled bed in another order";
  const std::vector<float> zs = by_id(sorted, sorted.z_m), xs = by_id(sorted, sorted.x_m);
  double worst = 0.0, fall = 0.0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    worst = std::max({worst, std::abs(double(zs[i]) - unsorted.z_m[i]),
                      std::abs(double(xs[i]) - unsorted.x_m[i])});
    fall = std::max(fall, double(start.z_m[i]) - unsorted.z_m[i]);
  }
  EXPECT_GT(fall, 0.1 * kRadius) << "the bed moved";
  EXPECT_LT(worst, 1e-3 * kRadius) << "the same particles in the same places";
  EXPECT_GE(ws.neighbours.builds, 6) << "a full neighbour-list build at the start and per sort";
}

TEST(SortedStep, IsBitIdenticalForOneAndTwoThreads) {
  SettlingBed b = settling_bed(0);
  reorder_particles(b.state, shuffled_indices(b.state.size(), 4));
  b.state.id.clear();
  b.model.sort_every_steps = 7;
  ParticleState one = b.state, two = b.state;
  ParticleModel m2 = b.model;
  m2.threads = 2;
  ParticleWorkspace w1, w2;
  testing::run(b.model, one, w1, 30);
  testing::run(m2, two, w2, 30);
  testing::expect_identical(one, two);
  EXPECT_EQ(one.id, two.id);
}

TEST(SortedStep, AStateFileHoldsTheParticlesInCreationOrder) {
  SettlingBed b = settling_bed(0);
  b.model.sort_every_steps = 5;
  ParticleWorkspace w;
  reorder_particles(b.state, shuffled_indices(b.state.size(), 6));
  b.state.id.clear();
  testing::run(b.model, b.state, w, 10);
  ASSERT_FALSE(b.state.id.empty());
  const testing_files::ScratchDir scratch;
  save_particle_state(b.state, scratch.path() / "sorted.tps");
  const ParticleState loaded = load_particle_state(scratch.path() / "sorted.tps");
  EXPECT_TRUE(loaded.id.empty());
  EXPECT_EQ(loaded.x_m, by_id(b.state, b.state.x_m));
  EXPECT_EQ(loaded.vz_m_per_s, by_id(b.state, b.state.vz_m_per_s));
  EXPECT_EQ(loaded.wy_rad_per_s, by_id(b.state, b.state.wy_rad_per_s));
  EXPECT_EQ(loaded.radius_m, by_id(b.state, b.state.radius_m));
}

TEST(ParticleIdentity, NewParticlesOfAReorderedStateComeAfterTheLargestIdentity) {
  ParticleState s = box_bed(0.05, 0.02);
  const std::size_t n = s.size();
  reorder_particles(s, shuffled_indices(n, 8));
  s.add(Vec3(0.02, 0.02, 0.04), Vec3::Zero(), kRadius, 1e-3);
  EXPECT_EQ(s.id.back(), n);
  s.resize(n - 2);  // drops two particles, whatever their identities
  s.resize(n + 1);
  EXPECT_EQ(s.id[n - 2], *std::max_element(s.id.begin(), s.id.begin() + n - 2) + 1);
  std::vector<std::uint32_t> ids = s.id;
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "identities stay distinct";
  ParticleState fresh;
  fresh.add(Vec3::Zero(), Vec3::Zero(), kRadius, 1e-3);
  EXPECT_TRUE(fresh.id.empty()) << "a state in creation order keeps no identities";
  EXPECT_EQ(fresh.id_of(0), 0u);
}

TEST(ParticleIdentity, ValidateRefusesRepeatedOrMiscountedIdentitiesAndNamesParticlesByThem) {
  ParticleState s = box_bed(0.05, 0.02);
  reorder_particles(s, shuffled_indices(s.size(), 2));
  EXPECT_NO_THROW(validate(s));
  ParticleState repeated = s;
  repeated.id[5] = repeated.id[9];
  EXPECT_THAT(test_support::invalid_argument_of([&] { validate(repeated); }),
              ::testing::HasSubstr("particles at indices 5 and 9 share the id"));
  ParticleState short_ids = s;
  short_ids.id.pop_back();
  EXPECT_THAT(test_support::invalid_argument_of([&] { validate(short_ids); }),
              ::testing::HasSubstr("id holds"));
  ParticleState bad = s;
  bad.radius_m[0] = -1.0f;
  EXPECT_THAT(test_support::invalid_argument_of([&] { validate(bad); }),
              ::testing::HasSubstr(fmt::format("particle {}: radius_m = -1", s.id[0])));
}

TEST(ParticleIdentity, TheModelRefusesANegativeSortPeriod) {
  ParticleModel m = box_model(0.05, 0.1);
  m.sort_every_steps = -1;
  EXPECT_THAT(test_support::invalid_argument_of([&] { validate(m); }),
              ::testing::HasSubstr("sort_every_steps"));
}

}  // namespace
}  // namespace talus::particles
