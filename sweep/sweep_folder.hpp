#pragma once
// A sweep's output folder (`talus sweep ... --out DIR`), kept across restarts:
//   .talus-sweep.json  which sweep the folder holds (its fingerprint, name, files, planned runs)
//   runs/<id>/         each run's normal output folder, as `talus run` writes it
//   results/<id>.h5    each finished run's result (sweep/sweep_results.hpp)
//   sweep.h5, sweep.csv  all finished runs, rebuilt by rank 0
// A folder is opened only when it is new, empty, or this very sweep's; anything in it talus did
// not write (or another sweep's results) is refused, never overwritten. `--replace` empties an
// earlier sweep's folder first, and only when everything in it is what a sweep writes. While a
// sweep runs, rank 0 holds a lock on the folder, so that two sweeps never write one folder at once.

#include <filesystem>
#include <map>
#include <string>

#include "sweep/sweep_plan.hpp"
#include "sweep/sweep_results.hpp"

namespace talus::sweep {

/// Where a sweep's files are in its output folder (every rank needs them; rank 0's SweepFolder
/// checks and owns the folder).
struct SweepPaths {
  std::filesystem::path root;

  std::filesystem::path run_dir(const std::string& id) const { return root / "runs" / id; }
  std::filesystem::path results_dir() const { return root / "results"; }
  std::filesystem::path result_file(const std::string& id) const {
    return results_dir() / (id + ".h5");
  }
  std::filesystem::path hdf5_file() const { return root / "sweep.h5"; }
  std::filesystem::path table_file() const { return root / "sweep.csv"; }
  std::filesystem::path probe_file() const { return root / ".talus-sweep-probe"; }
};

class SweepFolder : public SweepPaths {
 public:
  /// Opens `dir` for `plan` (creating it when missing), locks it and reads the results already
  /// there. With `replace`, an earlier sweep's folder (this sweep's or another's) is emptied
  /// first, when it holds only what a sweep writes. Throws SweepFolderError naming the entry and
  /// the reason when talus may not write `dir`, and std::runtime_error when the OS refuses.
  SweepFolder(std::filesystem::path dir, const SweepPlan& plan, bool replace = false);
  SweepFolder(const SweepFolder&) = delete;
  SweepFolder& operator=(const SweepFolder&) = delete;

  const std::filesystem::path& dir() const { return root; }

  /// The results found when the folder was opened, by run id.
  const std::map<std::string, RunRecord>& finished() const { return finished_; }
  /// Whether the folder was new or empty (nothing of an earlier start in it).
  bool fresh() const { return fresh_; }

  /// Writes .talus-sweep.json (once the ranks have been found to reach the folder).
  void write_identity(const SweepPlan& plan);
  /// Removes what this sweep put in a fresh folder (the probe, the subfolders) and the folder
  /// itself when this sweep made it: a sweep that stops before its first run leaves nothing.
  void remove_if_fresh();

 private:
  // An open descriptor of the folder holding flock(): closed (and the lock let go) also when the
  // constructor throws.
  struct Lock {
    int fd = -1;
    Lock() = default;
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    ~Lock();
  };

  void resume(const SweepPlan& plan, const nlohmann::json& identity);
  void check_sweep_entries(const nlohmann::json& identity) const;
  void check_run_folder(const std::filesystem::path& run) const;
  void clear(const nlohmann::json& identity);

  bool made_ = false;
  bool fresh_ = false;
  Lock lock_;
  std::map<std::string, RunRecord> finished_;
};

}  // namespace talus::sweep
