// The particle tier's scenario tables (particle_scenario_tables.hpp): shared by the particle
// scenarios and the robots tier's particle terrain.

#include "particles/particle_scenario_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/memory_budget.hpp"
#include "core/scenario_head.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_io.hpp"

namespace talus::particles {

namespace {

Aabb read_region(const ScenarioTable& t) {
  Aabb box{t.vec3("lo_m", any_finite("[m]")), t.vec3("hi_m", any_finite("[m]"))};
  if (!(box.lo.array() < box.hi.array()).all()) t.fail("hi_m", "must exceed lo_m on every axis");
  return box;
}

}  // namespace

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
  refuse_moved_key(t, "time_step_s", kTimeStepKey);
  m.iterations = t.integer_or("iterations", m.iterations, 1, 1000);
  m.baumgarte = t.number_or("baumgarte", m.baumgarte, in_closed_range(0.0, 1.0, ""));
  m.max_pushout_speed_m_per_s =
      t.number_or("max_pushout_speed_m_per_s", m.max_pushout_speed_m_per_s, positive("[m/s]"));
  m.wall_friction = t.number_or("wall_friction", m.friction, non_negative(""));
  m.body_friction = t.number_or("body_friction", m.friction, non_negative(""));
  m.relaxation = t.number_or("relaxation", m.relaxation, in_open_range(0.0, 2.0, ""));
  m.warm_start = t.boolean_or("warm_start", m.warm_start);
  m.contact_margin_m = t.number_or("contact_margin_m", m.contact_margin_m, non_negative("[m]"));
  m.broadphase =
      t.choice_or("broadphase", "sorted_cells", {"sorted_cells", "linked_hash"}) == "sorted_cells"
          ? Broadphase::kSortedCells
          : Broadphase::kLinkedHash;
  m.hash_table_factor = t.number_or("hash_table_factor", m.hash_table_factor, positive(""));
  m.neighbour_skin_radii =
      t.number_or("neighbour_skin_radii", m.neighbour_skin_radii, non_negative("[radii]"));
  m.sort_every_steps =
      t.integer_or("sort_every_steps", m.sort_every_steps, 0, std::numeric_limits<int>::max());
  m.threads = t.integer_or("threads", 0, 0, ParticleModel::kMaxThreads);
  m.overlap_tolerance = t.number_or("overlap_tolerance", m.overlap_tolerance, non_negative(""));
  m.expected_speed_m_per_s =
      t.number_or("expected_speed_m_per_s", m.expected_speed_m_per_s, positive("[m/s]"));
  m.max_kinetic_energy_J =
      t.number_or("max_kinetic_energy_J", m.max_kinetic_energy_J, positive("[J]"));
  t.refuse_unknown_keys();
}

// Peak memory per particle of a run, for refusing beds that cannot fit before building them: a
// run of 40,000 particles peaked 45 MB (1.2 KB per particle) above one of 2,000 (state, hash,
// contact slots, neighbour lists, output buffers); 2 KiB leaves room for denser packings.
constexpr double kBytesPerParticle = 2048.0;

ParticleState make_lattice_bed_within_memory(const LatticeBed& bed, const ScenarioTable& t,
                                             const std::string& key) {
  const Vec3 extent = bed.region.hi - bed.region.lo;
  const double spacing = 2.0 * bed.radius_m * bed.spacing_factor;
  double count = 1.0;
  for (int a = 0; a < 3; ++a) count *= std::floor(std::max(0.0, extent[a]) / spacing) + 1.0;
  if (bed.max_particles > 0) count = std::min(count, static_cast<double>(bed.max_particles));
  check_memory_estimate(t, key, count * kBytesPerParticle,
                        fmt::format("the lattice bed's {:.3g} particles", count));
  return make_lattice_bed(bed);
}

void read_grains(const ScenarioTable& particles, ParticleModel& m) {
  m.friction = particles.number("friction", non_negative(""));
  m.rotation = particles.boolean_or("rotation", m.rotation);
  if (particles.has("rolling_friction")) {
    if (!m.rotation) {
      particles.fail("rolling_friction",
                     "needs rotation = true (grains that do not rotate cannot roll, so they have "
                     "no rolling resistance to set)");
    }
    m.rolling_friction = particles.number("rolling_friction", non_negative(""));
  }
}

ParticleState read_bed(const ScenarioTable& t, const ScenarioTable& particles, std::string& kind) {
  kind = t.choice("kind", {"lattice", "random", "file"});
  t.boolean_or("clear_bodies", false);  // read by the caller; known here
  if (kind == "file") {
    const std::filesystem::path rel = t.string("path");
    const std::filesystem::path path = rel.is_absolute() ? rel : t.file().parent_path() / rel;
    t.refuse_unknown_keys();
    ParticleState state;
    try {
      state = load_particle_state(path);
    } catch (const std::exception& e) {
      t.fail("path", e.what());
    }
    if (state.size() == 0) {
      t.fail("path", fmt::format("{} holds no particles; a bed needs at least one", path.string()));
    }
    return state;
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
      return make_lattice_bed_within_memory(bed, t, "hi_m");
    }
    RandomBed bed;
    bed.region = region;
    bed.radius_m = radius;
    bed.density_kg_per_m3 = density;
    bed.count = static_cast<std::size_t>(t.integer("count", 1, 100000000));
    check_memory_estimate(t, "count", static_cast<double>(bed.count) * kBytesPerParticle,
                          fmt::format("a random bed of {} particles", bed.count));
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

SettleOptions read_settle(const ScenarioTable& t) {
  SettleOptions o;
  o.max_steps = t.integer("max_steps", 1, 100000000);
  o.min_steps = t.integer_or("min_steps", 0, 0, o.max_steps);
  o.kinetic_energy_per_particle_J = t.number("kinetic_energy_per_particle_J", positive("[J]"));
  o.check_every = t.integer_or("check_every", 10, 1, 100000);
  t.refuse_unknown_keys();
  return o;
}

std::size_t remove_particles_in_bodies(ParticleState& s, std::span<const CoupledBody> bodies,
                                       std::span<const Pose> X_WB) {
  std::vector<Pose> X_BW;
  for (const Pose& X : X_WB) X_BW.push_back(X.inverse());
  ParticleState kept;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Vec3 p_W(s.x_m[i], s.y_m[i], s.z_m[i]);
    bool inside = false;
    for (std::size_t b = 0; b < X_BW.size() && !inside; ++b) {
      inside = signed_distance(bodies[b].shape, X_BW[b] * p_W) < s.radius_m[i];
    }
    if (inside) continue;
    kept.add(p_W, Vec3(s.vx_m_per_s[i], s.vy_m_per_s[i], s.vz_m_per_s[i]), s.radius_m[i],
             1.0 / double{s.inv_mass_per_kg[i]},
             Vec3(s.wx_rad_per_s[i], s.wy_rad_per_s[i], s.wz_rad_per_s[i]));
  }
  const std::size_t removed = s.size() - kept.size();
  kept.time_s = s.time_s;
  kept.step = s.step;
  s = std::move(kept);
  return removed;
}

}  // namespace talus::particles
