#pragma once
// What a sweep makes of all its runs' outputs once every run has succeeded ([sweep] combine):
//   "none"             nothing (the default)
//   "wrench_database"  the runs are parts of one wrench-space acquisition (kind "acquire", split
//                      by tilt or depth): their database.h5 files are merged into the sweep's
//                      database.h5, with its quality figures in database.json
//                      (wrench::merge_databases, wrench::database_quality) and its deepest
//                      depth's wrench sets per tilt in database.png

#include <filesystem>
#include <string>
#include <vector>

namespace talus {
class ScenarioDocument;
}

namespace talus::sweep {

struct SweepPlan;
struct SweepPaths;

/// The names [sweep] combine may take.
std::vector<std::string> combine_kinds();

/// Why `combine` cannot apply to the base scenario `base` run on `tier` (empty: the file's own);
/// empty when it can.
std::string combine_refusal(const std::string& combine, const ScenarioDocument& base,
                            const std::string& tier);

/// Why the runs of `plan` cannot be combined (empty when they can), known before any run: for
/// "wrench_database", a swept key the parts must share (the medium, the directions and scales,
/// the reference point, the depth reference) or a configuration two runs would both measure.
std::string combined_runs_refusal(const SweepPlan& plan);

/// The files `combine` writes in the sweep's folder.
std::vector<std::string> combined_files(const std::string& combine);

/// Makes the combined output of `plan`'s runs in the sweep's folder (every run finished and
/// succeeded), each file replaced atomically. Returns a line saying what was written. Throws
/// std::runtime_error naming the run and the file when a part is missing or does not fit.
std::string combine_runs(const SweepPlan& plan, const SweepPaths& paths);

}  // namespace talus::sweep
