#pragma once
// Scenario files of the SCM soil tier (scenarios/scm/*.toml): loading with validation, and running
// them to their outputs. docs/scm.md documents the format and the outputs.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/driver.hpp"
#include "core/output_dir.hpp"
#include "core/progress.hpp"
#include "core/scenario_file.hpp"
#include "core/view_options.hpp"
#include "scm/scm_rigs.hpp"
#include "scm/soil_at_edge.hpp"

namespace talus {
class OutputDir;
}

namespace talus::scm {

enum class Experiment { PlateSinkage, SingleWheel, Multipass, SlipSweep, StripLoad, Blade };

/// Whether a run of this experiment records view frames: the wheel and blade runs do; the plate
/// and strip rigs and the slip sweep (many wheels over fresh soil) write tables and plots only.
inline bool experiment_records_view(Experiment e) {
  return e != Experiment::PlateSinkage && e != Experiment::StripLoad && e != Experiment::SlipSweep;
}

/// A body moved by a prescribed driver through the soil: the blade run's blade (a box along
/// waypoints, paper 002 Fig. 8-9), or a [terrain] file's one body (any core shape, waypoints or a
/// constant twist: a blade, a driven wheel).
struct BladeTest {
  std::string name = "blade";
  Shape shape = BoxShape{Vec3(0.005, 0.06, 0.1)};
  Driver driver;
  double duration_s = 1.0;  ///< [simulation] duration_s, default the motion's span
};

struct ScmScenario {
  std::filesystem::path file;
  std::string name, description;
  Experiment experiment = Experiment::PlateSinkage;
  ScmModel model;  ///< grid, soil, flow; bodies are set by the experiment
  /// The keys that set the grid's extent, for messages: "[grid] size_m", or "[terrain] lo_m and
  /// hi_m" for a [terrain] file.
  std::string grid_extent_keys = kGridExtentKey;
  PlateTest plate;            ///< plate_sinkage, strip_load (the strip is a long plate)
  WheelTest wheel;            ///< single_wheel, multipass, slip_sweep
  std::vector<double> slips;  ///< slip_sweep
  /// slip_sweep: the other deformation method, swept too and plotted beside [flow] method's
  /// (`[experiment] compare_method`); unset: none.
  std::optional<FlowMethod> compare_method;
  BladeTest blade;
  long steps = 0;    ///< total steps of the run
  ViewOptions view;  ///< [view]: the frames `talus view` plays (blade and wheel runs)
};

/// The terrain tables every SCM-backed scenario shares (the robots tier reuses them):
/// [soil] (a preset and/or Bekker / Mohr-Coulomb keys), [grid] (size, cell size, origin, base
/// height, base image, optional slope: flat to slope_start_m, then rising at slope_deg along +x)
/// and [flow]. Each refuses unknown keys; errors are ScenarioErrors with file, line and key.
SoilParameters read_soil(const ScenarioTable& t);
void read_grid(const ScenarioTable& t, ScmModel& m);
void read_flow(const ScenarioTable& t, ScmModel& m);

/// Reads an SCM scenario ([scenario] tier = "scm"). Throws ScenarioError naming the file, line and
/// key of the first problem; nothing runs before the whole file is known to be good.
ScmScenario load_scm_scenario(const ScenarioTable& root);

/// The model a run of `sc` steps from its start: the file's model, with the blade for a blade
/// experiment (the plate, strip and wheel rigs add their bodies as their runs build them).
ScmModel scenario_model(const ScmScenario& sc);

/// Runs the scenario into `out`: summary.json plus the experiment's CSV and PNG files
/// (docs/scm.md lists them). Returns the summary.
nlohmann::json run_scm_scenario(const ScmScenario& scenario, OutputDir& out,
                                const RunProgress& progress = {});

/// The runner's entry points (runner/run_scenario.cpp's tier table).
nlohmann::json check_scm(const ScenarioTable& root);
nlohmann::json run_scm(const ScenarioTable& root, const OutputTarget& out_dir,
                       const RunProgress& progress);

}  // namespace talus::scm
