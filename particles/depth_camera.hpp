#pragma once
// Depth images of particles and bodies: the observations of paper 001's bulldozing task (§III-A),
// an orthographic top-down "sky" camera over the workspace and a perspective camera carried by a
// body.
//
// Particles are spheres (ray-sphere intersection), bodies are their signed-distance shapes (sphere
// tracing, Hart 1996, stepping by distance / lipschitz_bound(shape); a plane is intersected
// exactly). Particles are bucketed by the 4 x 4-pixel image tiles their silhouettes can cover, so
// each pixel tests only the particles of its tile. The nearest hit wins. Every pixel is computed
// on its own (parallel over tiles), so images are identical for any thread count.
//
// The camera takes the particle state as plain float spans (structure of arrays), so it does not
// depend on the particle engine's types.

#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/colormap.hpp"
#include "core/image.hpp"
#include "core/shape.hpp"

namespace talus {

/// Particles as spheres: centres (x, y, z) [m] and radii [m], one value per particle in each span.
struct ParticleSpheres {
  std::span<const float> x, y, z, radius;
};

/// A body as the camera sees it: its shape at its world pose.
struct CameraBody {
  Shape shape;
  Pose X_WB = Pose::Identity();
};

/// A float depth image [m], row-major with row 0 at the top. Pixels that see nothing (within the
/// camera's max range) hold +infinity.
struct DepthImage {
  int width = 0;
  int height = 0;
  std::vector<float> depth_m;
  float at(int col, int row) const { return depth_m[static_cast<std::size_t>(row) * width + col]; }
};

/// Orthographic camera looking straight down (-z_W) from the plane z = z_camera_m over the world
/// rectangle [x_min_m, x_max_m] x [y_min_m, y_max_m]. Pixel (col, row) looks down from its centre
/// x = x_min + (col + 1/2) dx, y = y_max - (row + 1/2) dy (column 0 at x_min, row 0 at y_max: the
/// image is a map with +y up). Depth = z_camera_m - z of the first surface below.
struct SkyCamera {
  double x_min_m = 0.0, x_max_m = 1.0;
  double y_min_m = 0.0, y_max_m = 1.0;
  double z_camera_m = 1.0;
  int width_px = 64;
  int height_px = 64;
  double max_depth_m = std::numeric_limits<double>::infinity();  ///< farther hits give +inf
};

/// Pinhole camera at pose X_WC: it looks along +z_C, x_C points to the image's right and y_C down
/// (the computer-vision convention). Square pixels; fov_y_rad is the full vertical field of view.
/// Depth = distance along the optical axis z_C (what a depth camera reports), not along the ray.
struct PerspectiveCamera {
  Pose X_WC = Pose::Identity();
  double fov_y_rad = 1.0;
  int width_px = 64;
  int height_px = 64;
  double max_range_m = std::numeric_limits<double>::infinity();  ///< farther depths give +inf
};

/// The pose of a camera mounted on a body: X_WC = X_WB X_BC.
inline Pose mounted_camera_pose(const Pose& X_WB, const Pose& X_BC) { return X_WB * X_BC; }

/// Throw std::invalid_argument naming the field when a camera's numbers are not finite, the
/// rectangle or image is empty (sizes 1 .. 16384 px), fov_y_rad is outside (0, pi) or a range is
/// not positive.
void validate(const SkyCamera& camera);
void validate(const PerspectiveCamera& camera);

/// Renders the particles and bodies. Throws std::invalid_argument for an invalid camera or particle
/// spans of different lengths.
DepthImage render_depth(const SkyCamera& camera, const ParticleSpheres& particles,
                        std::span<const CameraBody> bodies);
DepthImage render_depth(const PerspectiveCamera& camera, const ParticleSpheres& particles,
                        std::span<const CameraBody> bodies);

/// Writes the image as PNG: depths from near_m (bright) to far_m (dark), clamped; pixels that see
/// nothing are black. colour = true uses the height colormap (core/colormap.hpp, near = warm)
/// instead of grey. Throws std::invalid_argument unless near_m < far_m (finite), and
/// std::runtime_error naming the path when it cannot be written.
void write_depth_png(const std::filesystem::path& path, const DepthImage& image, double near_m,
                     double far_m, bool colour = false);

/// A sky camera's image as a map a person can read (core/colormap.hpp's render_heightmap, no hill
/// shading): each pixel's surface height z_camera_m - depth relative to reference_z_m, coloured
/// from z_lo_m to z_hi_m (relative heights too), with `title` above, a colour bar named
/// `quantity` and labelled in mm, and a scale bar; +y up as in the camera's image. Pixels that see
/// nothing are grey. Throws std::invalid_argument for an empty image or a range without z_lo_m <
/// z_hi_m.
RgbImage sky_depth_picture(const SkyCamera& camera, const DepthImage& image, double reference_z_m,
                           double z_lo_m, double z_hi_m, const std::string& title,
                           const std::string& quantity, HeightmapImageLayout* layout = nullptr);

/// Writes the depths as a (height, width) float64 .npy array (+inf where nothing is seen).
void write_depth_npy(const std::filesystem::path& path, const DepthImage& image);

}  // namespace talus
