#pragma once
// Scenario files of the particle tier (scenarios/particles/*.toml): loading with validation, and
// running them to their outputs. The format and outputs are documented in
// docs/particle_scenarios.md.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/driver.hpp"
#include "core/progress.hpp"
#include "core/scenario_file.hpp"
#include "core/view_options.hpp"
#include "particles/particle_bed_random.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/repose_angle.hpp"

namespace talus {
class OutputDir;
}

namespace talus::particles {

/// What the run measures and reports in summary.json besides the common figures.
enum class Measurement {
  kNone,
  kAtRest,  ///< free-surface drift and kinetic energy of a bed that should stay at rest
  kRepose,  ///< the angle of repose of the final pile (measure_repose_angle)
  kDrag,    ///< a plate dragged at several depths: mean drag force per depth
};

/// The [measure] section of kind "drag": for each depth, a fresh copy of the settled bed; the plate
/// is lowered vertically at x_start_m to `depth` below the settled free surface (in lower_time_s),
/// then dragged along +x to x_end_m at speed_m_per_s. The drag is the mean of -f_x over the last
/// `average_fraction` of the horizontal travel.
struct DragSetup {
  std::vector<double> depths_m;
  Shape plate;  ///< a box; its bottom face is at the depth
  double plate_half_height_m = 0.0;
  double x_start_m = 0.0, x_end_m = 0.0, y_m = 0.0;
  double speed_m_per_s = 0.1;
  double lower_time_s = 0.2;
  double average_fraction = 0.5;
};

struct ParticleScenario {
  std::filesystem::path file;
  std::string name;
  std::string description;
  ParticleModel model;                  ///< validated; bodies from [[body]]
  std::vector<Driver> drivers;          ///< one per model.bodies entry
  ParticleState initial;                ///< the bed before settling (checked with the model)
  std::string bed_kind;                 ///< "lattice", "random" or "file"
  std::optional<SettleOptions> settle;  ///< [settle]: settle before the timed run
  long steps = 0;                       ///< steps of the main run
  long log_every_steps = 10;            ///< rows of the CSV logs
  long frame_every_steps = 0;           ///< VTK frames of the particles (0: none)
  ViewOptions view;                     ///< [view]: the frames `talus view` plays
  int depth_image_px = 256;             ///< width of the sky camera's depth images (0: none)
  std::size_t particles_removed_in_bodies = 0;  ///< bed.clear_bodies: particles dropped
  Measurement measure = Measurement::kNone;
  ReposeOptions repose;
  std::optional<DragSetup> drag;

  /// Steps in all: settling (at most) + main run + drag passes.
  long total_steps() const;
};

/// Reads a particle scenario from a parsed file whose [scenario] tier is "particles", builds its
/// bed and checks model and bed with validate() and check_initial_state(). Throws ScenarioError
/// naming the file, line and key of the first problem found (engine messages prefixed so).
ParticleScenario load_particle_scenario(const ScenarioTable& root);

/// A run that stopped because the particles diverged. The output folder holds summary.json (with
/// "diverged"), the logs so far and last_good_state.tps; what() names the file, the step and the
/// first bad particle.
class ParticleRunDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs the scenario, writing into `out`: summary.json, energy.csv, bodies.csv (wrench and pose of
/// every body over time), final_state.tps, PNG plots, and per measurement its own files. Returns
/// the summary. Throws ParticleRunDiverged after writing the outputs when a step diverges.
nlohmann::json run_particle_scenario(const ParticleScenario& scenario, OutputDir& out,
                                     const RunProgress& progress = {});

}  // namespace talus::particles
