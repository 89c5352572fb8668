#pragma once
// Tool interaction of the sand-shaping tier (paper 003 §3.2): the sand a tool overlaps is moved
// to adjacent cells in the direction the tool moves there, radially outward from the tool's centre
// at first contact, and cells the tool occupies are blocked for erosion.

#include <vector>

#include "core/pose.hpp"
#include "core/shape.hpp"
#include "shaping/heightmap.hpp"

namespace talus::shaping {

/// A tool as the heightmap sees it at one instant: shape, pose X_WB and twist V_WB (from its
/// driver, never from differences of poses).
struct ToolPlacement {
  const Shape* shape = nullptr;
  Pose X_WB = Pose::Identity();
  Twist V_WB;
};

struct PushResult {
  double displaced_volume_m3 = 0.0;  ///< sand the tool overlapped and moved this call
  int cells_in_contact = 0;          ///< cells whose column the tool cut into
  int cells_blocked = 0;             ///< cells the tool occupies after the push
  IndexBox touched;                  ///< cells whose height changed (for erosion's active region)
};

/// Scratch buffers reused across calls so that a step allocates nothing once warmed up.
struct PushWorkspace {
  std::vector<double> tool_bottom_z_m;  ///< lowest tool point per cell of the footprint box
  std::vector<double> carried_m;        ///< height of sand being carried through each cell
  std::vector<Vec2> direction;          ///< unit horizontal push direction per cell
  std::vector<int> order;               ///< processing order of the footprint box
  std::vector<double> order_key;
};

/// The cells whose centres lie under the tool's world bounding box (clamped to the grid).
IndexBox footprint_box(const HeightmapModel& model, const ToolPlacement& tool);

/// Moves the sand that `tool` overlaps out of its way (paper 003 §3.2, step b of Fig. 2).
///
/// Every cell whose surface is above the tool's lowest point there is cut down to it; the
/// removed height is carried to the neighbouring cells in the horizontal direction of the tool's
/// velocity at that point (from V_WB, so a slipping wheel throws sand back while its front
/// bulldozes it forward), or radially outward from the tool's origin when `first_contact` is set or
/// the tool does not move horizontally there. The carried sand passes through cells the tool
/// occupies (filling them at most up to the tool's bottom) and settles in the first free cells.
/// The volume is conserved to rounding: what is removed is deposited, also at the grid's edge.
/// Finally the cells the tool occupies (its bottom at or below the sand surface) are marked in
/// state.blocked, so that erosion moves no sand into or out of them; clearing those marks before
/// the next step is the caller's job (the tools move).
PushResult push_sand(const HeightmapModel& model, HeightmapState& state, const ToolPlacement& tool,
                     bool first_contact, PushWorkspace& work);

}  // namespace talus::shaping
