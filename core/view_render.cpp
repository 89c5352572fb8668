#include "core/view_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numbers>

#include "core/cairo_draw.hpp"
#include "core/colormap.hpp"
#include "core/pose.hpp"
#include "core/view_check.hpp"

namespace talus {
namespace fs = std::filesystem;
namespace {

constexpr int kTitleBarPx = 44;
constexpr int kMaxSurfaceNodes = 160;  // a side of the drawn heightmap: enough for a video frame
const Rgb kBackground{158, 171, 184};

template <typename T>
T read_at(const std::vector<char>& bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

std::vector<float> read_floats(const std::vector<char>& bytes, std::size_t offset,
                               std::size_t count) {
  std::vector<float> values(count);
  if (count > 0) std::memcpy(values.data(), bytes.data() + offset, 4 * count);
  return values;
}

// Earth tones, dark low to pale high, as the web viewer's terrain (viewer/src/colours.js).
Rgb earth_colormap(double t) {
  static const std::array<std::array<double, 3>, 6> stops = {{{0.23, 0.17, 0.11},
                                                              {0.38, 0.28, 0.18},
                                                              {0.55, 0.42, 0.27},
                                                              {0.70, 0.57, 0.38},
                                                              {0.83, 0.72, 0.52},
                                                              {0.95, 0.88, 0.72}}};
  t = std::isfinite(t) ? std::clamp(t, 0.0, 1.0) : 0.5;
  const double x = t * (stops.size() - 1);
  const std::size_t j = std::min<std::size_t>(static_cast<std::size_t>(x), stops.size() - 2);
  const double f = x - static_cast<double>(j);
  Rgb c;
  std::uint8_t* channels[3] = {&c.r, &c.g, &c.b};
  for (int a = 0; a < 3; ++a) {
    *channels[a] = static_cast<std::uint8_t>(
        std::lround(255.0 * (stops[j][a] + f * (stops[j + 1][a] - stops[j][a]))));
  }
  return c;
}

Rgb shaded(Rgb c, double light) {
  const auto scale = [light](std::uint8_t v) {
    return static_cast<std::uint8_t>(std::clamp(std::lround(v * light), 0L, 255L));
  };
  return Rgb{scale(c.r), scale(c.g), scale(c.b)};
}

// A body's surface as triangles in its own frame (the manifest's shape kinds).
std::vector<std::array<Vec3, 3>> shape_triangles(const nlohmann::json& shape) {
  std::vector<std::array<Vec3, 3>> tris;
  const std::string kind = shape.at("kind");
  const auto quad = [&tris](const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
    tris.push_back({a, b, c});
    tris.push_back({a, c, d});
  };
  // A surface of revolution about z_B: rings of (radius, z), joined.
  const auto revolve = [&quad](const std::vector<std::pair<double, double>>& rings) {
    constexpr int kSectors = 24;
    for (std::size_t r = 0; r + 1 < rings.size(); ++r) {
      for (int s = 0; s < kSectors; ++s) {
        const double a0 = 2 * std::numbers::pi * s / kSectors;
        const double a1 = 2 * std::numbers::pi * (s + 1) / kSectors;
        const auto at = [](const std::pair<double, double>& ring, double a) {
          return Vec3(ring.first * std::cos(a), ring.first * std::sin(a), ring.second);
        };
        quad(at(rings[r], a0), at(rings[r], a1), at(rings[r + 1], a1), at(rings[r + 1], a0));
      }
    }
  };
  const auto hemisphere_rings = [](double radius, double z0, double sign) {
    std::vector<std::pair<double, double>> rings;
    for (int k = 0; k <= 6; ++k) {
      const double polar = 0.5 * std::numbers::pi * k / 6;
      rings.emplace_back(radius * std::cos(polar), z0 + sign * radius * std::sin(polar));
    }
    return rings;
  };
  if (kind == "box" || kind == "plane") {
    const std::vector<double> size = shape.at("size_m");
    const Vec3 h(0.5 * size[0], 0.5 * size[1], kind == "box" ? 0.5 * size[2] : 0.0);
    const auto corner = [&h](int k) {
      return Vec3((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z());
    };
    const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                             {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = kind == "box" ? 0 : 1; f < (kind == "box" ? 6 : 2); ++f) {
      quad(corner(faces[f][0]), corner(faces[f][1]), corner(faces[f][2]), corner(faces[f][3]));
    }
  } else if (kind == "sphere") {
    const double r = shape.at("radius_m");
    std::vector<std::pair<double, double>> rings = hemisphere_rings(r, 0.0, -1.0);
    std::reverse(rings.begin(), rings.end());
    const std::vector<std::pair<double, double>> top = hemisphere_rings(r, 0.0, 1.0);
    rings.insert(rings.end(), top.begin() + 1, top.end());
    revolve(rings);
  } else if (kind == "cylinder" || kind == "capsule") {
    const double r = shape.at("radius_m"), half = 0.5 * shape.at("length_m").get<double>();
    std::vector<std::pair<double, double>> rings;
    if (kind == "capsule") {
      rings = hemisphere_rings(r, -half, -1.0);
      std::reverse(rings.begin(), rings.end());
    } else {
      rings = {{0.0, -half}, {r, -half}};
    }
    const std::vector<std::pair<double, double>> top =
        kind == "capsule" ? hemisphere_rings(r, half, 1.0)
                          : std::vector<std::pair<double, double>>{{r, half}, {0.0, half}};
    rings.insert(rings.end(), top.begin(), top.end());
    revolve(rings);
  } else if (kind == "mesh") {
    const std::vector<float> v = shape.at("vertices_m");
    const std::vector<int> t = shape.at("triangles");
    const auto vertex = [&v](int i) {
      return Vec3(v[3 * static_cast<std::size_t>(i)], v[3 * static_cast<std::size_t>(i) + 1],
                  v[3 * static_cast<std::size_t>(i) + 2]);
    };
    for (std::size_t k = 0; k + 2 < t.size(); k += 3) {
      tris.push_back({vertex(t[k]), vertex(t[k + 1]), vertex(t[k + 2])});
    }
  }
  return tris;
}

}  // namespace

ViewFrameData read_view_frame(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ViewRunError(fmt::format("'{}': missing or unreadable", file.string()));
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  if (bytes.size() < 32 || std::memcmp(bytes.data(), "TVF1", 4) != 0) {
    throw ViewRunError(fmt::format("'{}': not a talus-view frame", file.string()));
  }
  ViewFrameData f;
  f.index = read_at<std::uint32_t>(bytes, 4);
  f.time_s = read_at<double>(bytes, 8);
  const std::uint32_t n = read_at<std::uint32_t>(bytes, 16), h = read_at<std::uint32_t>(bytes, 20),
                      b = read_at<std::uint32_t>(bytes, 24);
  const bool quantised = (read_at<std::uint32_t>(bytes, 28) & 1u) != 0;
  if (bytes.size() != view_frame_bytes(n, h, b, quantised)) {
    throw ViewRunError(fmt::format("'{}': {} bytes, expected {}", file.string(), bytes.size(),
                                   view_frame_bytes(n, h, b, quantised)));
  }
  std::size_t offset = 32;
  if (n > 0) {
    if (quantised) {
      const std::vector<float> lo = read_floats(bytes, offset, 3),
                               step = read_floats(bytes, offset + 12, 3);
      f.positions_m.resize(3 * static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < f.positions_m.size(); ++i) {
        f.positions_m[i] =
            lo[i % 3] + step[i % 3] * read_at<std::uint16_t>(bytes, offset + 24 + 2 * i);
      }
      offset += 24 + (6 * static_cast<std::size_t>(n) + 3) / 4 * 4;
    } else {
      f.positions_m = read_floats(bytes, offset, 3 * static_cast<std::size_t>(n));
      offset += 12 * static_cast<std::size_t>(n);
    }
    f.speeds_m_per_s = read_floats(bytes, offset, n);
    offset += 4 * static_cast<std::size_t>(n);
  }
  f.heights_m = read_floats(bytes, offset, h);
  offset += 4 * static_cast<std::size_t>(h);
  f.poses = read_floats(bytes, offset, 7 * static_cast<std::size_t>(b));
  return f;
}

struct ViewRenderer::Impl {
  nlohmann::json manifest;
  std::vector<float> radii_m;
  double speed_scale = 1.0;
  ViewCamera camera;
  Vec3 centre, right, up, forward, light;
  double px_per_m = 1.0;
  double z_lo = 0.0, z_hi = 1.0;
  std::vector<std::vector<std::array<Vec3, 3>>> body_triangles;

  // Screen position (x right, y down) and depth (larger: farther) of a world point.
  Vec3 project(const Vec3& p) const {
    const Vec3 d = p - centre;
    return Vec3(0.5 * camera.width_px + px_per_m * d.dot(right),
                kTitleBarPx + 0.5 * (camera.height_px - kTitleBarPx) - px_per_m * d.dot(up),
                d.dot(forward));
  }
  double lambert(const Vec3& normal) const {
    Vec3 n = normal.normalized();
    if (n.dot(forward) > 0) n = -n;  // the face the camera sees
    return 0.45 + 0.6 * std::max(0.0, n.dot(light));
  }
};

ViewRenderer::ViewRenderer(const nlohmann::json& manifest, std::vector<float> radii_m,
                           double speed_scale_m_per_s, ViewCamera camera, double surface_z_lo_m,
                           double surface_z_hi_m) {
  auto impl = std::make_shared<Impl>();
  impl->manifest = manifest;
  impl->radii_m = std::move(radii_m);
  impl->speed_scale = speed_scale_m_per_s > 0 ? speed_scale_m_per_s : 1.0;
  impl->camera = camera;
  const std::vector<double> lo = manifest.at("bounds_m").at("lo"),
                            hi = manifest.at("bounds_m").at("hi");
  impl->centre = 0.5 * Vec3(lo[0] + hi[0], lo[1] + hi[1], lo[2] + hi[2]);
  if (surface_z_hi_m > surface_z_lo_m) {  // false for NaN: no range given
    impl->z_lo = surface_z_lo_m;
    impl->z_hi = surface_z_hi_m;
  } else {
    impl->z_lo = lo[2];
    impl->z_hi = hi[2] > lo[2] ? hi[2] : lo[2] + 1e-3;
  }
  const double az = camera.azimuth_deg * std::numbers::pi / 180.0;
  const double el = camera.elevation_deg * std::numbers::pi / 180.0;
  const Vec3 to_camera(std::cos(el) * std::cos(az), std::cos(el) * std::sin(az), std::sin(el));
  impl->forward = -to_camera;
  impl->right = impl->forward.cross(Vec3::UnitZ()).normalized();
  impl->up = impl->right.cross(impl->forward);
  impl->light = (to_camera + Vec3(0.3, 0.4, 1.2)).normalized();
  // The scale that fits the bounds' eight corners into the picture below the title bar.
  double w = 1e-9, h = 1e-9;
  for (int k = 0; k < 8; ++k) {
    const Vec3 c((k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]);
    const Vec3 d = c - impl->centre;
    w = std::max(w, 2 * std::abs(d.dot(impl->right)));
    h = std::max(h, 2 * std::abs(d.dot(impl->up)));
  }
  impl->px_per_m = 0.88 * std::min(camera.width_px / w, (camera.height_px - kTitleBarPx) / h);
  for (const nlohmann::json& body : manifest.at("bodies")) {
    impl->body_triangles.push_back(shape_triangles(body.at("shape")));
  }
  impl_ = std::move(impl);
}

RgbImage ViewRenderer::render(const ViewFrameData& frame) const {
  const Impl& v = *impl_;
  RgbImage image(v.camera.width_px, v.camera.height_px, kBackground);
  CairoCanvas canvas(image);

  // Everything drawn, far to near: polygons (surface cells, body triangles) and particle discs.
  struct Item {
    double depth;
    std::vector<std::pair<double, double>> polygon;  // empty: a disc
    double cx, cy, radius;
    Rgb colour;
  };
  std::vector<Item> items;

  const nlohmann::json& grid = v.manifest.at("heightmap");
  if (!grid.is_null() && !frame.heights_m.empty()) {
    const int nx = grid.at("nx"), ny = grid.at("ny");
    const double cell = grid.at("cell_m");
    const double x0 = grid.at("origin_m")[0], y0 = grid.at("origin_m")[1];
    const int stride = std::max(1, (std::max(nx, ny) + kMaxSurfaceNodes - 1) / kMaxSurfaceNodes);
    const auto node = [&](int i, int j) {
      i = std::min(i, nx - 1), j = std::min(j, ny - 1);
      return Vec3(x0 + i * cell, y0 + j * cell,
                  frame.heights_m[static_cast<std::size_t>(j) * nx + static_cast<std::size_t>(i)]);
    };
    for (int j = 0; j + 1 < ny; j += stride) {
      for (int i = 0; i + 1 < nx; i += stride) {
        const Vec3 a = node(i, j), b = node(i + stride, j), c = node(i + stride, j + stride),
                   d = node(i, j + stride);
        const Vec3 normal = (c - a).cross(d - b);
        const double z = 0.25 * (a.z() + b.z() + c.z() + d.z());
        Item item{0.0, {},
                  0,   0,
                  0,   shaded(earth_colormap((z - v.z_lo) / (v.z_hi - v.z_lo)), v.lambert(normal))};
        double depth = 0.0;
        for (const Vec3& p : {a, b, c, d}) {
          const Vec3 s = v.project(p);
          item.polygon.emplace_back(s.x(), s.y());
          depth += 0.25 * s.z();
        }
        item.depth = depth;
        items.push_back(std::move(item));
      }
    }
  }

  for (std::size_t b = 0; b < v.body_triangles.size() && 7 * b + 6 < frame.poses.size(); ++b) {
    const float* q = &frame.poses[7 * b];
    Pose X = Pose::Identity();
    X.translation() = Vec3(q[0], q[1], q[2]);
    X.linear() = Quat(q[3], q[4], q[5], q[6]).normalized().toRotationMatrix();
    const nlohmann::json& colour = v.manifest["bodies"][b].at("colour");
    const Rgb base{static_cast<std::uint8_t>(255 * colour[0].get<double>()),
                   static_cast<std::uint8_t>(255 * colour[1].get<double>()),
                   static_cast<std::uint8_t>(255 * colour[2].get<double>())};
    for (const auto& tri : v.body_triangles[b]) {
      const Vec3 a = X * tri[0], bb = X * tri[1], c = X * tri[2];
      Item item{0.0, {}, 0, 0, 0, shaded(base, v.lambert((bb - a).cross(c - a)))};
      for (const Vec3& p : {a, bb, c}) {
        const Vec3 s = v.project(p);
        item.polygon.emplace_back(s.x(), s.y());
        item.depth += s.z() / 3.0;
      }
      items.push_back(std::move(item));
    }
  }

  const std::size_t n = frame.positions_m.size() / 3;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3 s = v.project(
        Vec3(frame.positions_m[3 * i], frame.positions_m[3 * i + 1], frame.positions_m[3 * i + 2]));
    const double r = v.radii_m.empty() ? 0.0 : v.radii_m[v.radii_m.size() == 1 ? 0 : i];
    const double speed = i < frame.speeds_m_per_s.size() ? frame.speeds_m_per_s[i] : 0.0;
    items.push_back(Item{s.z(),
                         {},
                         s.x(),
                         s.y(),
                         std::max(0.7, r * v.px_per_m),
                         height_colormap(speed / v.speed_scale)});
  }

  std::sort(items.begin(), items.end(),
            [](const Item& a, const Item& b) { return a.depth > b.depth; });
  for (const Item& item : items) {
    if (item.polygon.empty()) {
      // A grain: a darker rim and a lit core toward the light (up and left), so that touching
      // grains read as spheres, not one blot.
      canvas.fill_circle(item.cx - 0.5, item.cy - 0.5, item.radius, shaded(item.colour, 0.6));
      if (item.radius >= 1.5) {
        canvas.fill_circle(item.cx - 0.5 - 0.15 * item.radius, item.cy - 0.5 - 0.15 * item.radius,
                           0.7 * item.radius, item.colour);
      }
    } else {
      canvas.fill_polygon(item.polygon, item.colour, false);
    }
  }

  // The title bar, the time, a scale bar (lengths across the picture are true: the projection is
  // orthographic and its right axis horizontal) and the particles' colour bar.
  const Rgb ink{20, 24, 30}, paper{29, 33, 39}, light_ink{235, 238, 242};
  canvas.fill_rect(0, 0, v.camera.width_px, kTitleBarPx, paper);
  const std::string title = v.manifest.value("title", v.manifest.value("scenario", ""));
  canvas.text(12, 10, title, light_ink, 2);
  const std::string time = fmt::format("t = {:.3f} s", frame.time_s);
  canvas.text(v.camera.width_px - 12 - text_width_px(time, 2), 10, time, light_ink, 2);
  const double bar_m =
      std::pow(10.0, std::floor(std::log10(0.25 * v.camera.width_px / v.px_per_m)));
  const double bar_px = bar_m * v.px_per_m;
  const double y_bar = v.camera.height_px - 20.0;
  canvas.stroke({{20, y_bar}, {20 + bar_px, y_bar}}, ink, 3);
  const std::string bar_label =
      bar_m >= 1 ? fmt::format("{:g} m", bar_m) : fmt::format("{:g} mm", bar_m * 1e3);
  canvas.text(26 + bar_px, y_bar - 8, bar_label + " (across)", ink, 2);
  // The colour bar of what is coloured: the particles' speed, else the surface's height.
  const bool by_speed = n > 0;
  if (by_speed || !grid.is_null()) {
    const int x = v.camera.width_px - 232, y = v.camera.height_px - 34, w = 200;
    for (int k = 0; k < w; ++k) {
      const double t = static_cast<double>(k) / (w - 1);
      canvas.fill_rect(x + k, y, 1, 10, by_speed ? height_colormap(t) : earth_colormap(t));
    }
    canvas.text(x, y - 20, by_speed ? "particle speed [m/s]" : "surface height z [m]", ink, 2);
    const std::string low = by_speed ? "0" : fmt::format("{:.3g}", v.z_lo);
    const std::string top = fmt::format("{:.3g}", by_speed ? v.speed_scale : v.z_hi);
    canvas.text(x, y + 13, low, ink, 1);
    canvas.text(x + w - text_width_px(top, 1), y + 13, top, ink, 1);
  }
  canvas.finish();
  return image;
}

}  // namespace talus
