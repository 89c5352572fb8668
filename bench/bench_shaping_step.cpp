// Updates to steady state after one tool action (paper 003 §5.1 reports about 50 on a 32x32 grid
// and 140 on 160x160), and the cost of whole shaping steps.
//
// The action: a cylinder a quarter of the grid across is lowered into level sand by two cells'
// height at the grid's centre (first contact: the sand it overlaps moves radially outward), then
// erosion runs to steady state. Reported: counter `updates`, and items_per_second = erosion
// updates per second.

#include <benchmark/benchmark.h>

#include "core/erosion.hpp"
#include "core/units.hpp"
#include "shaping/shaping_step.hpp"
#include "shaping/tool_motions.hpp"

namespace talus::shaping {
namespace {

HeightmapModel square_grid(int n, double tolerance_in_cells) {
  HeightmapModel m;
  // A 10 cm patch of sand at any resolution, its corner at the origin.
  static_cast<HeightmapGrid&>(m) = grid_of_cells(0.0, 0.0, n, n, 0.1 / n);
  m.erosion.repose_angle_rad = deg_to_rad(29.0);
  m.erosion.tolerance_m = tolerance_in_cells * m.cell_size_m;
  return m;
}

void BM_ShapingUpdatesAfterOneToolAction(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const double tolerance_in_cells = state.range(1) == 0 ? 1e-6 : 1e-3;
  const HeightmapModel m = square_grid(n, tolerance_in_cells);
  const Shape cylinder = CylinderShape{0.125 * 0.1, 0.05};
  const ToolPlacement tool{&cylinder, make_pose(Vec3(0.05, 0.05, 0.05 + 0.05 - 2 * m.cell_size_m)),
                           Twist{}};
  int updates = 0;
  std::int64_t total_updates = 0;
  PushWorkspace push;
  std::vector<double> scratch;
  for (auto _ : state) {
    state.PauseTiming();
    HeightmapState s = HeightmapState::flat(m, 0.05);
    state.ResumeTiming();
    const PushResult r = push_sand(m, s, tool, /*first_contact=*/true, push);
    const ErosionResult e =
        erode_to_steady_state(m, m.erosion, s.height_m, s.blocked, r.touched, scratch);
    updates = e.updates;
    total_updates += e.updates;
    benchmark::DoNotOptimize(s.height_m.data());
  }
  state.counters["updates"] = updates;
  state.counters["paper_updates"] = n == 32 ? 50 : (n == 160 ? 140 : 0);
  state.counters["tolerance_cells"] = tolerance_in_cells;
  state.SetItemsProcessed(total_updates);
}
BENCHMARK(BM_ShapingUpdatesAfterOneToolAction)
    ->ArgNames({"n", "loose"})
    ->Args({32, 0})
    ->Args({32, 1})
    ->Args({160, 0})
    ->Args({160, 1})
    ->Unit(benchmark::kMillisecond);

// A whole step of the blade_push scenario's kind: a blade advancing half a cell through sand.
void BM_ShapingBladePushStep(benchmark::State& state) {
  HeightmapModel m = square_grid(static_cast<int>(state.range(0)), 1e-3);
  static_cast<HeightmapGrid&>(m) = grid_of_cells(0.0, 0.0, m.nx, m.ny, 0.004);
  m.erosion.tolerance_m = 1e-3 * m.cell_size_m;
  StraightPush push;
  push.start_W = Vec2(0.2 * m.nx * m.cell_size_m, 0.5 * m.ny * m.cell_size_m);
  push.end_W = Vec2(0.8 * m.nx * m.cell_size_m, push.start_W.y());
  push.bottom_z_m = 0.04;
  push.blade_width_m = 0.25 * m.ny * m.cell_size_m;
  ShapingModel model;
  model.heightmap = m;
  const WaypointDriver driver = straight_push_driver(push);
  model.tools.push_back({"blade", straight_push_blade(push), driver});
  model.time_step_s = 0.5 * m.cell_size_m / push.speed_m_per_s;
  ShapingState s = ShapingState::initial(model, HeightmapState::flat(m, 0.05));
  ShapingWorkspace work;
  long updates = 0, steps = 0;
  for (auto _ : state) {
    if (s.time_s > driver.times_s.back()) {
      state.PauseTiming();
      s = ShapingState::initial(model, HeightmapState::flat(m, 0.05));
      state.ResumeTiming();
    }
    const ShapingStepReport r = step(model, s, work);
    updates += r.erosion_updates;
    ++steps;
  }
  state.counters["updates_per_step"] = static_cast<double>(updates) / static_cast<double>(steps);
  state.SetItemsProcessed(steps);  // steps per second
}
BENCHMARK(BM_ShapingBladePushStep)->Arg(125)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace talus::shaping
