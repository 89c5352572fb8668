// Soil flow by superposed local flow fields (scm/soil_flow.hpp) on a wheel's contact patch.
//
//   SoilFlowWheel/cell_mm/threads/model   one flow_by_local_fields call for a 0.5 m diameter,
//       0.2 m wide wheel sunk 2 cm, driving at 0.5 m/s with 20 % slip (dt = 1 ms), on a 20 mm or
//       10 mm grid, 1 or 2 threads. model: 0 = exact (cluster_nodes = field_stride = 1, the
//       paper's model), 1 = clusters of 3 x 3 nodes only, 2 = field stride 2 only, 3 = both (the
//       defaults). docs/soil_flow.md, Approximations and Speed.
//
// The window holds the soil already cut to the wheel's profile (a steady state); the displacing
// nodes are those the wheel cuts deeper during this step, the front of the patch. Counters:
// `sources` displacing nodes, `window` nodes in the window; items_per_second = window nodes
// processed per second.

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "scm/flow_window.hpp"
#include "scm/soil_flow.hpp"

namespace talus::scm {
namespace {

constexpr double kWheelRadius_m = 0.25;
constexpr double kWheelHalfWidth_m = 0.1;
constexpr double kSinkage_m = 0.02;
constexpr double kSpeed_m_per_s = 0.5;
constexpr double kSlip = 0.2;
constexpr double kDt_s = 1e-3;

FlowParameters wheel_parameters() {
  FlowParameters p;
  p.friction_angle_rad = deg_to_rad(30.5);
  p.psi_shape_m = 1.5;
  p.psi_angle = 6.0;
  p.psi_distance = 2.0;
  return p;
}

// Lowest point of the wheel (centre at x = x_c, z = R - sinkage) above x, or +inf off the wheel.
double wheel_bottom_z(double x, double y, double x_c) {
  const double dx = x - x_c;
  if (std::abs(y) > kWheelHalfWidth_m || std::abs(dx) >= kWheelRadius_m) return 1e9;
  return kWheelRadius_m - kSinkage_m - std::sqrt(kWheelRadius_m * kWheelRadius_m - dx * dx);
}

FlowWindow wheel_window(double cell_m, const FlowParameters& p) {
  const double margin = flow_reach_m(p, p.max_flow_depth_m) + cell_m;
  const double half_x = std::sqrt(2.0 * kWheelRadius_m * kSinkage_m) + margin;
  const double half_y = kWheelHalfWidth_m + margin;
  const int nx = 2 * static_cast<int>(std::ceil(half_x / cell_m)) + 1;
  const int ny = 2 * static_cast<int>(std::ceil(half_y / cell_m)) + 1;
  FlowWindow w;
  w.resize(nx, ny);
  w.cell_size_m = cell_m;
  w.i0 = 1000;
  w.j0 = -ny / 2;
  const double omega = kSpeed_m_per_s / (kWheelRadius_m * (1.0 - kSlip));
  const double z_c = kWheelRadius_m - kSinkage_m;
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const double x = (i - nx / 2) * cell_m, y = (j - ny / 2) * cell_m;
      const std::size_t k = w.index(i, j);
      const double z_now = wheel_bottom_z(x, y, 0.0);
      if (z_now >= 0.0) continue;  // not under the wheel
      w.height_m[k] = z_now;
      w.in_contact[k] = 1;
      // Rigid wheel: v = v_centre + omega x (p - c), omega = (0, omega, 0).
      w.contact_velocity_W[k] = Vec3(kSpeed_m_per_s + omega * (z_now - z_c), 0.0, -omega * x);
      // Soil the wheel cuts this step: its bottom there was higher a step ago.
      const double z_before = wheel_bottom_z(x, y, -kSpeed_m_per_s * kDt_s);
      w.displaced_volume_m3[k] = std::max(std::min(z_before, 0.0) - z_now, 0.0) * cell_m * cell_m;
    }
  }
  return w;
}

void SoilFlowWheel(benchmark::State& state) {
  const double cell_m = static_cast<double>(state.range(0)) * 1e-3;
  const int threads = static_cast<int>(state.range(1));
  const int model = static_cast<int>(state.range(2));
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  FlowParameters p = wheel_parameters();
  p.cluster_nodes = model == 1 || model == 3 ? 3 : 1;
  p.field_stride = model == 2 || model == 3 ? 2 : 1;
  FlowWindow w = wheel_window(cell_m, p);
  int sources = 0;
  for (double v : w.displaced_volume_m3) sources += v > 0.0 ? 1 : 0;
  for (auto _ : state) {
    flow_by_local_fields(p, kDt_s, w);
    benchmark::DoNotOptimize(w.deposited_volume_m3.data());
  }
  omp_set_num_threads(saved);
  state.counters["sources"] = sources;
  state.counters["window"] = static_cast<double>(w.size());
  state.counters["threads"] = threads;
  state.counters["cluster_nodes"] = p.cluster_nodes;
  state.counters["field_stride"] = p.field_stride;
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(w.size()));
}
BENCHMARK(SoilFlowWheel)
    ->ArgsProduct({{20, 10}, {1, 2}, {0, 1, 2, 3}})
    ->ArgNames({"cell_mm", "threads", "model"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace talus::scm
