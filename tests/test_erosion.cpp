#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/erosion.hpp"
#include "core/threads.hpp"
#include "core/units.hpp"
#include "shaping/heightmap.hpp"

namespace talus::shaping {
namespace {

HeightmapModel make_model(int nx, int ny, Connectivity connectivity, double flow_rate = 0.0) {
  HeightmapModel m;
  m.nx = nx;
  m.ny = ny;
  m.cell_size_m = 0.01;
  m.erosion.repose_angle_rad = deg_to_rad(29.0);  // paper 003 Table 1
  m.erosion.connectivity = connectivity;
  m.erosion.flow_rate = flow_rate;
  return m;
}

std::size_t at(const HeightmapModel& m, int i, int j) { return m.index(i, j); }

// The erosion functions take the grid, the parameters and the surface's two arrays; the tests
// keep them together in the shaping tier's model and state.
ErosionUpdate update(const HeightmapModel& m, HeightmapState& s, const IndexBox& region,
                     std::vector<double>& scratch) {
  return erosion_update(m, m.erosion, s.height_m, s.blocked, region, scratch);
}

ErosionResult erode(const HeightmapModel& m, HeightmapState& s, const IndexBox& active,
                    std::vector<double>& scratch) {
  return erode_to_steady_state(m, m.erosion, s.height_m, s.blocked, active, scratch);
}

double excess(const HeightmapModel& m, const HeightmapState& s) {
  return max_repose_excess(m, m.erosion, s.height_m, s.blocked);
}

/// Heights uniform in [base, base + amplitude) [m]: rough enough that almost every pair flows.
HeightmapState random_surface(const HeightmapModel& m, unsigned seed, double base_m,
                              double amplitude_m) {
  HeightmapState s = HeightmapState::flat(m, base_m);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, amplitude_m);
  for (double& h : s.height_m) h += u(rng);
  return s;
}

void block_randomly(HeightmapState& s, unsigned seed, double fraction) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution b(fraction);
  for (auto& flag : s.blocked) flag = b(rng) ? 1 : 0;
}

/// A few random steep piles on a flat bed.
HeightmapState random_piles(const HeightmapModel& m, unsigned seed) {
  HeightmapState s = HeightmapState::flat(m, 0.05);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> ui(0, m.nx - 1);
  std::uniform_int_distribution<int> uj(0, m.ny - 1);
  std::uniform_real_distribution<double> uh(0.02, 0.2);
  for (int p = 0; p < 4; ++p) {
    const int ic = ui(rng);
    const int jc = uj(rng);
    const double peak = uh(rng);
    for (int j = 0; j < m.ny; ++j) {
      for (int i = 0; i < m.nx; ++i) {
        const double r2 = (i - ic) * (i - ic) + (j - jc) * (j - jc);
        s.height_m[at(m, i, j)] += peak * std::exp(-r2 / 4.0);
      }
    }
  }
  return s;
}

double volume(const HeightmapState& s) {
  return std::accumulate(s.height_m.begin(), s.height_m.end(), 0.0);
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0.0;
  for (std::size_t n = 0; n < a.size(); ++n) worst = std::max(worst, std::abs(a[n] - b[n]));
  return worst;
}

/// The flow rule written the plain way, pair by pair (E1), as the reference for the fast kernel.
std::vector<double> reference_update(const HeightmapModel& m, const HeightmapState& s,
                                     const IndexBox& region) {
  const double k = effective_flow_rate(m.erosion);
  const double tan_repose = std::tan(m.erosion.repose_angle_rad);
  std::vector<double> out = s.height_m;
  const int offsets[4][2] = {{1, 0}, {0, 1}, {1, 1}, {-1, 1}};
  const int pairs = m.erosion.connectivity == Connectivity::Eight ? 4 : 2;
  for (int j = region.j0; j < region.j1; ++j) {
    for (int i = region.i0; i < region.i1; ++i) {
      if (s.blocked[at(m, i, j)] != 0) continue;
      for (int n = 0; n < pairs; ++n) {
        const int in = i + offsets[n][0];
        const int jn = j + offsets[n][1];
        if (in < region.i0 || in >= region.i1 || jn >= region.j1) continue;
        if (s.blocked[at(m, in, jn)] != 0) continue;
        const double distance_m = n < 2 ? m.cell_size_m : m.cell_size_m * std::numbers::sqrt2;
        const double d = s.height_m[at(m, i, j)] - s.height_m[at(m, in, jn)];
        const double excess = std::abs(d) - distance_m * tan_repose;
        if (excess <= 0.0) continue;
        const double q = k * excess * (d > 0.0 ? 1.0 : -1.0);
        out[at(m, i, j)] -= q;
        out[at(m, in, jn)] += q;
      }
    }
  }
  return out;
}

