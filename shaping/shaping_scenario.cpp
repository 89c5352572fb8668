#include "shaping/shaping_scenario.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "core/erosion.hpp"
#include "core/scenario_bodies.hpp"
#include "core/scenario_head.hpp"
#include "core/scenario_terrain.hpp"
#include "core/steps.hpp"
#include "core/units.hpp"
#include "shaping/letter_maps.hpp"

namespace talus::shaping {

namespace {

// The grid of cells of `cell_size_m` covering `size` [m] from the lower-left corner `lo` (the
// files give the bed's extent; the grid's samples sit at the cells' centres); `t` and `key` are
// where a grid too coarse or too large is reported.
void set_cells(HeightmapModel& m, Vec2 lo, Vec2 size, double cell_size_m, const ScenarioTable& t,
               const std::string& key) {
  const double nx = std::round(size.x() / cell_size_m);
  const double ny = std::round(size.y() / cell_size_m);
  if (nx < 2 || ny < 2 || nx * ny > 64e6) {
    t.fail(key, fmt::format("gives a {:g} x {:g} cell grid; expected at least 2 x 2 and at most "
                            "64 million cells",
                            nx, ny));
  }
  static_cast<HeightmapGrid&>(m) =
      grid_of_cells(lo.x(), lo.y(), static_cast<int>(nx), static_cast<int>(ny), cell_size_m);
}

void validate_heightmap(const HeightmapModel& m, const ScenarioTable& t) {
  try {
    validate(m);
  } catch (const std::invalid_argument& e) {
    t.fail("", e.what());
  }
}

HeightmapModel read_heightmap(const ScenarioTable& t, double& initial_height_m) {
  HeightmapModel m;
  const Vec2 size = t.vec2("size_m", positive("[m]"));
  // origin_m: the bed's lower-left corner (the edge of cell (0, 0), not its centre).
  const Vec2 lo = t.has("origin_m") ? t.vec2("origin_m", any_finite("[m]")) : Vec2::Zero();
  set_cells(m, lo, size, t.number("cell_size_m", positive("[m]")), t, "cell_size_m");
  initial_height_m = t.number("initial_height_m", non_negative("[m]"));
  ErosionParameters& e = m.erosion;
  e.repose_angle_rad = deg_to_rad(t.number("repose_angle_deg", in_open_range(0.0, 90.0, "[deg]")));
  const int connectivity = t.integer_or("connectivity", 8, 4, 8);
  if (connectivity != 4 && connectivity != 8) {
    t.fail("connectivity", fmt::format("expected 4 or 8, got {}", connectivity));
  }
  e.connectivity = connectivity == 4 ? Connectivity::Four : Connectivity::Eight;
  // The stability bound depends on the grid and the connectivity (docs/erosion.md): checked here
  // at the key rather than by validate_heightmap at the table.
  e.flow_rate = t.number_or("flow_rate", 0.0,
                            in_closed_range(0.0, max_flow_rate(m, e.connectivity),
                                            "(0 = derived default; the erosion's stability bound "
                                            "for this grid and connectivity)"));
  e.tolerance_m = t.number_or("tolerance_m", 1e-9, positive("[m]"));
  e.max_updates = t.integer_or("max_updates", e.max_updates, 1, 100000000);
  t.refuse_unknown_keys();
  validate_heightmap(m, t);
  return m;
}

// The heightmap of a [terrain]: cells over the patch, level at its surface, relaxing to the
// material's angle of repose; the other [heightmap] keys keep their defaults.
HeightmapModel terrain_heightmap(const Terrain& terrain, const ScenarioTable& t,
                                 double& initial_height_m) {
  HeightmapModel m;
  set_cells(m, terrain.lo_m, terrain.hi_m - terrain.lo_m, terrain.cell_size_m, t, "cell_size_m");
  m.erosion.repose_angle_rad = terrain.material.repose_angle_rad;
  initial_height_m = terrain.surface_z_m;
  validate_heightmap(m, t);
  return m;
}

TrenchPlanSetup read_planner(const ScenarioTable& t, const HeightmapModel& hm) {
  TrenchPlanSetup p;
  if (t.has("letter") == t.has("goal")) {
    t.fail("", "give exactly one of 'letter' (one of " + letter_map_names() +
                   ") or 'goal' (rows of '#' and '.')");
  }
  try {
    if (t.has("letter")) {
      p.goal_name = t.string("letter");
      if (p.goal_name.size() != 1) throw std::invalid_argument("expected a single letter");
      p.goal = letter_map(p.goal_name[0]);
    } else {
      p.goal_name = "custom";
      p.goal = BinaryMap::from_rows(t.strings("goal"));
    }
  } catch (const std::invalid_argument& e) {
    t.fail(t.has("letter") ? "letter" : "goal", e.what());
  }
  p.options.heuristic =
      t.choice_or("heuristic", "path_cover", {"path_cover", "cells_remaining"}) == "path_cover"
          ? TrenchHeuristic::PathCover
          : TrenchHeuristic::CellsRemaining;
  p.options.alpha = t.number_or("alpha", 1.0, in_closed_range(1.0, 100.0, ""));
  if (t.has("start")) {
    const auto rc = t.numbers("start", 2, in_closed_range(0, 1000, "[cell]"));
    p.options.start = GridCell{static_cast<int>(rc[0]), static_cast<int>(rc[1])};
  }
  p.placement.cell_m = t.number("cell_size_m", positive("[m]"));
  p.placement.rows = p.goal.rows;
  if (t.has("origin_m")) {
    const Vec2 o = t.vec2("origin_m", any_finite("[m]"));
    p.placement.origin_x_m = o.x();
    p.placement.origin_y_m = o.y();
  } else {  // centred on the heightmap
    p.placement.origin_x_m =
        hm.lo_x_m() + 0.5 * (hm.nx * hm.cell_size_m - p.goal.cols * p.placement.cell_m);
    p.placement.origin_y_m =
        hm.lo_y_m() + 0.5 * (hm.ny * hm.cell_size_m - p.goal.rows * p.placement.cell_m);
  }
  p.depth_m = t.number("depth_m", positive("[m]"));
  p.seconds_per_cell = t.number_or("seconds_per_cell", 1.0, positive("[s]"));
  t.refuse_unknown_keys();
  if (p.placement.cell_m < 2.0 * hm.cell_size_m) {
    t.fail("cell_size_m", fmt::format("a planning cell must span at least 2 heightmap cells ({} m)",
                                      2.0 * hm.cell_size_m));
  }
  const auto t0 = std::chrono::steady_clock::now();
  try {
    p.plan = plan_single_stroke_trench(p.goal, p.options);
  } catch (const std::invalid_argument& e) {
    t.fail("", e.what());
  }
  p.planning_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!p.plan.found) {
    t.fail("", "the planner found no single-stroke path for this goal: " + p.plan.failure);
  }
  return p;
}

// A wheel towed at a slip and sinkage through the sand, for a body of kind "wheel".
Driver read_wheel_trench(const ScenarioTable& motion, const Shape& shape, double surface_z_m) {
  const auto* wheel = std::get_if<WheelShape>(&shape);
  if (!wheel) motion.fail("kind", "a wheel_trench motion needs a shape of kind \"wheel\"");
  WheelTrenchMotion m;
  m.start_W = motion.vec2("start_m", any_finite("[m]"));
  m.heading_rad = deg_to_rad(motion.number_or("heading_deg", 0.0, any_finite("[deg]")));
  m.surface_z_m = surface_z_m;
  m.sinkage_m =
      motion.number("sinkage_m", in_open_range(0.0, wheel->radius_m, "[m] (below the rim radius)"));
  m.slip_ratio = motion.number("slip_ratio", in_closed_range(0.0, 0.95, ""));
  m.slip_angle_rad = deg_to_rad(motion.number("slip_angle_deg", in_closed_range(-89, 89, "[deg]")));
  m.speed_m_per_s = motion.number_or("speed_m_per_s", 0.03, positive("[m/s]"));
  return wheel_trench_driver(*wheel, m);
}

// A blade (a body of kind "box") pushed along a straight line at a depth below the surface.
Driver read_straight_push(const ScenarioTable& motion, const Shape& shape, double surface_z_m) {
  const auto* box = std::get_if<BoxShape>(&shape);
  if (!box) motion.fail("kind", "a straight_push motion needs a blade: a shape of kind \"box\"");
  StraightPush p;
  p.start_W = motion.vec2("start_m", any_finite("[m]"));
  p.end_W = motion.vec2("end_m", any_finite("[m]"));
  if ((p.end_W - p.start_W).norm() < 1e-12) motion.fail("end_m", "must differ from start_m");
  p.bottom_z_m =
      surface_z_m - motion.number("depth_m", non_negative("[m] below the initial surface"));
  p.blade_thickness_m = 2.0 * box->half_extents_m.x();
  p.blade_width_m = 2.0 * box->half_extents_m.y();
  p.blade_height_m = 2.0 * box->half_extents_m.z();
  p.speed_m_per_s = motion.number_or("speed_m_per_s", 0.05, positive("[m/s]"));
  return straight_push_driver(p, motion.number_or("start_time_s", 0.0, non_negative("[s]")));
}

// The trench_plan blade's height: its shape and its path (the blade's centre) both use it.
double trench_blade_height_m(const ScenarioTable& motion) {
  return motion.number_or("blade_height_m", 0.1, positive("[m]"));
}

// The shaping tier's [[body]] rules: its own motions besides the common ones, and the
// trench_plan blade sized by the [planner].
BodyRules tool_rules(const ShapingScenario& sc) {
  BodyRules rules;
  rules.motion_kinds = {"wheel_trench", "straight_push", "trench_plan", "waypoints",
                        "constant_twist"};
  rules.motion_sized_shape = [&sc](const ScenarioTable& motion,
                                   const std::string& kind) -> std::optional<Shape> {
    if (kind != "trench_plan") return std::nullopt;
    if (!sc.planner) motion.fail("kind", "a trench_plan motion needs a [planner] section");
    return trench_plan_blade(sc.planner->placement, trench_blade_height_m(motion));
  };
  rules.read_tier_motion = [&sc](const ScenarioTable& motion, const std::string& kind,
                                 const Shape& shape) -> Driver {
    if (kind == "wheel_trench") return read_wheel_trench(motion, shape, sc.initial_height_m);
    if (kind == "straight_push") return read_straight_push(motion, shape, sc.initial_height_m);
    return trench_plan_driver(sc.planner->plan, sc.planner->placement,
                              sc.initial_height_m - sc.planner->depth_m,
                              trench_blade_height_m(motion), sc.planner->seconds_per_cell);
  };
  return rules;
}

}  // namespace

