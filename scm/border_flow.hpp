#pragma once
// The simple soil-deformation path of the original SCM (Krenn 2008, as paper 002 §3 describes it):
// the soil a contact patch displaces is put onto the patch's border nodes, and erosion carries it
// on to the angle of repose. Same interface as the flow fields (scm/soil_flow.hpp), so the step
// can use either.

#include <utility>
#include <vector>

#include "scm/flow_window.hpp"

namespace talus::scm {

/// Scratch of border_flow, kept between steps.
struct BorderFlowScratch {
  std::vector<int> label;      ///< contact patch of each node, -1 outside contact
  std::vector<int> stack;      ///< flood fill
  std::vector<double> volume;  ///< displaced volume per patch [m^3]
  std::vector<int> border_count;
  std::vector<std::pair<std::size_t, int>> border;  ///< (border node, its patch), in scan order
  std::vector<int> own_count;  ///< per patch without border nodes: its contact nodes
};

/// Fills window's outputs from its inputs:
/// - the contact nodes form patches (4-connected); each patch's displaced volume is split evenly
///   over its border nodes (nodes not in contact with a contact node of the patch among their 8
///   neighbours); a node bordering two patches gets a share from each. A patch with no border
///   node inside the window keeps its soil on its own nodes (evenly). So the deposits sum to the
///   displaced volume to rounding;
/// - sheared soil is transported (the extension of SCM's border path for sheared soil that
///   paper 002 §3 mentions, ref. [11]): at each contact node the band of soil shear_band_m thick
///   moves with the body's horizontal velocity there (assumption 3), so a volume
///   q = |v_h| dt * cell * shear_band_m (at most cell^2 * shear_band_m) leaves the node and is
///   put, split bilinearly, on the four nodes around the point one cell downstream (kept at the
///   source if that point is outside the window). The source's deposit is then negative. A
///   slipping wheel so carries soil from the front of its contact to behind it: over a distance
///   driven, a layer shear_band_m * i / (1 - i) thick (i the slip) is excavated from its path,
///   which is SCM's slip sinkage (docs/scm.md derives this);
/// - flow_velocity_W is the contact velocity at contact nodes (assumption 3) and zero elsewhere;
///   flow_depth_m is shear_band_m at contact nodes that move soil, else 0;
///   volumetric_flow_W is the cut volume along the contact velocity's direction. dt_s is
///   not needed by this path (kept for the shared interface).
void border_flow(double shear_band_m, double dt_s, FlowWindow& window, BorderFlowScratch& scratch);

}  // namespace talus::scm
