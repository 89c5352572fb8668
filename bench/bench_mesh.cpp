// Mesh bodies and depth cameras: building a gear's signed-distance grid at two cell sizes, querying
// it (items: queries), and rendering 50,000 particles into 128 x 128 depth images (items: pixels).

#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/gear.hpp"
#include "core/mesh_sdf.hpp"
#include "core/units.hpp"
#include "particles/depth_camera.hpp"

namespace talus {
namespace {

// The gear tower's gear: module 5 mm, 20 teeth (tip radius 55 mm), 40 mm wide, 20 deg helix.
GearParams bench_gear() {
  GearParams g;
  g.module_m = 0.005;
  g.teeth = 20;
  g.face_width_m = 0.04;
  g.helix_angle_rad = deg_to_rad(20.0);
  return g;
}

// state.range(0): cell size in micrometres.
void BM_GearSdfBuild(benchmark::State& state) {
  const TriangleMesh mesh = gear_mesh(bench_gear());
  const double cell = 1e-6 * static_cast<double>(state.range(0));
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto grid = MeshSdfGrid::build(mesh, cell);
    bytes = grid->memory_bytes();
    benchmark::DoNotOptimize(grid.get());
  }
  state.counters["triangles"] = static_cast<double>(mesh.triangles.size());
  state.counters["grid_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_GearSdfBuild)->Arg(2000)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_GearSdfQuery(benchmark::State& state) {
  const double cell = 1e-6 * static_cast<double>(state.range(0));
  const auto grid = MeshSdfGrid::build(gear_mesh(bench_gear()), cell);
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-0.06, 0.06), w(-0.025, 0.025);
  std::vector<Vec3> points(1 << 16);
  for (Vec3& p : points) p = Vec3(u(rng), u(rng), w(rng));
  for (auto _ : state) {
    double sum = 0.0;
    for (const Vec3& p : points) sum += grid->distance(p);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(points.size()));
}
BENCHMARK(BM_GearSdfQuery)->Arg(2000)->Arg(1000)->Unit(benchmark::kMillisecond);

// Accuracy of the grid against the exact signed distance to the same mesh (unsigned: the BVH's
// exact point-triangle search; sign: the point turned back by the helix inside the profile
// polygon), over 20,000 uniform points in the gear's bounds grown by 2 mm. Counters in mm; near =
// points within 2 mm of the surface. The time is not the point of this benchmark.
bool inside_profile(const std::vector<Vec2>& poly, const Vec2& p) {
  bool in = false;
  for (std::size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const Vec2& a = poly[i];
    const Vec2& b = poly[j];
    if ((a.y() > p.y()) != (b.y() > p.y()) &&
        p.x() < (b.x() - a.x()) * (p.y() - a.y()) / (b.y() - a.y()) + a.x()) {
      in = !in;
    }
  }
  return in;
}

void BM_GearSdfAccuracy(benchmark::State& state) {
  const GearParams g = bench_gear();
  const TriangleMesh mesh = gear_mesh(g);
  const std::vector<Vec2> profile = gear_profile(g);
  const double cell = 1e-6 * static_cast<double>(state.range(0));
  const TriangleBvh bvh(mesh);
  std::mt19937 rng(4);
  const double r = tip_radius(g) + 0.002;
  const double h = 0.5 * g.face_width_m + 0.002;
  std::uniform_real_distribution<double> u(-r, r), w(-h, h);
  double max_err = 0.0, sum_sq = 0.0, max_near = 0.0;
  int count = 0;
  for (auto _ : state) {
    const auto grid = MeshSdfGrid::build(mesh, cell);
    for (int i = 0; i < 20000; ++i) {
      const Vec3 p(u(rng), u(rng), w(rng));
      const double turn = -p.z() * std::tan(g.helix_angle_rad) / pitch_radius(g);
      const Vec2 q(std::cos(turn) * p.x() - std::sin(turn) * p.y(),
                   std::sin(turn) * p.x() + std::cos(turn) * p.y());
      const bool in = std::abs(p.z()) <= 0.5 * g.face_width_m && inside_profile(profile, q);
      const double exact = in ? -bvh.distance(p) : bvh.distance(p);
      const double err = std::abs(grid->distance(p) - exact);
      max_err = std::max(max_err, err);
      if (std::abs(exact) < 0.002) max_near = std::max(max_near, err);
      sum_sq += err * err;
      ++count;
    }
    state.counters["grid_MB"] = static_cast<double>(grid->memory_bytes()) / 1e6;
  }
  state.counters["max_err_mm"] = 1e3 * max_err;
  state.counters["max_err_near_mm"] = 1e3 * max_near;
  state.counters["rms_err_mm"] = 1e3 * std::sqrt(sum_sq / count);
}
BENCHMARK(BM_GearSdfAccuracy)
    ->Arg(4000)
    ->Arg(2000)
    ->Arg(1000)
    ->Arg(500)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// 50,000 particles of radius 5 mm in a loose bed over 1 m x 1 m, with a blade above it.
struct Bed {
  std::vector<float> x, y, z, r;
  Bed() {
    std::mt19937 rng(2);
    std::uniform_real_distribution<float> u(0.0F, 1.0F), h(0.0F, 0.1F);
    for (int i = 0; i < 50000; ++i) {
      x.push_back(u(rng));
      y.push_back(u(rng));
      z.push_back(h(rng));
      r.push_back(0.005F);
    }
  }
  ParticleSpheres spheres() const { return {x, y, z, r}; }
};

const std::vector<CameraBody>& bench_bodies() {
  static const std::vector<CameraBody> bodies{
      {PlaneShape{}, Pose::Identity()},
      {BoxShape{Vec3(0.01, 0.3, 0.1)}, make_pose(Vec3(0.4, 0.5, 0.15))}};
  return bodies;
}

void BM_SkyCamera50k(benchmark::State& state) {
  const Bed bed;
  SkyCamera cam;
  cam.width_px = 128;
  cam.height_px = 128;
  for (auto _ : state) {
    benchmark::DoNotOptimize(render_depth(cam, bed.spheres(), bench_bodies()).depth_m.data());
  }
  state.SetItemsProcessed(state.iterations() * 128 * 128);
}
BENCHMARK(BM_SkyCamera50k)->Unit(benchmark::kMillisecond);

void BM_PerspectiveCamera50k(benchmark::State& state) {
  const Bed bed;
  PerspectiveCamera cam;
  // 0.5 m above the bed's edge, looking across it and down 35 deg.
  cam.X_WC = make_pose(Vec3(-0.2, 0.5, 0.5), -kPi / 2 - deg_to_rad(35.0), 0.0, -kPi / 2);
  cam.fov_y_rad = deg_to_rad(60.0);
  cam.width_px = 128;
  cam.height_px = 128;
  for (auto _ : state) {
    benchmark::DoNotOptimize(render_depth(cam, bed.spheres(), bench_bodies()).depth_m.data());
  }
  state.SetItemsProcessed(state.iterations() * 128 * 128);
}
BENCHMARK(BM_PerspectiveCamera50k)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace talus
