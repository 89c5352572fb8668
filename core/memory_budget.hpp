#pragma once
// Estimates of what a scenario will allocate, refused before the allocation (issue 16: a lattice
// bed filling a 10 m cube ran `check` for 22 s and ended in std::bad_alloc naming no key).

#include <cstdint>
#include <string>

namespace talus {

class ScenarioTable;

/// Physical memory of this machine [bytes] (sysconf); 0 when it cannot be read.
std::uint64_t physical_memory_bytes();

/// What one scenario item may allocate: 80 % of physical memory (the rest is the operating
/// system's, and other programs'), or 16 GiB when physical memory cannot be read.
std::uint64_t memory_budget_bytes();

/// Refuses with a ScenarioError at `table`.`key` when `estimated_bytes` (what `what` will
/// allocate, e.g. "the lattice bed's 1.3e9 particles") passes memory_budget_bytes(); the message
/// gives the estimate and the budget.
void check_memory_estimate(const ScenarioTable& table, const std::string& key,
                           double estimated_bytes, const std::string& what);

}  // namespace talus
