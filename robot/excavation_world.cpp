#include "robot/excavation_world.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/mesh.hpp"
#include "core/mesh_sdf.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_bed_random.hpp"
#include "particles/particle_step.hpp"

namespace talus::robot {

using namespace talus::particles;

namespace {

void require(bool ok, const char* option, const std::string& expected) {
  if (!ok)
    throw std::invalid_argument(fmt::format("Excavation: {}: expected {}", option, expected));
}

bool positive(double v) { return std::isfinite(v) && v > 0.0; }

constexpr double kWallThickness_m = 0.02;
// The particle container: a room round the tub (particles thrown over a wall land on its floor).
constexpr double kRoomMargin_m = 0.6, kRoomHeight_m = 2.0;

// The tub's four walls as boxes standing on the floor: +x, -x, +y, -y.
std::vector<CameraBody> tub_walls(const ExcavationOptions& o) {
  const double t = kWallThickness_m, h = o.tub_wall_height_m;
  const Vec2 c = 0.5 * (o.tub_lo_m + o.tub_hi_m), half = 0.5 * (o.tub_hi_m - o.tub_lo_m);
  std::vector<CameraBody> walls;
  auto wall = [&](Vec3 centre, Vec3 half_extent) {
    Pose X = Pose::Identity();
    X.translation() = centre;
    walls.push_back({BoxShape{half_extent}, X});
  };
  wall(Vec3(o.tub_hi_m.x() + t / 2, c.y(), h / 2), Vec3(t / 2, half.y() + t, h / 2));
  wall(Vec3(o.tub_lo_m.x() - t / 2, c.y(), h / 2), Vec3(t / 2, half.y() + t, h / 2));
  wall(Vec3(c.x(), o.tub_hi_m.y() + t / 2, h / 2), Vec3(half.x(), t / 2, h / 2));
  wall(Vec3(c.x(), o.tub_lo_m.y() - t / 2, h / 2), Vec3(half.x(), t / 2, h / 2));
  return walls;
}

Container room(const ExcavationOptions& o) {
  Container c;
  c.kind = Container::Kind::kBox;
  const double m = kRoomMargin_m;
  c.box = Aabb{Vec3(std::min(o.tub_lo_m.x() - m, -m), o.tub_lo_m.y() - m, 0.0),
               Vec3(o.tub_hi_m.x() + m, o.tub_hi_m.y() + m, kRoomHeight_m)};
  return c;
}

// A jittered lattice filling the tub from the floor up with exactly particle_count particles.
ParticleState tub_lattice(const ExcavationOptions& o) {
  const double r = o.particle_radius_m;
  LatticeBed bed;
  bed.spacing_factor = 1.01;
  // Centre the lattice's columns in the tub, so that the gaps at opposite walls are equal.
  const double spacing = 2.0 * r * bed.spacing_factor;
  Vec2 lo = o.tub_lo_m + Vec2::Constant(1.01 * r), hi = o.tub_hi_m - Vec2::Constant(1.01 * r);
  for (int axis = 0; axis < 2; ++axis) {
    const double span = hi[axis] - lo[axis];
    const double used = std::floor(span / spacing) * spacing;
    lo[axis] += 0.5 * (span - used);
  }
  bed.region = Aabb{Vec3(lo.x(), lo.y(), 1.01 * r), Vec3(hi.x(), hi.y(), o.tub_wall_height_m - r)};
  bed.radius_m = r;
  bed.density_kg_per_m3 = o.density_kg_per_m3;
  bed.jitter = 0.3;
  bed.seed = 11;
  bed.max_particles = o.particle_count;
  ParticleState state = make_lattice_bed(bed);
  if (state.size() < o.particle_count) {
    throw std::invalid_argument(fmt::format(
        "Excavation: particle_count: {} particles of radius {} m do not fit in the tub below "
        "its {} m walls (at most {})",
        o.particle_count, r, o.tub_wall_height_m, state.size()));
  }
  return state;
}

}  // namespace

void validate(const ExcavationOptions& o) {
  require(!o.arm_path.empty(), "arm_path", "the arm's MJCF file");
  require(!o.bucket_mesh_path.empty(), "bucket_mesh_path", "the bucket's mesh file");
  require(positive(o.bucket_sdf_cell_m), "bucket_sdf_cell_m", "> 0");
  require(o.particle_count >= 1 && o.particle_count <= 200000, "particle_count", "1 .. 200000");
  require(positive(o.particle_radius_m), "particle_radius_m", "> 0");
  require(positive(o.density_kg_per_m3), "density_kg_per_m3", "> 0");
  require(std::isfinite(o.friction) && o.friction >= 0, "friction", ">= 0");
  require(std::isfinite(o.rolling_friction) && o.rolling_friction >= 0, "rolling_friction", ">= 0");
  require(o.rotation || o.rolling_friction == 0.0, "rolling_friction",
          "0 unless rotation is on (grains that do not rotate cannot roll)");
  require(positive(o.time_step_s), "time_step_s", "> 0");
  require(o.steps_per_action >= 1, "steps_per_action", ">= 1");
  require(o.iterations >= 1, "iterations", ">= 1");
  require(std::isfinite(o.neighbour_skin_radii) && o.neighbour_skin_radii >= 0,
          "neighbour_skin_radii", ">= 0");
  require(positive(o.episode_s), "episode_s", "> 0");
  require(positive(o.max_joint_speed_rad_per_s), "max_joint_speed_rad_per_s", "> 0");
  for (double q : o.start_joint_rad) require(std::isfinite(q), "start_joint_rad", "finite angles");
  require(std::isfinite(o.start_noise_rad) && o.start_noise_rad >= 0, "start_noise_rad", ">= 0");
  require((o.tub_lo_m.array() < o.tub_hi_m.array()).all() && o.tub_lo_m.allFinite() &&
              o.tub_hi_m.allFinite(),
          "tub_lo_m/tub_hi_m", "a box with lo < hi");
  require(positive(o.tub_wall_height_m), "tub_wall_height_m", "> 0");
  require(std::isfinite(o.shaping_weight) && o.shaping_weight >= 0, "shaping_weight", ">= 0");
  require(positive(o.force_limit_N), "force_limit_N", "> 0");
  require(o.sky_width_px >= 1 && o.sky_height_px >= 1, "sky_width_px/sky_height_px", ">= 1");
  require(positive(o.sky_camera_z_m), "sky_camera_z_m", "> 0");
  require(o.threads >= 0, "threads", ">= 0");
}

Pose set_arm_configuration(const ExcavationWorld& world, MujocoModel& arm, const JointVector& q) {
  mjModel* m = arm.model();
  mjData* d = arm.data();
  for (int j = 0; j < kArmJoints; ++j)
    d->qpos[world.joint_qpos[static_cast<std::size_t>(j)]] = q[j];
  mj_kinematics(m, d);
  mj_comPos(m, d);  // mj_jacBody reads the centres of mass it computes
  const int b = world.tool_body_id;
  Pose X_WT = Pose::Identity();
  X_WT.translation() = Vec3(d->xpos[3 * b], d->xpos[3 * b + 1], d->xpos[3 * b + 2]);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) X_WT.linear()(r, c) = d->xmat[9 * b + 3 * r + c];
  }
  return X_WT;
}

