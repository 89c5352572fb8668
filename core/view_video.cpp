#include "core/view_video.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/output_target.hpp"
#include "core/video_writer.hpp"
#include "core/view_check.hpp"
#include "core/view_render.hpp"

namespace talus {
namespace fs = std::filesystem;
namespace {

nlohmann::json read_manifest_file(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

// A scene to draw: its manifest and frames.
struct Scene {
  nlohmann::json manifest;
  std::vector<ViewFrameData> frames;
};

std::vector<float> read_radii(const fs::path& run_dir, const nlohmann::json& particles) {
  if (particles.is_null()) return {};
  if (particles.at("radii_file").is_null()) return {particles.at("radius_m").get<float>()};
  const fs::path file = run_dir / particles.at("radii_file").get<std::string>();
  std::ifstream in(file, std::ios::binary);
  std::vector<float> radii(particles.at("count").get<std::size_t>());
  in.read(reinterpret_cast<char*>(radii.data()), static_cast<std::streamsize>(4 * radii.size()));
  if (!in) throw ViewRunError(fmt::format("'{}': truncated", file.string()));
  return radii;
}

// The speed the colour bar tops at: the largest of the frames' 99th percentiles (a few
// ejected grains would otherwise leave the whole bed one colour).
double speed_scale(const std::vector<Scene>& scenes) {
  double scale = 0.0;
  for (const Scene& s : scenes) {
    for (const ViewFrameData& f : s.frames) {
      if (f.speeds_m_per_s.empty()) continue;
      std::vector<float> v = f.speeds_m_per_s;
      const auto k = v.begin() + static_cast<long>(0.99 * static_cast<double>(v.size() - 1));
      std::nth_element(v.begin(), k, v.end());
      scale = std::max(scale, static_cast<double>(*k));
    }
  }
  return scale > 0.0 ? scale : 1e-3;
}

// The soil's heights over the whole run: the surface's colour range. The scene's bounds also
// hold the bodies (a rig's carriage stands 0.6 m above the soil), and the soil then took one
// colour of the bar. NaN when no frame has a finite height (the bounds are used then).
std::pair<double, double> surface_height_range(const std::vector<Scene>& scenes) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const Scene& s : scenes) {
    for (const ViewFrameData& f : s.frames) {
      for (const float h : f.heights_m) {
        if (!std::isfinite(h)) continue;
        lo = std::min(lo, static_cast<double>(h));
        hi = std::max(hi, static_cast<double>(h));
      }
    }
  }
  if (!(lo <= hi)) return {std::nan(""), std::nan("")};
  if (hi - lo < 1e-3) hi = lo + 1e-3;  // a flat bed: a millimetre's range
  return {lo, hi};
}

}  // namespace

void write_run_video(const fs::path& run_dir, const std::function<void(long, long)>& progress) {
  check_view_run(run_dir);
  const std::vector<std::string> foreign = entries_talus_did_not_write(run_dir);
  if (!foreign.empty()) {
    throw std::runtime_error(
        fmt::format("'{}' holds files talus did not write ('{}'); no video "
                    "is added to it",
                    run_dir.string(), foreign.front()));
  }
  const nlohmann::json top = read_manifest_file(run_dir / "view/manifest.json");
  std::vector<nlohmann::json> manifests;
  if (top.contains("cases")) {
    for (const nlohmann::json& c : top["cases"]) {
      manifests.push_back(read_manifest_file(run_dir / c.at("manifest").get<std::string>()));
    }
  } else {
    manifests.push_back(top);
  }
  std::vector<Scene> scenes;
  long total = 0;
  double duration_s = 0.0;
  for (nlohmann::json& m : manifests) {
    Scene scene{m, {}};
    for (const nlohmann::json& f : m.at("frames")) {
      scene.frames.push_back(read_view_frame(run_dir / f.get<std::string>()));
    }
    if (scene.frames.size() > 1) {
      duration_s += scene.frames.back().time_s - scene.frames.front().time_s;
    }
    total += static_cast<long>(scene.frames.size());
    scenes.push_back(std::move(scene));
  }
  if (total == 0)
    throw ViewRunError(fmt::format("'{}': the run recorded no frames", run_dir.string()));
  const int fps =
      duration_s > 0.0
          ? std::clamp(static_cast<int>(std::lround(static_cast<double>(total) / duration_s)), 5,
                       30)
          : 10;
  const double scale = speed_scale(scenes);
  const auto [surface_lo_m, surface_hi_m] = surface_height_range(scenes);

  const fs::path temp = run_dir / fmt::format(".video.mp4.tmp-{}-0", static_cast<long>(::getpid()));
  const fs::path final_path = run_dir / "video.mp4";
  try {
    const ViewCamera camera;
    VideoWriter video(temp, camera.width_px, camera.height_px, fps);
    long done = 0;
    for (const Scene& scene : scenes) {
      const ViewRenderer renderer(scene.manifest, read_radii(run_dir, scene.manifest["particles"]),
                                  scale, camera, surface_lo_m, surface_hi_m);
      for (const ViewFrameData& f : scene.frames) {
        video.add(renderer.render(f));
        if (progress) progress(++done, total);
      }
    }
    video.close();
    fs::rename(temp, final_path);
  } catch (...) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw;
  }
  write_output_manifest(run_dir);
}

}  // namespace talus
