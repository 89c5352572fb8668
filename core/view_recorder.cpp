#include "core/view_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "core/json_file.hpp"
#include "core/output_dir.hpp"

namespace talus {
namespace {

constexpr std::uint32_t kFlagQuantised = 1u;

// The frame file is written by hand: it is a flat little-endian record that the viewer reads
// with a DataView, and no packaged container (HDF5, npy) is readable in a browser without a
// library of its own.
class ByteWriter {
 public:
  template <typename T>
  void put(T value) {
    std::memcpy(append(sizeof(T)), &value, sizeof(T));
  }
  /// Appends `count` values of type T at once, value k being value_at(k): one resize per array
  /// instead of one vector insert per value (a frame of 50,000 quantised particles 2.47-2.70 ->
  /// 2.04-2.09 ms, bench/bench_view.cpp; a heightmap frame's time is the kernel's file writes).
  template <typename T, typename ValueAt>
  void put_each(std::size_t count, const ValueAt& value_at) {
    char* out = append(count * sizeof(T));
    for (std::size_t k = 0; k < count; ++k) {
      const T value = value_at(k);
      std::memcpy(out + k * sizeof(T), &value, sizeof(T));
    }
  }
  void pad_to_multiple_of(std::size_t n) {
    while (data_.size() % n != 0) data_.push_back('\0');
  }
  const std::vector<char>& data() const { return data_; }
  void reserve(std::size_t n) { data_.reserve(n); }

 private:
  // `count` new bytes at the end, for the caller to write.
  char* append(std::size_t count) {
    const std::size_t at = data_.size();
    data_.resize(at + count);
    return data_.data() + at;
  }

  std::vector<char> data_;
};

static_assert(std::numeric_limits<float>::is_iec559, "the frame format stores IEEE floats");

void write_file(const std::filesystem::path& path, const std::vector<char>& data) {
  std::ofstream file(path, std::ios::binary);
  file.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!file.flush()) throw std::runtime_error(fmt::format("cannot write '{}'", path.string()));
}

void check_span(std::size_t size, std::size_t expected, const char* what) {
  if (size != expected) {
    throw std::invalid_argument(
        fmt::format("ViewRecorder: {} has {} values, the layout {}", what, size, expected));
  }
}

// Positions as 16-bit steps over the frame's box: lo + q * step, q in [0, 65535].
void put_quantised_positions(ByteWriter& bytes, const ViewFrame& f) {
  const std::span<const float> axes[3] = {f.x_m, f.y_m, f.z_m};
  float lo[3], step[3];
  for (int a = 0; a < 3; ++a) {
    const auto [min_it, max_it] = std::minmax_element(axes[a].begin(), axes[a].end());
    lo[a] = *min_it;
    step[a] = std::max((*max_it - *min_it) / 65535.0f, std::numeric_limits<float>::min());
  }
  for (float v : lo) bytes.put(v);
  for (float v : step) bytes.put(v);
  bytes.put_each<std::uint16_t>(3 * f.x_m.size(), [&](std::size_t k) {
    const std::size_t i = k / 3, a = k % 3;
    const float q = std::round((axes[a][i] - lo[a]) / step[a]);
    return static_cast<std::uint16_t>(std::clamp(q, 0.0f, 65535.0f));
  });
  bytes.pad_to_multiple_of(4);
}

nlohmann::json layout_particles(const ViewLayout& layout, const std::string& folder) {
  if (layout.particle_count == 0) return nullptr;
  const auto [min_it, max_it] =
      std::minmax_element(layout.particle_radii_m.begin(), layout.particle_radii_m.end());
  nlohmann::json radii_file = nullptr;
  if (*min_it != *max_it) radii_file = folder + "/radii.f32";
  return {{"count", layout.particle_count}, {"radius_m", *max_it}, {"radii_file", radii_file}};
}

}  // namespace

ViewHeightmapSampling view_heightmap_sampling(int nx, int ny, double cell_m, double x0_m,
                                              double y0_m) {
  ViewHeightmapSampling s;
  s.stride = std::max(1, (std::max(nx, ny) + kViewHeightmapNodes - 1) / kViewHeightmapNodes);
  s.grid = ViewHeightmapGrid{(nx - 1) / s.stride + 1, (ny - 1) / s.stride + 1, s.stride * cell_m,
                             x0_m, y0_m};
  return s;
}

void sample_heightmap(std::span<const double> heights_m, int nx, const ViewHeightmapSampling& s,
                      std::vector<double>& out) {
  out.clear();
  for (int j = 0; j < s.grid.ny; ++j) {
    for (int i = 0; i < s.grid.nx; ++i) {
      out.push_back(heights_m[static_cast<std::size_t>(j * s.stride) * nx +
                              static_cast<std::size_t>(i * s.stride)]);
    }
  }
}

