// Depth cameras: sky (orthographic, top-down) and perspective, over particles and bodies.

#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <random>

#include "core/image.hpp"
#include "core/mesh_sdf.hpp"
#include "core/units.hpp"
#include "error_message.hpp"
#include "mesh_fixtures.hpp"
#include "particles/depth_camera.hpp"

namespace talus {
namespace {

using test_support::invalid_argument_of;
constexpr float kInfF = std::numeric_limits<float>::infinity();

struct Cloud {
  std::vector<float> x, y, z, r;
  void add(double px, double py, double pz, double pr) {
    x.push_back(static_cast<float>(px));
    y.push_back(static_cast<float>(py));
    z.push_back(static_cast<float>(pz));
    r.push_back(static_cast<float>(pr));
  }
  ParticleSpheres spheres() const { return {x, y, z, r}; }
};

SkyCamera unit_sky(int px) {
  SkyCamera c;
  c.x_min_m = 0.0;
  c.x_max_m = 1.0;
  c.y_min_m = 0.0;
  c.y_max_m = 1.0;
  c.z_camera_m = 1.0;
  c.width_px = px;
  c.height_px = px;
  return c;
}

// A camera at p looking along +x_W, with the image's right along -y_W and its down along -z_W.
Pose looking_along_x(const Vec3& p) {
  Pose X = Pose::Identity();
  X.linear().col(0) = -Vec3::UnitY();
  X.linear().col(1) = -Vec3::UnitZ();
  X.linear().col(2) = Vec3::UnitX();
  X.translation() = p;
  return X;
}

TEST(SkyCamera, SphereCentrePixelSeesItsTop) {
  Cloud c;
  c.add(0.5, 0.5, 0.2, 0.1);
  const DepthImage img = render_depth(unit_sky(65), c.spheres(), {});
  ASSERT_EQ(img.depth_m.size(), 65u * 65u);
  EXPECT_FLOAT_EQ(img.at(32, 32), 0.7F);  // camera height 1 minus the sphere's top 0.3
  EXPECT_EQ(img.at(0, 0), kInfF);
  // Pixel 36 looks down at x = 36.5 / 65: depth 1 - (0.2 + sqrt(r^2 - dx^2)).
  const double dx = 36.5 / 65.0 - 0.5;
  EXPECT_NEAR(img.at(36, 32), 0.8 - std::sqrt(0.01 - dx * dx), 1e-6);
  // Rows count down from y_max: a sphere at high y appears in the top rows.
  Cloud top;
  top.add(0.5, 0.95, 0.2, 0.05);
  const DepthImage t = render_depth(unit_sky(20), top.spheres(), {});
  EXPECT_LT(t.at(10, 0), kInfF);
  EXPECT_EQ(t.at(10, 19), kInfF);
}

TEST(SkyCamera, PlaneAtKnownHeightAndMaxDepth) {
  const std::vector<CameraBody> ground{{PlaneShape{}, make_pose(Vec3(0, 0, 0.25))}};
  const DepthImage img = render_depth(unit_sky(16), {}, ground);
  for (float d : img.depth_m) EXPECT_FLOAT_EQ(d, 0.75F);
  SkyCamera shallow = unit_sky(16);
  shallow.max_depth_m = 0.5;
  for (float d : render_depth(shallow, {}, ground).depth_m) EXPECT_EQ(d, kInfF);
  // A plane tilted 45 deg about y: depth grows by dx along x.
  const std::vector<CameraBody> tilted{{PlaneShape{}, make_pose(Vec3(0.5, 0, 0.5), 0, kPi / 4)}};
  const DepthImage t = render_depth(unit_sky(16), {}, tilted);
  EXPECT_NEAR(t.at(7, 3), 0.5 + (7.5 / 16 - 0.5), 1e-6);
}

TEST(SkyCamera, NearestSurfaceWins) {
  Cloud c;
  c.add(0.5, 0.5, 0.2, 0.1);  // top at 0.3
  c.add(0.5, 0.5, 0.5, 0.1);  // top at 0.6, above: hides the first
  std::vector<CameraBody> bodies{
      {PlaneShape{}, make_pose(Vec3(0, 0, 0.05))},
      {BoxShape{Vec3(0.05, 0.05, 0.05)}, make_pose(Vec3(0.2, 0.2, 0.4))}};
  const DepthImage img = render_depth(unit_sky(65), c.spheres(), bodies);
  EXPECT_FLOAT_EQ(img.at(32, 32), 0.4F);
  EXPECT_FLOAT_EQ(img.at(3, 3), 0.95F);                                  // only the plane
  EXPECT_NEAR(img.at(13, 51), 1.0 - 0.45, 1e-6);                         // box top (x 0.2, y 0.2)
  bodies.push_back({SphereShape{0.2}, make_pose(Vec3(0.5, 0.5, 0.7))});  // a body over them all
  EXPECT_NEAR(render_depth(unit_sky(65), c.spheres(), bodies).at(32, 32), 0.1, 1e-6);
}

TEST(SkyCamera, MeshBodyMatchesTheBox) {
  TriangleMesh cube = load_mesh(test_support::mesh_data("cube.stl"));
  for (Vec3& v : cube.vertices_m) v = 0.4 * v - Vec3::Constant(0.2);
  const Pose X_WB = make_pose(Vec3(0.5, 0.5, 0.3), 0.0, 0.0, 0.3);
  const std::vector<CameraBody> mesh{{MeshShape{MeshSdfGrid::build(cube, 0.02), "cube"}, X_WB}};
  const std::vector<CameraBody> box{{BoxShape{Vec3::Constant(0.2)}, X_WB}};
  const DepthImage a = render_depth(unit_sky(32), {}, mesh);
  const DepthImage b = render_depth(unit_sky(32), {}, box);
  int both = 0;
  for (std::size_t i = 0; i < a.depth_m.size(); ++i) {
    if (std::isfinite(a.depth_m[i]) && std::isfinite(b.depth_m[i])) {
      ++both;
      EXPECT_NEAR(a.depth_m[i], b.depth_m[i], 1e-4);  // the flat top is sampled exactly
    }
  }
  EXPECT_GT(both, 120);  // the 0.16 m^2 top covers about 164 of the 1024 pixels
}

TEST(PerspectiveCamera, BoxFaceDepthIsConstantAlongTheAxis) {
  PerspectiveCamera cam;
  cam.X_WC = looking_along_x(Vec3::Zero());
  cam.fov_y_rad = deg_to_rad(40.0);
  cam.width_px = 24;
  cam.height_px = 16;
  const std::vector<CameraBody> wall{{BoxShape{Vec3(0.5, 2.0, 2.0)}, make_pose(Vec3(2.0, 0, 0))}};
  const DepthImage img = render_depth(cam, {}, wall);
  for (float d : img.depth_m) EXPECT_NEAR(d, 1.5, 1e-6);
  cam.max_range_m = 1.0;
  for (float d : render_depth(cam, {}, wall).depth_m) EXPECT_EQ(d, kInfF);
}

TEST(PerspectiveCamera, MountedOnABodyAndSeesASphere) {
  // A body at (0, 0, 1) yawed 90 deg (facing +y_W); the camera sits 0.1 m ahead of it along x_B,
  // looking along x_B. A sphere 2 m ahead along +y_W is straight in front.
  const Pose X_WB = make_pose(Vec3(0, 0, 1), 0, 0, kPi / 2);
  const Pose X_BC = looking_along_x(Vec3(0.1, 0, 0));
  PerspectiveCamera cam;
  cam.X_WC = mounted_camera_pose(X_WB, X_BC);
  EXPECT_TRUE(cam.X_WC.translation().isApprox(Vec3(0, 0.1, 1)));
  cam.width_px = 33;
  cam.height_px = 33;
  cam.fov_y_rad = deg_to_rad(30.0);
  Cloud c;
  c.add(0, 2.1, 1.0, 0.25);
  const DepthImage img = render_depth(cam, c.spheres(), {});
  EXPECT_NEAR(img.at(16, 16), 1.75, 1e-6);
  EXPECT_EQ(img.at(0, 0), kInfF);
}

// Every pixel of the bucketed renderer equals a brute-force test of every particle.
template <class Camera, class RayOf>
void expect_matches_brute_force(const Camera& cam, const Cloud& c, const RayOf& ray_of) {
  const DepthImage img = render_depth(cam, c.spheres(), {});
  for (int row = 0; row < img.height; ++row) {
    for (int col = 0; col < img.width; ++col) {
      const auto [o, d, k] = ray_of(col, row);
      double best = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < c.x.size(); ++i) {
        const Vec3 oc = o - Vec3(c.x[i], c.y[i], c.z[i]);
        const double b = oc.dot(d);
        const double disc = b * b - (oc.squaredNorm() - double(c.r[i]) * c.r[i]);
        if (disc >= 0.0 && -b + std::sqrt(disc) >= 0.0) {
          best = std::min(best, std::max(0.0, -b - std::sqrt(disc)));
        }
      }
      ASSERT_EQ(img.at(col, row), static_cast<float>(best * k)) << col << " " << row;
    }
  }
}

Cloud random_cloud(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.1, 1.1), h(0.0, 0.5), r(0.005, 0.06);
  Cloud c;
  for (int i = 0; i < n; ++i) c.add(u(rng), u(rng), h(rng), r(rng));
  return c;
}

