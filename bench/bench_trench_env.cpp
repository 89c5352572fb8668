// ShapingTrench-v0's C++ step (shaping/trench_env.hpp) on the letter maps: one move of the blade
// per item, the episode reset whenever the goal is reached or 100 moves were taken (the env's
// default step limit), moves from a fixed pseudo-random sequence.
//   ./build/bin/talus_bench --benchmark_filter=TrenchEnv
// items_per_second = env steps per second on one thread (BM_TrenchEnvBatchStep below: make_vec's
// batch).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "shaping/letter_maps.hpp"
#include "shaping/trench_env.hpp"
#include "shaping/trench_env_batch.hpp"

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

namespace {

// make_vec's C++ step: 1024 environments of random letters, one batch step per iteration, on 1
// and 2 threads. items_per_second = environment steps per second (issue 17's target: >= 1e6 on
// 2 threads).
void BM_TrenchEnvBatchStep(benchmark::State& state) {
  std::vector<talus::shaping::BinaryMap> letters;
  for (char c = 'A'; c <= 'Z'; ++c) letters.push_back(talus::shaping::letter_map(c));
  constexpr int kEnvs = 1024;
  talus::shaping::TrenchEnvBatch batch(talus::shaping::TrenchGoalSource::of_maps(letters),
                                       talus::shaping::TrenchEnvRules{}, kEnvs);
  std::vector<std::uint64_t> seeds(kEnvs);
  for (int i = 0; i < kEnvs; ++i)
    seeds[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i);
  std::vector<float> obs(static_cast<std::size_t>(kEnvs) * 3 * 49);
  std::vector<double> rewards(kEnvs);
  std::vector<std::uint8_t> actions(kEnvs), terminated(kEnvs), truncated(kEnvs);
  batch.reset(seeds, obs.data());
  std::uint64_t x = 88172645463325252ull;
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    for (std::uint8_t& a : actions) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      a = static_cast<std::uint8_t>(x & 3u);
    }
    batch.step(actions, obs.data(), rewards.data(), terminated.data(), truncated.data(), threads);
    benchmark::DoNotOptimize(rewards.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kEnvs);
}
BENCHMARK(BM_TrenchEnvBatchStep)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
