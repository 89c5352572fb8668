#pragma once
#include <functional>

namespace talus {

/// Progress of a run, called after each step: steps done, steps in all, simulated time [s].
using RunProgress = std::function<void(long, long, double)>;

}  // namespace talus
