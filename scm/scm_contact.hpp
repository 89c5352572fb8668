#pragma once
// Contact of rigid bodies with the soil nodes (paper 002 §3, eq. 1-2) and the node's normal
// stress under it (eq. 34 with SCM's plastic loading / elastic unloading).

#include <span>
#include <vector>

#include "core/contact_tier.hpp"
#include "scm/scm_model.hpp"
#include "scm/scm_state.hpp"

namespace talus::scm {

/// One node a body loads in this step.
struct ContactNode {
  std::size_t k = 0;      ///< index in the NodeBlock the contact stage worked on
  int i = 0, j = 0;       ///< the node's global grid index (its x_node, y_node)
  int body = 0;           ///< which body
  Vec3 p_W;               ///< contact point: (x_node, y_node, z_obj) [m]
  Vec3 n_W;               ///< body's outward unit normal there (points into the soil)
  Vec3 v_W;               ///< velocity of the body's material point there [m/s]
  double sigma_pa = 0.0;  ///< normal stress (eq. 34) [Pa]
  bool loosened = false;  ///< soil met with residual strength
  /// Shear displacement j of the node (eq. 31) once every body of the step has moved it [m];
  /// filled by the step after the contact stage, read by the force law (eq. 35).
  double shear_x_m = 0.0, shear_y_m = 0.0;
};

/// The nodes under the body's world bounds at X_WB. Throws std::runtime_error naming the body
/// when the footprint leaves the map, or when it spans fewer than 3 nodes along x or y (the grid
/// is too coarse to resolve the contact).
IndexBox body_footprint(const ScmModel& model, const CoupledBody& body, const Pose& X_WB);

/// Bekker's normal stress k z^n for sinkage z >= 0 [Pa] (eq. 34).
double bekker_stress(const SoilParameters& soil, double sinkage_m);

/// Visits every node of `fp` (which must lie in `block`): where the body reaches below the node's
/// surface the node is cut down to z_obj, its plastic sinkage grows by the cut and its displaced
/// volume is the cut times A_grid (eq. 2); where the body is above the surface but within the
/// elastic reach sigma_y / K_e the node carries the elastic stress. Loaded nodes are marked in
/// contact, their shear displacement j grows by the body's horizontal velocity there times dt
/// (eq. 31 with the contact velocity of assumption 3), and one ContactNode per loaded node is
/// appended to `out` in row-major order. Rows run in parallel; the output order is fixed.
void contact_body(const ScmModel& model, int body_index, const BodyMotion& motion,
                  const IndexBox& fp, double dt_s, NodeBlock& block,
                  std::vector<std::vector<ContactNode>>& row_scratch,
                  std::vector<ContactNode>& out);

}  // namespace talus::scm
