// Loading particle scenario files: every key is read through ScenarioTable (unknown keys refused),
// and the engine's own checks (validate, check_initial_state) run here, so that a file that loads
// is a file that runs.

#include "particles/particle_scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/gear.hpp"
#include "core/scenario_bodies.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_io.hpp"

namespace talus::particles {

namespace {

Aabb read_region(const ScenarioTable& t) {
  Aabb box{t.vec3("lo_m", any_finite("[m]")), t.vec3("hi_m", any_finite("[m]"))};
  if (!(box.lo.array() < box.hi.array()).all()) t.fail("hi_m", "must exceed lo_m on every axis");
  return box;
}

void read_container(const ScenarioTable& t, ParticleModel& m) {
  const std::string kind = t.choice("kind", {"none", "box", "cylinder"});
  m.container.kind = kind == "none"  ? Container::Kind::kNone
                     : kind == "box" ? Container::Kind::kBox
                                     : Container::Kind::kCylinder;
  if (kind != "none") m.container.box = read_region(t);
  if (kind == "cylinder") {
    m.container.cylinder_radius_m = t.number("radius_m", positive("[m]"));
    m.container.cylinder_axis_xy_m =
        t.has("axis_xy_m") ? t.vec2("axis_xy_m", any_finite("[m]")) : Vec2(0.0, 0.0);
  }
  const std::string axis = t.choice_or("periodic_axis", "none", {"none", "x", "y", "z"});
  m.periodic_axis = axis == "none" ? -1 : axis == "x" ? 0 : axis == "y" ? 1 : 2;
  t.refuse_unknown_keys();
}

void read_solver(const ScenarioTable& t, ParticleModel& m) {
  m.dt_s = t.number("time_step_s", positive("[s]"));
  m.iterations = t.integer_or("iterations", m.iterations, 1, 1000);
  m.baumgarte = t.number_or("baumgarte", m.baumgarte, in_closed_range(0.0, 1.0, ""));
  m.max_pushout_speed_m_per_s =
      t.number_or("max_pushout_speed_m_per_s", m.max_pushout_speed_m_per_s, positive("[m/s]"));
  m.wall_friction = t.number_or("wall_friction", m.friction, non_negative(""));
  m.body_friction = t.number_or("body_friction", m.friction, non_negative(""));
  m.relaxation = t.number_or("relaxation", m.relaxation, in_closed_range(1e-6, 1.0, ""));
  m.warm_start = t.boolean_or("warm_start", m.warm_start);
  m.contact_margin_m = t.number_or("contact_margin_m", m.contact_margin_m, non_negative("[m]"));
  m.broadphase =
      t.choice_or("broadphase", "sorted_cells", {"sorted_cells", "linked_hash"}) == "sorted_cells"
          ? Broadphase::kSortedCells
          : Broadphase::kLinkedHash;
  m.hash_table_factor = t.number_or("hash_table_factor", m.hash_table_factor, positive(""));
  m.threads = t.integer_or("threads", 0, 0, 1024);
  m.overlap_tolerance = t.number_or("overlap_tolerance", m.overlap_tolerance, non_negative(""));
  m.expected_speed_m_per_s =
      t.number_or("expected_speed_m_per_s", m.expected_speed_m_per_s, positive("[m/s]"));
  m.max_kinetic_energy_J =
      t.number_or("max_kinetic_energy_J", m.max_kinetic_energy_J, positive("[J]"));
  t.refuse_unknown_keys();
}

ParticleState read_bed(const ScenarioTable& t, const ScenarioTable& particles, std::string& kind) {
  kind = t.choice("kind", {"lattice", "random", "file"});
  t.boolean_or("clear_bodies", false);  // read by the caller; known here
  if (kind == "file") {
    const std::filesystem::path rel = t.string("path");
    const std::filesystem::path path = rel.is_absolute() ? rel : t.file().parent_path() / rel;
    t.refuse_unknown_keys();
    try {
      return load_particle_state(path);
    } catch (const std::exception& e) {
      t.fail("path", e.what());
    }
  }
  const double radius = particles.number("radius_m", positive("[m]"));
  const double density = particles.number_or("density_kg_per_m3", 1631.0, positive("[kg/m^3]"));
  const Aabb region = read_region(t);
  const double cyl_r = t.number_or("cylinder_radius_m", 0.0, non_negative("[m]"));
  const Vec2 cyl_xy = t.has("cylinder_axis_xy_m") ? t.vec2("cylinder_axis_xy_m", any_finite("[m]"))
                                                  : Vec2(0.0, 0.0);
  const auto seed = static_cast<std::uint64_t>(t.integer_or("seed", 1, 0, 2147483647));
  try {
    if (kind == "lattice") {
      LatticeBed bed;
      bed.region = region;
      bed.radius_m = radius;
      bed.density_kg_per_m3 = density;
      bed.spacing_factor =
          t.number_or("spacing_factor", bed.spacing_factor, in_closed_range(1.0, 10.0, ""));
      bed.jitter = t.number_or("jitter", bed.jitter, in_closed_range(0.0, 0.99, ""));
      bed.seed = seed;
      bed.cylinder_radius_m = cyl_r;
      bed.cylinder_axis_xy_m = cyl_xy;
      bed.max_particles = static_cast<std::size_t>(t.integer_or("max_particles", 0, 0, 100000000));
      t.refuse_unknown_keys();
      return make_lattice_bed(bed);
    }
    RandomBed bed;
    bed.region = region;
    bed.radius_m = radius;
    bed.density_kg_per_m3 = density;
    bed.count = static_cast<std::size_t>(t.integer("count", 1, 100000000));
    bed.radius_spread = t.number_or("radius_spread", 0.0, in_closed_range(0.0, 0.5, ""));
    bed.clearance_m = t.number_or("clearance_m", 0.0, non_negative("[m]"));
    bed.seed = seed;
    bed.cylinder_radius_m = cyl_r;
    bed.cylinder_axis_xy_m = cyl_xy;
    t.refuse_unknown_keys();
    return make_random_bed(bed);
  } catch (const std::invalid_argument& e) {
    t.fail("", e.what());
  }
}

// The core shapes (read_shape), plus kind = "gear": an involute helical gear (core/gear.hpp),
// meshed and sampled on a signed-distance grid; its axis is the body's z.
Shape read_body_shape(const ScenarioTable& t) {
  if (t.string("kind") != "gear") return read_shape(t);
  GearParams g;
  g.module_m = t.number("module_m", positive("[m]"));
  g.teeth = t.integer("teeth", 6, 1000);
  g.pressure_angle_rad =
      deg_to_rad(t.number_or("pressure_angle_deg", 20.0, in_open_range(0.0, 45.0, "[deg]")));
  g.face_width_m = t.number("face_width_m", positive("[m]"));
  g.helix_angle_rad =
      deg_to_rad(t.number_or("helix_angle_deg", 0.0, in_open_range(-60.0, 60.0, "[deg]")));
  const double cell = t.number("sdf_cell_m", positive("[m]"));
  t.refuse_unknown_keys();
  try {
    return gear_shape(g, cell);
  } catch (const std::exception& e) {
    t.fail("", e.what());
  }
}

// Drops the particles that overlap a body at its starting pose (a bed filled around the bodies).
std::size_t remove_particles_in_bodies(ParticleState& s, const ParticleScenario& sc) {
  std::vector<Pose> X_BW;
  for (const Driver& d : sc.drivers) X_BW.push_back(pose_at(d, 0.0).inverse());
  ParticleState kept;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Vec3 p_W(s.x_m[i], s.y_m[i], s.z_m[i]);
    bool inside = false;
    for (std::size_t b = 0; b < X_BW.size() && !inside; ++b) {
      inside = signed_distance(sc.model.bodies[b].shape, X_BW[b] * p_W) < s.radius_m[i];
    }
    if (inside) continue;
    kept.add(p_W, Vec3(s.vx_m_per_s[i], s.vy_m_per_s[i], s.vz_m_per_s[i]), s.radius_m[i],
             1.0 / double{s.inv_mass_per_kg[i]});
  }
  const std::size_t removed = s.size() - kept.size();
  kept.time_s = s.time_s;
  kept.steps = s.steps;
  s = std::move(kept);
  return removed;
}

void read_bodies(const ScenarioTable& root, ParticleScenario& sc) {
  for (const ScenarioTable& t : root.tables("body")) {
    CoupledBody body;
    body.name = t.string("name");
    for (const CoupledBody& b : sc.model.bodies) {
      if (b.name == body.name) t.fail("name", fmt::format("body '{}' is named twice", body.name));
    }
    body.shape = read_body_shape(t.table("shape"));
    body.p_BR =
        t.has("reference_point_m") ? t.vec3("reference_point_m", any_finite("[m]")) : Vec3::Zero();
    const ScenarioTable motion = t.table("motion");
    const std::string kind = motion.choice("kind", {"static", "waypoints", "constant_twist"});
    if (kind == "static") {
      const Vec3 p = motion.vec3("position_m", any_finite("[m]"));
      const Vec3 rpy =
          motion.has("rpy_deg") ? motion.vec3("rpy_deg", any_finite("[deg]")) : Vec3::Zero();
      ConstantTwistDriver d;
      d.X_WB0 = make_pose(p, deg_to_rad(rpy.x()), deg_to_rad(rpy.y()), deg_to_rad(rpy.z()));
      sc.drivers.emplace_back(d);
    } else {
      sc.drivers.push_back(read_common_driver(motion, kind));
    }
    motion.refuse_unknown_keys();
    t.refuse_unknown_keys();
    sc.model.bodies.push_back(std::move(body));
  }
}

DragSetup read_drag(const ScenarioTable& t) {
  DragSetup d;
  d.depths_m = t.numbers("depths_m", 0, positive("[m]"));
  d.plate = read_shape(t.table("plate"));
  const auto* box = std::get_if<BoxShape>(&d.plate);
  if (!box) t.fail("plate", "the plate must be a shape of kind \"box\"");
  d.plate_half_height_m = box->half_extents_m.z();
  for (const double depth : d.depths_m) {
    if (depth >= 2.0 * d.plate_half_height_m) {
      t.fail("depths_m", fmt::format("depth {} m is not below the plate's height {} m: its top "
                                     "would be buried",
                                     depth, 2.0 * d.plate_half_height_m));
    }
  }
  d.x_start_m = t.number("x_start_m", any_finite("[m]"));
  d.x_end_m = t.number("x_end_m", any_finite("[m]"));
  if (!(d.x_end_m > d.x_start_m)) t.fail("x_end_m", "must exceed x_start_m (the plate moves +x)");
  d.y_m = t.number_or("y_m", 0.0, any_finite("[m]"));
  d.speed_m_per_s = t.number("speed_m_per_s", positive("[m/s]"));
  d.lower_time_s = t.number_or("lower_time_s", d.lower_time_s, positive("[s]"));
  d.average_fraction =
      t.number_or("average_fraction", d.average_fraction, in_open_range(0.0, 1.0, ""));
  t.refuse_unknown_keys();
  return d;
}

}  // namespace

