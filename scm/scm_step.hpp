#pragma once
// One step of the Soil Contact Model (paper 002 §3): contact -> forces -> soil deformation (flow
// fields or border path) -> height update (eq. 30) -> finiteness check -> erosion.

#include <cstdint>
#include <exception>
#include <span>
#include <vector>

#include "core/contact_tier.hpp"
#include "scm/border_flow.hpp"
#include "scm/scm_contact.hpp"
#include "scm/scm_model.hpp"
#include "scm/scm_state.hpp"

namespace talus::scm {

/// Scratch memory and partial results of one box of a stage that works on disjoint boxes of nodes
/// (the contact stage's boxes of footprints, the deformation windows). Each box has its own, so
/// that the boxes can run side by side on the threads (scm_step.cpp, for_each_box).
struct ScmBoxWork {
  // The contact stage.
  /// The nodes under some bodies (one box of overlapping footprints), as the stage left them: the
  /// step sums their displaced volumes from it.
  NodeBlock contact_block;
  std::vector<std::vector<ContactNode>> rows;
  std::vector<ContactNode> contacts;  ///< the box's contacts, in body and node order
  std::vector<std::uint8_t> was_in_contact;
  int nodes_visited = 0;
  // The deformation window.
  /// The flow boxes of one deformation window (scm_step.cpp: flow_boxes), one block each: the
  /// fields' window, or the border path's boxes around the bodies' contact patches.
  std::vector<NodeBlock> flow_blocks;
  std::size_t flow_box_count = 0;  ///< the window's flow boxes: flow_blocks in use
  NodeBlock erosion_block;         ///< one deformation window, for its erosion (border path)
  FlowWindow window;
  BorderFlowScratch border;
  std::vector<double> erosion_scratch;
  std::vector<double> heights_before_erosion;  ///< a window's heights, for its loose layers
  int erosion_updates = 0;
  std::exception_ptr error;  ///< what the box's stage threw on a thread, rethrown in box order
};

/// Scratch memory of the step, kept between steps (nothing in it carries meaning across steps).
struct ScmWorkspace {
  std::vector<ScmBoxWork> boxes;             ///< one per box of the stage running
  std::vector<ContactNode> contacts;         ///< every contact of the step, box by box
  std::vector<IndexBox> footprints;          ///< per body: the nodes under its bounding box
  std::vector<IndexBox> body_contact_boxes;  ///< per body: the box of its contact nodes
  std::vector<double> body_erosion_reach_m;  ///< per body: erosion_reach_m of its contact box [m]
  std::vector<BodyMotion> end_motions;       ///< per body: its motion at the step's end
};

struct ScmStepReport {
  int nodes_in_contact = 0;
  int nodes_visited = 0;             ///< footprint nodes whose contact was evaluated
  int window_nodes = 0;              ///< nodes of the deformation windows (summed)
  double displaced_volume_m3 = 0.0;  ///< sum of V_zeta (eq. 2)
  double deposited_volume_m3 = 0.0;  ///< sum of V_delta from the deformation method
  int erosion_updates = 0;           ///< erosion updates, the most of any window
  double max_flow_depth_m = 0.0;     ///< largest plastic sinkage of a contact node [m]
};

/// Advances `state` by model.time_step_s with the bodies at `motions` (one per model.bodies: pose
/// and twist at the START of the step, as every tier takes them, core/contact_tier.hpp) and
/// writes the wrench the soil exerts on each body, about its reference point at the step's end,
/// to `wrenches`. The soil answers each body at the pose it reaches at the END of the step moving
/// with its twist (advanced(X, V, dt): SCM's pressure is a function of the sinkage after the
/// step); a kinematically driven body hands over step_motion(driver, t, dt), which lands on the
/// driver's end pose. Throws std::runtime_error naming the body when it leaves the map or the
/// grid is too coarse, and naming the node and step when a node state becomes NaN or infinite.
ScmStepReport step(const ScmModel& model, ScmState& state, std::span<const BodyMotion> motions,
                   std::span<Wrench> wrenches, ScmWorkspace& work);

/// The same with an explicit time step dt_s [s] (the contact tier's call).
ScmStepReport step(const ScmModel& model, ScmState& state, double dt_s,
                   std::span<const BodyMotion> motions, std::span<Wrench> wrenches,
                   ScmWorkspace& work);

}  // namespace talus::scm
