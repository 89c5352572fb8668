#include "core/view_check.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/view_recorder.hpp"

namespace talus {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void refuse(const fs::path& where, const std::string& what) {
  throw ViewRunError(fmt::format("'{}': {}", where.string(), what));
}

// A path from a manifest: relative, inside the run (no "..", no root), as the server would serve.
fs::path inside_run(const fs::path& run_dir, const fs::path& manifest, const nlohmann::json& name,
                    const std::string& key) {
  if (!name.is_string()) refuse(manifest, fmt::format("{}: expected a path string", key));
  const fs::path relative(name.get<std::string>());
  if (relative.empty() || relative.has_root_path()) {
    refuse(manifest, fmt::format("{}: '{}' is not a path inside the run", key, relative.string()));
  }
  for (const fs::path& part : relative) {
    if (part == "..") {
      refuse(manifest, fmt::format("{}: '{}' leaves the run folder", key, relative.string()));
    }
  }
  return run_dir / relative;
}

const nlohmann::json& member(const nlohmann::json& object, const char* key, const fs::path& file) {
  if (!object.is_object() || !object.contains(key)) refuse(file, fmt::format("no '{}' key", key));
  return object.at(key);
}

std::uint32_t read_u32(const char* bytes) {
  std::uint32_t v;
  std::memcpy(&v, bytes, sizeof(v));
  return v;
}

struct SceneCounts {
  std::uint32_t particles = 0, heights = 0, bodies = 0;
};

SceneCounts scene_counts(const nlohmann::json& manifest, const fs::path& file) {
  SceneCounts c;
  const nlohmann::json& particles = member(manifest, "particles", file);
  if (!particles.is_null()) c.particles = member(particles, "count", file).get<std::uint32_t>();
  const nlohmann::json& heightmap = member(manifest, "heightmap", file);
  if (!heightmap.is_null()) {
    c.heights = member(heightmap, "nx", file).get<std::uint32_t>() *
                member(heightmap, "ny", file).get<std::uint32_t>();
  }
  c.bodies = static_cast<std::uint32_t>(member(manifest, "bodies", file).size());
  return c;
}

void check_frame(const fs::path& frame, std::size_t index, const SceneCounts& scene) {
  std::ifstream in(frame, std::ios::binary);
  if (!in) refuse(frame, fmt::format("frame {} is missing or unreadable", index));
  std::array<char, kViewFrameHeaderBytes> header{};
  in.read(header.data(), header.size());
  std::error_code ec;
  const std::uint64_t size = fs::file_size(frame, ec);
  if (in.gcount() < static_cast<std::streamsize>(kViewFrameHeaderBytes)) {
    refuse(frame, fmt::format("frame {} is truncated: {} bytes, shorter than its {}-byte header",
                              index, size, kViewFrameHeaderBytes));
  }
  if (std::memcmp(header.data(), "TVF1", 4) != 0) {
    refuse(frame,
           fmt::format("frame {} does not start with the talus-view frame mark TVF1", index));
  }
  const std::uint32_t stored_index = read_u32(&header[4]);
  const std::uint32_t n = read_u32(&header[16]), h = read_u32(&header[20]),
                      b = read_u32(&header[24]);
  const std::uint32_t flags = read_u32(&header[28]);
  if (stored_index != index) {
    refuse(frame,
           fmt::format("holds frame {}, the manifest lists it as frame {}", stored_index, index));
  }
  if ((n != 0 && n != scene.particles) || (h != 0 && h != scene.heights) || b != scene.bodies) {
    refuse(frame, fmt::format("frame {} holds {} particles, {} heights and {} bodies; the manifest "
                              "{}, {} and {}",
                              index, n, h, b, scene.particles, scene.heights, scene.bodies));
  }
  const std::uint64_t expected = view_frame_bytes(n, h, b, (flags & 1u) != 0);
  if (ec || size != expected) {
    refuse(frame, fmt::format("frame {} is {}: {} bytes, expected {}", index,
                              size < expected ? "truncated" : "too long", size, expected));
  }
}

// One scene's manifest: format, version, frames and their files.
nlohmann::json check_scene(const fs::path& run_dir, const fs::path& manifest_file) {
  std::ifstream in(manifest_file);
  if (!in) refuse(manifest_file, "missing or unreadable");
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    refuse(manifest_file, fmt::format("not valid JSON ({})", e.what()));
  }
  try {
    const nlohmann::json& format = member(manifest, "format", manifest_file);
    if (format != kViewFormatName) {
      refuse(manifest_file,
             fmt::format("format {}, expected \"{}\"", format.dump(), kViewFormatName));
    }
    const int version = member(manifest, "version", manifest_file).get<int>();
    if (version != kViewFormatVersion) {
      refuse(manifest_file,
             fmt::format("talus-view format version {}; this talus reads version {}: run the "
                         "scenario again with this talus to view it",
                         version, kViewFormatVersion));
    }
    const nlohmann::json& frames = member(manifest, "frames", manifest_file);
    const nlohmann::json& times = member(manifest, "times_s", manifest_file);
    const std::size_t count = member(manifest, "frame_count", manifest_file).get<std::size_t>();
    if (!frames.is_array() || !times.is_array() || frames.size() != count ||
        times.size() != count) {
      refuse(manifest_file, fmt::format("frame_count {} does not match its {} frames and {} times",
                                        count, frames.size(), times.size()));
    }
    const SceneCounts scene = scene_counts(manifest, manifest_file);
    for (std::size_t k = 0; k < count; ++k) {
      check_frame(inside_run(run_dir, manifest_file, frames[k], fmt::format("frames[{}]", k)), k,
                  scene);
    }
    for (const nlohmann::json& plot : member(manifest, "plots", manifest_file)) {
      inside_run(run_dir, manifest_file, plot, "plots");
    }
  } catch (const nlohmann::json::exception& e) {
    refuse(manifest_file, fmt::format("unexpected content: {}", e.what()));
  }
  return manifest;
}

}  // namespace