// ---- flow rates -------------------------------------------------------------------------------

TEST(ErosionFlowRate, DefaultsAreOneOverNeighboursPlusOne) {
  EXPECT_DOUBLE_EQ(default_flow_rate(Connectivity::Four), 1.0 / 5.0);
  EXPECT_DOUBLE_EQ(default_flow_rate(Connectivity::Eight), 1.0 / 9.0);
}

TEST(ErosionFlowRate, EffectiveRateIsTheModelsOrTheDefault) {
  HeightmapModel m = make_model(8, 8, Connectivity::Eight);
  EXPECT_DOUBLE_EQ(effective_flow_rate(m.erosion), 1.0 / 9.0);
  m.erosion.flow_rate = 0.1;
  EXPECT_DOUBLE_EQ(effective_flow_rate(m.erosion), 0.1);
}

TEST(ErosionFlowRate, MaxRateIsOneOverTheMostNeighbours) {
  EXPECT_DOUBLE_EQ(max_flow_rate(make_model(8, 8, Connectivity::Four), Connectivity::Four), 0.25);
  EXPECT_DOUBLE_EQ(max_flow_rate(make_model(8, 8, Connectivity::Eight), Connectivity::Eight),
                   0.125);
  EXPECT_DOUBLE_EQ(max_flow_rate(make_model(8, 1, Connectivity::Eight), Connectivity::Eight), 0.5);
  EXPECT_DOUBLE_EQ(max_flow_rate(make_model(1, 8, Connectivity::Four), Connectivity::Four), 0.5);
}

// §5.1: moving q from the higher to the lower of two cells changes their difference by 2 q, so
// k = 1/2 brings the pair exactly to repose in one update.
TEST(ErosionFlowRate, TwoCellsReachReposeInOneUpdateAtHalfRate) {
  for (const bool along_x : {true, false}) {
    for (const bool first_higher : {true, false}) {
      const HeightmapModel m = along_x ? make_model(2, 1, Connectivity::Eight, 0.5)
                                       : make_model(1, 2, Connectivity::Eight, 0.5);
      HeightmapState s = HeightmapState::flat(m, 0.0);
      s.height_m[first_higher ? 0 : 1] = 0.1;
      std::vector<double> scratch;
      const double tan_repose = std::tan(m.erosion.repose_angle_rad);
      const ErosionUpdate u = update(m, s, m.whole(), scratch);
      EXPECT_NEAR(u.max_excess_m, 0.1 - m.cell_size_m * tan_repose, 1e-15);
      const double high = first_higher ? s.height_m[0] : s.height_m[1];
      const double low = first_higher ? s.height_m[1] : s.height_m[0];
      EXPECT_NEAR((high - low) / m.cell_size_m, tan_repose, 1e-12);
      EXPECT_NEAR(high + low, 0.1, 1e-15);
      EXPECT_NEAR(excess(m, s), 0.0, 1e-12);
    }
  }
}

// docs/erosion.md §2: a spike exchanging with its N = 4 neighbours at k = 1/(N+1) lands exactly
// on the repose slope: the centre loses 4 k e, each neighbour gains k e, the difference drops 5 k
// e.
TEST(ErosionFlowRate, SpikeReachesReposeInOneUpdateAtDefaultRateWithFourNeighbours) {
  const HeightmapModel m = make_model(5, 5, Connectivity::Four);
  HeightmapState s = HeightmapState::flat(m, 0.0);
  s.height_m[at(m, 2, 2)] = 0.2;
  std::vector<double> scratch;
  update(m, s, m.whole(), scratch);
  const double limit = m.cell_size_m * std::tan(m.erosion.repose_angle_rad);
  for (const auto& [i, j] : {std::pair{1, 2}, std::pair{3, 2}, std::pair{2, 1}, std::pair{2, 3}}) {
    EXPECT_NEAR(s.height_m[at(m, 2, 2)] - s.height_m[at(m, i, j)], limit, 1e-12);
  }
}

