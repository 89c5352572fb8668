// A particle bed as the terrain of a robots-tier scenario: two-way coupling of MuJoCo bodies with
// the particle tier through ParticleContactTier (docs/robots.md, "Two-way coupling with
// particles"). The bed is read with the particle scenarios' own table readers
// (particles/particle_scenario_tables.hpp), settles with the bodies held at their starting poses,
// and its pictures are depth images: top-down of the settled bed with the bodies (bed_start.png)
// and of the final bed without them (bed_end.png: the ruts), and an oblique view of the bodies in
// the final bed (bed_view.png).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "particles/depth_camera.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_contact_tier.hpp"
#include "particles/particle_scenario_tables.hpp"
#include "robot/robot_terrain.hpp"

namespace talus::robot {

namespace {

using particles::ParticleContactTier;
using particles::ParticleModel;
using particles::ParticleState;

constexpr int kDepthImageWidthPx = 512;

// The footprint the pictures cover: the container's box, or the particles' extent without one.
Aabb picture_box(const ParticleModel& m, const ParticleState& s) {
  if (m.container.kind != particles::Container::Kind::kNone || s.size() == 0) {
    return m.container.box;
  }
  Aabb box{Vec3(s.x_m[0], s.y_m[0], s.z_m[0]), Vec3(s.x_m[0], s.y_m[0], s.z_m[0])};
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Vec3 p(s.x_m[i], s.y_m[i], s.z_m[i]);
    box.lo = box.lo.cwiseMin(p);
    box.hi = box.hi.cwiseMax(p);
  }
  return box;
}

// The bodies at `motions`; none when `motions` is empty.
std::vector<CameraBody> camera_bodies(const ParticleModel& m, std::span<const BodyMotion> motions) {
  std::vector<CameraBody> bodies;
  for (std::size_t b = 0; b < m.bodies.size() && b < motions.size(); ++b) {
    bodies.push_back(CameraBody{m.bodies[b].shape, motions[b].X_WB});
  }
  return bodies;
}

// A top-down depth image of the particles (and the bodies, when given) over the footprint,
// coloured from 2 particle diameters above the settled surface (warm) to 3 below it (cold): ruts
// and heaps of a few millimetres show against the particle-scale roughness of the surface.
void write_sky_depth(OutputDir& out, const std::string& stem, const std::string& what,
                     const ParticleModel& m, const ParticleState& s,
                     std::span<const BodyMotion> motions, double surface_z_m) {
  const Aabb box = picture_box(m, s);
  SkyCamera cam;
  cam.x_min_m = box.lo.x();
  cam.x_max_m = box.hi.x();
  cam.y_min_m = box.lo.y();
  cam.y_max_m = box.hi.y();
  cam.z_camera_m = std::max(box.hi.z(), surface_z_m + 1.0);
  cam.width_px = kDepthImageWidthPx;
  cam.height_px =
      std::max(1, static_cast<int>(std::lround(kDepthImageWidthPx * (box.hi.y() - box.lo.y()) /
                                               (box.hi.x() - box.lo.x()))));
  const DepthImage image = render_depth(cam, ParticleSpheres{s.x_m, s.y_m, s.z_m, s.radius_m},
                                        camera_bodies(m, motions));
  const double d = 2.0 * s.radius_m[0];
  write_png(out.path(stem + ".png"),
            sky_depth_picture(cam, image, surface_z_m, -3.0 * d, 2.0 * d,
                              fmt::format("{} seen from above; colour: height relative to the "
                                          "settled surface [mm]",
                                          what),
                              "z - settled z"));
  write_depth_npy(out.path(stem + ".npy"), image);
}

// An oblique perspective depth image of the bodies in the bed: from the -y side, above the bed
// and behind the first body, looking at a point above that body's position on the surface.
void write_side_view(OutputDir& out, const std::string& stem, const ParticleModel& m,
                     const ParticleState& s, std::span<const BodyMotion> motions,
                     double surface_z_m) {
  const Aabb box = picture_box(m, s);
  const Vec3 target(motions[0].X_WB.translation().x(), 0.5 * (box.lo.y() + box.hi.y()),
                    surface_z_m + 0.15 * (box.hi.x() - box.lo.x()));
  const double reach = std::max(box.hi.x() - box.lo.x(), box.hi.y() - box.lo.y());
  const Vec3 eye = target + reach * Vec3(-0.5, -1.3, 0.6);
  // Camera axes (x right, y down, z forward), right-handed: x = z x up, y = z x x.
  const Vec3 z_C = (target - eye).normalized();
  const Vec3 x_C = z_C.cross(Vec3::UnitZ()).normalized();
  const Vec3 y_C = z_C.cross(x_C);
  PerspectiveCamera cam;
  cam.X_WC = Pose::Identity();
  cam.X_WC.linear().col(0) = x_C;
  cam.X_WC.linear().col(1) = y_C;
  cam.X_WC.linear().col(2) = z_C;
  cam.X_WC.translation() = eye;
  cam.fov_y_rad = 0.6;
  cam.width_px = kDepthImageWidthPx;
  cam.height_px = kDepthImageWidthPx * 5 / 8;
  cam.max_range_m = 4.0 * reach;
  const DepthImage image = render_depth(cam, ParticleSpheres{s.x_m, s.y_m, s.z_m, s.radius_m},
                                        camera_bodies(m, motions));
  const double dist = (target - eye).norm();
  write_depth_png(out.path(stem + ".png"), image, 0.6 * dist, 1.5 * dist, true);
}

class ParticleTerrain final : public RobotTerrain {
 public:
  ParticleTerrain(ParticleModel model, ParticleState bed,
                  std::optional<particles::SettleOptions> settle)
      : tier_(std::move(model), std::move(bed)),
        settle_(settle),
        surface_z_m_(particles::free_surface_z_m(tier_.state())) {}

