#pragma once
// Soil flow by superposed local flow fields (paper 002 §3.1, eq. 3-29): every node a body
// displaces soil from spans a local flow field along n_C chords; the fields are interpolated onto
// the grid and superposed into deposited volume, volumetric flow, flow depth and flow velocity.

#include "scm/flow_window.hpp"

namespace talus::scm {

/// Fills window's outputs (deposited_volume_m3, volumetric_flow_W, flow_depth_m,
/// flow_velocity_W) from its inputs. dt_s [s] is the step (eq. 29). Volume is conserved:
/// the deposits sum to the displaced volume; soil whose chord would leave the window is deposited
/// on the chord's last node inside it.
void flow_by_local_fields(const FlowParameters& params, double dt_s, FlowWindow& window);

/// How far [m] from a displacing node its flow field can reach when the flow depth at the node is
/// at most max_flow_depth_m; the step grows its window by this much around the contact patches.
double flow_reach_m(const FlowParameters& params, double max_flow_depth_m);

}  // namespace talus::scm
