#pragma once
// How many threads a run uses (issue 16: on a busy machine two threads can be far slower than
// one). The choice, first that is given: the CLI's --threads, the TALUS_THREADS environment
// variable, OpenMP's own default (OMP_NUM_THREADS, else every core). A scenario key that sets a
// tier's threads explicitly (particles' [solver] threads) still wins for that tier.

#include <optional>

namespace talus {

/// The most threads any setting may ask for.
inline constexpr int kMaxThreads = 1024;

/// Whether the user chose the thread count: `requested` > 0 (--threads), TALUS_THREADS or
/// OMP_NUM_THREADS set. Only then is the count kept fixed; otherwise LoadAdaptiveThreads may
/// lower it while other processes keep cores busy.
bool threads_fixed_by_user(int requested);

/// The thread count for a machine with `cores` cores of which other processes keep
/// `other_busy_cores` busy (a fraction of cores, measured): the free cores rounded to the
/// nearest whole core, at least 1 and at most max_threads.
int threads_for_load(int max_threads, int cores, double other_busy_cores);

/// Cores kept busy by other processes since `since` (a snapshot of /proc/stat and this
/// process's CPU time): (machine busy time - this process's CPU time) / elapsed time.
struct CpuSnapshot {
  double machine_busy_s = 0.0, machine_total_s = 0.0, self_s = 0.0;
  static CpuSnapshot now();  ///< zeros where /proc cannot be read (the adaptation then idles)
};
double other_busy_cores(const CpuSnapshot& since, const CpuSnapshot& now, int cores);

/// Keeps a run's OpenMP team no larger than the cores other processes leave free (issue 16: with
/// one other busy process on 2 cores, 2 spinning OpenMP threads made wheel_trench 2.2 times
/// slower than 1 thread; OMP_WAIT_POLICY=passive fixed that but made the idle run 4 times
/// slower, since every erosion sweep forks a team). update() is called between steps; every
/// half second it measures the last interval and sets omp_set_num_threads. The tiers' results
/// do not depend on the thread count (docs/design.md), so neither do a run's.
class LoadAdaptiveThreads {
 public:
  explicit LoadAdaptiveThreads(int max_threads);
  /// Re-measures when half a second has passed; returns the thread count in effect.
  int update();

 private:
  int max_threads_, cores_, threads_;
  CpuSnapshot last_;
  double last_wall_s_;
};

/// Sets OpenMP's default team size from `requested` (> 0: the CLI's --threads; 0: not given)
/// or TALUS_THREADS (else OpenMP's own OMP_NUM_THREADS or every core), and returns the count now
/// in effect. Throws ScenarioError naming TALUS_THREADS when it is set but not an integer in
/// [1, kMaxThreads], or OMP_NUM_THREADS, when it is the one in effect, set but not a positive
/// integer (or a list of them).
int configure_threads(int requested);

/// Puts OpenMP's default team size back, when it goes, as it was when it was made.
class RestoreOmpThreads {
 public:
  RestoreOmpThreads();
  ~RestoreOmpThreads();
  RestoreOmpThreads(const RestoreOmpThreads&) = delete;
  RestoreOmpThreads& operator=(const RestoreOmpThreads&) = delete;

 private:
  int threads_;
};

/// The threads of one run, as `talus run` and talus.run_scenario choose them:
/// configure_threads(requested), then LoadAdaptiveThreads when the user fixed nothing and more
/// than one thread is in use. OpenMP's default is put back when the object goes (a Python
/// process runs many scenarios, each with its own choice). update() between steps.
class RunThreads {
 public:
  explicit RunThreads(int requested);
  void update();

 private:
  RestoreOmpThreads restore_;
  std::optional<LoadAdaptiveThreads> adapt_;
};

}  // namespace talus
