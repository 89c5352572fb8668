#pragma once
// The particle tier's scenario tables, read the same way wherever a scenario describes a particle
// bed: the particle scenarios (particles/particle_scenario.cpp) and the robots tier's particle
// terrain (robot/robot_terrain_particles.cpp). Keys and defaults: docs/particle_scenarios.md.
// Every reader refuses keys it does not know and fails with file, line and key.

#include <span>
#include <string>

#include "core/contact_tier.hpp"
#include "core/scenario_file.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_bed_random.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"

namespace talus::particles {

/// [container]: kind = "none" | "box" | "cylinder" (lo_m, hi_m, radius_m, axis_xy_m),
/// periodic_axis.
void read_container(const ScenarioTable& t, ParticleModel& m);

/// [solver], refusing time_step_s there (it is [simulation] time_step_s, which the caller reads or
/// derives): iterations,
/// baumgarte, max_pushout_speed_m_per_s, wall_friction and body_friction (default: the particles'
/// friction, so read m.friction first), relaxation, warm_start, contact_margin_m, broadphase,
/// hash_table_factor, threads, overlap_tolerance, expected_speed_m_per_s, max_kinetic_energy_J.
void read_solver(const ScenarioTable& t, ParticleModel& m);

/// [bed]: kind = "lattice" | "random" | "file" and its keys; radius_m and density_kg_per_m3 come
/// from `particles` (the [particles] table). Reads (and leaves to the caller) clear_bodies. Sets
/// `kind` to the bed's kind.
/// The grains' keys of a [particles] table: friction (required), rotation (default true) and
/// rolling_friction (default ParticleModel's; refused with rotation = false, where grains cannot
/// roll).
void read_grains(const ScenarioTable& particles, ParticleModel& m);

ParticleState read_bed(const ScenarioTable& t, const ScenarioTable& particles, std::string& kind);

/// make_lattice_bed, after refusing (at `key` of `t`) a bed whose particles would not fit in
/// this machine's memory.
ParticleState make_lattice_bed_within_memory(const LatticeBed& bed, const ScenarioTable& t,
                                             const std::string& key);
/// [settle]: max_steps, min_steps, kinetic_energy_per_particle_J, check_every.
SettleOptions read_settle(const ScenarioTable& t);

/// Drops the particles that overlap a body (signed distance of the centre < its radius) at the
/// given poses (one per body); returns how many were dropped. Keeps time and step count.
std::size_t remove_particles_in_bodies(ParticleState& state, std::span<const CoupledBody> bodies,
                                       std::span<const Pose> X_WB);

}  // namespace talus::particles