// With 8 neighbours the side pairs never overshoot at k = 1/9 (the diagonal pairs approach repose
// from below as the spike grows; docs/erosion.md §2).
TEST(ErosionFlowRate, SpikeSidePairsDoNotOvershootAtDefaultRateWithEightNeighbours) {
  const HeightmapModel m = make_model(5, 5, Connectivity::Eight);
  const double side = m.cell_size_m * std::tan(m.erosion.repose_angle_rad);
  const double diagonal = side * std::numbers::sqrt2;
  for (const double spike_m : {0.02, 0.2, 2.0, 200.0}) {
    HeightmapState s = HeightmapState::flat(m, 0.0);
    s.height_m[at(m, 2, 2)] = spike_m;
    std::vector<double> scratch;
    update(m, s, m.whole(), scratch);
    const double centre = s.height_m[at(m, 2, 2)];
    EXPECT_GE(centre - s.height_m[at(m, 1, 2)], side * (1 - 1e-12)) << spike_m;
    const double diagonal_diff = centre - s.height_m[at(m, 1, 1)];
    EXPECT_GT(diagonal_diff, 0.0) << spike_m;  // no sign flip
    EXPECT_LE(diagonal_diff, diagonal * (1 + 1e-12)) << spike_m;
  }
}

// docs/erosion.md §3: up to max_flow_rate every new height is a convex combination of old heights
// in its neighbourhood, so no column rises above the old maximum or sinks below the old minimum.
TEST(ErosionFlowRate, MaximumPrincipleHoldsAtTheMaxRate) {
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    HeightmapModel m = make_model(24, 20, c);
    m.erosion.flow_rate = max_flow_rate(m, m.erosion.connectivity);
    HeightmapState s = random_surface(m, 7, 0.0, 0.5);
    // A checkerboard block, the pattern that grows fastest above the bound.
    for (int j = 2; j < 10; ++j) {
      for (int i = 2; i < 10; ++i) s.height_m[at(m, i, j)] = (i + j) % 2 == 0 ? 1.0 : -1.0;
    }
    std::vector<double> scratch;
    for (int n = 0; n < 20; ++n) {
      const auto [lo, hi] = std::minmax_element(s.height_m.begin(), s.height_m.end());
      const double old_lo = *lo;
      const double old_hi = *hi;
      update(m, s, m.whole(), scratch);
      const auto [new_lo, new_hi] = std::minmax_element(s.height_m.begin(), s.height_m.end());
      EXPECT_LE(*new_hi, old_hi);
      EXPECT_GE(*new_lo, old_lo);
    }
  }
}

// ---- one update -------------------------------------------------------------------------------

TEST(ErosionUpdate, MatchesPairwiseReferenceOnRandomSurfaces) {
  std::vector<double> scratch;
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    const HeightmapModel m = make_model(19, 13, c);
    // Whole grid, inner boxes, and one- and two-cell-wide strips (the kernel's edge paths).
    const IndexBox regions[] = {m.whole(),     {3, 2, 15, 11}, {0, 4, 19, 5},   {7, 0, 8, 13},
                                {5, 5, 7, 12}, {1, 1, 3, 3},   {18, 12, 19, 13}};
    for (const double blocked_fraction : {0.0, 0.15}) {
      for (const IndexBox& r : regions) {
        HeightmapState s = random_surface(m, 11, 1.0, 0.05);
        block_randomly(s, 5, blocked_fraction);
        const std::vector<double> expected = reference_update(m, s, r);
        update(m, s, r, scratch);
        EXPECT_LT(max_abs_diff(s.height_m, expected), 1e-14)
            << "connectivity " << static_cast<int>(c) << ", region [" << r.i0 << ", " << r.i1
            << ") x [" << r.j0 << ", " << r.j1 << "), blocked " << blocked_fraction;
      }
    }
  }
}