TEST(DepthCamera, BucketsMissNoParticle) {
  const Cloud c = random_cloud(400, 5);
  const SkyCamera sky = unit_sky(40);
  expect_matches_brute_force(sky, c, [](int col, int row) {
    return std::tuple(Vec3((col + 0.5) / 40, 1.0 - (row + 0.5) / 40, 1.0), Vec3(-Vec3::UnitZ()),
                      1.0);
  });
  PerspectiveCamera cam;
  cam.X_WC = looking_along_x(Vec3(-0.8, 0.5, 0.25));
  cam.fov_y_rad = deg_to_rad(60.0);
  cam.width_px = 30;
  cam.height_px = 20;
  const double f = 10.0 / std::tan(deg_to_rad(30.0));
  expect_matches_brute_force(cam, c, [&](int col, int row) {
    const Vec3 d_C((col + 0.5 - 15) / f, (row + 0.5 - 10) / f, 1.0);
    return std::tuple(cam.X_WC.translation(), Vec3(cam.X_WC.linear() * d_C.normalized()),
                      1.0 / d_C.norm());
  });
}

TEST(DepthCamera, SameImageForOneAndTwoThreads) {
  const Cloud c = random_cloud(3000, 9);
  const std::vector<CameraBody> bodies{
      {WheelShape{0.1, 0.05, 6, 0.02, 0.01}, make_pose(Vec3(0.5, 0.5, 0.3))}};
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const DepthImage one = render_depth(unit_sky(48), c.spheres(), bodies);
  omp_set_num_threads(2);
  const DepthImage two = render_depth(unit_sky(48), c.spheres(), bodies);
  omp_set_num_threads(before);
  EXPECT_EQ(one.depth_m, two.depth_m);
}

