#pragma once
// Ready-made tool motions of the shaping tier: the towed wheel of paper 003's trench test
// (§3.3, Table 1), a straight blade push (the multi-stroke primitive of §4.1), and a blade that
// follows a single-stroke trench plan (§4.2).

#include <vector>

#include "core/driver.hpp"
#include "core/shape.hpp"
#include "shaping/heightmap.hpp"
#include "shaping/shaping_step.hpp"
#include "shaping/trench_planner.hpp"

namespace talus::shaping {

/// A wheel lowered to a fixed sinkage and towed across level sand at a fixed slip ratio and slip
/// angle (paper 003 §3.3 after Pavlov and Johnson).
///
/// The wheel's centre travels at `speed_m_per_s` along the world direction `heading_rad`. The
/// wheel itself is yawed by `slip_angle_rad` from that direction (its rolling direction x_B is at
/// heading + slip angle), and it spins so that the slip ratio s = 1 - v_x / (omega * r) holds,
/// v_x being the travel speed along the rolling direction and r the rim radius: a driven wheel
/// with 0 <= s < 1. Sinkage is measured from the undisturbed surface to the rim's lowest point
/// (grousers reach grouser_height_m deeper).
struct WheelTrenchMotion {
  Vec2 start_W = Vec2::Zero();  ///< centre's (x, y) at t = 0 [m]
  double heading_rad = 0.0;
  double surface_z_m = 0.0;  ///< height of the level sand [m]
  double sinkage_m = 0.0;
  double slip_ratio = 0.0;
  double slip_angle_rad = 0.0;
  double speed_m_per_s = 0.03;  ///< the paper's tow speed, 3 cm/s
};
ConstantTwistDriver wheel_trench_driver(const WheelShape& wheel, const WheelTrenchMotion& motion);

/// A flat blade pushed in a straight line at constant depth (the multi-stroke shaping action of
/// paper 003 §4.1, a = (start, end)). The blade is a box whose x_B axis is the push direction:
/// thickness along x_B, width along y_B, its bottom at bottom_z_m.
struct StraightPush {
  Vec2 start_W = Vec2::Zero();  ///< [m]
  Vec2 end_W = Vec2::Zero();    ///< [m]
  double bottom_z_m = 0.0;      ///< world height of the blade's bottom edge [m]
  double blade_width_m = 0.05;
  double blade_thickness_m = 0.005;
  double blade_height_m = 0.1;
  double speed_m_per_s = 0.05;
};
BoxShape straight_push_blade(const StraightPush& push);
WaypointDriver straight_push_driver(const StraightPush& push, double start_time_s = 0.0);

/// Executes one straight push on the heightmap: the blade is lowered at the start (sand moves
/// radially away), pushed to the end in steps of at most half a cell, and lifted out, after which
/// the walls it held relax to the angle of repose. Returns the summed step reports.
ShapingStepReport execute_straight_push(const HeightmapModel& heightmap, HeightmapState& state,
                                        const StraightPush& push);

/// Where a binary planning map lies on the heightmap: planning cell (row, col) has its centre at
/// x = origin_x_m + (col + 0.5) * cell_m, y = origin_y_m + (rows - 1 - row + 0.5) * cell_m
/// (row 0 is the map's top, at the largest y).
struct PlanPlacement {
  double origin_x_m = 0.0;
  double origin_y_m = 0.0;
  double cell_m = 0.05;
  int rows = 0;
  Vec2 cell_center(GridCell c) const {
    return Vec2(origin_x_m + (c.col + 0.5) * cell_m,
                origin_y_m + (rows - 1 - c.row + 0.5) * cell_m);
  }
};

/// A blade (width = one planning cell) that follows a single-stroke trench plan at a constant
/// bottom height: it moves from cell centre to cell centre in `seconds_per_cell`, facing the way it
/// moves, and turns in place at corners.
WaypointDriver trench_plan_driver(const TrenchPlan& plan, const PlanPlacement& placement,
                                  double bottom_z_m, double blade_height_m,
                                  double seconds_per_cell);
BoxShape trench_plan_blade(const PlanPlacement& placement, double blade_height_m);

}  // namespace talus::shaping