long view_frame_interval(long steps, int frames) {
  if (frames <= 0) return 0;
  return std::max(1L, steps / frames);
}

std::vector<std::string> run_pictures(const OutputDir& out) {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(out.temp_path(), ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".png") {
      names.push_back(it->path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

ViewRecorder::ViewRecorder(OutputDir& out, ViewLayout layout, std::string folder)
    : out_(out), layout_(std::move(layout)), folder_(std::move(folder)) {
  lo_m_.fill(std::numeric_limits<double>::infinity());
  hi_m_.fill(-std::numeric_limits<double>::infinity());
  const std::size_t radii = layout_.particle_radii_m.size();
  if (layout_.particle_count == 0 ? radii != 0 : (radii != 1 && radii != layout_.particle_count)) {
    throw std::invalid_argument(fmt::format(
        "ViewRecorder: {} particle radii for {} particles (expected one, or one per particle)",
        radii, layout_.particle_count));
  }
  for (float r : layout_.particle_radii_m) {
    if (!(r > 0.0f) || !std::isfinite(r)) {
      throw std::invalid_argument(fmt::format("ViewRecorder: particle radius {} m", r));
    }
  }
  if (layout_.heightmap && (layout_.heightmap->nx < 2 || layout_.heightmap->ny < 2 ||
                            !(layout_.heightmap->cell_m > 0.0))) {
    throw std::invalid_argument(fmt::format("ViewRecorder: heightmap of {} x {} nodes, {} m apart",
                                            layout_.heightmap->nx, layout_.heightmap->ny,
                                            layout_.heightmap->cell_m));
  }
  for (const ViewBody& body : layout_.bodies) {
    if (!body.shape.is_object() || !body.shape.contains("kind")) {
      throw std::invalid_argument(
          fmt::format("ViewRecorder: body '{}' has no shape kind", body.name));
    }
  }
  const auto [r_min, r_max] =
      std::minmax_element(layout_.particle_radii_m.begin(), layout_.particle_radii_m.end());
  if (radii > 1 && *r_min != *r_max) {
    ByteWriter bytes;
    for (float r : layout_.particle_radii_m) bytes.put(r);
    write_file(out_.path(folder_ + "/radii.f32"), bytes.data());
  }
}

void ViewRecorder::grow_bounds(double x, double y, double z) {
  const double p[3] = {x, y, z};
  for (int a = 0; a < 3; ++a) {
    if (!std::isfinite(p[a])) continue;
    lo_m_[a] = std::min(lo_m_[a], p[a]);
    hi_m_[a] = std::max(hi_m_[a], p[a]);
  }
}

void ViewRecorder::add_frame(const ViewFrame& f) {
  if (finished_) throw std::logic_error("ViewRecorder: a frame after finish()");
  if (!times_s_.empty() && !(f.time_s > times_s_.back())) {
    throw std::invalid_argument(fmt::format("ViewRecorder: frame time {} s does not follow {} s",
                                            f.time_s, times_s_.back()));
  }
  const std::size_t n = layout_.particle_count;
  for (const auto& [span, what] :
       {std::pair{f.x_m, "x_m"}, std::pair{f.y_m, "y_m"}, std::pair{f.z_m, "z_m"},
        std::pair{f.vx_m_per_s, "vx_m_per_s"}, std::pair{f.vy_m_per_s, "vy_m_per_s"},
        std::pair{f.vz_m_per_s, "vz_m_per_s"}}) {
    check_span(span.size(), n, what);
  }
  const std::size_t h =
      layout_.heightmap ? static_cast<std::size_t>(layout_.heightmap->nx) * layout_.heightmap->ny
                        : 0;
  check_span(f.heights_m.size(), h, "heights_m");
  check_span(f.X_WB.size(), layout_.bodies.size(), "X_WB");

  const bool quantised = layout_.quantised && n > 0;
  ByteWriter bytes;
  bytes.reserve(kViewFrameHeaderBytes + 28 + n * (quantised ? 10 : 16) + 4 * h +
                28 * f.X_WB.size());
  const char magic[4] = {'T', 'V', 'F', '1'};
  for (char c : magic) bytes.put(c);
  bytes.put(static_cast<std::uint32_t>(times_s_.size()));
  bytes.put(f.time_s);
  bytes.put(static_cast<std::uint32_t>(n));
  bytes.put(static_cast<std::uint32_t>(h));
  bytes.put(static_cast<std::uint32_t>(f.X_WB.size()));
  bytes.put(quantised ? kFlagQuantised : 0u);
  if (n > 0) {
    if (quantised) {
      put_quantised_positions(bytes, f);
    } else {
      const std::span<const float> axes[3] = {f.x_m, f.y_m, f.z_m};
      bytes.put_each<float>(3 * n, [&](std::size_t k) { return axes[k % 3][k / 3]; });
    }
    const float r_max =
        layout_.particle_radii_m.empty()
            ? 0.0f
            : *std::max_element(layout_.particle_radii_m.begin(), layout_.particle_radii_m.end());
    bytes.put_each<float>(n, [&](std::size_t i) {
      const float vx = f.vx_m_per_s[i], vy = f.vy_m_per_s[i], vz = f.vz_m_per_s[i];
      return std::sqrt(vx * vx + vy * vy + vz * vz);
    });
    for (std::size_t i = 0; i < n; ++i) {
      grow_bounds(f.x_m[i] - r_max, f.y_m[i] - r_max, f.z_m[i] - r_max);
      grow_bounds(f.x_m[i] + r_max, f.y_m[i] + r_max, f.z_m[i] + r_max);
    }
  }
  if (h > 0) {
    const ViewHeightmapGrid& g = *layout_.heightmap;
    bytes.put_each<float>(h, [&](std::size_t k) { return static_cast<float>(f.heights_m[k]); });
    const auto [z_lo, z_hi] = std::minmax_element(f.heights_m.begin(), f.heights_m.end());
    grow_bounds(g.origin_x_m, g.origin_y_m, *z_lo);
    grow_bounds(g.origin_x_m + (g.nx - 1) * g.cell_m, g.origin_y_m + (g.ny - 1) * g.cell_m, *z_hi);
  }
  for (const Pose& X : f.X_WB) {
    Quat q(X.linear());
    q.normalize();
    if (q.w() < 0.0) q.coeffs() = -q.coeffs();
    const Vec3 p = X.translation();
    for (double v : {p.x(), p.y(), p.z(), q.w(), q.x(), q.y(), q.z()}) {
      bytes.put(static_cast<float>(v));
    }
    grow_bounds(p.x(), p.y(), p.z());
  }
  write_file(out_.path(fmt::format("{}/frames/{:06d}.tvf", folder_, times_s_.size())),
             bytes.data());
  times_s_.push_back(f.time_s);
}

nlohmann::json ViewRecorder::finish(const std::vector<std::string>& plots) {
  if (finished_) throw std::logic_error("ViewRecorder: finish() twice");
  finished_ = true;
  nlohmann::json frames = nlohmann::json::array();
  for (std::size_t k = 0; k < times_s_.size(); ++k) {
    frames.push_back(fmt::format("{}/frames/{:06d}.tvf", folder_, k));
  }
  nlohmann::json heightmap = nullptr;
  if (layout_.heightmap) {
    const ViewHeightmapGrid& g = *layout_.heightmap;
    heightmap = {{"nx", g.nx},
                 {"ny", g.ny},
                 {"cell_m", g.cell_m},
                 {"origin_m", {g.origin_x_m, g.origin_y_m}}};
  }
  nlohmann::json bodies = nlohmann::json::array();
  for (const ViewBody& b : layout_.bodies) {
    bodies.push_back({{"name", b.name}, {"colour", b.colour}, {"shape", b.shape}});
  }
  // A scene with nothing in it (no frame) still gets a finite box for the camera.
  std::array<double, 3> lo = lo_m_, hi = hi_m_;
  for (int a = 0; a < 3; ++a) {
    if (!(lo[a] <= hi[a])) lo[a] = -0.5, hi[a] = 0.5;
  }
  const nlohmann::json manifest = {{"format", kViewFormatName},
                                   {"version", kViewFormatVersion},
                                   {"tier", layout_.tier},
                                   {"scenario", layout_.scenario},
                                   {"title", layout_.title},
                                   {"frame_count", times_s_.size()},
                                   {"times_s", times_s_},
                                   {"frames", frames},
                                   {"bounds_m", {{"lo", lo}, {"hi", hi}}},
                                   {"particles", layout_particles(layout_, folder_)},
                                   {"heightmap", heightmap},
                                   {"bodies", bodies},
                                   {"plots", plots}};
  write_json(out_.path(folder_ + "/manifest.json"), manifest);
  return manifest;
}

ViewLayout view_layout_head(std::string tier, const std::string& name,
                            const std::string& description) {
  ViewLayout layout;
  layout.tier = std::move(tier);
  layout.scenario = name;
  layout.title = description.empty() ? name : fmt::format("{}: {}", name, description);
  return layout;
}

nlohmann::json ViewRecording::finish(const OutputDir& out) {
  return recorder_ ? recorder_->finish(run_pictures(out)) : nlohmann::json();
}

void write_view_cases(OutputDir& out, nlohmann::json manifest,
                      const std::vector<std::string>& case_names) {
  nlohmann::json cases = nlohmann::json::array();
  for (const std::string& name : case_names) {
    cases.push_back({{"name", name}, {"manifest", "view/" + name + "/manifest.json"}});
  }
  manifest["cases"] = cases;
  write_json(out.path(kViewManifestPath), manifest);
}

}  // namespace talus
