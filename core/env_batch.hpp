#pragma once
// What every learning environment's C++ batch checks at its edge (particles/bulldozing_env_batch,
// robot/rover_env_batch, wrench/quadruped_env_batch): one seed per instance, and actions that
// are per_env numbers in [-1, 1] for each instance, checked before any instance moves.

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <span>

namespace talus {

/// Throws std::invalid_argument "reset: expected N seeds, got M" unless seeds.size() == num_envs.
void check_seed_count(std::span<const std::uint64_t> seeds, std::size_t num_envs);

/// Throws std::invalid_argument naming the count, or the first environment and action index
/// whose value is outside [-1, 1] or NaN, unless actions holds num_envs x per_env such values.
void check_unit_actions(std::span<const double> actions, std::size_t num_envs, std::size_t per_env);

/// The threads each instance's own step gets when step_each_env runs num_envs instances on
/// `threads` threads: 1 when there are enough instances for one thread each, else all of them.
inline int threads_per_env(std::size_t num_envs, int threads) {
  threads = std::max(1, threads);
  return static_cast<int>(num_envs) >= threads ? 1 : threads;
}

/// Calls step_env(i) for every instance i < num_envs: in parallel, one thread per instance, when
/// there are at least as many instances as threads; otherwise one after another, each instance's
/// step then using threads_per_env() threads itself (the particle envs: a tier that gives the
/// same bits on any thread count makes both orders give the same bits). One after another, the
/// teams an instance's step starts without naming a size (the SCM step's boxes) get that many
/// threads too: OpenMP's default team size is set to it for the calls. step_env must not throw.
template <class StepEnv>
void step_each_env(std::size_t num_envs, int threads, StepEnv&& step_env) {
  if (threads_per_env(num_envs, threads) == 1 && threads > 1) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::size_t i = 0; i < num_envs; ++i) step_env(i);
  } else {
    const int default_team = omp_get_max_threads();
    omp_set_num_threads(threads_per_env(num_envs, threads));
    for (std::size_t i = 0; i < num_envs; ++i) step_env(i);
    omp_set_num_threads(default_team);
  }
}

}  // namespace talus
