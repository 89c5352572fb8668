// lowest_point_z is the heightmap tier's hot query: one call per grid cell under a tool, thousands
// per step. Each benchmark sweeps a 64 x 64 grid of vertical lines over the shape's world bounds
// (so some lines miss, as under a real tool's footprint) at a tilted pose; items are queries.

#include <benchmark/benchmark.h>

#include <vector>

#include "core/shape.hpp"
#include "core/units.hpp"

namespace talus {
namespace {

constexpr int kGrid = 64;

void run_lowest_point(benchmark::State& state, const Shape& shape) {
  const Pose X_WB =
      make_pose(Vec3(0.1, -0.2, 0.15), deg_to_rad(20.0), deg_to_rad(-35.0), deg_to_rad(50.0));
  const Aabb box = world_bounds(shape, X_WB);
  std::vector<Vec2> lines;
  for (int i = 0; i < kGrid; ++i) {
    for (int j = 0; j < kGrid; ++j) {
      lines.emplace_back(box.lo.x() + (i + 0.5) * (box.hi.x() - box.lo.x()) / kGrid,
                         box.lo.y() + (j + 0.5) * (box.hi.y() - box.lo.y()) / kGrid);
    }
  }
  for (auto _ : state) {
    for (const Vec2& xy : lines) {
      benchmark::DoNotOptimize(lowest_point_z(shape, X_WB, xy.x(), xy.y()));
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(lines.size()));
}

void BM_LowestPointSphere(benchmark::State& state) { run_lowest_point(state, SphereShape{0.08}); }
void BM_LowestPointBox(benchmark::State& state) {
  run_lowest_point(state, BoxShape{Vec3(0.1, 0.05, 0.03)});
}
void BM_LowestPointCylinder(benchmark::State& state) {
  run_lowest_point(state, CylinderShape{0.06, 0.1});
}
void BM_LowestPointWheel12Grousers(benchmark::State& state) {
  // Paper 003 Table 1's wheel: 48 mm radius, 50 mm wide, 5 mm grousers filling 0.1 of the annulus.
  run_lowest_point(state, wheel_with_grouser_fraction(0.048, 0.05, 12, 0.005, 0.1));
}

BENCHMARK(BM_LowestPointSphere);
BENCHMARK(BM_LowestPointBox);
BENCHMARK(BM_LowestPointCylinder);
BENCHMARK(BM_LowestPointWheel12Grousers);

}  // namespace
}  // namespace talus
