// Particle tier throughput (paper 001 Fig. 3 and Fig. 6's case): particles at rest in a tall
// cylindrical column, the case with the most contacts per particle.
//
// The column: 5 mm particles start on a lattice (spacing 1.05 diameters, horizontal jitter 0.8 of
// the gap) cut to a vertical cylinder whose height is ~4.5 diameters; the cylinder is the
// container's curved wall (Container::kCylinder: analytic walls, no SDF body). The lattice is not
// a resting state: it collapses into a denser packing (a step of the settled column costs about
// twice one of the lattice's first steps). So the column first settles for kSettleSteps steps
// (same model, 4 sweeps) and that state, with its contact impulses (the warm start: a column
// restarted cold is not at rest), is cached in <binary folder>/../bench_cache/; delete the
// folder after a solver change to settle again. Settling takes ~5 s, ~30 s and ~3 min for 10k,
// 50k and 200k on 2 cores, once (3,000 steps at the measured per-step costs). The jitter matters:
// an unjittered lattice left vertical chains of touching spheres along the wall that stood for
// thousands of steps and then fell at 0.3-0.5 m/s, so the old 1,200-step "settled" column was still
// collapsing while it was timed. 20 steps before timing. 4 Jacobi sweeps.
//
// Reported: particle_steps_per_s (rate), contacts per particle, and per-step milliseconds of each
// stage (broadphase, contacts, solve, integrate = predict + wrenches + integrate + checks).

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/units.hpp"
#include "particles/bulldozing_env_batch.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_io.hpp"
#include "particles/particle_order.hpp"
#include "particles/particle_step.hpp"

namespace talus::particles {
namespace {

constexpr double kRadius = 0.005;
// Steps from the lattice to the settled column (50k: fastest particle 0.019 m/s, top 0.79 m).
constexpr int kSettleSteps = 3000;

struct Column {
  ParticleModel model;
  ParticleState state;
  ContactList warm;  ///< the settled column's last contacts: the timed run's warm start
};

// A column of n particles: cylinder radius from n = pi R^2 H / (2r)^3 with H = 9 R; rotating
// grains (rolling friction 0.1, the defaults) or paper 001's.
Column make_column(std::size_t n, bool rotation) {
  const double d = 2.0 * kRadius;
  const double r_cyl = std::cbrt(static_cast<double>(n) * d * d * d / (9.0 * kPi)) + kRadius;
  Column c;
  c.model.time_step_s = 1e-3;
  c.model.iterations = 4;
  c.model.rotation = rotation;
  c.model.contact_margin_m = 0.1 * kRadius;
  c.model.container.kind = Container::Kind::kCylinder;
  c.model.container.cylinder_radius_m = r_cyl;
  c.model.container.box = Aabb{Vec3(-r_cyl, -r_cyl, 0.0), Vec3(r_cyl, r_cyl, 40.0 * r_cyl)};
  LatticeBed bed;
  bed.radius_m = kRadius;
  bed.spacing_factor = 1.05;
  bed.jitter = 0.8;
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

// The settled column's contact impulses, cached next to its state: a state file holds positions
// and velocities only, and a column restarted without its impulses is not at rest (4 cold sweeps
// cannot carry its weight: the 50k column fell from 0.78 to 0.64 m top within 600 steps after a
// reload). Per particle: slot count, then (partner, impulse x, y, z) per slot.
void save_impulses(const ContactList& c, const std::filesystem::path& file) {
  std::FILE* f = std::fopen(file.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error(file.string() + ": cannot write");
  const std::uint64_t n = c.particles();
  std::fwrite(&n, sizeof n, 1, f);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t slots = c.slots(i);
    std::fwrite(&slots, sizeof slots, 1, f);
    for (std::int32_t k = c.start[i]; k < c.end[i]; ++k) {
      std::fwrite(&c.partner[static_cast<std::size_t>(k)], sizeof(std::int32_t), 1, f);
      std::fwrite(&c.impulse[static_cast<std::size_t>(k) * kSlotStride], sizeof(float), 3, f);
    }
  }
  if (std::fclose(f) != 0) throw std::runtime_error(file.string() + ": write failed");
}

ContactList load_impulses(const std::filesystem::path& file, std::size_t particles) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) throw std::runtime_error(file.string() + ": cannot read");
  auto read = [&](void* to, std::size_t size, std::size_t count) {
    if (std::fread(to, size, count, f) != count) {
      std::fclose(f);
      throw std::runtime_error(file.string() + ": truncated; delete it to settle again");
    }
  };
  std::uint64_t n = 0;
  read(&n, sizeof n, 1);
  if (n != particles) {
    std::fclose(f);
    throw std::runtime_error(file.string() + ": particle count differs from the state file");
  }
  ContactList c;
  c.start.resize(n);
  c.end.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t slots = 0;
    read(&slots, sizeof slots, 1);
    c.start[i] = static_cast<std::int32_t>(c.partner.size());
    for (std::int32_t k = 0; k < slots; ++k) {
      std::int32_t partner = 0;
      float l[kSlotStride] = {0.0f, 0.0f, 0.0f, 0.0f};
      read(&partner, sizeof partner, 1);
      read(l, sizeof(float), 3);
      c.partner.push_back(partner);
      c.impulse.insert(c.impulse.end(), l, l + kSlotStride);
    }
    c.end[i] = static_cast<std::int32_t>(c.partner.size());
  }
  std::fclose(f);
  c.used_slots = static_cast<std::int64_t>(c.partner.size());
  return c;
}

