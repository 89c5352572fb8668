#pragma once
// Wall-clock seconds between two points of a run (stage timers, run summaries). One steady clock
// for every tier, so that no file carries its own copy (a unity build refuses two).

#include <chrono>

namespace talus {

using StopwatchClock = std::chrono::steady_clock;

/// Seconds of wall time from `start` to now.
inline double seconds_since(StopwatchClock::time_point start) {
  return std::chrono::duration<double>(StopwatchClock::now() - start).count();
}

}  // namespace talus
