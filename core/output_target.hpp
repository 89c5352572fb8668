#pragma once
// Which folders talus may write over, and how it recognises its own (issue 16, data loss).
//
// talus removes only what talus wrote. Every committed output folder holds a manifest,
// ".talus-output" (JSON: the talus version and every file and folder the run wrote). A run's
// `--out` may name:
//   - a path that does not exist, or an empty folder: the run's folder is put there;
//   - a talus output whose entries are all listed in its manifest: replaced only when the user
//     asks (`talus run --replace`), and then only the listed entries are removed;
// and nothing else: an existing file, a symbolic link, a folder holding anything talus did not
// write (no manifest, or entries the manifest does not list) are refused before the run starts.
//
// Temporary folders (".<name>.tmp-<pid>-<n>") hold a marker ".talus-tmp" naming the host and
// process that made them, so that a later run can remove those of processes that died (a kill,
// a power cut) without touching anything else.

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace talus {

/// The manifest a committed output folder holds, and the marker of a temporary folder.
inline constexpr const char* kOutputManifestName = ".talus-output";
inline constexpr const char* kTempMarkerName = ".talus-tmp";

/// What a run may do with an existing talus output under its final name.
enum class ExistingOutput {
  refuse,   ///< any existing non-empty folder is refused
  replace,  ///< a talus output (manifest lists every entry) is replaced; anything else refused
};

/// Where a run puts its folder, and whether it may replace an earlier talus output there.
struct OutputTarget {
  OutputTarget(std::filesystem::path dir_,  // NOLINT: a plain path means "refuse existing"
               ExistingOutput existing_ = ExistingOutput::refuse)
      : dir(std::move(dir_)), existing(existing_) {}
  std::filesystem::path dir;
  ExistingOutput existing;
};

/// The final folder is not one talus may write (bad input: the CLI exits with code 2).
class OutputTargetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws OutputTargetError naming `final_dir` and the reason when a run may not put its folder
/// there under `policy` (see the file comment); returns when it may.
void check_output_target(const std::filesystem::path& final_dir, ExistingOutput policy);

/// Writes the manifest into `dir`, listing every entry under it (called just before commit).
void write_output_manifest(const std::filesystem::path& dir);

/// Entries (relative, sorted) under `dir` that its manifest does not list; every entry when it
/// has no readable manifest. Empty: `dir` is wholly a talus output.
std::vector<std::string> entries_talus_did_not_write(const std::filesystem::path& dir);

/// Removes the entries `dir`'s manifest lists, then `dir` itself when that left it empty.
/// Returns false when something stays (entries talus did not write, or an OS error).
bool remove_talus_output(const std::filesystem::path& dir);

/// This machine's host name ("?" when the system cannot say).
std::string host_name();

/// Writes the temporary-folder marker (host name and process id) into `temp_dir`.
void write_temp_marker(const std::filesystem::path& temp_dir);

/// Removes, from `parent`, the temporary and set-aside folders ("." name ".tmp-" or ".old-"
/// pid "-" n) whose process no longer runs on this host (gone, or a zombie waiting to be
/// reaped): temporaries only when they hold the marker naming this host, set-aside outputs only
/// as far as their manifest goes. Returns the folders removed. Never throws: a folder that
/// cannot be removed is left.
std::vector<std::filesystem::path> remove_stale_temporaries(const std::filesystem::path& parent);

}  // namespace talus
