#pragma once
// `talus run --video`: a finished run's view frames (docs/viewer.md) drawn by ViewRenderer and
// encoded as video.mp4 in the run folder.

#include <filesystem>
#include <functional>

namespace talus {

/// Writes RUN_DIR/video.mp4 from the run's frames (a run of several cases: one after the other),
/// at the run's own pace where it can (frames per second = frames per simulated second, kept
/// within 5 to 30), and adds it to the run's .talus-output manifest. The video is encoded into a
/// temporary file and renamed into place, so a failure leaves no partial video.mp4. Throws
/// ViewRunError when the run has no view (recorded with [view] frames = 0) or a broken one,
/// std::runtime_error when ffmpeg fails or the folder holds files talus did not write.
/// `progress(done, total)` is called after each frame.
void write_run_video(const std::filesystem::path& run_dir,
                     const std::function<void(long, long)>& progress = {});

}  // namespace talus
