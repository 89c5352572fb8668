#include "core/steps.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/scenario_file.hpp"

namespace talus {

long steps_for(double duration_s, double time_step_s) {
  if (!(std::isfinite(time_step_s) && time_step_s > 0.0)) {
    throw std::invalid_argument(
        fmt::format("the time step must be a finite number > 0 s, got {:g} s", time_step_s));
  }
  if (!(std::isfinite(duration_s) && duration_s >= 0.0)) {
    throw std::invalid_argument(
        fmt::format("the duration must be a finite number >= 0 s, got {:g} s", duration_s));
  }
  // Compared as doubles before the conversion: a quotient past the range of long (1e-300 s
  // steps) must never reach the cast.
  const double steps = std::ceil(duration_s / time_step_s - 1e-9);
  if (!(steps <= static_cast<double>(kMaxStepsPerRun))) {
    throw std::invalid_argument(
        fmt::format("{:g} s in steps of {:g} s is {:.3g} steps, more than the {:g} a run may take",
                    duration_s, time_step_s, steps, static_cast<double>(kMaxStepsPerRun)));
  }
  return steps > 0.0 ? static_cast<long>(steps) : 0L;
}

long steps_for(const ScenarioTable& table, const std::string& time_step_key, double duration_s,
               double time_step_s) {
  try {
    return steps_for(duration_s, time_step_s);
  } catch (const std::invalid_argument& e) {
    table.fail(time_step_key, e.what());
  }
}

}  // namespace talus
