#pragma once
// A sweep's results on disk (docs/sweep.md, "Output"):
//   results/<id>.h5  one file per finished run, written atomically by the rank that ran it: the
//                    run's status, error, parameters, summary and logged arrays (group "run");
//   sweep.h5         every finished run's group copied under "runs/<id>", rebuilt atomically by
//                    rank 0 after runs finish (the results/ files are the record it is built from);
//   sweep.csv        one row per finished run: status, parameters and the summary's scalars.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sweep/sweep_plan.hpp"

namespace talus::sweep {

/// A sweep's output holds a file talus did not write, a damaged one, or another sweep's results
/// (bad input: exit code 2; the file is left as it is).
class SweepFolderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How one run ended.
struct RunOutcome {
  std::string status;  ///< "ok" or "failed"
  std::string error;   ///< the message of a failed run
  int exit_code = 0;   ///< what `talus run` would have exited with: 0, 1 (run failed), 2 (input)
  double wall_s = 0.0;
  int rank = 0;
  std::string host;
};

/// What a result file says about its run (its arrays stay in the file).
struct RunRecord {
  std::string id;
  int index = 0;
  RunOutcome outcome;
  nlohmann::json parameters;
  nlohmann::json summary;  ///< null when the run wrote none
};

/// For the fingerprint arguments below: any sweep's file is accepted (`--replace` clears an
/// earlier sweep's folder, whichever sweep it was).
inline constexpr const char* kAnySweep = "*";

/// Writes `file` (atomically) for `run`: `outcome`, the run's parameters and, from `run_dir`
/// when it exists, summary.json and every CSV log and .npy array.
void write_run_result(const std::filesystem::path& file, const SweepPlan& plan, const SweepRun& run,
                      const RunOutcome& outcome, const std::filesystem::path& run_dir);

/// Reads a result file of the sweep with `fingerprint`. Throws SweepFolderError naming the file
/// when it is not a readable HDF5 file, not a talus result, or another sweep's.
RunRecord read_run_record(const std::filesystem::path& file, const std::string& fingerprint);

/// Throws SweepFolderError naming `file` when it is not a result file of the sweep with
/// `fingerprint` (kAnySweep: of any sweep).
void check_run_result_file(const std::filesystem::path& file, const std::string& fingerprint);

/// Throws SweepFolderError naming `file` when it exists and is not this sweep's sweep.h5 (not
/// HDF5, damaged, written by someone else, or another sweep's).
void check_sweep_hdf5(const std::filesystem::path& file, const std::string& fingerprint);

/// Rebuilds sweep.h5 from the result files (sorted by run id), atomically. Refuses (throws
/// SweepFolderError) when an existing `file` fails check_sweep_hdf5.
void write_sweep_hdf5(const std::filesystem::path& file, const SweepPlan& plan,
                      const std::vector<std::filesystem::path>& result_files);

/// Throws SweepFolderError naming `file` when it exists and is not a sweep table talus wrote.
void check_sweep_table(const std::filesystem::path& file);

/// Rebuilds sweep.csv, atomically: one row per record, columns run, status, exit_code, wall_s,
/// rank, host, the swept keys, every scalar of the summaries (dotted names), error.
void write_sweep_table(const std::filesystem::path& file, const SweepPlan& plan,
                       const std::vector<RunRecord>& records);

}  // namespace talus::sweep
