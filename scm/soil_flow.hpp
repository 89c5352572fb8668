#pragma once
// Soil flow by superposed local flow fields (paper 002 §3.1, eq. 3-29): every node a body
// displaces soil from spans a local flow field along n_C chords; the fields are interpolated onto
// the grid and superposed into deposited volume, volumetric flow, flow depth and flow velocity.

#include "scm/flow_window.hpp"

namespace talus::scm {

/// Fills window's outputs (deposited_volume_m3, volumetric_flow_W, flow_depth_m,
/// flow_velocity_W) from its inputs (height_m, displaced_volume_m3, in_contact,
/// contact_velocity_W, previous_flow_velocity_W, i0/j0, cell_size_m). dt_s [s] is the step (eq.
/// 29). Bit-identical for any OpenMP thread count. Throws std::invalid_argument on non-physical
/// parameters, dt_s <= 0 or arrays not sized nx * ny. Volume is conserved:
/// the deposits sum to the displaced volume; soil whose chord would leave the window is deposited
/// on the chord's last node inside it. params' cluster and stride choose talus's speed
/// approximations (cluster_nodes_on and field_stride_on 1: the paper's model; docs/soil_flow.md).
void flow_by_local_fields(const FlowParameters& params, double dt_s, FlowWindow& window);

/// The cluster size k [nodes] on a grid of cell_m: params.cluster_nodes when set (> 0), else the
/// largest odd k with (k - 1) cell_m <= params.cluster_span_m (0 and negative spans give 1).
int cluster_nodes_on(const FlowParameters& params, double cell_m);

/// The field stride c [nodes] on a grid of cell_m: params.field_stride when set (> 0), else the
/// largest c >= 1 with c cell_m <= params.field_spacing_m.
int field_stride_on(const FlowParameters& params, double cell_m);

/// How far [m] from a displacing node its flow field can reach when failure surfaces run at most
/// max_flow_depth_m below the surface: D (cot gamma_a + 2 cot gamma_p), a hard cap that the chord
/// construction enforces (with field_stride c > 1 the spread of the sums adds up to (c - 1) nodes
/// per axis). The step grows its window by
/// flow_reach_m(params, params.max_flow_depth_m) around the contact patches (docs/soil_flow.md).
double flow_reach_m(const FlowParameters& params, double max_flow_depth_m);

}  // namespace talus::scm
