#pragma once
// A file replaced all at once: written beside its final name, flushed to the disk, then renamed
// over it, so that a reader (or a process restarted after a kill or a power cut) sees the old
// complete file or the new complete file, never half of one.

#include <filesystem>
#include <functional>

namespace talus {

/// Calls `write(temp)` with a fresh temporary path beside `final_path`
/// (".<name>.tmp-<pid>-<n>"), flushes the written file to the disk, renames it to `final_path`
/// and flushes the folder. The temporary file is removed when `write` throws (the exception
/// passes on) and `final_path` is left as it was. Throws std::runtime_error naming the paths
/// and the OS reason when flushing or renaming fails.
void replace_file_atomically(const std::filesystem::path& final_path,
                             const std::function<void(const std::filesystem::path&)>& write);

/// Whether `name` is a temporary file name replace_file_atomically() makes.
bool is_atomic_temporary_name(const std::string& name);

}  // namespace talus
