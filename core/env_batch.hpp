#pragma once
// What every learning environment's C++ batch checks at its edge (particles/bulldozing_env_batch,
// robot/rover_env_batch, wrench/quadruped_env_batch): one seed per instance, and actions that
// are per_env numbers in [-1, 1] for each instance, checked before any instance moves.

#include <cstdint>
#include <span>

namespace talus {

/// Throws std::invalid_argument "reset: expected N seeds, got M" unless seeds.size() == num_envs.
void check_seed_count(std::span<const std::uint64_t> seeds, std::size_t num_envs);

/// Throws std::invalid_argument naming the count, or the first environment and action index
/// whose value is outside [-1, 1] or NaN, unless actions holds num_envs x per_env such values.
void check_unit_actions(std::span<const double> actions, std::size_t num_envs, std::size_t per_env);

}  // namespace talus