  ContactTier& tier() override { return tier_; }

  bool covers_xy(double x_W, double y_W) const override {
    const auto& c = tier_.model().container;
    if (c.kind == particles::Container::Kind::kNone) return true;
    return x_W >= c.box.lo.x() && x_W <= c.box.hi.x() && y_W >= c.box.lo.y() && y_W <= c.box.hi.y();
  }

  nlohmann::json prepare(std::span<const BodyMotion> start, const RunProgress& progress) override {
    std::vector<BodyMotion> held(start.begin(), start.end());
    for (BodyMotion& m : held) m.V_WB = Twist{};
    start_poses_ = held;
    nlohmann::json r = {{"particles", tier_.state().size()},
                        {"particle_time_step_s", tier_.model().time_step_s},
                        {"solver_iterations", tier_.model().iterations}};
    if (settle_) {
      const particles::SettleResult s = tier_.settle(held, *settle_, progress);
      r["settle"] = {{"steps", s.steps},
                     {"at_rest", s.at_rest},
                     {"kinetic_energy_per_particle_J", s.kinetic_energy_per_particle_J}};
    }
    surface_z_m_ = particles::free_surface_z_m(tier_.state());
    settled_ = tier_.state();
    r["settled_surface_z_m"] = surface_z_m_;
    return r;
  }

  double surface_z(double, double) const override { return surface_z_m_; }
  long preparation_steps() const override { return settle_ ? settle_->max_steps : 0; }

  void view_layout(ViewLayout& layout, const Vec3&) const override {
    const ParticleState& s = tier_.state();
    layout.particle_count = s.size();
    layout.particle_radii_m.assign(s.radius_m.begin(), s.radius_m.end());
  }
  void view_frame(ViewFrame& frame, std::vector<double>& heights_m) const override {
    const ParticleState& s = tier_.state();
    frame.x_m = s.x_m, frame.y_m = s.y_m, frame.z_m = s.z_m;
    frame.vx_m_per_s = s.vx_m_per_s, frame.vy_m_per_s = s.vy_m_per_s;
    frame.vz_m_per_s = s.vz_m_per_s;
    heights_m.clear();
  }

  nlohmann::json finish(OutputDir& out, const std::string&,
                        std::span<const BodyMotion> end) override {
    const ParticleModel& m = tier_.model();
    // The final top view leaves the bodies out (a wheel would hide its own rut); the side view
    // shows them in the bed.
    write_sky_depth(out, "bed_start", "The settled bed and the robot's bodies at the start", m,
                    settled_, start_poses_, surface_z_m_);
    write_sky_depth(out, "bed_end", "The bed at the end (bodies not drawn)", m, tier_.state(), {},
                    surface_z_m_);
    write_side_view(out, "bed_view", m, tier_.state(), end, surface_z_m_);
    return {{"terrain", "particles"},
            {"particle_radius_m", tier_.state().radius_m.empty() ? 0.0 : tier_.state().radius_m[0]},
            {"friction", m.friction},
            {"body_friction", m.body_friction},
            {"pictures", {"bed_start.png", "bed_end.png", "bed_view.png"}}};
  }

 private:
  ParticleContactTier tier_;
  std::optional<particles::SettleOptions> settle_;
  double surface_z_m_ = 0.0;
  ParticleState settled_;
  std::vector<BodyMotion> start_poses_;
};

}  // namespace

std::unique_ptr<RobotTerrain> read_particle_terrain(const ScenarioTable& root,
                                                    std::vector<CoupledBody> bodies, double dt_s) {
  ParticleModel m;
  const ScenarioTable particles = root.table("particles");
  particles::read_grains(particles, m);
  // The particles step with the robot's tier step: read_solver refuses a time step of their own.
  const ScenarioTable solver = root.table("solver");
  particles::read_solver(solver, m);
  m.time_step_s = dt_s;
  particles::read_container(root.table("container"), m);
  m.bodies = std::move(bodies);
  const ScenarioTable bed_table = root.table("bed");
  std::string bed_kind;
  ParticleState bed = particles::read_bed(bed_table, particles, bed_kind);
  particles.refuse_unknown_keys();
  std::optional<particles::SettleOptions> settle;
  if (const auto s = root.optional_table("settle")) settle = particles::read_settle(*s);
  try {
    particles::validate(m);
  } catch (const std::invalid_argument& e) {
    solver.fail("", e.what());
  }
  // The terrain is built without the robot's starting poses, so the bed cannot be cleared around
  // them: fill it below the coupled bodies (check_initial_placement refuses a body whose centre
  // lies below the bed's surface).
  if (bed_table.boolean_or("clear_bodies", false)) {
    bed_table.fail("clear_bodies",
                   "not available under a robot: fill the bed below the robot's coupled bodies");
  }
  try {
    return std::make_unique<ParticleTerrain>(std::move(m), std::move(bed), settle);
  } catch (const std::invalid_argument& e) {
    bed_table.fail("", e.what());
  }
}

}  // namespace talus::robot
