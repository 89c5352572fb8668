// Benchmarks of angle-of-repose erosion (core/erosion.hpp), and the flow-rate sweep behind the
// defaults chosen in docs/erosion.md §5.
//
//   ErosionUpdateFullGrid/n/conn   one update of an n x n rough surface (every cell active);
//                                  items_per_second = cell updates per second (wall clock)
//   ErosionSteadyStateColumn/n     a single tall column on an n x n flat bed eroded to rest;
//                                  counter `updates`, items = cell updates actually made
//   ErosionFlowRateSweep/case/conn/k  updates to rest and overshoot counts for one flow rate
//                                  (a plain reference loop, so rates above the validated bound run)
//
// Thread count: OMP_NUM_THREADS (counter `threads`).

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

#include "core/erosion.hpp"
#include "core/units.hpp"
#include "shaping/heightmap.hpp"

namespace talus::shaping {
namespace {

HeightmapModel bench_model(int n, Connectivity connectivity) {
  HeightmapModel m;
  m.nx = n;
  m.ny = n;
  m.cell_size_m = 0.01;
  m.erosion.repose_angle_rad = deg_to_rad(29.0);  // paper 003 Table 1
  m.erosion.connectivity = connectivity;
  return m;
}

Connectivity connectivity_arg(std::int64_t arg) {
  return arg == 4 ? Connectivity::Four : Connectivity::Eight;
}

// Heights uniform in [0, 100) m on 1 cm cells: slopes of thousands against a repose limit of
// 0.55, so every cell keeps flowing however long the benchmark runs (volume is conserved and the
// large-scale roughness would take ~n^2 / k updates to smooth out).
void ErosionUpdateFullGrid(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const HeightmapModel m = bench_model(n, connectivity_arg(state.range(1)));
  HeightmapState s = HeightmapState::flat(m, 0.0);
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(0.0, 100.0);
  for (double& h : s.height_m) h = u(rng);
  std::vector<double> scratch;
  ErosionUpdate last;
  for (auto _ : state) {
    last = erosion_update(m, m.erosion, s.height_m, s.blocked, m.whole(), scratch);
    benchmark::DoNotOptimize(s.height_m.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(m.sample_count()));
  state.counters["threads"] = omp_get_max_threads();
  const double changed = static_cast<double>(last.changed.i1 - last.changed.i0) *
                         static_cast<double>(last.changed.j1 - last.changed.j0);
  state.counters["active_box_fraction"] = changed / m.sample_count();
}
BENCHMARK(ErosionUpdateFullGrid)
    ->ArgNames({"n", "conn"})
    ->ArgsProduct({{160, 1024}, {8, 4}})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// A column holding the volume of a repose cone of radius n/4 cells, dropped in the middle.
void ErosionSteadyStateColumn(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const HeightmapModel m = bench_model(n, Connectivity::Eight);
  const double limit_m = m.cell_size_m * std::tan(m.erosion.repose_angle_rad);
  const double radius_cells = n / 4.0;
  const double column_m =
      std::numbers::pi * radius_cells * radius_cells * radius_cells * limit_m / 3;
  const HeightmapState start = [&] {
    HeightmapState s = HeightmapState::flat(m, 0.0);
    s.height_m[static_cast<std::size_t>(n / 2) * n + n / 2] = column_m;
    return s;
  }();
  const IndexBox active{n / 2, n / 2, n / 2 + 1, n / 2 + 1};
  std::vector<double> scratch;
  ErosionResult r;
  long long cells_updated = 0;
  for (auto _ : state) {
    state.PauseTiming();
    HeightmapState s = start;
    state.ResumeTiming();
    r = erode_to_steady_state(m, m.erosion, s.height_m, s.blocked, active, scratch);
    benchmark::DoNotOptimize(s.height_m.data());
    cells_updated += r.cells_updated;
  }
  state.SetItemsProcessed(cells_updated);
  state.counters["updates"] = r.updates;
  state.counters["converged"] = r.converged ? 1 : 0;
  state.counters["threads"] = omp_get_max_threads();
}
BENCHMARK(ErosionSteadyStateColumn)
    ->ArgName("n")
    ->Arg(32)
    ->Arg(160)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// ---- flow-rate sweep (docs/erosion.md §5) -----------------------------------------------------

enum class SweepCase : int { Spike = 0, Trench = 1, Checkerboard = 2, Rough = 3 };

struct SweepGrid {
  HeightmapModel model;
  HeightmapState state;
};

// 64 x 64 cells of 1 cm, repose 29 degrees (limit 5.5 mm per side pair).
SweepGrid sweep_grid(SweepCase c, Connectivity connectivity) {
  SweepGrid g{bench_model(64, connectivity), {}};
  const HeightmapModel& m = g.model;
  HeightmapState& s = g.state;
  s = HeightmapState::flat(m, 0.1);
  const auto h = [&](int i, int j) -> double& {
    return s.height_m[static_cast<std::size_t>(j) * m.nx + i];
  };
  switch (c) {
    case SweepCase::Spike:  // a tool drops a 0.5 m column
      h(32, 32) += 0.5;
      break;
    case SweepCase::Trench:  // a 4-cell-wide, 5 cm deep vertical-walled trench across the bed
      for (int j = 0; j < m.ny; ++j) {
        for (int i = 30; i < 34; ++i) h(i, j) -= 0.05;
      }
      break;
    case SweepCase::Checkerboard:  // +-5 cm checkerboard, 16 x 16 cells
      for (int j = 24; j < 40; ++j) {
        for (int i = 24; i < 40; ++i) h(i, j) += (i + j) % 2 == 0 ? 0.05 : -0.05;
      }
      break;
    case SweepCase::Rough: {  // white noise, 5 cm
      std::mt19937 rng(7);
      std::uniform_real_distribution<double> u(0.0, 0.05);
      for (double& v : s.height_m) v += u(rng);
      break;
    }
  }
  return g;
}

struct SweepOutcome {
  int updates = 0;
  bool converged = false;
  bool diverged = false;
  long sign_flips = 0;   // a pair that flowed ends its update with the opposite sign of difference
  long reversals = 0;    // a pair that flowed one way flows the other way in the next update
  long new_extrema = 0;  // cells that rose above / sank below every old height around them
};

// The flow rule pair by pair, as in the derivation; no validation so any rate can be tried.
SweepOutcome run_sweep(const HeightmapModel& m, HeightmapState s, double k, int max_updates) {
  const double tan_repose = std::tan(m.erosion.repose_angle_rad);
  const bool eight = m.erosion.connectivity == Connectivity::Eight;
  const int offsets[4][2] = {{1, 0}, {0, 1}, {1, 1}, {-1, 1}};
  const int pair_kinds = eight ? 4 : 2;
  const auto idx = [&](int i, int j) { return static_cast<std::size_t>(j) * m.nx + i; };
  std::vector<std::int8_t> last_dir(s.height_m.size() * 4, 0);
  std::vector<std::int8_t> dir(last_dir.size(), 0);
  std::vector<double> next;
  SweepOutcome out;
  for (int n = 1; n <= max_updates; ++n) {
    next = s.height_m;
    double worst = 0.0;
    for (int j = 0; j < m.ny; ++j) {
      for (int i = 0; i < m.nx; ++i) {
        for (int p = 0; p < pair_kinds; ++p) {
          const int in = i + offsets[p][0];
          const int jn = j + offsets[p][1];
          std::int8_t& d_dir = dir[idx(i, j) * 4 + p];
          d_dir = 0;
          if (in < 0 || in >= m.nx || jn >= m.ny) continue;
          const double dist = p < 2 ? m.cell_size_m : m.cell_size_m * std::numbers::sqrt2;
          const double d = s.height_m[idx(i, j)] - s.height_m[idx(in, jn)];
          const double e = std::abs(d) - dist * tan_repose;
          if (!(e > 0.0)) continue;
          worst = std::max(worst, e);
          const double q = k * std::copysign(e, d);
          next[idx(i, j)] -= q;
          next[idx(in, jn)] += q;
          d_dir = d > 0.0 ? 1 : -1;
          if (d_dir * last_dir[idx(i, j) * 4 + p] < 0) ++out.reversals;
        }
      }
    }
    // Sign flips and new extrema, judged on the update just made.
    for (int j = 0; j < m.ny; ++j) {
      for (int i = 0; i < m.nx; ++i) {
        double lo = s.height_m[idx(i, j)];
        double hi = lo;
        for (int dj = -1; dj <= 1; ++dj) {
          for (int di = -1; di <= 1; ++di) {
            const int in = i + di;
            const int jn = j + dj;
            if (in < 0 || in >= m.nx || jn < 0 || jn >= m.ny) continue;
            if (!eight && di != 0 && dj != 0) continue;
            lo = std::min(lo, s.height_m[idx(in, jn)]);
            hi = std::max(hi, s.height_m[idx(in, jn)]);
          }
        }
        if (next[idx(i, j)] > hi || next[idx(i, j)] < lo) ++out.new_extrema;
        for (int p = 0; p < pair_kinds; ++p) {
          const std::int8_t d_dir = dir[idx(i, j) * 4 + p];
          if (d_dir == 0) continue;
          const int in = i + offsets[p][0];
          const int jn = j + offsets[p][1];
          if (d_dir * (next[idx(i, j)] - next[idx(in, jn)]) < 0.0) ++out.sign_flips;
        }
      }
    }
    s.height_m.swap(next);
    last_dir.swap(dir);
    out.updates = n;
    if (!std::isfinite(worst) || worst > 1e3) {
      out.diverged = true;
      return out;
    }
    if (worst <= m.erosion.tolerance_m) {
      out.converged = true;
      return out;
    }
  }
  return out;
}

void ErosionFlowRateSweep(benchmark::State& state) {
  const auto c = static_cast<SweepCase>(state.range(0));
  const Connectivity connectivity = connectivity_arg(state.range(1));
  const double k = 1.0 / static_cast<double>(state.range(2));
  const SweepGrid g = sweep_grid(c, connectivity);
  SweepOutcome out;
  for (auto _ : state) out = run_sweep(g.model, g.state, k, 20000);
  state.counters["updates"] = out.updates;
  state.counters["converged"] = out.converged ? 1 : 0;
  state.counters["diverged"] = out.diverged ? 1 : 0;
  state.counters["sign_flips"] = static_cast<double>(out.sign_flips);
  state.counters["reversals"] = static_cast<double>(out.reversals);
  state.counters["new_extrema"] = static_cast<double>(out.new_extrema);
}
// case: 0 spike, 1 trench, 2 checkerboard, 3 rough; conn: 4 or 8; k = 1 / inv_k.
BENCHMARK(ErosionFlowRateSweep)
    ->ArgNames({"case", "conn", "inv_k"})
    ->ArgsProduct({{0, 1, 2, 3}, {4}, {2, 3, 4, 5, 6, 8, 10}})
    ->ArgsProduct({{0, 1, 2, 3}, {8}, {4, 6, 7, 8, 9, 10, 12, 16}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace talus::shaping
