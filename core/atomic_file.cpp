#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <regex>
#include <stdexcept>

namespace talus {

namespace fs = std::filesystem;

namespace {

void flush_to_disk(const fs::path& path, bool folder) {
  const int fd = ::open(path.c_str(), (folder ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(
        fmt::format("{}: cannot flush to the disk: {}", path.string(), std::strerror(error)));
  }
  ::close(fd);
}

}  // namespace

bool is_atomic_temporary_name(const std::string& name) {
  static const std::regex pattern(R"(\..+\.tmp-[0-9]+-[0-9]+)");
  return std::regex_match(name, pattern);
}

void replace_file_atomically(const fs::path& final_path,
                             const std::function<void(const fs::path&)>& write) {
  static std::atomic<long> counter{0};
  const fs::path folder =
      final_path.parent_path().empty() ? fs::path(".") : final_path.parent_path();
  const fs::path temp = folder / fmt::format(".{}.tmp-{}-{}", final_path.filename().string(),
                                             static_cast<long>(::getpid()), counter.fetch_add(1));
  try {
    write(temp);
    flush_to_disk(temp, false);
    std::error_code error;
    fs::rename(temp, final_path, error);
    if (error) {
      throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", temp.string(),
                                           final_path.string(), error.message()));
    }
  } catch (...) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw;
  }
  flush_to_disk(folder, true);
}

}  // namespace talus