TEST(ErosionUpdate, ConservesVolumeOnRandomSurfaces) {
  std::vector<double> scratch;
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    for (const unsigned seed : {1U, 2U, 3U}) {
      const HeightmapModel m = make_model(33, 29, c);
      HeightmapState s = random_surface(m, seed, 0.2, 0.1);
      block_randomly(s, seed + 10, 0.05);
      const double before = volume(s);
      for (int n = 0; n < 50; ++n) update(m, s, m.whole(), scratch);
      EXPECT_LT(std::abs(volume(s) - before) / before, 1e-12);
    }
  }
}

TEST(ErosionUpdate, FlatSurfaceDoesNotChange) {
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    const HeightmapModel m = make_model(17, 9, c);
    HeightmapState s = HeightmapState::flat(m, 0.3);
    std::vector<double> scratch;
    const ErosionUpdate u = update(m, s, m.whole(), scratch);
    EXPECT_TRUE(u.changed.empty());
    EXPECT_EQ(u.max_excess_m, 0.0);
    EXPECT_EQ(s.height_m, HeightmapState::flat(m, 0.3).height_m);
  }
}

// A square pyramid whose 4-neighbour steps are 1 cell * tan(repose) exactly (cell 1 m, the repose
// angle the smallest with tan >= 1): every side pair at repose, every diagonal pair below it.
TEST(ErosionUpdate, PileAtReposeDoesNotChange) {
  double repose = std::numbers::pi / 4;
  while (std::tan(repose) < 1.0) repose = std::nextafter(repose, 1.0);
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    HeightmapModel m = make_model(15, 11, c);
    m.cell_size_m = 1.0;
    m.erosion.repose_angle_rad = repose;
    HeightmapState s = HeightmapState::flat(m, 0.0);
    for (int j = 0; j < m.ny; ++j) {
      for (int i = 0; i < m.nx; ++i) {
        s.height_m[at(m, i, j)] = 10.0 - std::max(std::abs(i - 7), std::abs(j - 5));
      }
    }
    const std::vector<double> before = s.height_m;
    std::vector<double> scratch;
    const ErosionResult r = erode(m, s, m.whole(), scratch);
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.updates, 1);
    EXPECT_EQ(r.cells_updated, m.sample_count());
    EXPECT_EQ(r.max_excess_m, 0.0);
    EXPECT_EQ(s.height_m, before);
  }
}

TEST(ErosionUpdate, BlockedCellsKeepTheirHeightAndPassNoSand) {
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    const HeightmapModel m = make_model(20, 12, c);
    HeightmapState s = HeightmapState::flat(m, 0.1);
    // A wall of blocked cells at i = 8, a tall pile just left of it, a lone blocked spike inside
    // the pile and a blocked pit on the flat right side.
    for (int j = 0; j < m.ny; ++j) {
      s.blocked[at(m, 8, j)] = 1;
      s.height_m[at(m, 8, j)] = 0.5 + 0.01 * j;
    }
    for (int j = 3; j < 9; ++j) {
      for (int i = 4; i < 8; ++i) s.height_m[at(m, i, j)] = 0.4;
    }
    s.blocked[at(m, 5, 5)] = 1;
    s.height_m[at(m, 5, 5)] = 0.9;
    s.blocked[at(m, 14, 6)] = 1;
    s.height_m[at(m, 14, 6)] = -0.3;
    const HeightmapState before = s;
    double left_volume = 0.0;
    for (int j = 0; j < m.ny; ++j) {
      for (int i = 0; i < 8; ++i)
        left_volume += s.blocked[at(m, i, j)] ? 0.0 : s.height_m[at(m, i, j)];
    }
    std::vector<double> scratch;
    const ErosionResult r = erode(m, s, m.whole(), scratch);
    ASSERT_TRUE(r.converged);
    double left_after = 0.0;
    for (int j = 0; j < m.ny; ++j) {
      for (int i = 0; i < m.nx; ++i) {
        const std::size_t n = at(m, i, j);
        if (s.blocked[n] != 0 || i > 8) {
          EXPECT_EQ(s.height_m[n], before.height_m[n]) << "cell " << i << ", " << j;
        }
        if (i < 8 && s.blocked[n] == 0) left_after += s.height_m[n];
      }
    }
    EXPECT_NEAR(left_after, left_volume, 1e-13);
    EXPECT_NE(s.height_m[at(m, 4, 2)], before.height_m[at(m, 4, 2)]);  // the pile did spread
  }
}

