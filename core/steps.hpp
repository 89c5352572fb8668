#pragma once
// One rule for turning a duration into a number of time steps, bounded in one place (issues 15
// and 16: four roundings across the tiers, and step counts that overflowed to
// -9223372036854775808 for time_step_s = 1e-300).

#include <string>

namespace talus {

class ScenarioTable;

/// No run takes more steps than this (10^9: at a microsecond per step, a quarter of an hour of
/// stepping at the very least); more is a typo in a time step or a duration.
inline constexpr long kMaxStepsPerRun = 1'000'000'000;

/// The number of steps of `time_step_s` that cover `duration_s`: ceil(duration / dt), less a
/// tolerance of 1e-9 of a step so that a duration that is a whole number of steps in decimal
/// (1.0 s of 1 ms is 1000.0000000000001 steps in binary) takes exactly that many. 0 for a zero
/// duration. Throws std::invalid_argument naming the numbers when the time step is not a finite
/// number > 0, the duration not a finite number >= 0, or the count would pass kMaxStepsPerRun.
long steps_for(double duration_s, double time_step_s);

/// steps_for, refusing with a ScenarioError at `table`.`time_step_key` (the key the user wrote)
/// when the count is out of bounds.
long steps_for(const ScenarioTable& table, const std::string& time_step_key, double duration_s,
               double time_step_s);

}  // namespace talus
