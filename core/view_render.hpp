#pragma once
// Pictures of a recorded run (the talus-view format, docs/viewer.md) drawn without a browser: an
// orthographic view from above and to the side, surfaces and bodies shaded by one light, the
// particles as discs coloured by speed, drawn back to front (painter's order) with Cairo. These
// are the frames of `talus run --video` (core/video_writer.hpp); the web viewer draws the same
// scene in 3-D.

#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace talus {

/// One frame file read whole (docs/viewer.md, "A frame file").
struct ViewFrameData {
  std::uint32_t index = 0;
  double time_s = 0.0;
  std::vector<float> positions_m;  ///< 3 n: x0, y0, z0, x1, ...
  std::vector<float> speeds_m_per_s;
  std::vector<float> heights_m;  ///< nx ny, row-major
  std::vector<float> poses;      ///< 7 b: x, y, z, qw, qx, qy, qz
};

/// Reads a frame file; throws ViewRunError (core/view_check.hpp) naming the file when it is not
/// a whole frame.
ViewFrameData read_view_frame(const std::filesystem::path& file);

/// The camera: where it looks from (azimuth about z from +x, elevation above the x-y plane) and
/// the picture's size.
struct ViewCamera {
  double azimuth_deg = -60.0;
  double elevation_deg = 30.0;
  int width_px = 1280;
  int height_px = 720;
};

class ViewRenderer {
 public:
  /// For the scene of `manifest` (a checked talus-view manifest) with particle radii `radii_m`
  /// (empty, one, or one per particle) and particles coloured over [0, speed_scale_m_per_s]. The
  /// surface is coloured over [surface_z_lo_m, surface_z_hi_m] when that is a range (the soil's
  /// own heights over the run), else over the scene's bounds in z, which hold the bodies too.
  ViewRenderer(const nlohmann::json& manifest, std::vector<float> radii_m,
               double speed_scale_m_per_s, ViewCamera camera = {},
               double surface_z_lo_m = std::numeric_limits<double>::quiet_NaN(),
               double surface_z_hi_m = std::numeric_limits<double>::quiet_NaN());

  /// The picture of one frame, with the run's title, the time, a colour bar and a scale bar.
  RgbImage render(const ViewFrameData& frame) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace talus