TEST(ErosionUpdate, ReportsChangedBoxAndStartExcess) {
  const HeightmapModel m8 = make_model(12, 10, Connectivity::Eight);
  const HeightmapModel m4 = make_model(12, 10, Connectivity::Four);
  for (const HeightmapModel& m : {m8, m4}) {
    HeightmapState s = HeightmapState::flat(m, 0.0);
    s.height_m[at(m, 5, 7)] = 0.1;
    const HeightmapState before = s;
    std::vector<double> scratch;
    const ErosionUpdate u = update(m, s, m.whole(), scratch);
    EXPECT_EQ(u.changed.i0, 4);
    EXPECT_EQ(u.changed.i1, 7);
    EXPECT_EQ(u.changed.j0, 6);
    EXPECT_EQ(u.changed.j1, 9);
    EXPECT_NEAR(u.max_excess_m, 0.1 - m.cell_size_m * std::tan(m.erosion.repose_angle_rad), 1e-15);
    for (int j = 0; j < m.ny; ++j) {
      for (int i = 0; i < m.nx; ++i) {
        const bool inside = i >= 4 && i < 7 && j >= 6 && j < 9;
        if (!inside) {
          EXPECT_EQ(s.height_m[at(m, i, j)], before.height_m[at(m, i, j)]);
        }
      }
    }
  }
}

TEST(ErosionUpdate, RegionEdgeIsAClosedWall) {
  const HeightmapModel m = make_model(10, 10, Connectivity::Eight);
  HeightmapState s = HeightmapState::flat(m, 0.0);
  s.height_m[at(m, 4, 4)] = 0.1;  // on the region's lower-left corner
  const HeightmapState before = s;
  const IndexBox region{4, 4, 8, 8};
  std::vector<double> scratch;
  update(m, s, region, scratch);
  double inside = 0.0;
  for (int j = 0; j < m.ny; ++j) {
    for (int i = 0; i < m.nx; ++i) {
      const bool in_region = i >= 4 && i < 8 && j >= 4 && j < 8;
      if (in_region) inside += s.height_m[at(m, i, j)];
      if (!in_region) {
        EXPECT_EQ(s.height_m[at(m, i, j)], before.height_m[at(m, i, j)]);
      }
    }
  }
  EXPECT_NEAR(inside, 0.1, 1e-15);
  EXPECT_LT(s.height_m[at(m, 4, 4)], 0.1);
}

TEST(ErosionUpdate, BitIdenticalForAnyThreadCount) {
  const RestoreOmpThreads restore_threads;
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    // Larger than the single-thread cut-off so that the rows are split between threads.
    const HeightmapModel m = make_model(150, 131, c);
    HeightmapState start = random_surface(m, 3, 0.0, 0.05);
    block_randomly(start, 4, 0.02);
    std::vector<std::vector<double>> results;
    for (const int threads : {1, 2, 3}) {
      omp_set_num_threads(threads);
      HeightmapState s = start;
      std::vector<double> scratch;
      for (int n = 0; n < 5; ++n) update(m, s, m.whole(), scratch);
      update(m, s, {1, 2, 149, 130}, scratch);
      results.push_back(s.height_m);
    }
    EXPECT_EQ(results[0], results[1]);
    EXPECT_EQ(results[0], results[2]);
  }
}

TEST(ErosionUpdate, EmptyRegionDoesNothing) {
  const HeightmapModel m = make_model(6, 6, Connectivity::Eight);
  HeightmapState s = random_surface(m, 1, 0.0, 1.0);
  const HeightmapState before = s;
  std::vector<double> scratch;
  const ErosionUpdate u = update(m, s, {3, 3, 3, 5}, scratch);
  EXPECT_TRUE(u.changed.empty());
  EXPECT_EQ(s.height_m, before.height_m);
}

// ---- to steady state --------------------------------------------------------------------------

TEST(ErosionSteadyState, RandomPilesEndAtRepose) {
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    for (const unsigned seed : {1U, 2U}) {
      const HeightmapModel m = make_model(28, 24, c);
      HeightmapState s = random_piles(m, seed);
      const double before = volume(s);
      std::vector<double> scratch;
      const ErosionResult r = erode(m, s, m.whole(), scratch);
      EXPECT_TRUE(r.converged);
      EXPECT_GT(r.updates, 1);
      EXPECT_LE(r.max_excess_m, m.erosion.tolerance_m);
      EXPECT_LE(excess(m, s), 1e-6);
      EXPECT_LT(std::abs(volume(s) - before) / before, 1e-12);
    }
  }
}

