#include "core/output_dir.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "core/interrupt.hpp"

namespace talus {
namespace fs = std::filesystem;

namespace {

std::atomic<unsigned long> g_counter{0};

// A sibling of `final_dir` named ".<name>.<tag>-<pid>-<n>" that does not exist yet.
fs::path sibling_name(const fs::path& final_dir, const char* tag) {
  return final_dir.parent_path() / fmt::format(".{}.{}-{}-{}", final_dir.filename().string(), tag,
                                               static_cast<long>(::getpid()), g_counter++);
}

}  // namespace

OutputDir::OutputDir(OutputTarget target) : existing_(target.existing) {
  fs::path final_dir = std::move(target.dir);
  // Drop a trailing separator ("out/" names "out") and make the parent explicit ("out" -> "./out").
  if (!final_dir.empty() && !final_dir.has_filename()) final_dir = final_dir.parent_path();
  const fs::path name = final_dir.filename();
  if (final_dir.empty() || name.empty() || name == "." || name == "..") {
    throw OutputTargetError(
        fmt::format("--out '{}' does not name a folder by its own name ('.' and '..' are "
                    "relative to where talus runs; the output is written beside and renamed into "
                    "place); expected a folder path such as out/run",
                    final_dir.string()));
  }
  if (final_dir.parent_path().empty()) final_dir = fs::path(".") / final_dir;
  final_ = std::move(final_dir);
  check_output_target(final_, existing_);

  std::error_code ec;
  fs::create_directories(final_.parent_path(), ec);
  if (ec) {
    throw std::runtime_error(fmt::format("OutputDir: cannot create the parent folder '{}': {}",
                                         final_.parent_path().string(), ec.message()));
  }
  remove_stale_temporaries(final_.parent_path());
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path candidate = sibling_name(final_, "tmp");
    if (fs::create_directory(candidate, ec)) {
      temp_ = std::move(candidate);
      register_temporary(temp_);
      write_temp_marker(temp_);  // on failure the destructor removes the folder
      return;
    }
    if (ec) {
      throw std::runtime_error(fmt::format("OutputDir: cannot create the temporary folder '{}': {}",
                                           candidate.string(), ec.message()));
    }
    // It already existed (left by an earlier process with our pid): try the next number.
  }
  throw std::runtime_error(fmt::format(
      "OutputDir: no free temporary folder name next to '{}' after 100 tries", final_.string()));
}

OutputDir::OutputDir(OutputDir&& other) noexcept
    : final_(std::move(other.final_)),
      existing_(other.existing_),
      temp_(std::exchange(other.temp_, fs::path())),
      committed_(other.committed_) {}

OutputDir::~OutputDir() {
  if (committed_ || temp_.empty()) return;
  std::error_code ignored;
  fs::remove_all(temp_, ignored);
  unregister_temporary(temp_);
}

fs::path OutputDir::path(const fs::path& relative) const {
  if (committed_) {
    throw std::runtime_error(fmt::format("OutputDir '{}': path('{}') after commit()",
                                         final_.string(), relative.string()));
  }
  if (relative.empty() || relative.is_absolute() || relative.has_root_path()) {
    throw std::runtime_error(fmt::format("OutputDir '{}': '{}' must be a non-empty relative path",
                                         final_.string(), relative.string()));
  }
  const fs::path normal = relative.lexically_normal();
  if (normal.empty() || normal == "." || *normal.begin() == "..") {
    throw std::runtime_error(fmt::format("OutputDir '{}': '{}' leads outside the output folder",
                                         final_.string(), relative.string()));
  }
  fs::path full = temp_ / normal;
  if (normal.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(full.parent_path(), ec);
    if (ec) {
      throw std::runtime_error(fmt::format("OutputDir: cannot create the folder '{}': {}",
                                           full.parent_path().string(), ec.message()));
    }
  }
  return full;
}

void OutputDir::commit() {
  if (committed_) {
    throw std::runtime_error(fmt::format("OutputDir '{}': commit() called twice", final_.string()));
  }
  const auto lock = hold_commit_lock();
  std::error_code ec;
  fs::remove(temp_ / kTempMarkerName, ec);
  write_output_manifest(temp_);
  try {
    check_output_target(final_, existing_);  // the final path may have changed during the run
  } catch (const OutputTargetError& refusal) {
    keep_refused_outputs(refusal);
  }
  // Absent, or an empty folder: rename() puts the new folder in its place in one step.
  const bool replacing = fs::exists(fs::symlink_status(final_, ec)) && !fs::is_empty(final_, ec);
  const fs::path old = sibling_name(final_, "old");
  if (replacing) {
    fs::rename(final_, old, ec);
    if (ec) {
      throw std::runtime_error(
          fmt::format("OutputDir: cannot move the existing '{}' aside to '{}': {}", final_.string(),
                      old.string(), ec.message()));
    }
  }
  fs::rename(temp_, final_, ec);
  if (ec) {
    const std::string reason = ec.message();
    std::error_code restore_ec;
    if (replacing) fs::rename(old, final_, restore_ec);  // put the previous outputs back
    throw std::runtime_error(fmt::format(
        "OutputDir: cannot rename '{}' to '{}': {}{}", temp_.string(), final_.string(), reason,
        restore_ec ? fmt::format(" (and the previous folder stays at '{}': {})", old.string(),
                                 restore_ec.message())
                   : std::string()));
  }
  committed_ = true;
  unregister_temporary(temp_);
  // The new outputs are in place; failing to remove the old ones does not undo that. What stays
  // (an entry talus did not write that appeared during the run) stays in the hidden ".old"
  // folder, never deleted.
  if (replacing) remove_talus_output(old);
}

// The final folder turned into something talus may not write over while the run went on: the
// run's complete outputs move to a visible sibling, named in the error, instead of being lost.
void OutputDir::keep_refused_outputs(const OutputTargetError& refusal) {
  std::error_code ec;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path kept = final_;
    kept += fmt::format(".kept-{}-{}", static_cast<long>(::getpid()), g_counter++);
    if (fs::exists(fs::symlink_status(kept, ec))) continue;
    fs::rename(temp_, kept, ec);
    if (ec) break;
    committed_ = true;  // nothing left for the destructor to remove
    unregister_temporary(temp_);
    throw OutputTargetError(
        fmt::format("{}; this run's outputs are kept in '{}'", refusal.what(), kept.string()));
  }
  committed_ = true;  // the outputs stay where they are, unmarked: no later run removes them
  unregister_temporary(temp_);
  throw OutputTargetError(
      fmt::format("{}; this run's outputs stay in '{}'", refusal.what(), temp_.string()));
}

}  // namespace talus
