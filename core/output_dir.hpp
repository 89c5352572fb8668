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
// Replacing an existing final folder is three renames' worth of work: the old folder is renamed
// aside (".<final>.old-<pid>-<n>"), the new one renamed into place, and the old one removed. Only
// between the first two renames is there no folder under the final name; both are renames within
// one parent folder, so on a local file system neither copies data.

#include <filesystem>

namespace talus {

class OutputDir {
 public:
  /// Creates the temporary sibling folder ".<name>.tmp-<pid>-<n>" in final_dir's parent (making
  /// the parent if missing). Throws std::runtime_error naming the paths and the OS reason when
  /// it cannot, or when final_dir has no name (empty, "/", ".", "..").
  explicit OutputDir(std::filesystem::path final_dir);
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

  /// Puts the temporary folder in place under the final name, replacing an existing folder (see
  /// the file comment). Throws std::runtime_error naming the paths and the OS reason on failure,
  /// when the final path exists but is not a folder, or when called twice; on failure an existing
  /// final folder is left (or put back) as it was and the temporary folder is kept for the
  /// destructor to remove.
  void commit();

  bool committed() const { return committed_; }
  const std::filesystem::path& final_path() const { return final_; }
  const std::filesystem::path& temp_path() const { return temp_; }

 private:
  std::filesystem::path final_;
  std::filesystem::path temp_;
  bool committed_ = false;
};

}  // namespace talus
