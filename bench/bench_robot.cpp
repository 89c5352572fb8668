// MuJoCo step cost of the rover alone, and with the coupling's bookkeeping (reading the wheels'
// motions, shifting and applying wrenches) around a tier that does no work. The real-time factor
// on the soil tier is measured once that tier exists (issue 5).

#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <filesystem>

#include "robot/coupled_sim.hpp"
#include "robot/coupling.hpp"
#include "robot/mujoco_model.hpp"

namespace talus::robot {
namespace {

std::filesystem::path rover_path() {
  return std::filesystem::path(TALUS_SOURCE_DIR) / "robots" / "rover" / "rover.xml";
}

// A tier that returns zero wrenches: what remains is the coupling's own cost.
class NullTier final : public ContactTier {
 public:
  explicit NullTier(std::vector<CoupledBody> b) : bodies_(std::move(b)) {}
  std::span<const CoupledBody> bodies() const override { return bodies_; }
  void step(double, std::span<const BodyMotion> motions, std::span<Wrench> wrenches) override {
    for (std::size_t i = 0; i < motions.size(); ++i) {
      wrenches[i] = Wrench::about(motions[i].X_WB.translation());
    }
  }

 private:
  std::vector<CoupledBody> bodies_;
};

void BM_RoverMujocoStep(benchmark::State& state) {
  MujocoModel rover = MujocoModel::load(rover_path());
  for (int a = 0; a < 4; ++a) rover.data()->ctrl[a] = 2.0;
  for (auto _ : state) {
    mj_step(rover.model(), rover.data());
    if (rover.time_s() > 1.0) rover.reset();
  }
  state.counters["sim_s_per_wall_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * rover.time_step_s(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RoverMujocoStep);

void BM_RoverCoupledStepNullTier(benchmark::State& state) {
  MujocoModel rover = MujocoModel::load(rover_path());
  for (int a = 0; a < 4; ++a) rover.data()->ctrl[a] = 2.0;
  std::vector<CouplingEntry> entries;
  for (const char* w : {"wheel_fl", "wheel_fr", "wheel_rl", "wheel_rr"}) {
    entries.push_back(CouplingEntry{w, "", {}, Pose::Identity(), ""});
  }
  const auto links = resolve_coupling(rover, entries);
  NullTier tier(tier_bodies(links));
  CoupledSim sim(rover, links, tier, 1);
  for (auto _ : state) {
    sim.step();
    if (rover.time_s() > 1.0) rover.reset();
  }
  state.counters["sim_s_per_wall_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * rover.time_step_s(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RoverCoupledStepNullTier);

}  // namespace
}  // namespace talus::robot
