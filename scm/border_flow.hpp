#pragma once
// The simple soil-deformation path of the original SCM (Krenn 2008, as paper 002 §3 describes it):
// the soil a contact patch displaces is put onto the patch's border nodes, and erosion carries it
// on to the angle of repose. Same interface as the flow fields (scm/soil_flow.hpp), so the step
// can use either.

#include <vector>

#include "scm/flow_window.hpp"

namespace talus::scm {

/// Scratch of border_flow, kept between steps.
struct BorderFlowScratch {
  std::vector<int> label;      ///< contact patch of each node, -1 outside contact
  std::vector<int> stack;      ///< flood fill
  std::vector<double> volume;  ///< displaced volume per patch [m^3]
  std::vector<int> border_count;
};

/// Fills window's outputs from its inputs:
/// - the contact nodes form patches (4-connected); each patch's displaced volume is split evenly
///   over its border nodes (nodes not in contact with a contact node of the patch among their 8
///   neighbours); a node bordering two patches gets a share from each. A patch with no border
///   node inside the window keeps its soil on its own nodes (evenly). So the deposits sum to the
///   displaced volume to rounding;
/// - flow_velocity_W is the contact velocity at contact nodes (assumption 3) and zero elsewhere;
///   flow_depth_m is the depth of the cut at contact nodes (displaced volume / A_grid);
///   volumetric_flow_W is the cut volume along the contact velocity's direction. dt_s is
///   not needed by this path (kept for the shared interface).
void border_flow(double dt_s, FlowWindow& window, BorderFlowScratch& scratch);

}  // namespace talus::scm