Twist tool_twist(const ExcavationWorld& world, MujocoModel& arm, const JointVector& qdot) {
  const mjModel* m = arm.model();
  mjData* d = arm.data();
  // nv == kArmJoints (checked when the world was made): the Jacobian fits on the stack, so the
  // particle step's inner loop allocates nothing here.
  mjtNum jacp[3 * kArmJoints], jacr[3 * kArmJoints];
  mj_jacBody(m, d, jacp, jacr, world.tool_body_id);
  Twist V;
  for (int j = 0; j < kArmJoints; ++j) {
    const int dof = m->jnt_dofadr[j];
    for (int r = 0; r < 3; ++r) {
      V.v_WBo[r] += jacp[r * kArmJoints + dof] * qdot[j];
      V.w_W[r] += jacr[r * kArmJoints + dof] * qdot[j];
    }
  }
  return V;
}

std::vector<BodyMotion> excavation_motions(const ExcavationWorld& world, const Pose& X_WT,
                                           const Twist& V_WT) {
  std::vector<BodyMotion> motions;
  motions.reserve(world.model.bodies.size());
  motions.push_back({X_WT, V_WT});
  for (std::size_t k = 1; k < world.model.bodies.size(); ++k) {
    motions.push_back({world.scenery[k].X_WB, Twist{}});  // scenery[1..4]: the walls
  }
  return motions;
}