std::uint64_t view_frame_bytes(std::uint32_t particles, std::uint32_t heights, std::uint32_t bodies,
                               bool quantised) {
  std::uint64_t bytes = kViewFrameHeaderBytes;
  if (particles > 0) {
    const std::uint64_t positions = quantised ? 24 + ((6 * std::uint64_t{particles} + 3) / 4) * 4
                                              : 12 * std::uint64_t{particles};
    bytes += positions + 4 * std::uint64_t{particles};
  }
  return bytes + 4 * std::uint64_t{heights} + 28 * std::uint64_t{bodies};
}

ViewRunInfo check_view_run(const fs::path& run_dir) {
  std::error_code ec;
  if (!fs::exists(run_dir, ec)) refuse(run_dir, "does not exist (expected a run's --out folder)");
  if (!fs::is_directory(run_dir, ec))
    refuse(run_dir, "not a folder (expected a run's --out folder)");
  const fs::path manifest_file = run_dir / kViewManifestPath;
  if (!fs::exists(manifest_file, ec)) {
    refuse(run_dir, fmt::format("not a talus run that can be viewed: it has no {} (a talus run "
                                "writes one unless its [view] frames = 0)",
                                kViewManifestPath));
  }
  const nlohmann::json manifest = check_scene(run_dir, manifest_file);
  ViewRunInfo info;
  info.tier = manifest.value("tier", "");
  info.scenario = manifest.value("scenario", "");
  info.title = manifest.value("title", "");
  info.frame_count = manifest["frame_count"].get<std::size_t>();
  if (manifest.contains("cases")) {
    for (const nlohmann::json& c : manifest["cases"]) {
      check_scene(run_dir, inside_run(run_dir, manifest_file, c.value("manifest", nlohmann::json()),
                                      "cases[].manifest"));
      ++info.case_count;
    }
  }
  return info;
}

}  // namespace talus
