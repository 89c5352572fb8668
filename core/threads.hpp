#pragma once
// How many threads a run uses (issue 16: on a busy machine two threads can be far slower than
// one). The choice, first that is given: the CLI's --threads, the TALUS_THREADS environment
// variable, OpenMP's own default (OMP_NUM_THREADS, else every core). A scenario key that sets a
// tier's threads explicitly (particles' [solver] threads) still wins for that tier.

namespace talus {

/// The most threads any setting may ask for.
inline constexpr int kMaxThreads = 1024;

/// Sets OpenMP's default team size from `requested` (> 0: the CLI's --threads; 0: not given)
/// or TALUS_THREADS, and returns the count now in effect. Throws ScenarioError naming
/// TALUS_THREADS when it is set but not an integer in [1, kMaxThreads].
int configure_threads(int requested);

}  // namespace talus
