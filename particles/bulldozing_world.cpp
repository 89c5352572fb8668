#include "particles/bulldozing_world.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "core/mesh.hpp"
#include "core/mesh_sdf.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_bed_random.hpp"

namespace talus::particles {

namespace {

void require(bool ok, const char* option, const std::string& expected) {
  if (!ok)
    throw std::invalid_argument(fmt::format("Bulldozing: {}: expected {}", option, expected));
}

bool positive(double v) { return std::isfinite(v) && v > 0.0; }

// The arena's box container: the floor at z = 0, walls around the arena.
Container arena(const BulldozingOptions& o) {
  Container c;
  c.kind = Container::Kind::kBox;
  c.box = Aabb{Vec3(-o.arena_length_m / 2, -o.arena_width_m / 2, 0.0),
               Vec3(o.arena_length_m / 2, o.arena_width_m / 2, o.wall_height_m)};
  return c;
}

// Lattice points filling a cone of side slope heap_slope_deg on the floor around heap_centre_m,
// from the bottom layer up, until particle_count are placed; the cone's base grows until they fit.
ParticleState lattice_cone(const BulldozingOptions& o) {
  const double r = o.particle_radius_m, spacing = 2.02 * r;
  const double tan_slope = std::tan(o.heap_slope_deg * std::numbers::pi / 180.0);
  const double cell_volume_m3 = spacing * spacing * spacing;
  // Cone volume (pi/3) R^2 h with h = R tan(slope) holds count cells: R^3 = 3 V / (pi tan).
  double base_m = std::cbrt(3.0 * static_cast<double>(o.particle_count) * cell_volume_m3 /
                            (std::numbers::pi * tan_slope));
  for (int attempt = 0; attempt < 40; ++attempt, base_m *= 1.05) {
    LatticeBed bed;
    bed.region = Aabb{
        Vec3(o.heap_centre_m.x() - base_m, o.heap_centre_m.y() - base_m, 1.01 * r),
        Vec3(o.heap_centre_m.x() + base_m, o.heap_centre_m.y() + base_m, base_m * tan_slope + r)};
    bed.radius_m = r;
    bed.density_kg_per_m3 = o.density_kg_per_m3;
    bed.spacing_factor = 1.01;
    bed.jitter = 0.3;
    bed.seed = 7;
    const ParticleState box = make_lattice_bed(bed);
    ParticleState cone;
    for (std::size_t i = 0; i < box.size() && cone.size() < o.particle_count; ++i) {
      const double dx = box.x_m[i] - o.heap_centre_m.x(), dy = box.y_m[i] - o.heap_centre_m.y();
      const double radius_at_height = base_m - (box.z_m[i] - r) / tan_slope;
      if (std::hypot(dx, dy) <= radius_at_height - r) {
        cone.add(Vec3(box.x_m[i], box.y_m[i], box.z_m[i]), Vec3::Zero(), r,
                 1.0 / box.inv_mass_per_kg[i]);
      }
    }
    if (cone.size() == o.particle_count) return cone;
  }
  throw std::invalid_argument("Bulldozing: particle_count: the heap does not fit in the arena");
}

// Walls as thin boxes, and the floor, for the cameras (the container is not a body).
std::vector<CameraBody> scenery(const BulldozingOptions& o) {
  const double L = o.arena_length_m, W = o.arena_width_m, H = o.wall_height_m, t = 0.05;
  std::vector<CameraBody> bodies;
  bodies.push_back({PlaneShape{}, Pose::Identity()});
  auto wall = [&](Vec3 centre, Vec3 half) {
    Pose X = Pose::Identity();
    X.translation() = centre;
    bodies.push_back({BoxShape{half}, X});
  };
  wall(Vec3(L / 2 + t, 0, H / 2), Vec3(t, W / 2 + 2 * t, H / 2));
  wall(Vec3(-L / 2 - t, 0, H / 2), Vec3(t, W / 2 + 2 * t, H / 2));
  wall(Vec3(0, W / 2 + t, H / 2), Vec3(L / 2, t, H / 2));
  wall(Vec3(0, -W / 2 - t, H / 2), Vec3(L / 2, t, H / 2));
  return bodies;
}

}  // namespace

void validate(const BulldozingOptions& o) {
  require(!o.mesh_path.empty(), "mesh_path", "the bulldozer's mesh file");
  require(positive(o.mesh_sdf_cell_m), "mesh_sdf_cell_m", "> 0");
  require(o.particle_count >= 1 && o.particle_count <= 200000, "particle_count", "1 .. 200000");
  require(positive(o.particle_radius_m), "particle_radius_m", "> 0");
  require(positive(o.density_kg_per_m3), "density_kg_per_m3", "> 0");
  require(std::isfinite(o.friction) && o.friction >= 0, "friction", ">= 0");
  require(std::isfinite(o.rolling_friction) && o.rolling_friction >= 0, "rolling_friction", ">= 0");
  require(o.rotation || o.rolling_friction == 0.0, "rolling_friction",
          "0 unless rotation is on (grains that do not rotate cannot roll)");
  require(positive(o.heap_slope_deg) && o.heap_slope_deg <= 45, "heap_slope_deg", "in (0, 45]");
  require(positive(o.time_step_s), "time_step_s", "> 0");
  require(o.steps_per_action >= 1, "steps_per_action", ">= 1");
  require(o.iterations >= 1, "iterations", ">= 1");
  require(std::isfinite(o.neighbour_skin_radii) && o.neighbour_skin_radii >= 0,
          "neighbour_skin_radii", ">= 0");
  require(positive(o.episode_s), "episode_s", "> 0");
  require(o.vehicle == "kinematic" || o.vehicle == "dynamic", "vehicle",
          "'kinematic' or 'dynamic'");
  require(o.vehicle != "dynamic" || !o.vehicle_mjcf_path.empty(), "vehicle_mjcf_path",
          "the dynamic vehicle's MJCF file");
  require(positive(o.max_speed_m_per_s), "max_speed_m_per_s", "> 0");
  require(positive(o.max_yaw_rate_rad_per_s), "max_yaw_rate_rad_per_s", "> 0");
  require(positive(o.arena_length_m) && positive(o.arena_width_m), "arena_length_m/width_m", "> 0");
  require(positive(o.wall_height_m), "wall_height_m", "> 0");
  require(std::isfinite(o.heap_offset_m) && o.heap_offset_m >= 0, "heap_offset_m", ">= 0");
  require(o.heap_centre_m.allFinite() && std::abs(o.heap_centre_m.x()) < o.arena_length_m / 2 &&
              std::abs(o.heap_centre_m.y()) < o.arena_width_m / 2,
          "heap_centre_m",
          fmt::format("a point inside the arena, |x| < {:g} m and |y| < {:g} m",
                      o.arena_length_m / 2, o.arena_width_m / 2));
  require((o.goal_lo_m.array() < o.goal_hi_m.array()).all() && o.goal_lo_m.allFinite() &&
              o.goal_hi_m.allFinite(),
          "goal_lo_m/goal_hi_m", "a box with lo < hi");
  require((o.start_lo_m.array() <= o.start_hi_m.array()).all() && o.start_lo_m.allFinite() &&
              o.start_hi_m.allFinite(),
          "start_lo_m/start_hi_m", "a box with lo <= hi");
  require(
      o.ego_width_px >= 1 && o.ego_height_px >= 1 && o.sky_width_px >= 1 && o.sky_height_px >= 1,
      "camera sizes", ">= 1 pixel");
  require(std::isfinite(o.start_yaw_max_rad) && o.start_yaw_max_rad >= 0 &&
              o.start_yaw_max_rad <= std::numbers::pi,
          "start_yaw_max_rad", "in [0, pi]");
  require(positive(o.ego_max_range_m), "ego_max_range_m", "> 0");
  require(positive(o.sky_camera_z_m), "sky_camera_z_m", "> 0");
  require(o.threads >= 0, "threads", ">= 0");
}

Pose bulldozer_pose(double x_m, double y_m, double yaw_rad) {
  return make_pose(Vec3(x_m, y_m, 0.0), 0.0, 0.0, yaw_rad);
}

PerspectiveCamera ego_camera(const BulldozingOptions& o, const Pose& X_WB) {
  // Optical axis z_C forward and pitched down, x_C to the right (-y_B), y_C = z_C x x_C (down).
  const double p = o.ego_pitch_down_rad;
  const Vec3 z_C(std::cos(p), 0.0, -std::sin(p)), x_C(0.0, -1.0, 0.0);
  Pose X_BC = Pose::Identity();
  X_BC.linear().col(0) = x_C;
  X_BC.linear().col(1) = z_C.cross(x_C);
  X_BC.linear().col(2) = z_C;
  X_BC.translation() = o.p_BC_ego_m;
  PerspectiveCamera c;
  c.X_WC = mounted_camera_pose(X_WB, X_BC);
  c.fov_y_rad = o.ego_fov_y_rad;
  c.width_px = o.ego_width_px;
  c.height_px = o.ego_height_px;
  c.max_range_m = o.ego_max_range_m;
  return c;
}

GoalScore goal_score(const BulldozingOptions& o, const ParticleState& state) {
  GoalScore score;
  double sum = 0.0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const double x = state.x_m[i], y = state.y_m[i];
    const double dx = std::max({o.goal_lo_m.x() - x, 0.0, x - o.goal_hi_m.x()});
    const double dy = std::max({o.goal_lo_m.y() - y, 0.0, y - o.goal_hi_m.y()});
    if (dx == 0.0 && dy == 0.0) {
      sum += 100.0;
      ++score.inside;
    } else {
      sum -= std::hypot(dx, dy);
    }
  }
  score.reward = state.size() > 0 ? sum / static_cast<double>(state.size()) : 0.0;
  return score;
}

