// Particle tier throughput (paper 001 Fig. 3 and Fig. 6's case): particles at rest in a tall
// cylindrical column, the case with the most contacts per particle.
//
// The column: 5 mm particles start on a simple cubic lattice of touching spheres cut to a
// vertical cylinder whose height is ~4.5 diameters; the cylinder is the container's curved wall
// (Container::kCylinder: analytic walls, no SDF body). The lattice is not a resting state: it
// collapses into a denser packing over the first ~1,000 steps (the top falls from 1.07 to
// 0.78 m at 50k, the distinct contacts per particle rise from 2.9 to 4.5), and a step of the
// settled column costs about twice one of the lattice's first steps. So the column first settles
// for kSettleSteps steps (same model, 4 sweeps), and that state is cached in
// <binary folder>/../bench_cache/ (particle state files; delete the folder after a solver change
// to settle again). Settling takes ~5 s, ~30 s and ~2.5 min (1,200 steps at the settled per-step
// cost) for 10k, 50k and 200k on 2 cores, once. 20 steps before timing fill the warm-start
// impulses. 4 Jacobi sweeps.
//
// Reported: particle_steps_per_s (rate), contacts per particle, and per-step milliseconds of each
// stage (broadphase, contacts, solve, integrate = predict + wrenches + integrate + checks).

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <tuple>

#include "core/units.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_io.hpp"
#include "particles/particle_step.hpp"

namespace talus::particles {
namespace {

constexpr double kRadius = 0.005;
// Steps from the lattice to the settled column (50k: kinetic energy 1e-3 J, fastest particle
// 0.4 m/s, top 0.78 m; the per-step cost is flat from ~450 steps on).
constexpr int kSettleSteps = 1200;

struct Column {
  ParticleModel model;
  ParticleState state;
};

// A column of n particles: cylinder radius from n = pi R^2 H / (2r)^3 with H = 9 R.
Column make_column(std::size_t n) {
  const double d = 2.0 * kRadius;
  const double r_cyl = std::cbrt(static_cast<double>(n) * d * d * d / (9.0 * kPi)) + kRadius;
  Column c;
  c.model.dt_s = 1e-3;
  c.model.iterations = 4;
  c.model.contact_margin_m = 0.1 * kRadius;
  c.model.container.kind = Container::Kind::kCylinder;
  c.model.container.cylinder_radius_m = r_cyl;
  c.model.container.box = Aabb{Vec3(-r_cyl, -r_cyl, 0.0), Vec3(r_cyl, r_cyl, 40.0 * r_cyl)};
  LatticeBed bed;
  bed.radius_m = kRadius;
  bed.spacing_factor = 1.0;
  bed.jitter = 0.0;
  bed.cylinder_radius_m = r_cyl - 1.01 * kRadius;
  bed.region = Aabb{Vec3(-r_cyl, -r_cyl, kRadius), Vec3(r_cyl, r_cyl, 39.0 * r_cyl)};
  bed.max_particles = n;
  c.state = make_lattice_bed(bed);
  return c;
}

// The cache folder: bench_cache next to the folder of the running binary (build/bench_cache).
std::filesystem::path cache_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::temp_directory_path() / "talus_bench_cache"
            : exe.parent_path().parent_path() / "bench_cache";
}

// The lattice column settled for kSettleSteps, loaded from the cache or settled and saved
// (written to a temporary name and renamed, so an interrupted run leaves no partial file).
void settle(Column& c, std::size_t n) {
  const std::filesystem::path file =
      cache_dir() / ("column_n" + std::to_string(n) + "_settle" + std::to_string(kSettleSteps) +
                     "_r5mm_margin0.1r_v1.tps");
  if (std::filesystem::exists(file)) {
    c.state = load_particle_state(file);
    return;
  }
  std::fprintf(stderr, "bench: settling the %zu-particle column for %d steps (cached in %s)\n", n,
               kSettleSteps, file.string().c_str());
  ParticleWorkspace w;
  for (int k = 0; k < kSettleSteps; ++k) step(c.model, c.state, {}, w);
  std::filesystem::create_directories(file.parent_path());
  const std::filesystem::path part = file.string() + ".part" + std::to_string(::getpid());
  save_particle_state(c.state, part);
  std::filesystem::rename(part, file);
}

const Column& column(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<Column>> cache;
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<Column>(make_column(n));
    check_initial_state(slot->model, slot->state);
    settle(*slot, n);
  }
  return *slot;
}

void run_column(benchmark::State& bench, std::size_t n, int threads, Broadphase kind,
                double table_factor) {
  Column c = column(n);
  c.model.threads = threads;
  c.model.broadphase = kind;
  c.model.hash_table_factor = table_factor;
  ParticleWorkspace w;
  for (int k = 0; k < 20; ++k) step(c.model, c.state, {}, w);
  w.times = StageTimes{};
  for (auto _ : bench) step(c.model, c.state, {}, w);
  const double steps = static_cast<double>(bench.iterations());
  bench.counters["particle_steps_per_s"] =
      benchmark::Counter(static_cast<double>(n) * steps, benchmark::Counter::kIsRate);
  bench.counters["contacts_per_particle"] =
      static_cast<double>(distinct_contact_count(w.contacts)) / static_cast<double>(n);
  bench.counters["broadphase_ms"] = 1e3 * w.times.broadphase_s / steps;
  bench.counters["contacts_ms"] = 1e3 * w.times.contacts_s / steps;
  bench.counters["solve_ms"] = 1e3 * w.times.solve_s / steps;
  bench.counters["integrate_ms"] = 1e3 * w.times.integrate_s / steps;
  bench.counters["max_speed_m_per_s"] = [&] {
    double v = 0.0;
    for (std::size_t i = 0; i < c.state.size(); ++i) {
      v = std::max(v, std::sqrt(double(c.state.vx_m_per_s[i]) * c.state.vx_m_per_s[i] +
                                double(c.state.vy_m_per_s[i]) * c.state.vy_m_per_s[i] +
                                double(c.state.vz_m_per_s[i]) * c.state.vz_m_per_s[i]));
    }
    return v;
  }();
}

// Args: particles, threads, broadphase (0 sorted cells, 1 linked hash).
void BM_ParticleColumnAtRest(benchmark::State& bench) {
  run_column(bench, static_cast<std::size_t>(bench.range(0)), static_cast<int>(bench.range(1)),
             bench.range(2) == 0 ? Broadphase::kSortedCells : Broadphase::kLinkedHash, 2.0);
}
BENCHMARK(BM_ParticleColumnAtRest)
    ->ArgsProduct({{10000, 50000, 200000}, {1, 2}, {0, 1}})
    ->ArgNames({"particles", "threads", "linked"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);

// Paper 001 Fig. 3: hash table size from 0.5x to 8x the particle count (50k particles, 2
// threads). Args: table factor x 10, broadphase.
void BM_ParticleHashTableSize(benchmark::State& bench) {
  run_column(bench, 50000, 2,
             bench.range(1) == 0 ? Broadphase::kSortedCells : Broadphase::kLinkedHash,
             static_cast<double>(bench.range(0)) / 10.0);
}
BENCHMARK(BM_ParticleHashTableSize)
    ->ArgsProduct({{5, 10, 20, 40, 80}, {0, 1}})
    ->ArgNames({"table_x10", "linked"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);

}  // namespace
}  // namespace talus::particles