long ParticleScenario::total_steps() const {
  long total = steps + (settle ? settle->max_steps : 0);
  if (drag) {
    const double pass_s =
        drag->lower_time_s + (drag->x_end_m - drag->x_start_m) / drag->speed_m_per_s;
    total += static_cast<long>(drag->depths_m.size()) *
             static_cast<long>(std::ceil(pass_s / model.dt_s - 1e-9));
  }
  return total;
}

ParticleScenario load_particle_scenario(const ScenarioTable& root) {
  ParticleScenario sc;
  sc.file = root.file();
  const ScenarioTable head = root.table("scenario");
  sc.name = head.string("name");
  head.choice("tier", {"particles"});
  sc.description = head.string_or("description", "");
  head.refuse_unknown_keys();

  const ScenarioTable particles = root.table("particles");
  sc.model.friction = particles.number("friction", non_negative(""));
  read_solver(root.table("solver"), sc.model);
  read_container(root.table("container"), sc.model);
  read_bodies(root, sc);
  sc.initial = read_bed(root.table("bed"), particles, sc.bed_kind);
  if (root.table("bed").boolean_or("clear_bodies", false)) {
    sc.particles_removed_in_bodies = remove_particles_in_bodies(sc.initial, sc);
  }
  particles.refuse_unknown_keys();

  if (const auto s = root.optional_table("settle")) {
    SettleOptions o;
    o.max_steps = s->integer("max_steps", 1, 100000000);
    o.min_steps = s->integer_or("min_steps", 0, 0, o.max_steps);
    o.kinetic_energy_per_particle_J = s->number("kinetic_energy_per_particle_J", positive("[J]"));
    o.check_every = s->integer_or("check_every", 10, 1, 100000);
    s->refuse_unknown_keys();
    sc.settle = o;
  }

  const ScenarioTable measure = root.table("measure");
  const std::string kind = measure.choice("kind", {"none", "at_rest", "repose", "drag"});
  if (kind == "at_rest") sc.measure = Measurement::kAtRest;
  if (kind == "repose") {
    sc.measure = Measurement::kRepose;
    sc.repose.ground_z_m = measure.number_or("ground_z_m", 0.0, any_finite("[m]"));
    sc.repose.bin_m = measure.number_or("bin_m", 0.0, non_negative("[m] (0: two diameters)"));
    sc.repose.lo_fraction = measure.number_or("lo_fraction", 0.2, in_closed_range(0.0, 1.0, ""));
    sc.repose.hi_fraction = measure.number_or("hi_fraction", 0.8, in_closed_range(0.0, 1.0, ""));
    if (!(sc.repose.hi_fraction > sc.repose.lo_fraction)) {
      measure.fail("hi_fraction", "must exceed lo_fraction");
    }
  }
  if (kind == "drag") {
    sc.measure = Measurement::kDrag;
    sc.drag = read_drag(measure);
    const double lower_speed =
        (sc.drag->depths_m.empty()
             ? 0.0
             : *std::max_element(sc.drag->depths_m.begin(), sc.drag->depths_m.end())) /
        sc.drag->lower_time_s;
    if (std::max(sc.drag->speed_m_per_s, lower_speed) > sc.model.expected_speed_m_per_s) {
      measure.fail("speed_m_per_s",
                   fmt::format("the plate moves at up to {:g} m/s, faster than "
                               "solver.expected_speed_m_per_s = {:g} m/s (the no-tunnelling bound)",
                               std::max(sc.drag->speed_m_per_s, lower_speed),
                               sc.model.expected_speed_m_per_s));
    }
  }
  measure.refuse_unknown_keys();

  const ScenarioTable sim = root.table("simulation");
  const double duration =
      sim.number_or("duration_s", 0.0, non_negative("[s] (0: no main run, e.g. drag only)"));
  sc.steps = static_cast<long>(std::llround(duration / sc.model.dt_s));
  if (sc.steps == 0 && sc.measure != Measurement::kDrag) {
    sim.fail("duration_s", "must be at least one time step (only a drag measurement runs without)");
  }
  sc.log_every_steps = sim.integer_or("log_every_steps", 10, 1, 100000000);
  sc.frame_every_steps = sim.integer_or("frame_every_steps", 0, 0, 100000000);
  sc.depth_image_px = sim.integer_or("depth_image_px", 256, 0, 4096);
  sim.refuse_unknown_keys();
  root.refuse_unknown_keys();

  try {
    validate(sc.model);
  } catch (const std::invalid_argument& e) {
    root.fail("solver", e.what());
  }
  for (std::size_t b = 0; b < sc.drivers.size(); ++b) {
    try {
      validate(sc.drivers[b]);
    } catch (const std::invalid_argument& e) {
      root.fail("body", fmt::format("body '{}': {}", sc.model.bodies[b].name, e.what()));
    }
  }
  try {
    check_initial_state(sc.model, sc.initial);
  } catch (const std::invalid_argument& e) {
    root.table("bed").fail("", e.what());
  }
  return sc;
}

}  // namespace talus::particles
