#pragma once
// One step of the sand-shaping tier (paper 003 §3, Fig. 2): drivers move the tools, the tools
// push the sand they overlap, erosion brings the surface back to the angle of repose.

#include <span>
#include <string>
#include <vector>

#include "core/contact_tier.hpp"
#include "core/driver.hpp"
#include "core/shape.hpp"
#include "shaping/heightmap.hpp"
#include "shaping/tool_push.hpp"

namespace talus::shaping {

/// A tool of the shaping tier: a shape moved by a driver.
struct ShapingTool {
  std::string name;
  Shape shape;
  Driver driver;
};

/// Everything that does not change while simulating.
struct ShapingModel {
  HeightmapModel heightmap;
  std::vector<ShapingTool> tools;
  double time_step_s = 0.05;  ///< time between two tool actions [s]
};

/// Everything that does.
struct ShapingState {
  HeightmapState heightmap;
  double time_s = 0.0;
  long step = 0;
  std::vector<std::uint8_t> tool_in_contact;  ///< per tool: did it cut sand in the last step?
  std::vector<Vec3> tool_p_W;  ///< per tool: its position after the last step (travel check) [m]

  static ShapingState initial(const ShapingModel& model, HeightmapState heightmap);
};

/// Scratch memory of the step, kept between steps.
struct ShapingWorkspace {
  PushWorkspace push;
  std::vector<double> erosion_scratch;
  std::vector<BodyMotion> tools_at_end;  ///< per tool: its motion at the step's end
};

struct ShapingStepReport {
  double displaced_volume_m3 = 0.0;  ///< sand moved by tools in this step
  int erosion_updates = 0;           ///< erosion updates until steady state
  bool erosion_converged = true;
  double max_repose_excess_m = 0.0;  ///< largest excess left after erosion
  int cells_in_contact = 0;
};

/// Checks the model; throws std::invalid_argument naming the bad field.
void validate(const ShapingModel& model);

/// Advances the state by one time step: tools to their drivers' poses at the new time, push,
/// erode. Throws std::runtime_error naming the step and cell if a height becomes NaN or infinite,
/// or naming the tool if it moved more than one cell since the last step.
ShapingStepReport step(const ShapingModel& model, ShapingState& state, ShapingWorkspace& work);

/// The same with the tools' motions `tools` (one per model.tools: pose and twist at the START of
/// the step, as every tier takes them, core/contact_tier.hpp; from a controller, planner or
/// learning agent); the sand is pushed where each tool is at the step's end, advanced(X, V, dt)
/// (a tool given at rest stays where it is given). The drivers are not read. Throws
/// std::invalid_argument when tools.size() != model.tools.size().
ShapingStepReport step(const ShapingModel& model, ShapingState& state,
                       std::span<const BodyMotion> tools, ShapingWorkspace& work);

/// Total sand volume above z = 0 [m^3].
double sand_volume_m3(const HeightmapModel& model, const HeightmapState& state);

/// Bilinear height of the sand surface at world (x, y) [m], clamped to the grid.
double surface_height_at(const HeightmapModel& model, const HeightmapState& state, double x_W,
                         double y_W);

}  // namespace talus::shaping
