// ShapingTrench-v0's C++ step (shaping/trench_env.hpp) on the letter maps: one move of the blade
// per item, the episode reset whenever the goal is reached or 100 moves were taken (the env's
// default step limit), moves from a fixed pseudo-random sequence.
//   ./build/bin/talus_bench --benchmark_filter=TrenchEnv
// items_per_second = env steps per second on one thread; issue 17's target is 1e6 per second for
// the vector env on 2 threads (not built yet: this is the single-env core it will batch).
#include <benchmark/benchmark.h>

#include <cstdint>

#include "shaping/letter_maps.hpp"
#include "shaping/trench_env.hpp"

namespace {

using talus::shaping::TrenchAction;

void BM_TrenchEnvStep(benchmark::State& state) {
  const talus::shaping::BinaryMap goal = talus::shaping::letter_map('A');
  const talus::shaping::GridCell start{6, 1};
  talus::shaping::TrenchEnvState s = talus::shaping::trench_env_reset(goal, start);
  std::uint64_t x = 88172645463325252ull;  // xorshift64: cheap, fixed move sequence
  for (auto _ : state) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const auto r = talus::shaping::trench_env_step(goal, s, static_cast<TrenchAction>(x & 3u));
    if (r.reached || s.steps >= 100) s = talus::shaping::trench_env_reset(goal, start);
    benchmark::DoNotOptimize(r.l1_decrease);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_TrenchEnvStep);

}  // namespace
