#pragma once
// A run's warning: something the user should know about a result that is not an error (a bed
// still moving, a plate still sinking, no pile to measure, queries outside the data).

#include <nlohmann/json.hpp>
#include <string>

namespace talus {

/// Prints "warning: <warning>" on stderr and appends it to summary["warnings"], so that the
/// terminal and summary.json say the same.
void add_run_warning(nlohmann::json& summary, const std::string& warning);

}  // namespace talus
