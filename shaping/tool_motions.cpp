#include "shaping/tool_motions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/erosion.hpp"
#include "core/units.hpp"

namespace talus::shaping {

ConstantTwistDriver wheel_trench_driver(const WheelShape& wheel, const WheelTrenchMotion& motion) {
  if (!(motion.slip_ratio >= 0.0 && motion.slip_ratio < 1.0)) {
    throw std::invalid_argument(
        fmt::format("slip_ratio must be in [0, 1) for a driven wheel, got {}", motion.slip_ratio));
  }
  if (!(motion.speed_m_per_s > 0.0)) {
    throw std::invalid_argument(
        fmt::format("speed_m_per_s must be > 0, got {}", motion.speed_m_per_s));
  }
  const double wheel_yaw = motion.heading_rad + motion.slip_angle_rad;
  ConstantTwistDriver d;
  d.X_WB0 = make_pose(Vec3(motion.start_W.x(), motion.start_W.y(),
                           motion.surface_z_m + wheel.radius_m - motion.sinkage_m),
                      0.0, 0.0, wheel_yaw);
  const Vec3 travel_W(std::cos(motion.heading_rad), std::sin(motion.heading_rad), 0.0);
  d.V_WB.v_WBo = motion.speed_m_per_s * travel_W;
  // Rolling about +y_B moves the wheel along +x_B; s = 1 - v_x / (omega r).
  const double v_along = motion.speed_m_per_s * std::cos(motion.slip_angle_rad);
  const double omega = v_along / (wheel.radius_m * (1.0 - motion.slip_ratio));
  d.V_WB.w_W = omega * (d.X_WB0.linear() * Vec3::UnitY());
  return d;
}

BoxShape straight_push_blade(const StraightPush& push) {
  return BoxShape{
      Vec3(0.5 * push.blade_thickness_m, 0.5 * push.blade_width_m, 0.5 * push.blade_height_m)};
}

WaypointDriver straight_push_driver(const StraightPush& push, double start_time_s) {
  if (!push.start_W.allFinite() || !push.end_W.allFinite()) {
    throw std::invalid_argument(fmt::format(
        "straight push: start_W and end_W must be finite [m], got ({}, {}) and ({}, {})",
        push.start_W.x(), push.start_W.y(), push.end_W.x(), push.end_W.y()));
  }
  const Vec2 along = push.end_W - push.start_W;
  const double length = along.norm();
  if (!(length > 0.0)) {
    throw std::invalid_argument("straight push: start and end are the same point");
  }
  if (!(push.speed_m_per_s > 0.0)) {
    throw std::invalid_argument(
        fmt::format("straight push: speed_m_per_s must be > 0, got {}", push.speed_m_per_s));
  }
  const double yaw = std::atan2(along.y(), along.x());
  const double z = push.bottom_z_m + 0.5 * push.blade_height_m;
  WaypointDriver d;
  d.times_s = {start_time_s, start_time_s + length / push.speed_m_per_s};
  d.poses = {make_pose(Vec3(push.start_W.x(), push.start_W.y(), z), 0, 0, yaw),
             make_pose(Vec3(push.end_W.x(), push.end_W.y(), z), 0, 0, yaw)};
  return d;
}

ShapingStepReport execute_straight_push(const HeightmapModel& heightmap, HeightmapState& state,
                                        const StraightPush& push) {
  ShapingModel model;
  model.heightmap = heightmap;
  const WaypointDriver driver = straight_push_driver(push, 0.0);
  model.tools.push_back({"blade", straight_push_blade(push), driver});
  // At most half a cell per action, so the blade sweeps every cell on its way.
  const double duration = driver.times_s.back();
  const double max_dt = 0.5 * heightmap.cell_size_m / push.speed_m_per_s;
  const long steps = std::max(1L, static_cast<long>(std::ceil(duration / max_dt)));
  model.time_step_s = duration / static_cast<double>(steps);
  validate(model);

  // Lowering the blade at the start is the first action (t = 0), then the pushes.
  ShapingState sim = ShapingState::initial(model, std::move(state));
  sim.step = -1;
  ShapingWorkspace work;
  ShapingStepReport total;
  for (long k = 0; k <= steps; ++k) {
    const ShapingStepReport r = step(model, sim, work);
    total.displaced_volume_m3 += r.displaced_volume_m3;
    total.erosion_updates += r.erosion_updates;
    total.erosion_converged = total.erosion_converged && r.erosion_converged;
    total.cells_in_contact = std::max(total.cells_in_contact, r.cells_in_contact);
  }
  // Lift the blade: the walls it held are free to relax.
  std::fill(sim.heightmap.blocked.begin(), sim.heightmap.blocked.end(), 0);
  const ErosionResult relax =
      erode_to_steady_state(heightmap, heightmap.erosion, sim.heightmap.height_m,
                            sim.heightmap.blocked, heightmap.whole(), work.erosion_scratch);
  total.erosion_updates += relax.updates;
  total.erosion_converged = total.erosion_converged && relax.converged;
  total.max_repose_excess_m = relax.max_excess_m;
  state = std::move(sim.heightmap);
  return total;
}

BoxShape trench_plan_blade(const PlanPlacement& placement, double blade_height_m) {
  // A blade one planning cell wide and a quarter cell thick: its sweep is one cell wide.
  return BoxShape{Vec3(0.125 * placement.cell_m, 0.5 * placement.cell_m, 0.5 * blade_height_m)};
}

WaypointDriver trench_plan_driver(const TrenchPlan& plan, const PlanPlacement& placement,
                                  double bottom_z_m, double blade_height_m,
                                  double seconds_per_cell) {
  if (!plan.found || plan.cells.empty()) {
    throw std::invalid_argument("trench plan: no path to follow (the planner found none)");
  }
  const double z = bottom_z_m + 0.5 * blade_height_m;
  auto yaw_of = [](const Vec2& d) { return std::atan2(d.y(), d.x()); };
  auto pose = [&](const Vec2& p, double yaw) {
    return make_pose(Vec3(p.x(), p.y(), z), 0, 0, yaw);
  };

  WaypointDriver d;
  const std::size_t n = plan.cells.size();
  double yaw =
      n > 1 ? yaw_of(placement.cell_center(plan.cells[1]) - placement.cell_center(plan.cells[0]))
            : 0.0;
  double t = 0.0;
  d.times_s.push_back(t);
  d.poses.push_back(pose(placement.cell_center(plan.cells[0]), yaw));
  const double turn_s = 0.25 * seconds_per_cell;
  for (std::size_t k = 1; k < n; ++k) {
    const Vec2 from = placement.cell_center(plan.cells[k - 1]);
    const Vec2 to = placement.cell_center(plan.cells[k]);
    const double new_yaw = yaw_of(to - from);
    if (std::abs(std::remainder(new_yaw - yaw, 2.0 * kPi)) > 1e-9) {
      // Turn in place at the corner; the slerp takes the short way round.
      t += turn_s;
      d.times_s.push_back(t);
      d.poses.push_back(pose(from, new_yaw));
      yaw = new_yaw;
    }
    t += seconds_per_cell;
    d.times_s.push_back(t);
    d.poses.push_back(pose(to, yaw));
  }
  if (d.times_s.size() == 1) {
    // A one-cell trench: the blade is lowered and stays.
    d.times_s.push_back(seconds_per_cell);
    d.poses.push_back(d.poses.front());
  }
  return d;
}

}  // namespace talus::shaping
