#include "wrench/acquisition_tables.hpp"

#include <fmt/format.h>

#include "particles/particle_bed.hpp"
#include "particles/particle_scenario_tables.hpp"

namespace talus::wrench {

BedSetup read_bed_setup(const ScenarioTable& root) {
  BedSetup s;
  const ScenarioTable medium = root.table("medium");
  s.medium.name = medium.string("name");
  s.medium.source = medium.string_or("source", "talus particle tier");
  medium.refuse_unknown_keys();

  const ScenarioTable particles = root.table("particles");
  particles::read_grains(particles, s.model);
  particles::read_solver(root.table("solver"), s.model);  // first: it refuses the old time step
  const ScenarioTable sim = root.table("simulation");
  s.model.time_step_s = sim.number("time_step_s", positive("[s]"));
  sim.refuse_unknown_keys();
  particles::read_container(root.table("container"), s.model);
  std::string bed_kind;
  s.initial = particles::read_bed(root.table("bed"), particles, bed_kind);
  s.settle = particles::read_settle(root.table("settle"));
  try {
    particles::validate(s.model);
    particles::check_initial_state(s.model, s.initial);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(fmt::format("{}: {}", root.file().string(), e.what()));
  }
  s.medium.grain_radius_m = particles.number("radius_m", positive("[m]"));
  s.medium.density_kg_m3 = particles.number_or("density_kg_per_m3", 1631.0, positive("[kg/m^3]"));
  s.medium.friction = s.model.friction;
  particles.refuse_unknown_keys();
  return s;
}

void read_foot(const ScenarioTable& foot, const particles::ParticleModel& model, FootPath& path) {
  path.foot_radius_m = foot.number_or("radius_m", path.foot_radius_m, positive("[m]"));
  path.foot_length_m = foot.number_or("length_m", path.foot_length_m, positive("[m]"));
  path.reference_height_m =
      foot.number_or("reference_height_m", path.reference_height_m, any_finite("[m]"));
  const Aabb& box = model.container.box;
  const Vec2 centre = model.container.kind == particles::Container::Kind::kCylinder
                          ? model.container.cylinder_axis_xy_m
                          : Vec2(0.5 * (box.lo.x() + box.hi.x()), 0.5 * (box.lo.y() + box.hi.y()));
  path.target_xy_m.x() = foot.number_or("x_m", centre.x(), any_finite("[m]"));
  path.target_xy_m.y() = foot.number_or("y_m", centre.y(), any_finite("[m]"));
  foot.refuse_unknown_keys();
}

SettledBed settle_bed(const BedSetup& setup, const RunProgress& progress) {
  SettledBed bed;
  bed.model = setup.model;
  bed.state = setup.initial;
  const particles::SettleResult r = particles::settle(
      bed.model, bed.state, {}, bed.workspace, setup.settle, [&](long done, long total, double t) {
        if (progress) progress(done, total, t);
      });
  if (!r.at_rest) {
    throw std::runtime_error(fmt::format(
        "the bed did not come to rest in {} steps (kinetic energy per particle {:.3g} J, bound "
        "{:.3g} J); raise [settle] max_steps",
        r.steps, r.kinetic_energy_per_particle_J, setup.settle.kinetic_energy_per_particle_J));
  }
  bed.surface_z_m = particles::free_surface_z_m(bed.state);
  bed.settle_steps = r.steps;
  return bed;
}

}  // namespace talus::wrench
