// core/env_batch.hpp's step_each_env: which threads an instance's step runs on, and how many
// threads the teams that step starts get.

#include <gtest/gtest.h>
#include <omp.h>

#include <vector>

#include "core/env_batch.hpp"

namespace talus {
namespace {

struct Seen {
  bool in_team = false;  // stepped inside step_each_env's own team
  int default_team = 0;  // omp_get_max_threads() there: a nested team's size
};

std::vector<Seen> seen_by_steps(std::size_t num_envs, int threads) {
  std::vector<Seen> seen(num_envs);
  step_each_env(num_envs, threads, [&](std::size_t i) {
    seen[i] = {omp_in_parallel() != 0, omp_get_max_threads()};
  });
  return seen;
}

// Fewer instances than threads: one after another on the calling thread, and a team the
// instance's step starts (the SCM step's wheels) gets all the threads, or 1 when asked for 1,
// whatever OpenMP's default was; the default is back afterwards.
TEST(EnvBatch, FewInstancesStepOneAfterAnotherWithTeamsOfTheThreads) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(4);
  for (const Seen& s : seen_by_steps(1, 3)) {
    EXPECT_FALSE(s.in_team);
    EXPECT_EQ(s.default_team, 3);
  }
  for (const Seen& s : seen_by_steps(2, 1)) {
    EXPECT_FALSE(s.in_team);
    EXPECT_EQ(s.default_team, 1);
  }
  EXPECT_EQ(omp_get_max_threads(), 4);
  omp_set_num_threads(before);
}

// At least as many instances as threads: one thread per instance, in step_each_env's team.
TEST(EnvBatch, ManyInstancesStepOnePerThread) {
  for (const Seen& s : seen_by_steps(4, 2)) EXPECT_TRUE(s.in_team);
}

}  // namespace
}  // namespace talus