// The lattice column settled for kSettleSteps, loaded from the cache (state and impulses) or
// settled and saved (each file written to a temporary name and renamed, so an interrupted run
// leaves no partial file).
void settle(Column& c, std::size_t n) {
  const std::string stem = "column_n" + std::to_string(n) + "_settle" +
                           std::to_string(kSettleSteps) + "_r5mm_margin0.1r_jitter_v3" +
                           (c.model.rotation ? "_rotating" : "");
  const std::filesystem::path file = cache_dir() / (stem + ".tps");
  const std::filesystem::path impulses = cache_dir() / (stem + ".impulses");
  if (std::filesystem::exists(file) && std::filesystem::exists(impulses)) {
    c.state = load_particle_state(file);
    c.warm = load_impulses(impulses, c.state.size());
    return;
  }
  std::fprintf(stderr, "bench: settling the %zu-particle column for %d steps (cached in %s)\n", n,
               kSettleSteps, file.string().c_str());
  ParticleWorkspace w;
  for (int k = 0; k < kSettleSteps; ++k) step(c.model, c.state, {}, w);
  c.warm = c.state.contacts;
  std::filesystem::create_directories(file.parent_path());
  const std::string part = ".part" + std::to_string(::getpid());
  save_particle_state(c.state, file.string() + part);
  save_impulses(c.warm, impulses.string() + part);
  std::filesystem::rename(file.string() + part, file);
  std::filesystem::rename(impulses.string() + part, impulses);
}

const Column& column(std::size_t n, bool rotation) {
  static std::map<std::pair<std::size_t, bool>, std::unique_ptr<Column>> cache;
  auto& slot = cache[{n, rotation}];
  if (!slot) {
    slot = std::make_unique<Column>(make_column(n, rotation));
    check_initial_state(slot->model, slot->state);
    settle(*slot, n);
  }
  return *slot;
}

