#pragma once
// A MuJoCo model as `talus view` draws it (docs/viewer.md): each visible geom one view body, its
// shape from mjModel (sizes, mesh vertices and faces) and its pose from mjData each frame.

#include <span>
#include <vector>

#include "core/view_recorder.hpp"
#include "robot/mujoco_model.hpp"

namespace talus::robot {

/// The geoms a viewer should draw: those MuJoCo renders by default (alpha > 0, groups 0 to 2).
struct RobotView {
  std::vector<int> geom_ids;
  std::vector<ViewBody> bodies;  ///< one per geom id, named "body/geom" (or "body/#k")
};

/// The drawable geoms of `model`, planes drawn `plane_size_m` on a side where MuJoCo's plane is
/// infinite.
RobotView robot_view(const MujocoModel& model, double plane_size_m);

/// World poses of the view's geoms in the model's current data (after mj_forward or a step).
void robot_view_poses(const MujocoModel& model, const RobotView& view, std::vector<Pose>& X_WG);

}  // namespace talus::robot