TEST(ErosionSteadyState, RegionLimitedIterationMatchesFullGrid) {
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    const HeightmapModel m = make_model(40, 36, c);
    HeightmapState s = HeightmapState::flat(m, 0.1);
    // A pile dumped by a tool near a corner and a trench dug beside it.
    for (int j = 4; j < 8; ++j) {
      for (int i = 5; i < 9; ++i) s.height_m[at(m, i, j)] = 0.25;
    }
    for (int i = 10; i < 14; ++i) s.height_m[at(m, i, 6)] = 0.02;
    HeightmapState full = s;
    std::vector<double> scratch;
    const ErosionResult r = erode(m, s, {5, 4, 14, 8}, scratch);
    ASSERT_TRUE(r.converged);
    int updates = 0;
    for (;;) {
      ++updates;
      if (update(m, full, m.whole(), scratch).max_excess_m <= m.erosion.tolerance_m) break;
    }
    EXPECT_EQ(r.updates, updates);
    EXPECT_LT(max_abs_diff(s.height_m, full.height_m), 1e-12);
    EXPECT_GT(r.cells_updated, 0);
    EXPECT_LT(r.cells_updated, static_cast<long long>(updates) * m.sample_count());
  }
}

// Regions below min_cells_for_threads are updated in a held copy with a ring of blocked cells
// (core/erosion.cpp); at min_cells_for_threads = 1 every region goes through the rows instead.
// The two must agree bit for bit, at the grid's edges, next to blocked cells and when the region
// changes between updates.
TEST(ErosionSteadyState, HeldCopyAndRowPathsAgreeBitForBit) {
  for (const Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
    HeightmapModel held = make_model(23, 17, c);
    HeightmapModel rows = held;
    rows.erosion.min_cells_for_threads = 1;
    const IndexBox actives[] = {held.whole(), {0, 0, 3, 17}, {20, 14, 23, 17}, {6, 5, 9, 7}};
    for (const double blocked_fraction : {0.0, 0.1}) {
      for (const IndexBox& active : actives) {
        HeightmapState a = random_piles(held, 21);
        block_randomly(a, 8, blocked_fraction);
        // A tool's spike in the active box, at a free cell, so that sand flows from it.
        const std::size_t spike = at(held, active.i0, active.j0);
        a.blocked[spike] = 0;
        a.height_m[spike] += 0.3;
        HeightmapState b = a;
        std::vector<double> scratch_a;
        std::vector<double> scratch_b;
        const ErosionResult ra = erode(held, a, active, scratch_a);
        const ErosionResult rb = erode(rows, b, active, scratch_b);
        const std::string where = "connectivity " + std::to_string(static_cast<int>(c)) +
                                  ", blocked " + std::to_string(blocked_fraction) + ", active [" +
                                  std::to_string(active.i0) + ", " + std::to_string(active.i1) +
                                  ") x [" + std::to_string(active.j0) + ", " +
                                  std::to_string(active.j1) + ")";
        EXPECT_EQ(a.height_m, b.height_m) << where;
        EXPECT_EQ(ra.updates, rb.updates) << where;
        EXPECT_EQ(ra.cells_updated, rb.cells_updated) << where;
        EXPECT_EQ(ra.max_excess_m, rb.max_excess_m) << where;
        EXPECT_GT(ra.updates, 2) << where;  // the piles flow: the held copy is reused
      }
      // One update of an inner region, with its changed box.
      const IndexBox inner{4, 3, 15, 12};
      HeightmapState ua = random_surface(held, 5, 1.0, 0.05);
      block_randomly(ua, 9, blocked_fraction);
      HeightmapState ub = ua;
      std::vector<double> scratch;
      const ErosionUpdate ea = update(held, ua, inner, scratch);
      const ErosionUpdate eb = update(rows, ub, inner, scratch);
      EXPECT_EQ(ua.height_m, ub.height_m) << "one update, blocked " << blocked_fraction;
      EXPECT_EQ(ea.changed, eb.changed) << "one update, blocked " << blocked_fraction;
      EXPECT_EQ(ea.max_excess_m, eb.max_excess_m) << "one update, blocked " << blocked_fraction;
    }
  }
}

