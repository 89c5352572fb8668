#include "core/env_batch.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace talus {

void check_seed_count(std::span<const std::uint64_t> seeds, std::size_t num_envs) {
  if (seeds.size() != num_envs) {
    throw std::invalid_argument(
        fmt::format("reset: expected {} seeds, got {}", num_envs, seeds.size()));
  }
}

void check_unit_actions(std::span<const double> actions, std::size_t num_envs,
                        std::size_t per_env) {
  if (actions.size() != num_envs * per_env) {
    throw std::invalid_argument(
        fmt::format("step: expected {} action values, got {}", num_envs * per_env, actions.size()));
  }
  for (std::size_t k = 0; k < actions.size(); ++k) {
    if (!(actions[k] >= -1.0 && actions[k] <= 1.0)) {  // NaN fails both
      throw std::invalid_argument(
          fmt::format("step: environment {}: action[{}] = {} is not in [-1, 1]", k / per_env,
                      k % per_env, actions[k]));
    }
  }
}

}  // namespace talus