TEST(DepthCamera, WritesPngAndNpy) {
  Cloud c;
  c.add(0.5, 0.5, 0.2, 0.1);
  const DepthImage img = render_depth(unit_sky(9), c.spheres(), {});
  const auto dir =
      std::filesystem::temp_directory_path() / ("talus_depth_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  write_depth_png(dir / "d.png", img, 0.7, 1.0);
  const RgbImage png = read_png(dir / "d.png");
  EXPECT_EQ(png.at(4, 4), (Rgb{255, 255, 255}));  // nearest: white
  EXPECT_EQ(png.at(0, 0), (Rgb{0, 0, 0}));        // nothing seen: black
  write_depth_png(dir / "c.png", img, 0.7, 1.0, true);
  EXPECT_NE(read_png(dir / "c.png").at(4, 4), (Rgb{255, 255, 255}));
  write_depth_npy(dir / "d.npy", img);
  std::ifstream in(dir / "d.npy", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(bytes.find("'shape': (9, 9"), std::string::npos);
  std::filesystem::remove_all(dir);
  EXPECT_NE(invalid_argument_of([&] {
              write_depth_png(dir / "x.png", img, 1.0, 1.0);
            }).find("need finite near_m < far_m"),
            std::string::npos);
}

TEST(DepthCamera, RefusesBadCamerasAndSpans) {
  SkyCamera sky = unit_sky(8);
  sky.x_max_m = -1.0;
  EXPECT_NE(invalid_argument_of([&] { render_depth(sky, {}, {}); }).find("x_min_m < x_max_m"),
            std::string::npos);
  PerspectiveCamera cam;
  cam.fov_y_rad = 4.0;
  EXPECT_NE(
      invalid_argument_of([&] { render_depth(cam, {}, {}); }).find("fov_y_rad must be in (0, pi)"),
      std::string::npos);
  cam.fov_y_rad = 1.0;
  cam.width_px = 0;
  EXPECT_NE(invalid_argument_of([&] {
              render_depth(cam, {}, {});
            }).find("width_px must be in 1 .. 16384"),
            std::string::npos);
  const std::vector<float> a{1, 2}, b{1};
  EXPECT_NE(invalid_argument_of([&] {
              render_depth(unit_sky(8), ParticleSpheres{a, a, a, b}, {});
            }).find("particle spans hold 2, 2, 2, 1 values"),
            std::string::npos);
}

// The saved picture is a map: height above the reference coloured on the ramp, the camera's row 0
// (y_max) at the top, nothing seen grey; a range without lo < hi is refused.
TEST(DepthCamera, SkyDepthPictureIsAMapOfHeights) {
  SkyCamera cam;
  cam.x_min_m = 0.0;
  cam.x_max_m = 0.2;
  cam.y_min_m = 0.0;
  cam.y_max_m = 0.1;
  cam.z_camera_m = 1.0;
  cam.width_px = 20;
  cam.height_px = 10;
  DepthImage image{20, 10, std::vector<float>(200, 0.9f)};       // 0.1 m above the floor at z = 0
  for (int col = 0; col < 20; ++col) image.depth_m[col] = 0.8f;  // row 0 (y_max): 0.2 m
  image.depth_m[5 * 20 + 7] = std::numeric_limits<float>::infinity();
  HeightmapImageLayout layout;
  const RgbImage picture = sky_depth_picture(cam, image, 0.0, 0.1, 0.2, "t", "z", &layout);
  EXPECT_EQ(layout.nx, 20);
  EXPECT_EQ(layout.ny, 10);
  EXPECT_EQ(picture.at(layout.pixel_x(3), layout.pixel_y(9)), height_colormap(1.0));  // top
  EXPECT_EQ(picture.at(layout.pixel_x(3), layout.pixel_y(0)), height_colormap(0.0));
  const Rgb unseen = picture.at(layout.pixel_x(7), layout.pixel_y(4));
  EXPECT_EQ(unseen.r, unseen.g);
  EXPECT_EQ(unseen.g, unseen.b);
  // Heights relative to the reference: 0.1 m up, the same image spans 0 to 0.1.
  const RgbImage shifted = sky_depth_picture(cam, image, 0.1, 0.0, 0.1, "t", "z", &layout);
  EXPECT_EQ(shifted.at(layout.pixel_x(3), layout.pixel_y(9)), height_colormap(1.0));
  EXPECT_NE(invalid_argument_of([&] {
              sky_depth_picture(cam, image, 0.0, 0.2, 0.2, "t", "z");
            }).find("need finite z_lo_m < z_hi_m"),
            std::string::npos);
}

}  // namespace
}  // namespace talus
