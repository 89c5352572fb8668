// The talus-view format (core/view_recorder.hpp) written and checked (core/view_check.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/json_file.hpp"
#include "core/output_dir.hpp"
#include "core/view_check.hpp"
#include "core/view_recorder.hpp"
#include "core/view_render.hpp"
#include "core/view_shapes.hpp"
#include "scratch_files.hpp"

namespace talus {
namespace {

namespace fs = std::filesystem;
using namespace testing_files;  // NOLINT: the test helpers

// A scene of three particles (radii differ), a 3 x 2 heightmap and one box, two frames.
struct SmallRun {
  std::vector<float> x{0.0f, 0.1f, 0.2f}, y{0.0f, 0.0f, 0.05f}, z{0.01f, 0.02f, 0.5f};
  std::vector<float> vx{3.0f, 0.0f, 0.0f}, vy{4.0f, 0.0f, 0.0f}, vz{0.0f, 0.0f, -2.0f};
  std::vector<double> heights{0.0, 0.01, 0.02, 0.03, 0.04, 0.05};
  std::vector<Pose> poses{
      Pose(Eigen::Translation3d(1.0, 2.0, 3.0) * Eigen::AngleAxisd(0.5, Vec3::UnitZ()))};

  ViewLayout layout(bool quantised) const {
    ViewLayout l;
    l.tier = "particles";
    l.scenario = "small";
    l.title = "small: a test";
    l.particle_count = 3;
    l.particle_radii_m = {0.01f, 0.01f, 0.02f};
    l.heightmap = ViewHeightmapGrid{3, 2, 0.1, -1.0, -2.0};
    l.bodies.push_back(ViewBody{"blade", {1, 0, 0}, view_shape(BoxShape{Vec3(0.1, 0.2, 0.3)}, 1)});
    l.quantised = quantised;
    return l;
  }
  ViewFrame frame(double t) const { return ViewFrame{t, x, y, z, vx, vy, vz, heights, poses}; }

