#pragma once
// The seam between the SCM step (scm/scm_step.*) and its two soil-deformation methods: the soil
// flow by superposed local flow fields (paper 002 §3.1, scm/soil_flow.*) and the simpler border
// deposit (scm/border_flow.*). The step copies a dense rectangle of nodes around the contact
// patches into a FlowWindow, a method fills the outputs, and the step applies eq. 30 (height +=
// (V_delta - V_zeta) / A_grid) and erodes the nodes not in contact.
//
// Both methods conserve volume: sum(deposited_volume_m3) == sum(displaced_volume_m3) to rounding.

#include <cstdint>
#include <vector>

#include "core/pose.hpp"

namespace talus::scm {

/// Parameters of the soil flow model (paper 002 §3.1). Lengths in metres, angles in radians.
struct FlowParameters {
  int chord_count = 16;       ///< n_C, chords per displacing node (eq. 3-4)
  double psi_shape_m = 1.5;   ///< Psi_Shape: how fast the propagation angle relaxes (eq. 15-16)
  double psi_angle = 6.0;     ///< Psi_Angle: directional weighting exponent (eq. 17)
  double psi_distance = 2.0;  ///< Psi_Distance: deposit non-linearity along a chord (eq. 18)
  double friction_angle_rad = 0.5;  ///< phi, for the Rankine active/passive angles (eq. 9-11)
  std::uint64_t seed = 1;           ///< seed of the chord set's random rotation alpha_RND
  /// D_max: deepest a failure surface may run below the local surface [m]. The paper has no such
  /// limit; talus adds it (the soil layer that can fail) so that a chord under a long loaded
  /// patch, which eq. 12-16 steer downward without end, stays bounded. It also sets the hard cap
  /// on a chord's length, flow_reach_m(params, max_flow_depth_m) (scm/soil_flow.hpp): the step
  /// grows its window by that much around the contact patches. See docs/soil_flow.md.
  double max_flow_depth_m = 0.1;
  /// Displacing-node clusters, k x k grid nodes (talus's approximation, for speed; 1 = the
  /// paper's model, one field per displacing node). The displacing nodes of every k x k block of
  /// the global grid share one field, built from the member nearest their volume-weighted
  /// centroid with their summed displaced volume and volume-weighted contact velocity. An odd k
  /// keeps a full block's field at its centre. 0 (the default): sized in metres by
  /// cluster_span_m (cluster_nodes_on). See docs/soil_flow.md (Approximations).
  int cluster_nodes = 0;
  /// With cluster_nodes = 0, k is the largest odd node count whose outer members lie at most
  /// this far apart, (k - 1) cell <= cluster_span_m: 3 on a 2 cm grid, 7 on 1 cm, 1 (no
  /// clusters) on grids coarser than 3 cm. Sized in metres so that the approximation, and its
  /// error, is the same on every grid [m].
  double cluster_span_m = 0.06;
  /// Field evaluation stride, c grid nodes (talus's approximation, for speed; 1 = every node,
  /// the paper's model). Fields are interpolated (Fig. 5) and superposed (eq. 24-27) on the
  /// global nodes whose indices are multiples of c only, and the sums are spread to the nodes
  /// around them with bilinear (tent) weights, which keeps the deposits' total. 0 (the default):
  /// sized in metres by field_spacing_m (field_stride_on). See docs/soil_flow.md
  /// (Approximations).
  int field_stride = 0;
  /// With field_stride = 0, c is the largest node count with c cell <= field_spacing_m (at
  /// least 1): 2 on a 2 cm grid, 4 on 1 cm [m].
  double field_spacing_m = 0.04;
  /// Not a model parameter (the results are bit-identical either way): a call uses threads
  /// only when its fields can hold at least this many node contributions (fields x pi x (reach /
  /// (cell x field stride))^2), about 0.1 ms of work, from which splitting pays when every thread
  /// has a core (a 2 cm wheel window holds 3,500). Where the threads share
  /// cores with other busy processes a parallel region can wait a scheduler time slice, and small
  /// calls run 2-3 x slower with 2 threads than with 1: run 1 thread there, or raise this
  /// (docs/soil_flow.md, Determinism and threads). 0: always.
  double parallel_min_contributions = 2e3;
};

/// A dense, row-major rectangle of grid nodes: node (i, j) of the window is global node
/// (i0 + i, j0 + j) and sits at index k = j * nx + i of every array.
struct FlowWindow {
  int i0 = 0, j0 = 0;  ///< global index of the window's node (0, 0)
  int nx = 0, ny = 0;  ///< nodes along x and y
  double cell_size_m = 0.0;

  // ---- inputs, filled by the step
  std::vector<double> height_m;             ///< surface height after the bodies cut [m]
  std::vector<double> displaced_volume_m3;  ///< V_zeta: soil a body displaced here this step [m^3]
  std::vector<std::uint8_t> in_contact;     ///< 1 where a body loads the node, else 0
  std::vector<Vec3> contact_velocity_W;     ///< velocity of the body at contact nodes [m/s]
  std::vector<Vec3> previous_flow_velocity_W;  ///< v_delta of the previous step [m/s]

  // ---- outputs, filled by a flow method
  std::vector<double> deposited_volume_m3;  ///< V_delta: soil deposited here (eq. 24) [m^3]
  std::vector<Vec3> volumetric_flow_W;      ///< Q_delta: soil flow through the node (eq. 25) [m^3]
  std::vector<double> flow_depth_m;         ///< h_delta (eq. 27) [m]
  std::vector<Vec3> flow_velocity_W;        ///< v_delta (eq. 29) [m/s]

  std::size_t size() const { return static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny); }
  std::size_t index(int i, int j) const {
    return static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) + static_cast<std::size_t>(i);
  }
  /// Sizes every array for nx * ny nodes, leaving the values unspecified: for a caller that
  /// writes every input itself (the SCM step's window, where zeroing would be one more pass over
  /// it each step). The flow methods write every output.
  void reshape(int nx_nodes, int ny_nodes) {
    nx = nx_nodes;
    ny = ny_nodes;
    const std::size_t n = size();
    height_m.resize(n);
    displaced_volume_m3.resize(n);
    in_contact.resize(n);
    contact_velocity_W.resize(n);
    previous_flow_velocity_W.resize(n);
    deposited_volume_m3.resize(n);
    volumetric_flow_W.resize(n);
    flow_depth_m.resize(n);
    flow_velocity_W.resize(n);
  }
  /// Sizes every array for nx * ny nodes and zeroes it.
  void resize(int nx_nodes, int ny_nodes) {
    nx = nx_nodes;
    ny = ny_nodes;
    const std::size_t n = size();
    height_m.assign(n, 0.0);
    displaced_volume_m3.assign(n, 0.0);
    in_contact.assign(n, 0);
    contact_velocity_W.assign(n, Vec3::Zero());
    previous_flow_velocity_W.assign(n, Vec3::Zero());
    deposited_volume_m3.assign(n, 0.0);
    volumetric_flow_W.assign(n, Vec3::Zero());
    flow_depth_m.assign(n, 0.0);
    flow_velocity_W.assign(n, Vec3::Zero());
  }
};

}  // namespace talus::scm
