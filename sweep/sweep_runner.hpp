#pragma once
// `talus sweep`: every run of a sweep plan, handed out by rank 0 one at a time as ranks become
// free (runs differ in cost by orders of magnitude), each run through the runner `talus run`
// uses, its result written at once; a restart redoes only the runs without a result.

#include <filesystem>

#include "sweep/sweep_channel.hpp"

namespace talus::sweep {

struct SweepOptions {
  std::filesystem::path sweep_file;
  std::filesystem::path out_dir;
  bool quiet = false;            ///< no progress lines
  bool retry_failed = false;     ///< run again the runs whose result says they failed
  bool replace = false;          ///< empty an earlier sweep's output folder first (SweepFolder)
  double status_every_s = 10.0;  ///< seconds between "n of N done" lines
};

/// Runs the sweep on every rank of `channel` (collective). Returns the exit code for this
/// process: 0 when every run succeeded, 1 when the sweep finished with failed runs, 2 when the
/// input is wrong (sweep file, scenario values, output folder, a rank that cannot reach it) and
/// nothing ran. Only rank 0 prints: errors and progress on stderr, the final line on stdout.
/// InterruptedError (Ctrl-C, SIGTERM) passes on after the run in progress removed its
/// temporary folder; finished results stay.
int run_sweep(const SweepOptions& options, SweepChannel& channel);

}  // namespace talus::sweep
