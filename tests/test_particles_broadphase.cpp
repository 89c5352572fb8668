// Broadphase of the particle tier: both bucket layouts find exactly the brute-force pairs, the
// parallel compare-and-swap insert keeps every particle, and the contact list is canonical.

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>

#include "particles/particle_contacts.hpp"
#include "particles/spatial_hash.hpp"

namespace talus::particles {
namespace {

struct Cloud {
  std::vector<float> x, y, z, r;
};

// n particles of radius 2..5 mm at random in a 6 cm cube (overlaps allowed: this is geometry).
Cloud random_cloud(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> pos(0.0f, 0.06f), rad(0.002f, 0.005f);
  Cloud c;
  for (std::size_t i = 0; i < n; ++i) {
    c.x.push_back(pos(rng));
    c.y.push_back(pos(rng));
    c.z.push_back(pos(rng));
    c.r.push_back(rad(rng));
  }
  return c;
}

using Pairs = std::set<std::pair<int, int>>;

Pairs brute_force_pairs(const Cloud& c, int periodic_axis, float period, float margin) {
  Pairs pairs;
  for (std::size_t i = 0; i < c.x.size(); ++i) {
    for (std::size_t j = i + 1; j < c.x.size(); ++j) {
      float d[3] = {c.x[i] - c.x[j], c.y[i] - c.y[j], c.z[i] - c.z[j]};
      if (periodic_axis >= 0) d[periodic_axis] -= period * std::rint(d[periodic_axis] / period);
      const float reach = c.r[i] + c.r[j] + margin;
      if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach) {
        pairs.insert({static_cast<int>(i), static_cast<int>(j)});
      }
    }
  }
  return pairs;
}

Pairs hashed_pairs(const Cloud& c, const ParticleModel& model, Broadphase kind, double factor,
                   int threads) {
  SpatialHash hash;
  build_spatial_hash(hash, kind, make_cell_grid(model, 0.005f), factor, c.x.data(), c.y.data(),
                     c.z.data(), c.x.size(), threads);
  const int pa = model.periodic_axis;
  const float period = pa >= 0 ? 0.06f : 0.0f;
  Pairs pairs;
  for (std::size_t i = 0; i < c.x.size(); ++i) {
    hash.for_each_in_neighbourhood(hash.cx[i], hash.cy[i], hash.cz[i], [&](std::int32_t j) {
      if (j <= static_cast<std::int32_t>(i)) return;
      float d[3] = {c.x[i] - c.x[j], c.y[i] - c.y[j], c.z[i] - c.z[j]};
      if (pa >= 0) d[pa] -= period * std::rint(d[pa] / period);
      const float reach = c.r[i] + c.r[j] + static_cast<float>(model.contact_margin_m);
      if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach) {
        // A pair found twice would mean a cell was searched twice (hash collision not filtered).
        EXPECT_TRUE(pairs.insert({static_cast<int>(i), j}).second) << i << " " << j;
      }
    });
  }
  return pairs;
}

ParticleModel cube_model(int periodic_axis) {
  ParticleModel model;
  model.container.kind = Container::Kind::kBox;
  model.container.box = Aabb{Vec3::Zero(), Vec3::Constant(0.06)};
  model.periodic_axis = periodic_axis;
  model.contact_margin_m = 0.001;
  return model;
}

TEST(ParticlesBroadphase, TeschnerHashUsesThePaperPrimes) {
  EXPECT_EQ(teschner_hash(1, 0, 0, 1u << 31), 73856093u);
  EXPECT_EQ(teschner_hash(0, 1, 0, 1u << 31), 19349663u);
  EXPECT_EQ(teschner_hash(0, 0, 1, 1u << 31), 83492791u);
  EXPECT_EQ(teschner_hash(1, 1, 1, 1000u), (73856093u ^ 19349663u ^ 83492791u) % 1000u);
}

TEST(ParticlesBroadphase, BothLayoutsFindExactlyTheBruteForcePairs) {
  const Cloud cloud = random_cloud(600, 3);
  for (int pa : {-1, 0, 2}) {
    const ParticleModel model = cube_model(pa);
    const Pairs expected = brute_force_pairs(cloud, pa, 0.06f, 0.001f);
    ASSERT_GT(expected.size(), 100u);
    for (Broadphase kind : {Broadphase::kSortedCells, Broadphase::kLinkedHash}) {
      for (double factor : {0.1, 2.0, 8.0}) {  // 0.1: many cells share a bucket
        for (int threads : {1, 2}) {
          EXPECT_EQ(hashed_pairs(cloud, model, kind, factor, threads), expected)
              << "periodic axis " << pa << " kind " << static_cast<int>(kind) << " factor "
              << factor << " threads " << threads;
        }
      }
    }
  }
}

TEST(ParticlesBroadphase, ParallelLinkedInsertKeepsEveryParticleUnderContention) {
  // 20,000 particles into 16 buckets from 2 threads: a non-atomic read-then-write insert (the
  // reference CPU code) loses particles here; the compare-and-swap must keep all of them.
  const Cloud cloud = random_cloud(20000, 11);
  const ParticleModel model = cube_model(-1);
  for (int round = 0; round < 5; ++round) {
    SpatialHash hash;
    build_spatial_hash(hash, Broadphase::kLinkedHash, make_cell_grid(model, 0.005f), 16.0 / 20000.0,
                       cloud.x.data(), cloud.y.data(), cloud.z.data(), cloud.x.size(), 2);
    ASSERT_EQ(hash.table_size, 16u);
    std::vector<int> seen(cloud.x.size(), 0);
    for (std::uint32_t b = 0; b < hash.table_size; ++b) {
      for (std::int32_t j = hash.head[b]; j >= 0; j = hash.next[j]) {
        ASSERT_EQ(hash.bucket[j], b);
        ++seen[j];
      }
    }
    for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "particle " << i;
  }
}

TEST(ParticlesBroadphase, SortedCellsListBucketMembersInIndexOrder) {
  const Cloud cloud = random_cloud(2000, 5);
  SpatialHash hash;
  build_spatial_hash(hash, Broadphase::kSortedCells, make_cell_grid(cube_model(-1), 0.005f), 2.0,
                     cloud.x.data(), cloud.y.data(), cloud.z.data(), cloud.x.size(), 2);
  ASSERT_EQ(hash.bucket_start.back(), 2000);
  for (std::uint32_t b = 0; b < hash.table_size; ++b) {
    for (std::int32_t k = hash.bucket_start[b]; k < hash.bucket_start[b + 1]; ++k) {
      EXPECT_EQ(hash.bucket[hash.sorted[k]], b);
      if (k > hash.bucket_start[b]) {
        EXPECT_LT(hash.sorted[k - 1], hash.sorted[k]);
      }
    }
  }
}

TEST(ParticlesBroadphase, PeriodicPeriodNeedsThreeCells) {
  ParticleModel model = cube_model(0);
  model.container.box.hi.x() = 0.025;  // 2.5 cells of 1.1 cm
  EXPECT_THROW(make_cell_grid(model, 0.005f), std::invalid_argument);
}

}  // namespace
}  // namespace talus::particles