BucketLoad bucket_load(const ExcavationWorld& world, const ParticleState& state, const Pose& X_WT) {
  BucketLoad load;
  const Pose X_TW = X_WT.inverse();
  const BucketCavity& c = world.cavity;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const Vec3 p_W(state.x_m[i], state.y_m[i], state.z_m[i]);
    const Vec3 p_T = X_TW * p_W;
    if ((p_T.array() < c.lo_T.array()).any() || (p_T.array() > c.hi_T.array()).any()) continue;
    const double mass_kg = 1.0 / state.inv_mass_per_kg[i];
    load.in_bucket_kg += mass_kg;
    ++load.in_bucket;
    if (p_W.z() - state.radius_m[i] > world.bed_top_m) {
      load.held_kg += mass_kg;
      ++load.held;
    }
  }
  return load;
}

std::shared_ptr<const ExcavationWorld> make_excavation_world(const ExcavationOptions& options) {
  validate(options);
  for (const auto& [path, what] : {std::pair{options.arm_path, "arm_path"},
                                   std::pair{options.bucket_mesh_path, "bucket_mesh_path"}}) {
    if (!std::filesystem::is_regular_file(path)) {
      throw std::invalid_argument(
          fmt::format("Excavation: {}: {} is not a file", what, path.string()));
    }
  }
  auto world = std::make_shared<ExcavationWorld>();
  world->options = options;
  const ExcavationOptions& o = world->options;

  // The arm: 7 hinge joints, ranges read from the file, the tool body by name.
  MujocoModel arm = MujocoModel::load(o.arm_path);
  const mjModel* m = arm.model();
  if (m->njnt != kArmJoints || m->nv != kArmJoints) {
    throw RobotError(fmt::format("{}: expected an arm of {} hinge joints, found {} joints",
                                 o.arm_path.string(), kArmJoints, m->njnt));
  }
  for (int j = 0; j < kArmJoints; ++j) {
    if (m->jnt_type[j] != mjJNT_HINGE || !m->jnt_limited[j]) {
      throw RobotError(
          fmt::format("{}: joint {} must be a hinge with a range", o.arm_path.string(), j + 1));
    }
    world->joint_qpos.push_back(m->jnt_qposadr[j]);
    world->joint_lo_rad[j] = m->jnt_range[2 * j];
    world->joint_hi_rad[j] = m->jnt_range[2 * j + 1];
    const double q = o.start_joint_rad[j];
    if (q < world->joint_lo_rad[j] || q > world->joint_hi_rad[j]) {
      throw std::invalid_argument(fmt::format(
          "Excavation: start_joint_rad: joint {} at {} rad is outside its range [{}, {}]", j + 1, q,
          world->joint_lo_rad[j], world->joint_hi_rad[j]));
    }
  }
  world->tool_body_id = arm.body_id(o.tool_body);

  // The bucket as a signed-distance body in T.
  TriangleMesh mesh = load_mesh(o.bucket_mesh_path);
  MeshShape bucket{
      MeshSdfGrid::build(std::move(mesh), o.bucket_sdf_cell_m, -1.0, o.bucket_mesh_path.string()),
      o.bucket_mesh_path.string()};
  const auto& bounds = bucket.sdf->mesh_bounds();
  for (int k = 0; k < 8; ++k) {
    world->bucket_corners_T[static_cast<std::size_t>(k)] =
        Vec3(bounds[k & 1].x(), bounds[(k >> 1) & 1].y(), bounds[(k >> 2) & 1].z());
  }
  // The cavity: inside the walls (2 cm thick) of the bucket's box, above its floor.
  world->cavity.lo_T = bounds[0] + Vec3(kWallThickness_m, kWallThickness_m, 0.0);
  world->cavity.hi_T = bounds[1] - Vec3(0.0, kWallThickness_m, kWallThickness_m);

  ParticleModel& pm = world->model;
  pm.time_step_s = o.time_step_s;
  pm.iterations = o.iterations;
  pm.neighbour_skin_radii = o.neighbour_skin_radii;
  pm.friction = pm.wall_friction = pm.body_friction = o.friction;
  pm.rotation = o.rotation;
  pm.rolling_friction = o.rolling_friction;
  pm.container = room(o);
  pm.threads = o.threads;
  world->scenery.push_back({PlaneShape{}, Pose::Identity()});
  pm.bodies.push_back({"bucket", bucket, Vec3::Zero()});
  const char* wall_names[] = {"tub wall +x", "tub wall -x", "tub wall +y", "tub wall -y"};
  int w = 0;
  for (const CameraBody& wall : tub_walls(o)) {
    world->scenery.push_back(wall);
    pm.bodies.push_back({wall_names[w++], wall.shape, Vec3::Zero()});
  }
  // The fastest bucket point: every joint at full speed, each at most the arm's reach (1.2 m
  // from its axis to the bucket's far corner) away.
  pm.expected_speed_m_per_s = std::max(1.0, kArmJoints * o.max_joint_speed_rad_per_s * 1.2);
  // Divergence guard: every particle at 5 m/s is far beyond anything the bucket can cause.
  pm.max_kinetic_energy_J = static_cast<double>(o.particle_count) * 0.5 *
                            sphere_mass_kg(o.particle_radius_m, o.density_kg_per_m3) * 25.0;
  validate(pm);

  world->settled_bed = tub_lattice(o);
  const Pose X_WT = set_arm_configuration(*world, arm, o.start_joint_rad);
  const std::vector<BodyMotion> held = excavation_motions(*world, X_WT, Twist{});
  check_initial_state(pm, world->settled_bed);
  ParticleWorkspace workspace;
  SettleOptions settle_options;
  settle_options.kinetic_energy_per_particle_J = 1e-8;
  settle_options.min_steps = 100;
  settle_options.max_steps = static_cast<long>(std::ceil(3.0 / o.time_step_s));
  const SettleResult settled = settle(pm, world->settled_bed, held, workspace, settle_options);
  world->settle_steps = settled.steps;
  world->settled_bed.time_s = 0.0;
  world->settled_bed.step = 0;
  for (std::size_t i = 0; i < world->settled_bed.size(); ++i) {
    world->bed_top_m = std::max(world->bed_top_m,
                                double(world->settled_bed.z_m[i] + world->settled_bed.radius_m[i]));
  }

  SkyCamera& sky = world->sky;
  const double t = kWallThickness_m;
  sky.x_min_m = o.tub_lo_m.x() - t;
  sky.x_max_m = o.tub_hi_m.x() + t;
  sky.y_min_m = o.tub_lo_m.y() - t;
  sky.y_max_m = o.tub_hi_m.y() + t;
  sky.z_camera_m = o.sky_camera_z_m;
  sky.width_px = o.sky_width_px;
  sky.height_px = o.sky_height_px;
  validate(sky);
  return world;
}

}  // namespace talus::robot
