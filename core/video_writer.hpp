#pragma once
// MP4 videos from RgbImage frames, encoded by Debian's ffmpeg program (H.264, yuv420p: plays in
// browsers and common players). The program runs as a separate process fed raw RGB frames on a
// pipe: talus links no codec library.

#include <cstdio>
#include <filesystem>
#include <string>

#include "core/image.hpp"

namespace talus {

/// The ffmpeg program on PATH ("" when there is none).
std::string find_ffmpeg();

class VideoWriter {
 public:
  /// Starts ffmpeg writing `path` (an .mp4) of width x height pixels (made even: H.264 needs it)
  /// at `frames_per_s`. Throws std::runtime_error when ffmpeg cannot be started.
  VideoWriter(const std::filesystem::path& path, int width_px, int height_px, int frames_per_s);
  ~VideoWriter();  ///< ends ffmpeg (and leaves what it wrote) if close() was not called
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  /// Adds a frame of the size given; throws std::runtime_error when ffmpeg stopped reading.
  void add(const RgbImage& frame);
  /// Ends the stream and waits for ffmpeg; throws std::runtime_error naming its exit status when
  /// it failed.
  void close();

 private:
  std::filesystem::path path_;
  int width_px_, height_px_;
  int pipe_fd_ = -1;
  long pid_ = -1;
};

}  // namespace talus
