#pragma once
// Scenario tables shared by the wrench tier's particle-tier kinds ("acquire" and
// "foot_accuracy"): the medium and its bed, read with the particle scenarios' own readers
// (particles/particle_scenario_tables.hpp), and the foot.
//
//   [medium]     name, source (strings): what the database's /medium group records
//   [particles]  radius_m, density_kg_per_m3, friction
//   [bed], [container], [solver], [settle]: as in particle scenarios
//   [simulation] time_step_s: the particle bed's step
//   [foot]       radius_m (0.03), length_m (0.5), reference_height_m (0.25), x_m, y_m (where the
//                foot's bottom centre passes the target; default the container's centre)

#include <string>

#include "core/scenario_file.hpp"
#include "particles/particle_bed_random.hpp"
#include "wrench/particle_acquisition.hpp"
#include "wrench/wrench_database.hpp"

namespace talus::wrench {

struct BedSetup {
  particles::ParticleModel model;
  particles::ParticleState initial;
  particles::SettleOptions settle;
  MediumDescription medium;
};

/// Reads [medium], [particles], [bed], [container], [simulation], [solver], [settle] (each
/// table's unknown keys refused).
BedSetup read_bed_setup(const ScenarioTable& root);

/// Reads [foot] into path's foot fields and target_xy_m (defaults: the container's centre).
void read_foot(const ScenarioTable& foot, const particles::ParticleModel& model, FootPath& path);

/// Settles the initial bed (no bodies) and measures its free surface. Calls progress per step.
/// Throws std::runtime_error when it does not come to rest within the settle options' max_steps.
SettledBed settle_bed(const BedSetup& setup, const RunProgress& progress);

}  // namespace talus::wrench
