#include "particles/depth_camera.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/colormap.hpp"
#include "core/image.hpp"
#include "core/npy.hpp"
#include "core/units.hpp"

namespace talus {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kTile = 4;  // bucket tiles are kTile x kTile pixels
// Sphere tracing stops within this distance [m] of a body's surface.
constexpr double kHit_m = 1e-7;
constexpr int kMaxTraceSteps = 2000;

void require_finite(const char* field, double v) {
  if (!std::isfinite(v)) {
    throw std::invalid_argument(fmt::format("{} must be finite, got {}", field, v));
  }
}

void require_size(const char* field, int v) {
  if (v < 1 || v > 16384) {
    throw std::invalid_argument(fmt::format("{} must be in 1 .. 16384 px, got {}", field, v));
  }
}

void require_range(const char* field, double v) {
  if (!(v > 0.0)) throw std::invalid_argument(fmt::format("{} must be > 0, got {}", field, v));
}

// One pixel's ray: origin, unit direction, and the factor that turns ray length into depth.
struct Ray {
  Vec3 o;
  Vec3 d;
  double depth_per_t = 1.0;
};

// First t >= 0 at which the ray is inside the ball; +inf when it misses.
double hit_sphere(const Ray& ray, const Vec3& c, double r) {
  const Vec3 oc = ray.o - c;
  const double b = oc.dot(ray.d);
  const double q = oc.squaredNorm() - r * r;
  const double disc = b * b - q;
  if (disc < 0.0) return kInf;
  const double root = std::sqrt(disc);
  if (-b + root < 0.0) return kInf;  // behind the camera
  return std::max(-b - root, 0.0);
}

// Ray parameter interval inside an axis-aligned box, clipped to [0, t_max].
bool clip_to_box(const Ray& ray, const Aabb& box, double t_max, double& t0, double& t1) {
  t0 = 0.0;
  t1 = t_max;
  for (int a = 0; a < 3; ++a) {
    if (ray.d[a] == 0.0) {
      if (ray.o[a] < box.lo[a] || ray.o[a] > box.hi[a]) return false;
      continue;
    }
    double ta = (box.lo[a] - ray.o[a]) / ray.d[a];
    double tb = (box.hi[a] - ray.o[a]) / ray.d[a];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  return t0 <= t1;
}

// First t in [0, t_max] where the ray meets the body; +inf when it does not.
double hit_body(const Ray& ray, const CameraBody& body, double t_max) {
  if (std::holds_alternative<PlaneShape>(body.shape)) {
    const Vec3 n = body.X_WB.linear().col(2);
    const double height = n.dot(ray.o - body.X_WB.translation());  // of the origin above it
    if (height <= 0.0) return 0.0;                                 // the camera is inside
    const double closing = -n.dot(ray.d);
    if (closing <= 0.0) return kInf;
    const double t = height / closing;
    return t <= t_max ? t : kInf;
  }
  double t0 = 0.0;
  double t1 = 0.0;
  if (!clip_to_box(ray, world_bounds(body.shape, body.X_WB), t_max, t0, t1)) return kInf;
  const Pose X_BW = body.X_WB.inverse();
  const Vec3 o_B = X_BW * ray.o;
  const Vec3 d_B = X_BW.linear() * ray.d;
  const double inv_l = 1.0 / lipschitz_bound(body.shape);
  double t = t0;
  for (int step = 0; step < kMaxTraceSteps && t <= t1; ++step) {
    const double f = signed_distance(body.shape, o_B + t * d_B);
    if (f <= kHit_m) return t;
    t += f * inv_l;
  }
  return kInf;
}

// Renders with a per-pixel ray function and a per-particle pixel bound function.
//   ray_of(col, row) -> Ray
//   pixel_bounds(centre, radius, c0, c1, r0, r1) -> false when the particle cannot be seen
template <class RayOf, class Bounds>
DepthImage render(int width, int height, double max_depth, const ParticleSpheres& p,
                  std::span<const CameraBody> bodies, const RayOf& ray_of,
                  const Bounds& pixel_bounds) {
  const std::size_t n = p.x.size();
  if (p.y.size() != n || p.z.size() != n || p.radius.size() != n) {
    throw std::invalid_argument(fmt::format(
        "render_depth: particle spans hold {}, {}, {}, {} values (x, y, z, radius); expected "
        "equal counts",
        n, p.y.size(), p.z.size(), p.radius.size()));
  }
  const int tiles_x = (width + kTile - 1) / kTile;
  const int tiles_y = (height + kTile - 1) / kTile;
  const std::size_t tile_count = static_cast<std::size_t>(tiles_x) * tiles_y;

  // Bucket the particles by tile: count, prefix-sum, fill (in particle order: deterministic).
  struct TileRange {
    int tx0, tx1, ty0, ty1;
  };
  std::vector<TileRange> range(n);
  std::vector<std::size_t> start(tile_count + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    int c0 = 0, c1 = -1, r0 = 0, r1 = -1;
    const Vec3 centre(p.x[i], p.y[i], p.z[i]);
    if (pixel_bounds(centre, static_cast<double>(p.radius[i]), c0, c1, r0, r1)) {
      c0 = std::max(c0, 0);
      r0 = std::max(r0, 0);
      c1 = std::min(c1, width - 1);
      r1 = std::min(r1, height - 1);
    }
    if (c0 > c1 || r0 > r1) {
      range[i] = {0, -1, 0, -1};
      continue;
    }
    range[i] = {c0 / kTile, c1 / kTile, r0 / kTile, r1 / kTile};
    for (int ty = range[i].ty0; ty <= range[i].ty1; ++ty) {
      for (int tx = range[i].tx0; tx <= range[i].tx1; ++tx) {
        ++start[static_cast<std::size_t>(ty) * tiles_x + tx + 1];
      }
    }
  }
  for (std::size_t t = 0; t < tile_count; ++t) start[t + 1] += start[t];
  std::vector<std::size_t> fill(start.begin(), start.end() - 1);
  std::vector<std::uint32_t> members(start.back());
  for (std::size_t i = 0; i < n; ++i) {
    for (int ty = range[i].ty0; ty <= range[i].ty1; ++ty) {
      for (int tx = range[i].tx0; tx <= range[i].tx1; ++tx) {
        members[fill[static_cast<std::size_t>(ty) * tiles_x + tx]++] =
            static_cast<std::uint32_t>(i);
      }
    }
  }

  DepthImage image;
  image.width = width;
  image.height = height;
  image.depth_m.assign(static_cast<std::size_t>(width) * height,
                       std::numeric_limits<float>::infinity());
  const auto tiles = static_cast<long>(tile_count);
#pragma omp parallel for schedule(dynamic, 4)
  for (long tile = 0; tile < tiles; ++tile) {
    const int tx = static_cast<int>(tile % tiles_x);
    const int ty = static_cast<int>(tile / tiles_x);
    for (int row = ty * kTile; row < std::min(height, (ty + 1) * kTile); ++row) {
      for (int col = tx * kTile; col < std::min(width, (tx + 1) * kTile); ++col) {
        const Ray ray = ray_of(col, row);
        const double t_max = max_depth / ray.depth_per_t;
        double best = kInf;
        for (std::size_t k = start[tile]; k < start[tile + 1]; ++k) {
          const std::uint32_t i = members[k];
          best = std::min(best, hit_sphere(ray, Vec3(p.x[i], p.y[i], p.z[i]), p.radius[i]));
        }
        for (const CameraBody& body : bodies) {
          best = std::min(best, hit_body(ray, body, std::min(best, t_max)));
        }
        const double depth = best * ray.depth_per_t;
        if (depth <= max_depth) {
          image.depth_m[static_cast<std::size_t>(row) * width + col] = static_cast<float>(depth);
        }
      }
    }
  }
  return image;
}

int floor_px(double v) { return static_cast<int>(std::floor(std::clamp(v, -1e9, 1e9))); }
int ceil_px(double v) { return static_cast<int>(std::ceil(std::clamp(v, -1e9, 1e9))); }

}  // namespace

void validate(const SkyCamera& c) {
  require_finite("sky_camera.x_min_m", c.x_min_m);
  require_finite("sky_camera.x_max_m", c.x_max_m);
  require_finite("sky_camera.y_min_m", c.y_min_m);
  require_finite("sky_camera.y_max_m", c.y_max_m);
  require_finite("sky_camera.z_camera_m", c.z_camera_m);
  if (!(c.x_min_m < c.x_max_m) || !(c.y_min_m < c.y_max_m)) {
    throw std::invalid_argument(fmt::format(
        "sky_camera rectangle must have x_min_m < x_max_m and y_min_m < y_max_m, got x [{}, {}], "
        "y [{}, {}]",
        c.x_min_m, c.x_max_m, c.y_min_m, c.y_max_m));
  }
  require_size("sky_camera.width_px", c.width_px);
  require_size("sky_camera.height_px", c.height_px);
  require_range("sky_camera.max_depth_m", c.max_depth_m);
}

void validate(const PerspectiveCamera& c) {
  if (!c.X_WC.matrix().allFinite()) {
    throw std::invalid_argument("perspective_camera.X_WC must be finite");
  }
  if (!(c.fov_y_rad > 0.0 && c.fov_y_rad < kPi)) {
    throw std::invalid_argument(
        fmt::format("perspective_camera.fov_y_rad must be in (0, pi), got {}", c.fov_y_rad));
  }
  require_size("perspective_camera.width_px", c.width_px);
  require_size("perspective_camera.height_px", c.height_px);
  require_range("perspective_camera.max_range_m", c.max_range_m);
}

DepthImage render_depth(const SkyCamera& c, const ParticleSpheres& particles,
                        std::span<const CameraBody> bodies) {
  validate(c);
  const double dx = (c.x_max_m - c.x_min_m) / c.width_px;
  const double dy = (c.y_max_m - c.y_min_m) / c.height_px;
  auto ray_of = [&](int col, int row) {
    return Ray{Vec3(c.x_min_m + (col + 0.5) * dx, c.y_max_m - (row + 0.5) * dy, c.z_camera_m),
               -Vec3::UnitZ(), 1.0};
  };
  // Pixel centres within the particle's x-y disc's bounding square.
  auto bounds = [&](const Vec3& p, double r, int& c0, int& c1, int& r0, int& r1) {
    c0 = ceil_px((p.x() - r - c.x_min_m) / dx - 0.5);
    c1 = floor_px((p.x() + r - c.x_min_m) / dx - 0.5);
    r0 = ceil_px((c.y_max_m - (p.y() + r)) / dy - 0.5);
    r1 = floor_px((c.y_max_m - (p.y() - r)) / dy - 0.5);
    return true;
  };
  return render(c.width_px, c.height_px, c.max_depth_m, particles, bodies, ray_of, bounds);
}

DepthImage render_depth(const PerspectiveCamera& c, const ParticleSpheres& particles,
                        std::span<const CameraBody> bodies) {
  validate(c);
  const double f = 0.5 * c.height_px / std::tan(0.5 * c.fov_y_rad);  // focal length [px]
  const double cx = 0.5 * c.width_px;
  const double cy = 0.5 * c.height_px;
  const Mat3 R_WC = c.X_WC.linear();
  const Vec3 p_WC = c.X_WC.translation();
  const Pose X_CW = c.X_WC.inverse();
  auto ray_of = [&](int col, int row) {
    const Vec3 d_C((col + 0.5 - cx) / f, (row + 0.5 - cy) / f, 1.0);
    const double len = d_C.norm();
    return Ray{p_WC, R_WC * (d_C / len), 1.0 / len};
  };
  // The normalized image coordinates x/z, y/z over the ball are bounded by the extreme ratios of
  // (centre +- r) over (depth -+ r); a ball reaching behind the image plane may cover everything.
  auto bounds = [&](const Vec3& p_W, double r, int& c0, int& c1, int& r0, int& r1) {
    const Vec3 q = X_CW * p_W;
    if (q.z() + r <= 0.0) return false;  // wholly behind the camera
    if (q.z() - r <= 1e-9) {
      c0 = 0;
      c1 = c.width_px - 1;
      r0 = 0;
      r1 = c.height_px - 1;
      return true;
    }
    const double near = q.z() - r;
    const double far = q.z() + r;
    const double xlo = std::min((q.x() - r) / near, (q.x() - r) / far);
    const double xhi = std::max((q.x() + r) / near, (q.x() + r) / far);
    const double ylo = std::min((q.y() - r) / near, (q.y() - r) / far);
    const double yhi = std::max((q.y() + r) / near, (q.y() + r) / far);
    c0 = ceil_px(xlo * f + cx - 0.5);
    c1 = floor_px(xhi * f + cx - 0.5);
    r0 = ceil_px(ylo * f + cy - 0.5);
    r1 = floor_px(yhi * f + cy - 0.5);
    return true;
  };
  return render(c.width_px, c.height_px, c.max_range_m, particles, bodies, ray_of, bounds);
}

void write_depth_png(const std::filesystem::path& path, const DepthImage& image, double near_m,
                     double far_m, bool colour) {
  if (!std::isfinite(near_m) || !std::isfinite(far_m) || !(near_m < far_m)) {
    throw std::invalid_argument(
        fmt::format("write_depth_png {}: need finite near_m < far_m, got {} and {}", path.string(),
                    near_m, far_m));
  }
  RgbImage png(image.width, image.height, Rgb{0, 0, 0});
  for (int row = 0; row < image.height; ++row) {
    for (int col = 0; col < image.width; ++col) {
      const double d = image.at(col, row);
      if (!std::isfinite(d)) continue;
      const double nearness = std::clamp((far_m - d) / (far_m - near_m), 0.0, 1.0);
      if (colour) {
        png.set(col, row, height_colormap(nearness));
      } else {
        const auto g = static_cast<std::uint8_t>(std::lround(32.0 + 223.0 * nearness));
        png.set(col, row, g, g, g);
      }
    }
  }
  write_png(path, png);
}

RgbImage sky_depth_picture(const SkyCamera& camera, const DepthImage& image, double reference_z_m,
                           double z_lo_m, double z_hi_m, const std::string& title,
                           const std::string& quantity, HeightmapImageLayout* layout) {
  if (image.width <= 0 || image.height <= 0 ||
      image.depth_m.size() != static_cast<std::size_t>(image.width) * image.height) {
    throw std::invalid_argument("sky_depth_picture: the depth image is empty or mis-sized");
  }
  if (!std::isfinite(z_lo_m) || !std::isfinite(z_hi_m) || !(z_lo_m < z_hi_m)) {
    throw std::invalid_argument(fmt::format(
        "sky_depth_picture: need finite z_lo_m < z_hi_m, got {} and {}", z_lo_m, z_hi_m));
  }
  // Row 0 of the camera's image is y_max; the map's row j = 0 is its bottom (y_min).
  const int nx = image.width, ny = image.height;
  std::vector<double> height_m(static_cast<std::size_t>(nx) * ny);
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const double d = image.at(i, ny - 1 - j);
      height_m[static_cast<std::size_t>(j) * nx + i] =
          std::isfinite(d) ? camera.z_camera_m - d - reference_z_m
                           : std::numeric_limits<double>::quiet_NaN();
    }
  }
  HeightmapImageOptions options;
  options.title = title;
  options.colour_bar_quantity = quantity;
  options.z_min_m = z_lo_m;
  options.z_max_m = z_hi_m;
  options.hill_shade = false;  // spheres would speckle it, and shading moves colours off the bar
  return render_heightmap(height_m.data(), nx, ny, (camera.x_max_m - camera.x_min_m) / nx, options,
                          layout);
}

void write_depth_npy(const std::filesystem::path& path, const DepthImage& image) {
  const std::vector<double> values(image.depth_m.begin(), image.depth_m.end());
  write_npy(path, values,
            {static_cast<std::size_t>(image.height), static_cast<std::size_t>(image.width)});
}

}  // namespace talus
