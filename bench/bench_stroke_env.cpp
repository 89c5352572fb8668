// ShapingStrokes-v0's C++ batch step (shaping/stroke_env_batch.hpp) at 32 x 32: 64 beds with
// letter goals, one stroke each per iteration (the tool push every half cell plus erosion to
// steady state), strokes from a fixed pseudo-random sequence, episodes reset as the env does.
//   ./build/bin/talus_bench --benchmark_filter=StrokeEnv
// items_per_second = strokes per second (issue 17's target: >= 1,000 on 2 threads).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "shaping/stroke_env_batch.hpp"

namespace {

void BM_StrokeEnvBatchStep(benchmark::State& state) {
  const talus::shaping::StrokeBed bed;
  constexpr int kEnvs = 64;
  talus::shaping::StrokeEnvBatch batch(
      bed, talus::shaping::StrokeGoalSource::of_letters(bed, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
      talus::shaping::StrokeEnvRules{}, kEnvs);
  std::vector<std::uint64_t> seeds(kEnvs);
  for (int i = 0; i < kEnvs; ++i)
    seeds[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i);
  const std::size_t cells = static_cast<std::size_t>(bed.cells * bed.cells);
  std::vector<float> achieved(kEnvs * cells), desired(kEnvs * cells);
  std::vector<double> actions(4 * kEnvs), rewards(kEnvs);
  std::vector<std::uint8_t> terminated(kEnvs), truncated(kEnvs);
  batch.reset(seeds, achieved.data(), desired.data());
  talus::shaping::TrenchRng rng{12345};
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    for (double& a : actions) a = 2.0 * (rng.below(1 << 20) / double(1 << 20)) - 1.0;
    batch.step(actions, achieved.data(), desired.data(), rewards.data(), terminated.data(),
               truncated.data(), threads);
    benchmark::DoNotOptimize(rewards.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kEnvs);
}
BENCHMARK(BM_StrokeEnvBatchStep)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
