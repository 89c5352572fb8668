#pragma once
// The checks `talus view` makes of a run folder before serving it (docs/viewer.md): that it holds
// a talus-view manifest of the version this talus reads, and that every frame it lists is whole.
// A run that fails them is refused with the file and what is wrong (exit code 2), never shown as
// a blank or half page.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace talus {

/// The run folder cannot be viewed (bad input).
class ViewRunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the manifest says of a run that passed the checks.
struct ViewRunInfo {
  std::string tier;
  std::string scenario;
  std::string title;
  std::size_t frame_count = 0;  ///< of the top manifest (a run of cases: its first case)
  std::size_t case_count = 0;   ///< 0 for a run of one scene
};

/// The size in bytes a frame file has when whole, given its header's counts (docs/viewer.md).
std::uint64_t view_frame_bytes(std::uint32_t particles, std::uint32_t heights, std::uint32_t bodies,
                               bool quantised);

/// Checks `run_dir` (see the file comment); throws ViewRunError naming the folder or file and
/// what was expected.
ViewRunInfo check_view_run(const std::filesystem::path& run_dir);

}  // namespace talus
