#pragma once
// All-or-nothing output folders (design principle 7: nothing half-written).
//
// A run writes every file into a fresh temporary folder beside the final one, and only commit()
// puts it in place. A run that fails or is interrupted before commit() leaves the final folder as
// it was: absent, or holding the previous run's complete outputs.
//
//   OutputDir out("results/trench");                 // writes go to results/.trench.tmp-<pid>-<n>
//   write_png(out.path("height.png"), image);
//   CsvWriter log(out.path("logs/force.csv"), {"t_s", "fx_N"});  // logs/ created on demand
//   ...
//   log.close();
//   out.commit();                                     // results/trench now holds the new files
//
// talus writes over nothing it did not write (core/output_target.hpp): the final folder must be
// absent, empty, or (when the caller asks to replace it) a talus output, checked when the
// OutputDir is made and again at commit. The committed folder holds a manifest of its entries.
//
// Replacing an existing talus output is three renames' worth of work: the old folder is renamed
// aside (".<final>.old-<pid>-<n>"), the new one renamed into place, and the old one's listed
// entries removed. Only between the first two renames is there no folder under the final name;
// both are renames within one parent folder, so on a local file system neither copies data.
// A signal never lands between them (core/interrupt.hpp: commits hold the commit lock).

#include <filesystem>

#include "core/output_target.hpp"

namespace talus {

class OutputDir {
 public:
  /// Checks the target (OutputTargetError when talus may not write there), removes stale
  /// temporaries of dead processes beside it, and creates the temporary sibling folder
  /// ".<name>.tmp-<pid>-<n>" in the target's parent (making the parent if missing). Throws
  /// std::runtime_error naming the paths and the OS reason when it cannot, or when the folder
  /// has no name (empty, "/", ".", "..").
  explicit OutputDir(OutputTarget target);
  /// Removes the temporary folder and everything in it unless commit() succeeded.
  ~OutputDir();
  OutputDir(OutputDir&& other) noexcept;
  OutputDir& operator=(OutputDir&&) = delete;
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  /// The path of `relative` (e.g. "logs/force.csv") inside the temporary folder, creating its
  /// parent folders. Throws std::runtime_error when `relative` is empty, absolute or leads out
  /// of the folder (".."), when a folder cannot be created, or after commit().
  std::filesystem::path path(const std::filesystem::path& relative) const;

  /// Writes the manifest and puts the temporary folder in place under the final name, replacing
  /// an existing talus output when the target allows (see the file comment). When the final
  /// path changed during the run so that talus may no longer write there, throws
  /// OutputTargetError and keeps this run's outputs in a visible sibling folder the message
  /// names. Throws std::runtime_error naming the paths and the OS reason when a rename fails (an
  /// existing final folder is left or put back as it was, the temporary folder is kept for the
  /// destructor to remove) or when called twice.
  void commit();

  bool committed() const { return committed_; }
  const std::filesystem::path& final_path() const { return final_; }
  const std::filesystem::path& temp_path() const { return temp_; }

 private:
  void keep_refused_outputs(const OutputTargetError& refusal);

  std::filesystem::path final_;
  ExistingOutput existing_;
  std::filesystem::path temp_;
  bool committed_ = false;
};

}  // namespace talus
