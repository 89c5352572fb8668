// Real-time factor of the rover on SCM soil (issue 5's benchmark): the four-wheel rover of
// robots/rover/rover.xml (100 kg, wheels r = 0.25 m at 2 rad/s) driving straight on flat dry sand
// (border flow or the flow fields), one or two MuJoCo steps (1 ms each) per soil step, on a 2 cm
// or a 1 cm grid.
//
//   RoverOnScm/cell_mm/threads/substeps/fields   threads: OpenMP threads of the soil step;
//   substeps: MuJoCo steps per soil step (1: soil every 1 ms; 2: every 2 ms, as
//   scenarios/robots/rover_slope_env.toml runs it; 4: every 4 ms, as rover_slope.toml runs it
//   since 2026-12-02; all within the coupling's stability limit, docs/robots.md); fields: 0 for
//   the border path, 1 for the flow fields (paper 002's model, issue 20's 10x target at 2 cm).
//   Time per iteration = one coupled step (substeps ms simulated); counters:
//     wall_s_per_sim_s      wall time per simulated second (1 / real-time factor)
//     real_time_factor      simulated seconds per wall second
//     tier_share            share of the step's wall time inside the soil tier's step()
//     mujoco_share          the rest: MuJoCo's steps plus the coupling's bookkeeping
//
// The rover settles (0.3 s) and accelerates (0.3 s) before timing starts; the timed run is 1000
// coupled steps (1, 2 or 4 s simulated, 0.45-1.8 m of driving). The map is 30 m long; only touched
// tiles exist.

#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>
#include <omp.h>

#include <chrono>
#include <cmath>

#include "robot/coupled_sim.hpp"
#include "robot/coupling.hpp"
#include "robot/mujoco_model.hpp"
#include "scm/scm_contact_tier.hpp"

namespace talus::robot {
namespace {

// Forwards to a tier and adds up the wall time spent in its step().
class TimedTier final : public ContactTier {
 public:
  explicit TimedTier(ContactTier& inner) : inner_(inner) {}
  std::span<const CoupledBody> bodies() const override { return inner_.bodies(); }
  void step(double dt_s, std::span<const BodyMotion> motions, std::span<Wrench> wrenches) override {
    const auto t0 = std::chrono::steady_clock::now();
    inner_.step(dt_s, motions, wrenches);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  double seconds = 0.0;

 private:
  ContactTier& inner_;
};

void RoverOnScm(benchmark::State& st) {
  const double cell = static_cast<double>(st.range(0)) * 1e-3;
  const int before = omp_get_max_threads();
  omp_set_num_threads(static_cast<int>(st.range(1)));
  const int substeps = static_cast<int>(st.range(2));
  MujocoModel rover =
      MujocoModel::load(std::filesystem::path(TALUS_SOURCE_DIR) / "robots" / "rover" / "rover.xml");
  std::vector<CouplingEntry> entries;
  for (const char* w : {"wheel_fl", "wheel_fr", "wheel_rl", "wheel_rr"}) {
    entries.push_back(CouplingEntry{w, "", {}, Pose::Identity(), ""});
  }
  const auto links = resolve_coupling(rover, entries);
  scm::ScmModel m;
  m.cell_size_m = cell;
  m.x0_m = -1.0;
  m.y0_m = -0.7;
  m.nx = static_cast<int>(std::lround(30.0 / cell)) + 1;
  m.ny = static_cast<int>(std::lround(1.4 / cell)) + 1;
  m.soil = scm::named_soil("dry_sand");
  m.method = st.range(3) != 0 ? scm::FlowMethod::Fields : scm::FlowMethod::Border;
  m.time_step_s = rover.time_step_s() * substeps;
  m.bodies = tier_bodies(links);
  scm::ScmContactTier soil(std::move(m));
  TimedTier timed(soil);
  CoupledSim sim(rover, links, timed, substeps);
  auto set_speed = [&](double w) {
    for (int a = 0; a < 4; ++a) rover.data()->ctrl[a] = w;
  };
  set_speed(0.0);
  for (int k = 0; k < 300 / substeps; ++k) sim.step();
  set_speed(2.0);
  for (int k = 0; k < 300 / substeps; ++k) sim.step();

  timed.seconds = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : st) sim.step();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double simulated = static_cast<double>(st.iterations()) * sim.tier_time_step_s();
  st.counters["wall_s_per_sim_s"] = wall / simulated;
  st.counters["real_time_factor"] = simulated / wall;
  st.counters["tier_share"] = timed.seconds / wall;
  st.counters["mujoco_share"] = 1.0 - timed.seconds / wall;
  omp_set_num_threads(before);
}
BENCHMARK(RoverOnScm)
    ->ArgNames({"cell_mm", "threads", "substeps", "fields"})
    ->ArgsProduct({{20, 10}, {1, 2}, {1, 2, 4}, {0, 1}})
    ->Iterations(1000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace talus::robot