TEST(ErosionSteadyState, ReportsNonConvergenceAfterMaxUpdates) {
  HeightmapModel m = make_model(16, 16, Connectivity::Eight);
  m.erosion.max_updates = 3;
  HeightmapState s = HeightmapState::flat(m, 0.0);
  s.height_m[at(m, 8, 8)] = 1.0;
  std::vector<double> scratch;
  const ErosionResult r = erode(m, s, {8, 8, 9, 9}, scratch);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.updates, 3);
  EXPECT_GT(r.max_excess_m, m.erosion.tolerance_m);
}

TEST(ErosionSteadyState, ActiveBoxIsClampedAndEmptyMeansAtRest) {
  const HeightmapModel m = make_model(10, 10, Connectivity::Four);
  HeightmapState s = HeightmapState::flat(m, 0.0);
  s.height_m[at(m, 0, 0)] = 0.1;
  std::vector<double> scratch;
  const ErosionResult none = erode(m, s, {20, 20, 30, 30}, scratch);
  EXPECT_TRUE(none.converged);
  EXPECT_EQ(none.updates, 0);
  EXPECT_EQ(s.height_m[0], 0.1);
  const ErosionResult r = erode(m, s, {-5, -5, 1, 1}, scratch);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(s.height_m[0], 0.1);
  EXPECT_LE(excess(m, s), 1e-6);
}

TEST(ErosionSteadyState, NonFiniteHeightNamesTheCellAndUpdate) {
  const HeightmapModel m = make_model(12, 10, Connectivity::Eight);
  std::vector<double> scratch;
  {
    HeightmapState s = random_piles(m, 3);
    s.height_m[at(m, 3, 4)] = std::numeric_limits<double>::quiet_NaN();
    try {
      erode(m, s, m.whole(), scratch);
      FAIL() << "no error";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("(3, 4)"), std::string::npos) << what;
      EXPECT_NE(what.find("update 1"), std::string::npos) << what;
    }
  }
  {
    // Outside the first region: found when the spreading pile's region reaches it.
    HeightmapState s = HeightmapState::flat(m, 0.0);
    s.height_m[at(m, 2, 2)] = 1.0;
    s.height_m[at(m, 7, 2)] = std::numeric_limits<double>::infinity();
    try {
      erode(m, s, {2, 2, 3, 3}, scratch);
      FAIL() << "no error";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("(7, 2)"), std::string::npos) << what;
      EXPECT_NE(what.find("update 5"), std::string::npos) << what;
    }
  }
  {
    HeightmapState s = HeightmapState::flat(m, 0.0);
    s.height_m[at(m, 9, 8)] = -std::numeric_limits<double>::infinity();
    EXPECT_THROW(update(m, s, m.whole(), scratch), std::runtime_error);
  }
}

// ---- max_repose_excess ------------------------------------------------------------------------

TEST(ErosionMaxReposeExcess, MeasuresTheSteepestUnblockedPair) {
  HeightmapModel m = make_model(5, 4, Connectivity::Eight);
  const double side = m.cell_size_m * std::tan(m.erosion.repose_angle_rad);
  const double diagonal =
      m.cell_size_m * std::numbers::sqrt2 * std::tan(m.erosion.repose_angle_rad);
  HeightmapState s = HeightmapState::flat(m, 0.0);
  EXPECT_EQ(excess(m, s), 0.0);
  s.height_m[at(m, 1, 1)] = side;  // side pairs exactly at their limit, diagonals below
  EXPECT_NEAR(excess(m, s), 0.0, 1e-18);
  s.height_m[at(m, 1, 1)] = 0.05;
  EXPECT_NEAR(excess(m, s), 0.05 - side, 1e-15);

  // On a 2 x 2 grid a corner at 1.8 side lengths above the opposite corner, the other two halfway:
  // the side pairs are below repose, only the diagonal is steep.
  m = make_model(2, 2, Connectivity::Eight);
  s = HeightmapState::flat(m, 0.9 * side);
  s.height_m[at(m, 0, 0)] = 1.8 * side;
  s.height_m[at(m, 1, 1)] = 0.0;
  EXPECT_NEAR(excess(m, s), 1.8 * side - diagonal, 1e-15);
  HeightmapModel m4 = m;
  m4.erosion.connectivity = Connectivity::Four;
  EXPECT_EQ(excess(m4, s), 0.0);
  s.blocked[at(m, 0, 0)] = 1;
  EXPECT_EQ(excess(m, s), 0.0);
  s.height_m[at(m, 1, 1)] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(excess(m, s)));
}