ShapingScenario load_shaping_scenario(const ScenarioTable& root) {
  ShapingScenario sc;
  sc.file = root.file();
  const ScenarioHead head = read_scenario_head(root, "shaping");
  sc.name = head.name;
  sc.description = head.description;

  if (const auto terrain = read_terrain_instead_of(root, {"heightmap"})) {
    sc.model.heightmap = terrain_heightmap(*terrain, root.table("terrain"), sc.initial_height_m);
  } else {
    sc.model.heightmap = read_heightmap(root.table("heightmap"), sc.initial_height_m);
  }
  sc.initial = HeightmapState::flat(sc.model.heightmap, sc.initial_height_m);

  if (const auto planner = root.optional_table("planner")) {
    sc.planner = read_planner(*planner, sc.model.heightmap);
  }
  double end_time = 0.0;
  for (ScenarioBody& b : read_bodies(root, tool_rules(sc))) {
    end_time = std::max(end_time, end_time_s(b.driver));
    sc.model.tools.push_back({std::move(b.name), std::move(b.shape), std::move(b.driver)});
  }
  if (sc.model.tools.empty()) root.fail("", "a shaping scenario needs at least one [[body]]");

  const ScenarioTable sim = root.table("simulation");
  sc.model.time_step_s = sim.number("time_step_s", positive("[s]"));
  double duration = end_time;
  if (sim.has("duration_s")) {
    duration = sim.number("duration_s", positive("[s]"));
  } else if (!std::isfinite(end_time)) {
    sim.fail("", "duration_s is needed: a tool moves forever (constant twist or towed wheel)");
  }
  sc.steps = steps_for(sim, "time_step_s", duration, sc.model.time_step_s);
  if (sc.steps < 1) sim.fail("duration_s", "gives no step; expected at least one time step");
  // A tool may move at most one cell per step (shaping_step.cpp, check_tool_travel).
  const double cell = sc.model.heightmap.cell_size_m;
  for (std::size_t k = 0; k < sc.model.tools.size(); ++k) {
    const double speed = max_speed_m_per_s(sc.model.tools[k].driver);
    if (speed * sc.model.time_step_s > cell * (1.0 + 1e-9)) {
      sim.fail("time_step_s",
               fmt::format("tool '{}' moves up to {:.4g} m per step ({:.4g} m/s), more than one "
                           "{:g} m cell: the sand it passes over would not be pushed; expected "
                           "time_step_s <= {:.4g} s",
                           sc.model.tools[k].name, speed * sc.model.time_step_s, speed, cell,
                           cell / speed));
    }
  }
  sim.refuse_unknown_keys();

  if (const auto out = root.optional_table("output")) {
    if (out->has("cross_section_x_m")) {
      // On the bed: a section outside it was drawn silently at the nearest edge.
      const HeightmapGrid& g = sc.model.heightmap;
      const double lo = g.lo_x_m(), hi = g.lo_x_m() + g.nx * g.cell_size_m;
      sc.cross_section_x_m = out->number("cross_section_x_m", in_closed_range(lo, hi, "[m]"));
    }
    out->refuse_unknown_keys();
  }
  sc.view = read_view_options(root);
  root.refuse_unknown_keys();
  try {
    validate(sc.model);
  } catch (const std::invalid_argument& e) {
    root.fail("", e.what());
  }
  return sc;
}

}  // namespace talus::shaping