void run_column(benchmark::State& bench, std::size_t n, int threads, Broadphase kind,
                double table_factor, double skin_radii, bool rotation = false) {
  Column c = column(n, rotation);
  c.model.threads = threads;
  c.model.broadphase = kind;
  c.model.hash_table_factor = table_factor;
  c.model.neighbour_skin_radii = skin_radii;
  ParticleWorkspace w;
  c.state.contacts = c.warm;  // the first step's previous contacts: warm started at rest
  for (int k = 0; k < 20; ++k) step(c.model, c.state, {}, w);
  w.times = StageTimes{};
  const std::int64_t builds_before = w.neighbours.builds;
  const std::int64_t refreshes_before = w.neighbours.refreshes;
  for (auto _ : bench) step(c.model, c.state, {}, w);
  const double steps = static_cast<double>(bench.iterations());
  // Neighbour-list builds per 1,000 timed steps (1,000 when the hash is searched at every step),
  // and partial refreshes (the movers' rows searched again).
  bench.counters["list_builds_per_1000_steps"] =
      skin_radii > 0.0 ? 1e3 * static_cast<double>(w.neighbours.builds - builds_before) / steps
                       : 1e3;
  bench.counters["list_refreshes_per_1000_steps"] =
      1e3 * static_cast<double>(w.neighbours.refreshes - refreshes_before) / steps;
  bench.counters["particle_steps_per_s"] =
      benchmark::Counter(static_cast<double>(n) * steps, benchmark::Counter::kIsRate);
  bench.counters["contacts_per_particle"] =
      static_cast<double>(distinct_contact_count(c.state.contacts)) / static_cast<double>(n);
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

// Args: particles, threads, broadphase (0 sorted cells, 1 linked hash), neighbour skin in
// hundredths of the radius (0: the hash is searched at every step, paper 001), rotating grains
// (1: the default model, rolling friction 0.1) or paper 001's (0). The default model (sorted
// cells, skin 0.3) with and without rotation, and both broadphases searched at every step (paper
// 001's grains).
void BM_ParticleColumnAtRest(benchmark::State& bench) {
  run_column(bench, static_cast<std::size_t>(bench.range(0)), static_cast<int>(bench.range(1)),
             bench.range(2) == 0 ? Broadphase::kSortedCells : Broadphase::kLinkedHash, 2.0,
             static_cast<double>(bench.range(3)) / 100.0, bench.range(4) != 0);
}
BENCHMARK(BM_ParticleColumnAtRest)
    ->Apply([](benchmark::internal::Benchmark* b) {
      const std::int64_t default_skin = std::llround(100.0 * ParticleModel{}.neighbour_skin_radii);
      for (const std::int64_t n : {10000, 50000, 200000}) {
        for (const std::int64_t threads : {1, 2}) {
          b->Args({n, threads, 0, default_skin, 1});
          b->Args({n, threads, 0, default_skin, 0});
          b->Args({n, threads, 0, 0, 0});
          b->Args({n, threads, 1, 0, 0});
        }
      }
    })
    ->ArgNames({"particles", "threads", "linked", "skin_x100", "rotation"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);

// Does the order of the particles in memory matter? The settled 50k column (rotating grains, 2
// threads) in its own order (the lattice it was built from: rows, then layers, so a particle's
// partners lie within about one layer, ~450 particles, of it), shuffled at random (a bed whose
// particles have mixed, or were created in no spatial order), and sorted along a Morton curve of
// cells one diameter wide. The state is reordered, so the cached impulses no longer match it: each
// order starts cold and steps kOrderWarmupSteps before timing. Order 3 is the shuffled column
// sorted by the step itself (ParticleModel::sort_every_steps = kOrderSortEverySteps,
// particle_order.hpp): the sorts, and the neighbour-list builds they force, are in the time.
// Args: order (0 as built, 1 shuffled, 2 Morton, 3 shuffled and sorted by the step).
constexpr int kOrderWarmupSteps = 400;
constexpr int kOrderSortEverySteps = 100;

std::vector<std::size_t> particle_order(const ParticleState& s, int order) {
  std::vector<std::size_t> p(s.size());
  std::iota(p.begin(), p.end(), std::size_t{0});
  if (order == 1 || order == 3) std::shuffle(p.begin(), p.end(), std::mt19937_64(7));
  if (order == 2) {
    const std::vector<std::uint32_t> morton = spatial_order(s, static_cast<float>(2.0 * kRadius));
    p.assign(morton.begin(), morton.end());
  }
  return p;
}

void BM_ParticleColumnOrder(benchmark::State& bench) {
  Column c = column(50000, true);
  c.model.threads = 2;
  const std::vector<std::size_t> order = particle_order(c.state, static_cast<int>(bench.range(0)));
  for (std::vector<float>* a :
       {&c.state.x_m, &c.state.y_m, &c.state.z_m, &c.state.vx_m_per_s, &c.state.vy_m_per_s,
        &c.state.vz_m_per_s, &c.state.wx_rad_per_s, &c.state.wy_rad_per_s, &c.state.wz_rad_per_s,
        &c.state.radius_m, &c.state.inv_mass_per_kg}) {
    const std::vector<float> before = *a;
    for (std::size_t k = 0; k < order.size(); ++k) (*a)[k] = before[order[k]];
  }
  c.state.contacts = ContactList{};
  if (bench.range(0) == 3) c.model.sort_every_steps = kOrderSortEverySteps;
  ParticleWorkspace w;
  for (int k = 0; k < kOrderWarmupSteps; ++k) step(c.model, c.state, {}, w);
  w.times = StageTimes{};
  for (auto _ : bench) step(c.model, c.state, {}, w);
  const double steps = static_cast<double>(bench.iterations());
  bench.counters["particle_steps_per_s"] =
      benchmark::Counter(static_cast<double>(c.state.size()) * steps, benchmark::Counter::kIsRate);
  bench.counters["broadphase_ms"] = 1e3 * w.times.broadphase_s / steps;
  bench.counters["contacts_ms"] = 1e3 * w.times.contacts_s / steps;
  bench.counters["solve_ms"] = 1e3 * w.times.solve_s / steps;
}
BENCHMARK(BM_ParticleColumnOrder)
    ->ArgsProduct({{0, 1, 2, 3}})
    ->ArgNames({"order"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(1.0);

// Paper 001 Fig. 3: hash table size from 0.5x to 8x the particle count (50k particles, 2
// threads), the hash searched at every step (no neighbour list, which would hide it). Args: table
// factor x 10, broadphase.
void BM_ParticleHashTableSize(benchmark::State& bench) {
  run_column(bench, 50000, 2,
             bench.range(1) == 0 ? Broadphase::kSortedCells : Broadphase::kLinkedHash,
             static_cast<double>(bench.range(0)) / 10.0, 0.0);
}
BENCHMARK(BM_ParticleHashTableSize)
    ->ArgsProduct({{5, 10, 20, 40, 80}, {0, 1}})
    ->ArgNames({"table_x10", "linked"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);

// Bulldozing-v0's particle steps (paper 001 §III-A; issue 18 asks for 10 env steps/s, i.e. 1,000
// of these steps per second, at 10,000 particles on 2 threads): the env's settled heap of
// 10,000 grains of 2 cm with paper 001's bulldozer as a kinematic body, standing still in front
// of the heap (pushing 0) or driving into it at 0.5 m/s (pushing 1, after 1.2 s of driving
// from its bounding circle 0.3 m off the heap's foot: 0.6 m, so the blade is in the heap). The
// env's model as make_bulldozing_world builds it (3 sweeps, non-rotating, neighbour skin 0.6 r), 2
// threads. Per step: the stage times, and the contacts per particle.
constexpr int kPushWarmupSteps = 1200;

const BulldozingWorld& bulldozing_world() {
  static const std::shared_ptr<const BulldozingWorld> world = [] {
    BulldozingOptions o;
    o.mesh_path =
        std::filesystem::path(TALUS_SOURCE_DIR) / "robots" / "bulldozer" / "bulldozer.obj";
    o.threads = 2;
    return make_bulldozing_world(o);
  }();
  return *world;
}

void BM_BulldozingStep(benchmark::State& bench) {
  const BulldozingWorld& world = bulldozing_world();
  const ParticleModel& model = world.model;  // 2 threads: the world's options
  ParticleState state = world.settled_heap;
  const float foot_x = *std::max_element(state.x_m.begin(), state.x_m.end());  // the +x foot
  KinematicBulldozer dozer(world);
  dozer.place(static_cast<double>(foot_x) + 0.3 + world.bounding_radius_m,
              world.options.heap_centre_m.y(), kPi);
  const bool pushing = bench.range(0) != 0;
  const double forward = pushing ? 0.5 / world.options.max_speed_m_per_s : 0.0;
  ParticleWorkspace w;
  auto one_step = [&] {
    const BodyMotion motion = dozer.drive(forward, 0.0, model.time_step_s);
    step(model, state, std::span(&motion, 1), w);
    dozer.advance(state.body_wrenches.front(), model.time_step_s);
  };
  for (int k = 0; k < (pushing ? kPushWarmupSteps : 20); ++k) one_step();
  w.times = StageTimes{};
  for (auto _ : bench) one_step();
  const double steps = static_cast<double>(bench.iterations());
  bench.counters["env_steps_per_s"] =
      benchmark::Counter(steps / world.options.steps_per_action, benchmark::Counter::kIsRate);
  bench.counters["contacts_per_particle"] =
      static_cast<double>(distinct_contact_count(state.contacts)) /
      static_cast<double>(state.size());
  bench.counters["body_force_N"] = state.body_wrenches.front().f_W.norm();
  bench.counters["broadphase_ms"] = 1e3 * w.times.broadphase_s / steps;
  bench.counters["contacts_ms"] = 1e3 * w.times.contacts_s / steps;
  bench.counters["solve_ms"] = 1e3 * w.times.solve_s / steps;
  bench.counters["integrate_ms"] = 1e3 * w.times.integrate_s / steps;
}
BENCHMARK(BM_BulldozingStep)
    ->ArgsProduct({{0, 1}})
    ->ArgNames({"pushing"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(1.0);

}  // namespace
}  // namespace talus::particles
