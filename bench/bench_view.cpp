// Benchmark of the talus-view recorder (core/view_recorder.hpp): one frame encoded and written,
// as a run's loop does at every recorded instant (the time counts toward a run's wall_s).
//
//   ViewRecorderFrame/heights/particles   one frame of a heightmap of `heights` nodes (29,000:
//                                         rover_slope's 5.8 x 2 m map at 2 cm) and `particles`
//                                         quantised particles (50,000: the largest column), with
//                                         four bodies; items_per_second = frames per second
//
// The frames go to a temporary run folder under the system's temporary directory, removed after.
// The time is mostly the kernel's (creating and writing each frame's file): 85 % of the samples
// of the heightmap case in a profile.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <vector>

#include "core/output_dir.hpp"
#include "core/view_recorder.hpp"
#include "core/view_shapes.hpp"

namespace talus {
namespace {

void BM_ViewRecorderFrame(benchmark::State& bench) {
  const auto heights = static_cast<std::size_t>(bench.range(0));
  const auto particles = static_cast<std::size_t>(bench.range(1));
  ViewLayout layout;
  layout.tier = "robots";
  layout.scenario = "bench";
  layout.title = "bench: one frame";
  layout.particle_count = particles;
  if (particles > 0) layout.particle_radii_m = {0.005f};
  layout.quantised = particles > 0;
  if (heights > 0)
    layout.heightmap = ViewHeightmapGrid{static_cast<int>(heights / 100), 100, 0.02, -1.2, -1.0};
  for (int b = 0; b < 4; ++b) {
    layout.bodies.push_back(
        ViewBody{"wheel", {0.2, 0.2, 0.2}, view_shape(BoxShape{Vec3(0.1, 0.1, 0.1)}, 1)});
  }
  std::vector<double> z(layout.heightmap ? heights / 100 * 100 : 0);
  for (std::size_t k = 0; k < z.size(); ++k) z[k] = 0.01 * std::sin(0.001 * double(k));
  std::vector<float> x(particles), y(particles), h(particles), v(particles, 0.1f);
  for (std::size_t i = 0; i < particles; ++i) {
    x[i] = 0.01f * float(i % 100);
    y[i] = 0.01f * float(i / 100 % 100);
    h[i] = 0.01f * float(i / 10000);
  }
  const std::vector<Pose> poses(4, Pose::Identity());
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "talus_bench_view";
  OutputDir out(dir);  // never committed: the destructor removes the frames
  ViewRecorder recorder(out, layout);
  double t = 0.0;
  for (auto _ : bench) {
    recorder.add_frame(ViewFrame{t, x, y, h, v, v, v, z, poses});
    t += 0.01;
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_ViewRecorderFrame)
    ->Args({29000, 0})
    ->Args({0, 50000})
    ->ArgNames({"heights", "particles"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->Iterations(300);  // 300 frame files (35 MB and 93 MB): a folder of thousands writes slower

}  // namespace
}  // namespace talus
