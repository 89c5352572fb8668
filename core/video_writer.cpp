#include "core/video_writer.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

extern char** environ;

namespace talus {
namespace fs = std::filesystem;

std::string find_ffmpeg() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "ffmpeg";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

VideoWriter::VideoWriter(const fs::path& path, int width_px, int height_px, int frames_per_s)
    : path_(path), width_px_(width_px), height_px_(height_px) {
  const std::string ffmpeg = find_ffmpeg();
  if (ffmpeg.empty()) {
    throw std::runtime_error("videos need the ffmpeg program (Debian package ffmpeg)");
  }
  // A failed ffmpeg must surface as an error from add(), not kill talus with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("cannot make a pipe to ffmpeg");
  const std::string size = fmt::format("{}x{}", width_px, height_px);
  const std::string rate = std::to_string(frames_per_s);
  // Crop to even sizes (H.264 with 4:2:0 chroma needs them); quality 20 keeps grains sharp.
  // clang-format off
  std::vector<std::string> args = {
      ffmpeg, "-loglevel", "error", "-nostdin", "-y",
      "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", size, "-r", rate, "-i", "-",
      "-vf", "crop=trunc(iw/2)*2:trunc(ih/2)*2",
      "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "20",
      "-movflags", "+faststart", "-f", "mp4", path.string()};
  // clang-format on
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, ffmpeg.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[0]);
  if (error != 0) {
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("cannot start {}: {}", ffmpeg, std::strerror(error)));
  }
  pipe_fd_ = fds[1];
  pid_ = pid;
}

VideoWriter::~VideoWriter() {
  try {
    if (pid_ > 0) close();
  } catch (const std::exception&) {  // a destructor may not throw: the failure was not asked for
  }
}

void VideoWriter::add(const RgbImage& frame) {
  if (frame.width != width_px_ || frame.height != height_px_) {
    throw std::invalid_argument(fmt::format("VideoWriter: a {}x{} frame in a {}x{} video",
                                            frame.width, frame.height, width_px_, height_px_));
  }
  std::size_t done = 0;
  while (done < frame.rgb.size()) {
    const ssize_t n = ::write(pipe_fd_, frame.rgb.data() + done, frame.rgb.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw std::runtime_error(
          fmt::format("ffmpeg stopped reading while writing '{}'", path_.string()));
    }
    done += static_cast<std::size_t>(n);
  }
}

void VideoWriter::close() {
  if (pid_ <= 0) return;
  ::close(pipe_fd_);
  pipe_fd_ = -1;
  int status = 0;
  while (::waitpid(static_cast<pid_t>(pid_), &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(fmt::format("ffmpeg failed writing '{}' (status {})", path_.string(),
                                         WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  }
}

}  // namespace talus