  /// Records two frames into a committed run folder at `dir`; returns the manifest.
  nlohmann::json record(const fs::path& dir, bool quantised) const {
    OutputDir out(dir);
    ViewRecorder recorder(out, layout(quantised));
    recorder.add_frame(frame(0.0));
    recorder.add_frame(frame(0.5));
    nlohmann::json manifest = recorder.finish({"plot.png"});
    write_text(out.path("plot.png"), "png");
    out.commit();
    return manifest;
  }
};

std::vector<char> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

template <typename T>
T at(const std::vector<char>& bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

std::string view_error(const fs::path& dir) {
  try {
    check_view_run(dir);
  } catch (const ViewRunError& e) {
    return e.what();
  }
  return "(no ViewRunError)";
}

TEST(ViewRecorder, WritesAManifestAndFramesThatReadBackAsRecorded) {
  ScratchDir scratch;
  const fs::path dir = scratch.path() / "run";
  const nlohmann::json manifest = SmallRun().record(dir, false);

  EXPECT_EQ(manifest["format"], "talus-view");
  EXPECT_EQ(manifest["version"], 1);
  EXPECT_EQ(manifest["frame_count"], 2);
  EXPECT_EQ(manifest["times_s"], (std::vector<double>{0.0, 0.5}));
  EXPECT_EQ(manifest["frames"][1], "view/frames/000001.tvf");
  EXPECT_EQ(manifest["particles"]["count"], 3);
  EXPECT_EQ(manifest["particles"]["radii_file"], "view/radii.f32");
  EXPECT_EQ(manifest["heightmap"]["nx"], 3);
  EXPECT_EQ(manifest["bodies"][0]["shape"]["kind"], "box");
  EXPECT_EQ(manifest["bodies"][0]["shape"]["size_m"], (std::vector<double>{0.2, 0.4, 0.6}));
  EXPECT_EQ(manifest["plots"], (std::vector<std::string>{"plot.png"}));
  // The scene's box holds every particle with its radius, the heightmap and the body.
  EXPECT_NEAR(manifest["bounds_m"]["lo"][0].get<double>(), -1.0, 1e-6);
  EXPECT_NEAR(manifest["bounds_m"]["hi"][2].get<double>(), 3.0, 1e-6);
  EXPECT_EQ(read_bytes(dir / "view/radii.f32").size(), 12u);

  const std::vector<char> f = read_bytes(dir / "view/frames/000001.tvf");
  ASSERT_EQ(f.size(), view_frame_bytes(3, 6, 1, false));
  EXPECT_EQ(std::string(f.data(), 4), "TVF1");
  EXPECT_EQ(at<std::uint32_t>(f, 4), 1u);
  EXPECT_EQ(at<double>(f, 8), 0.5);
  EXPECT_EQ(at<std::uint32_t>(f, 16), 3u);
  EXPECT_EQ(at<std::uint32_t>(f, 20), 6u);
  EXPECT_EQ(at<std::uint32_t>(f, 24), 1u);
  EXPECT_EQ(at<std::uint32_t>(f, 28), 0u);
  EXPECT_EQ(at<float>(f, 32 + 4 * 6), 0.2f);        // particle 2's x
  EXPECT_EQ(at<float>(f, 32 + 36), 5.0f);           // particle 0's speed |(3, 4, 0)|
  EXPECT_EQ(at<float>(f, 32 + 48 + 4 * 5), 0.05f);  // the last height
  const std::size_t pose = 32 + 48 + 24;
  EXPECT_EQ(at<float>(f, pose + 8), 3.0f);                     // z
  EXPECT_NEAR(at<float>(f, pose + 12), std::cos(0.25), 1e-6);  // qw
  EXPECT_NEAR(at<float>(f, pose + 24), std::sin(0.25), 1e-6);  // qz

  const ViewRunInfo info = check_view_run(dir);
  EXPECT_EQ(info.tier, "particles");
  EXPECT_EQ(info.frame_count, 2u);
}

TEST(ViewRecorder, QuantisedPositionsAreWithinHalfAStepOfTheTruth) {
  ScratchDir scratch;
  const fs::path dir = scratch.path() / "run";
  SmallRun run;
  run.record(dir, true);
  const std::vector<char> f = read_bytes(dir / "view/frames/000000.tvf");
  ASSERT_EQ(f.size(), view_frame_bytes(3, 6, 1, true));
  EXPECT_EQ(at<std::uint32_t>(f, 28), 1u);
  const std::vector<float>* axes[3] = {&run.x, &run.y, &run.z};
  for (int a = 0; a < 3; ++a) {
    const float lo = at<float>(f, 32 + 4 * a), step = at<float>(f, 44 + 4 * a);
    for (std::size_t i = 0; i < 3; ++i) {
      const auto q = at<std::uint16_t>(f, 56 + 2 * (3 * i + a));
      EXPECT_NEAR(lo + q * step, (*axes[a])[i], 0.5 * step + 1e-7) << "axis " << a << " i " << i;
    }
  }
  EXPECT_EQ(at<float>(f, 56 + 20), 5.0f);  // the speeds after 18 bytes padded to 20
  EXPECT_NO_THROW(check_view_run(dir));
}

TEST(ViewRecorder, RefusesFramesThatDoNotMatchTheLayout) {
  ScratchDir scratch;
  OutputDir out(scratch.path() / "run");
  SmallRun run;
  ViewRecorder recorder(out, run.layout(false));
  ViewFrame short_frame = run.frame(0.0);
  short_frame.z_m = std::span<const float>(run.z).first(2);
  EXPECT_THROW(recorder.add_frame(short_frame), std::invalid_argument);
  ViewFrame no_heights = run.frame(0.0);
  no_heights.heights_m = {};
  EXPECT_THROW(recorder.add_frame(no_heights), std::invalid_argument);
  recorder.add_frame(run.frame(0.1));
  EXPECT_THROW(recorder.add_frame(run.frame(0.1)), std::invalid_argument);  // time must grow
  ViewLayout bad = run.layout(false);
  bad.particle_radii_m = {0.01f, 0.02f};
  EXPECT_THROW(ViewRecorder(out, bad), std::invalid_argument);
}

TEST(ViewCheck, NamesTheFileAndTheFaultOfABrokenRun) {
  ScratchDir scratch;
  const fs::path dir = scratch.path() / "run";
  SmallRun().record(dir, false);
  const fs::path frame = dir / "view/frames/000001.tvf";
  const std::vector<char> whole = read_bytes(frame);

  // Truncated: the size it has and the size it needs.
  {
    std::ofstream cut(frame, std::ios::binary);
    cut.write(whole.data(), 50);
  }
  std::string error = view_error(dir);
  EXPECT_NE(error.find("000001.tvf"), std::string::npos) << error;
  EXPECT_NE(error.find("truncated: 50 bytes, expected " + std::to_string(whole.size())),
            std::string::npos)
      << error;

  // Missing.
  fs::remove(frame);
  error = view_error(dir);
  EXPECT_NE(error.find("frame 1 is missing"), std::string::npos) << error;

  // Another frame's file in its place.
  fs::copy_file(dir / "view/frames/000000.tvf", frame);
  error = view_error(dir);
  EXPECT_NE(error.find("holds frame 0, the manifest lists it as frame 1"), std::string::npos)
      << error;
  fs::remove(frame);
  std::ofstream(frame, std::ios::binary).write(whole.data(), static_cast<long>(whole.size()));
  EXPECT_NO_THROW(check_view_run(dir));

  // A format of another version, and a manifest pointing out of the run.
  nlohmann::json manifest = nlohmann::json::parse(read_text(dir / "view/manifest.json"));
  manifest["version"] = 0;
  write_json(dir / "view/manifest.json", manifest);
  error = view_error(dir);
  EXPECT_NE(error.find("format version 0; this talus reads version 1"), std::string::npos) << error;
  manifest["version"] = 1;
  manifest["frames"][0] = "../elsewhere.tvf";
  write_json(dir / "view/manifest.json", manifest);
  error = view_error(dir);
  EXPECT_NE(error.find("leaves the run folder"), std::string::npos) << error;

  // Not a run at all.
  error = view_error(scratch.path());
  EXPECT_NE(error.find("has no view/manifest.json"), std::string::npos) << error;
  error = view_error(dir / "view/manifest.json");  // a file
  EXPECT_NE(error.find("not a folder"), std::string::npos) << error;
  error = view_error(dir / "no_such_run");
  EXPECT_NE(error.find("does not exist"), std::string::npos) << error;
}

// A 320 x 200 picture: enough pixels for the tests, few to draw.
ViewCamera small_camera() {
  ViewCamera camera;
  camera.width_px = 320;
  camera.height_px = 200;
  return camera;
}

TEST(ViewRender, TheSurfaceIsColouredOverTheSoilsOwnHeightsWhenGiven) {
  // A video coloured the soil over the scene's z bounds, which hold the bodies: a rig's carriage
  // 0.6 m up left the soil one colour. write_run_video passes the soil's own range.
  ScratchDir scratch;
  SmallRun run;
  const nlohmann::json manifest = run.record(scratch.path() / "run", false);
  const ViewFrameData f = read_view_frame(scratch.path() / "run/view/frames/000001.tvf");
  const auto [lo, hi] = std::minmax_element(f.heights_m.begin(), f.heights_m.end());
  ASSERT_LT(*lo, *hi);
  const ViewCamera camera = small_camera();
  const std::vector<float> radii{0.01f, 0.01f, 0.02f};
  const RgbImage by_bounds = ViewRenderer(manifest, radii, 5.0, camera).render(f);
  const RgbImage by_soil = ViewRenderer(manifest, radii, 5.0, camera, *lo, *hi).render(f);
  EXPECT_NE(by_bounds.rgb, by_soil.rgb);
  const double nan = std::nan("");
  EXPECT_EQ(ViewRenderer(manifest, radii, 5.0, camera, nan, nan).render(f).rgb, by_bounds.rgb);
}

TEST(ViewRender, ReadsFramesBackAndDrawsEveryLayer) {
  ScratchDir scratch;
  const fs::path dir = scratch.path() / "run";
  SmallRun run;
  const nlohmann::json manifest = run.record(dir, false);
  const ViewFrameData f = read_view_frame(dir / "view/frames/000001.tvf");
  EXPECT_EQ(f.index, 1u);
  EXPECT_EQ(f.time_s, 0.5);
  ASSERT_EQ(f.positions_m.size(), 9u);
  EXPECT_EQ(f.positions_m[7], run.y[2]);
  EXPECT_EQ(f.speeds_m_per_s, (std::vector<float>{5.0f, 0.0f, 2.0f}));
  ASSERT_EQ(f.heights_m.size(), 6u);
  EXPECT_EQ(f.heights_m[5], 0.05f);
  ASSERT_EQ(f.poses.size(), 7u);
  EXPECT_EQ(f.poses[2], 3.0f);

  const ViewCamera camera = small_camera();
  const RgbImage empty = ViewRenderer(manifest, {0.01f, 0.01f, 0.02f}, 5.0, camera)
                             .render(ViewFrameData{0, 0.0, {}, {}, {}, {}});
  const RgbImage full = ViewRenderer(manifest, {0.01f, 0.01f, 0.02f}, 5.0, camera).render(f);
  ASSERT_EQ(full.rgb.size(), 320u * 200u * 3u);
  // Below the title bar, the scene changes pixels an empty frame leaves as background; the
  // body (red) is among them.
  std::size_t changed = 0, red = 0;
  for (std::size_t k = 3 * 320 * 50; k < full.rgb.size(); k += 3) {
    if (full.rgb[k] != empty.rgb[k] || full.rgb[k + 1] != empty.rgb[k + 1]) ++changed;
    if (full.rgb[k] > 100 && full.rgb[k + 1] < 30 && full.rgb[k + 2] < 30) ++red;
  }
  EXPECT_GT(changed, 200u);
  EXPECT_GT(red, 20u);

  // A cut frame is refused, naming the file.
  const std::vector<char> whole = read_bytes(dir / "view/frames/000001.tvf");
  std::ofstream(dir / "view/frames/000001.tvf", std::ios::binary).write(whole.data(), 40);
  try {
    read_view_frame(dir / "view/frames/000001.tvf");
    ADD_FAILURE() << "a cut frame was read";
  } catch (const ViewRunError& e) {
    EXPECT_NE(std::string(e.what()).find("000001.tvf"), std::string::npos) << e.what();
  }
}

TEST(ViewShapes, AWheelIsItsRimAndGrousersAsAClosedMesh) {
  WheelShape wheel;
  wheel.radius_m = 0.1;
  wheel.width_m = 0.05;
  wheel.grouser_count = 4;
  wheel.grouser_height_m = 0.01;
  const TriangleMesh mesh = wheel_triangles(wheel, 32);
  EXPECT_EQ(mesh.triangles.size(), 4u * 32u + 4u * 12u);
  double r_max = 0.0;
  for (const Vec3& v : mesh.vertices_m) {
    EXPECT_LE(std::abs(v.y()), 0.025 + 1e-12);
    r_max = std::max(r_max, std::hypot(v.x(), v.z()));
  }
  EXPECT_GT(r_max, 0.11);  // the grousers stand out of the rim
  // Grouser 0 points straight down (-z_B).
  double z_min = 0.0;
  for (const Vec3& v : mesh.vertices_m) z_min = std::min(z_min, v.z());
  EXPECT_NEAR(z_min, -0.11, 1e-12);
  const nlohmann::json shape = view_shape(wheel, 1.0);
  EXPECT_EQ(shape["kind"], "mesh");
  EXPECT_EQ(shape["triangles"].size(), 3 * wheel_triangles(wheel).triangles.size());
}

}  // namespace
}  // namespace talus
