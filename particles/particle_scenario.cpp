// Loading particle scenario files: every key is read through ScenarioTable (unknown keys refused),
// and the engine's own checks (validate, check_initial_state) run here, so that a file that loads
// is a file that runs.

#include "particles/particle_scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/gear.hpp"
#include "core/scenario_bodies.hpp"
#include "core/scenario_head.hpp"
#include "core/scenario_terrain.hpp"
#include "core/steps.hpp"
#include "particles/particle_scenario_tables.hpp"

namespace talus::particles {

namespace {

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

// Kind "static": at rest at position_m, turned by rpy_deg.
Driver read_static_motion(const ScenarioTable& motion, const std::string&, const Shape&) {
  const Vec3 p = motion.vec3("position_m", any_finite("[m]"));
  const Vec3 rpy =
      motion.has("rpy_deg") ? motion.vec3("rpy_deg", any_finite("[deg]")) : Vec3::Zero();
  ConstantTwistDriver d;
  d.X_WB0 = make_pose(p, deg_to_rad(rpy.x()), deg_to_rad(rpy.y()), deg_to_rad(rpy.z()));
  return d;
}

// The particle tier's [[body]] tables: gears besides the core shapes, a static pose besides the
// common motions, and a torque reference point.
void read_coupled_bodies(const ScenarioTable& root, ParticleScenario& sc) {
  BodyRules rules;
  rules.motion_kinds = {"static", "waypoints", "constant_twist"};
  rules.read_tier_motion = read_static_motion;
  rules.read_body_shape = read_body_shape;
  rules.reference_point = true;
  for (ScenarioBody& b : read_bodies(root, rules)) {
    sc.model.bodies.push_back({std::move(b.name), std::move(b.shape), b.p_BR});
    sc.drivers.push_back(std::move(b.driver));
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

// Removes the particles that overlap a body at its pose at t = 0.
void clear_bodies(ParticleScenario& sc) {
  std::vector<Pose> X_WB;
  for (const Driver& d : sc.drivers) X_WB.push_back(pose_at(d, 0.0));
  sc.particles_removed_in_bodies = remove_particles_in_bodies(sc.initial, sc.model.bodies, X_WB);
}

// The particle tier's own ground tables: [particles], [solver], [container], [bed], [settle]
// (with the bodies, which clear_bodies needs).
void read_own_ground(const ScenarioTable& root, const ScenarioTable& sim, ParticleScenario& sc) {
  const ScenarioTable particles = root.table("particles");
  read_grains(particles, sc.model);
  read_solver(root.table("solver"), sc.model);  // first: it refuses the old time step key
  sc.model.time_step_s = sim.number("time_step_s", positive("[s]"));
  read_container(root.table("container"), sc.model);
  read_coupled_bodies(root, sc);
  sc.initial = read_bed(root.table("bed"), particles, sc.bed_kind);
  if (root.table("bed").boolean_or("clear_bodies", false)) clear_bodies(sc);
  particles.refuse_unknown_keys();
  if (const auto s = root.optional_table("settle")) sc.settle = read_settle(*s);
}

// The particle ground of a [terrain]: a box container over the patch whose walls stand three
// surfaces high, a jittered lattice of spheres of particle_radius_m and the material's grain
// density filling it up to the surface, friction tan(phi) between grains and against walls and
// bodies, and a settling phase (at least 200 steps, until the mean kinetic energy per particle
// is below 1e-9 J or 2000 steps have run) before the bodies move.
void set_terrain_ground(const Terrain& terrain, const ScenarioTable& t, ParticleScenario& sc) {
  ParticleModel& m = sc.model;
  m.friction = std::tan(terrain.material.friction_angle_rad);
  m.wall_friction = m.friction;
  m.body_friction = m.friction;
  m.container.kind = Container::Kind::kBox;
  m.container.box = Aabb{Vec3(terrain.lo_m.x(), terrain.lo_m.y(), 0.0),
                         Vec3(terrain.hi_m.x(), terrain.hi_m.y(), 3.0 * terrain.surface_z_m)};
  LatticeBed bed;
  bed.radius_m = terrain.particle_radius_m;
  bed.density_kg_per_m3 = terrain.material.grain_density_kg_per_m3;
  const double inset = bed.radius_m * bed.spacing_factor;  // centres clear of the walls
  // Layers fill upwards 2 r spacing_factor apart; the top layer is the one whose grains' tops
  // come nearest the surface (a cubic lattice hardly compacts as it settles: the settled surface
  // of blade_push lies within 2 mm of it).
  const double layer_spacing = 2.0 * inset;
  bed.region = Aabb{m.container.box.lo + Vec3::Constant(inset),
                    Vec3(terrain.hi_m.x() - inset, terrain.hi_m.y() - inset,
                         terrain.surface_z_m - bed.radius_m + 0.5 * layer_spacing)};
  sc.bed_kind = "lattice";
  sc.initial = make_lattice_bed_within_memory(bed, t, "particle_radius_m");
  SettleOptions settle;
  settle.min_steps = 200;
  settle.max_steps = 2000;
  settle.kinetic_energy_per_particle_J = 1e-9;
  sc.settle = settle;
}

// The keys every particle file ends with ([simulation]'s lengths) and the engine's own checks.
void finish_loading(const ScenarioTable& root, const ScenarioTable& sim, ParticleScenario& sc) {
  const double duration =
      sim.number_or("duration_s", 0.0, non_negative("[s] (0: no main run, e.g. drag only)"));
  sc.steps = steps_for(sim, "duration_s", duration, sc.model.time_step_s);
  if (sc.steps == 0 && sc.measure != Measurement::kDrag) {
    sim.fail("duration_s", "must be at least one time step (only a drag measurement runs without)");
  }
  sc.log_every_steps = sim.integer_or("log_every_steps", 10, 1, 100000000);
  sc.frame_every_steps = sim.integer_or("frame_every_steps", 0, 0, 100000000);
  sc.depth_image_px = sim.integer_or("depth_image_px", 256, 0, 4096);
  sim.refuse_unknown_keys();
  sc.view = read_view_options(root);
  root.refuse_unknown_keys();

  // The no-tunnelling bound (part of check_initial_state below) named at the key that sets the
  // step, not at the bed.
  try {
    check_no_tunnelling(sc.model, sc.initial);
  } catch (const std::invalid_argument& e) {
    sim.fail("time_step_s", e.what());
  }
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
    root.table(root.has("terrain") ? "terrain" : "bed").fail("", e.what());
  }
}
// [measure]: what the run measures besides its logs (kind and its keys).
void read_measure(const ScenarioTable& measure, ParticleScenario& sc) {
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
}

}  // namespace

long ParticleScenario::total_steps() const {
  long total = steps + (settle ? settle->max_steps : 0);
  if (drag) {
    const double pass_s =
        drag->lower_time_s + (drag->x_end_m - drag->x_start_m) / drag->speed_m_per_s;
    total += static_cast<long>(drag->depths_m.size()) * steps_for(pass_s, model.time_step_s);
  }
  return total;
}

ParticleScenario load_particle_scenario(const ScenarioTable& root) {
  ParticleScenario sc;
  sc.file = root.file();
  const ScenarioHead head = read_scenario_head(root, "particles");
  sc.name = head.name;
  sc.description = head.description;

  const std::optional<Terrain> terrain =
      read_terrain_instead_of(root, {"particles", "bed", "container"});
  const ScenarioTable sim = root.table("simulation");
  if (terrain) {
    set_terrain_ground(*terrain, root.table("terrain"), sc);
    sc.model.time_step_s = sim.number("time_step_s", positive("[s]"));
    read_coupled_bodies(root, sc);
    clear_bodies(sc);  // a body may start in the ground (a wheel at its sinkage)
  } else {
    read_own_ground(root, sim, sc);
  }
  // A [terrain] file measures what every tier does, the bodies' forces: [measure] is optional.
  if (!terrain || root.has("measure")) read_measure(root.table("measure"), sc);
  finish_loading(root, sim, sc);
  return sc;
}

}  // namespace talus::particles