// ---- validation -------------------------------------------------------------------------------

void expect_invalid(const HeightmapModel& m, const std::string& field, const std::string& range) {
  try {
    validate(m);
    FAIL() << "no error for " << field;
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(field), std::string::npos) << what;
    EXPECT_NE(what.find(range), std::string::npos) << what;
  }
}

TEST(ErosionValidate, NamesTheFieldAndTheRange) {
  const HeightmapModel good = make_model(8, 8, Connectivity::Eight);
  EXPECT_NO_THROW(validate(good));
  HeightmapModel m = good;
  m.nx = 0;
  expect_invalid(m, "HeightmapGrid.nx", ">= 1");
  m = good;
  m.ny = -3;
  expect_invalid(m, "HeightmapGrid.ny", ">= 1");
  m = good;
  m.nx = 1 << 16;
  m.ny = 1 << 16;
  expect_invalid(m, "nx * ny", "<=");
  m = good;
  m.cell_size_m = 0.0;
  expect_invalid(m, "HeightmapGrid.cell_size_m", "> 0 and finite");
  m.cell_size_m = std::numeric_limits<double>::infinity();
  expect_invalid(m, "HeightmapGrid.cell_size_m", "> 0 and finite");
  m = good;
  m.erosion.repose_angle_rad = std::numbers::pi / 2;
  expect_invalid(m, "ErosionParameters.repose_angle_rad", "(0, pi/2)");
  m.erosion.repose_angle_rad = std::numeric_limits<double>::quiet_NaN();
  expect_invalid(m, "ErosionParameters.repose_angle_rad", "(0, pi/2)");
  m = good;
  m.erosion.connectivity = static_cast<Connectivity>(6);
  expect_invalid(m, "ErosionParameters.connectivity", "Four (4) or Eight (8)");
  m = good;
  m.erosion.flow_rate = 0.2;  // above 1/8 for 8-connectivity
  expect_invalid(m, "ErosionParameters.flow_rate", "(0, 0.125]");
  m.erosion.flow_rate = -0.1;
  expect_invalid(m, "ErosionParameters.flow_rate", "(0, 0.125]");
  m.erosion.connectivity = Connectivity::Four;
  m.erosion.flow_rate = 0.3;
  expect_invalid(m, "ErosionParameters.flow_rate", "(0, 0.25]");
  m.erosion.flow_rate = 0.25;
  EXPECT_NO_THROW(validate(m));
  m.nx = 1;
  m.erosion.flow_rate = 0.5;
  EXPECT_NO_THROW(validate(m));
  m = good;
  m.erosion.tolerance_m = 0.0;
  expect_invalid(m, "ErosionParameters.tolerance_m", "> 0 and finite");
  m = good;
  m.erosion.max_updates = 0;
  expect_invalid(m, "ErosionParameters.max_updates", ">= 1");
}

TEST(ErosionValidate, RejectsMismatchedStateAndRegion) {
  const HeightmapModel m = make_model(8, 6, Connectivity::Eight);
  std::vector<double> scratch;
  HeightmapState s = HeightmapState::flat(m, 0.0);
  s.height_m.pop_back();
  EXPECT_THROW(update(m, s, m.whole(), scratch), std::invalid_argument);
  s = HeightmapState::flat(m, 0.0);
  s.blocked.clear();
  try {
    erode(m, s, m.whole(), scratch);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("blocked must hold nx * ny = 48 values, got 0"),
              std::string::npos);
  }
  s = HeightmapState::flat(m, 0.0);
  try {
    update(m, s, {0, 0, 9, 6}, scratch);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("region must lie inside the grid"), std::string::npos);
  }
  EXPECT_THROW(update(m, s, {-1, 0, 3, 3}, scratch), std::invalid_argument);
  EXPECT_THROW(default_flow_rate(static_cast<Connectivity>(5)), std::invalid_argument);
}

}  // namespace
}  // namespace talus::shaping