std::shared_ptr<const BulldozingWorld> make_bulldozing_world(const BulldozingOptions& options) {
  validate(options);
  if (!std::filesystem::is_regular_file(options.mesh_path)) {
    throw std::invalid_argument(
        fmt::format("Bulldozing: mesh_path: {} is not a file", options.mesh_path.string()));
  }
  auto world = std::make_shared<BulldozingWorld>();
  world->options = options;
  TriangleMesh mesh = load_mesh(options.mesh_path);
  MeshShape shape{MeshSdfGrid::build(std::move(mesh), options.mesh_sdf_cell_m, -1.0,
                                     options.mesh_path.string()),
                  options.mesh_path.string()};
  const auto& bounds = shape.sdf->mesh_bounds();
  world->bounding_radius_m = std::max(
      {std::hypot(bounds[0].x(), bounds[0].y()), std::hypot(bounds[0].x(), bounds[1].y()),
       std::hypot(bounds[1].x(), bounds[0].y()), std::hypot(bounds[1].x(), bounds[1].y())});

  // The bulldozer starts inside the arena with its whole footprint: a start box reaching the
  // walls put its pose outside the observation space and the first step threw it against them.
  const double x_reach = options.arena_length_m / 2 - world->bounding_radius_m;
  const double y_reach = options.arena_width_m / 2 - world->bounding_radius_m;
  if (!(options.start_lo_m.x() >= -x_reach && options.start_hi_m.x() <= x_reach &&
        options.start_lo_m.y() >= -y_reach && options.start_hi_m.y() <= y_reach)) {
    throw std::invalid_argument(fmt::format(
        "Bulldozing: start_lo_m/start_hi_m: expected a box inside the arena less the bulldozer's "
        "reach of {:.3g} m, x in [{:.3g}, {:.3g}] m and y in [{:.3g}, {:.3g}] m; got x [{:.6g}, "
        "{:.6g}], y [{:.6g}, {:.6g}] m",
        world->bounding_radius_m, -x_reach, x_reach, -y_reach, y_reach, options.start_lo_m.x(),
        options.start_hi_m.x(), options.start_lo_m.y(), options.start_hi_m.y()));
  }

  ParticleModel& m = world->model;
  m.time_step_s = options.time_step_s;
  m.iterations = options.iterations;
  m.neighbour_skin_radii = options.neighbour_skin_radii;
  m.friction = m.wall_friction = m.body_friction = options.friction;
  m.rotation = options.rotation;
  m.rolling_friction = options.rolling_friction;
  m.container = arena(options);
  m.bodies.push_back({"bulldozer", shape, Vec3::Zero()});
  m.threads = options.threads;
  const double speed =
      options.max_speed_m_per_s + options.max_yaw_rate_rad_per_s * world->bounding_radius_m;
  m.expected_speed_m_per_s = std::max(1.0, speed);
  // Divergence guard: every particle at 5 m/s is far beyond anything the bulldozer can cause.
  m.max_kinetic_energy_J = static_cast<double>(options.particle_count) * 0.5 *
                           sphere_mass_kg(options.particle_radius_m, options.density_kg_per_m3) *
                           25.0;
  validate(m);

  world->settled_heap = lattice_cone(options);
  // The bulldozer waits at the far end while the heap settles.
  const BodyMotion parked{
      bulldozer_pose(options.arena_length_m / 2 - world->bounding_radius_m - 0.05, 0.0, 0.0),
      Twist{}};
  check_initial_state(m, world->settled_heap);
  ParticleWorkspace workspace;
  SettleOptions settle_options;
  settle_options.kinetic_energy_per_particle_J = 1e-7;
  settle_options.min_steps = 100;
  settle_options.max_steps = static_cast<long>(std::ceil(4.0 / options.time_step_s));
  const SettleResult settled =
      settle(m, world->settled_heap, std::span(&parked, 1), workspace, settle_options);
  world->settle_steps = settled.steps;
  world->settled_heap.time_s = 0.0;
  world->settled_heap.step = 0;

  SkyCamera& sky = world->sky;
  sky.x_min_m = -options.arena_length_m / 2;
  sky.x_max_m = options.arena_length_m / 2;
  sky.y_min_m = -options.arena_width_m / 2;
  sky.y_max_m = options.arena_width_m / 2;
  sky.z_camera_m = options.sky_camera_z_m;
  sky.width_px = options.sky_width_px;
  sky.height_px = options.sky_height_px;
  validate(sky);
  world->scenery = scenery(options);
  return world;
}

}  // namespace talus::particles
