// Running a shaping scenario to its outputs: the step loop, the per-step log, and the pictures.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>

#include "core/colormap.hpp"
#include "core/csv_writer.hpp"
#include "core/erosion.hpp"
#include "core/image.hpp"
#include "core/json_file.hpp"
#include "core/npy.hpp"
#include "core/output_dir.hpp"
#include "core/plot.hpp"
#include "core/units.hpp"
#include "core/view_recorder.hpp"
#include "core/view_shapes.hpp"
#include "shaping/shaping_scenario.hpp"

namespace talus::shaping {

namespace {

// The profile across y at the column nearest x_W: the trench cross-section of paper 003 Fig. 3.
struct CrossSection {
  int column = 0;
  double x_m = 0.0;
  std::vector<double> y_m, initial_m, final_m;
};

CrossSection take_cross_section(const ShapingScenario& sc, const HeightmapState& final_state) {
  const HeightmapModel& m = sc.model.heightmap;
  CrossSection cs;
  // By default the column holding the bed's middle (the right one of two when nx is even).
  cs.column =
      sc.cross_section_x_m ? std::clamp(m.nearest_i(*sc.cross_section_x_m), 0, m.nx - 1) : m.nx / 2;
  cs.x_m = m.x(cs.column);
  for (int j = 0; j < m.ny; ++j) {
    const std::size_t c = m.index(cs.column, j);
    cs.y_m.push_back(m.y(j));
    cs.initial_m.push_back(sc.initial.height_m[c]);
    cs.final_m.push_back(final_state.height_m[c]);
  }
  return cs;
}

// Trench depth, width and berm heights of a cross-section, relative to the initial level.
nlohmann::json trench_metrics(const CrossSection& cs, double level_m, double cell_m) {
  const auto lowest = std::min_element(cs.final_m.begin(), cs.final_m.end());
  const std::size_t k_low = static_cast<std::size_t>(lowest - cs.final_m.begin());
  // Width at the original surface: the connected run of cells below it around the lowest point.
  const double tol = 1e-6;
  std::size_t a = k_low, b = k_low;
  while (a > 0 && cs.final_m[a - 1] < level_m - tol) --a;
  while (b + 1 < cs.final_m.size() && cs.final_m[b + 1] < level_m - tol) ++b;
  double berm_low_y = 0.0, berm_high_y = 0.0;
  for (std::size_t k = 0; k < a; ++k) berm_low_y = std::max(berm_low_y, cs.final_m[k] - level_m);
  for (std::size_t k = b + 1; k < cs.final_m.size(); ++k) {
    berm_high_y = std::max(berm_high_y, cs.final_m[k] - level_m);
  }
  const bool has_trench = *lowest < level_m - tol;
  if (!has_trench) {
    // No cell below the initial level (the section crosses a heap, or misses the tool's path):
    // no depth, width or centre to give (the minimum's place was the map's edge, its width 0).
    return {{"x_m", cs.x_m},
            {"trench_depth_m", nullptr},
            {"trench_centre_y_m", nullptr},
            {"trench_width_m", nullptr},
            {"berm_height_low_y_side_m", nullptr},
            {"berm_height_high_y_side_m", nullptr},
            {"no_trench",
             fmt::format("no cell of the section at x = {:.4g} m lies below the initial level; "
                         "[output] cross_section_x_m picks another section",
                         cs.x_m)}};
  }
  return {{"x_m", cs.x_m},
          {"trench_depth_m", level_m - *lowest},
          {"trench_centre_y_m", cs.y_m[k_low]},
          {"trench_width_m", static_cast<double>(b - a + 1) * cell_m},
          {"berm_height_low_y_side_m", berm_low_y},
          {"berm_height_high_y_side_m", berm_high_y}};
}

void write_cross_section(OutputDir& out, const CrossSection& cs, const std::string& name) {
  CsvWriter csv(out.path("cross_section.csv"), {"y_m", "height_initial_m", "height_final_m"});
  for (std::size_t k = 0; k < cs.y_m.size(); ++k) {
    csv.write_row({cs.y_m[k], cs.initial_m[k], cs.final_m[k]});
  }
  csv.close();
  PlotSpec plot;
  plot.title = fmt::format("{}: cross-section at x = {:.0f} mm", name, cs.x_m * 1e3);
  plot.x_label = "y [mm]";
  plot.y_label = "height [mm]";
  auto mm = [](const std::vector<double>& v) {
    std::vector<double> r(v.size());
    std::transform(v.begin(), v.end(), r.begin(), [](double x) { return 1e3 * x; });
    return r;
  };
  plot.series.push_back({"initial", mm(cs.y_m), mm(cs.initial_m), Rgb{150, 150, 150}, 2, false});
  plot.series.push_back({"final", mm(cs.y_m), mm(cs.final_m), std::nullopt, 2, false});
  plot.equal_aspect = true;
  write_png(out.path("cross_section.png"), plot_lines(plot));
}

// Does the trench on the heightmap match the goal map? A planning cell counts as dug when the
// sand at its centre lies more than half the trench depth below the initial level.
nlohmann::json check_trench_on_heightmap(const ShapingScenario& sc, const HeightmapState& state) {
  const TrenchPlanSetup& p = *sc.planner;
  int matched = 0, missing = 0, extra = 0;
  for (int r = 0; r < p.goal.rows; ++r) {
    for (int c = 0; c < p.goal.cols; ++c) {
      const Vec2 centre = p.placement.cell_center({r, c});
      const double h = surface_height_at(sc.model.heightmap, state, centre.x(), centre.y());
      const bool dug = h < sc.initial_height_m - 0.5 * p.depth_m;
      const bool wanted = p.goal.at(r, c);
      if (dug == wanted) ++matched;
      if (wanted && !dug) ++missing;
      if (!wanted && dug) ++extra;
    }
  }
  const BinaryMap replayed = replay_trench(p.goal.rows, p.goal.cols, p.plan.start, p.plan.actions);
  return {{"cells_matching_goal", matched},
          {"goal_cells_not_dug", missing},
          {"cells_dug_outside_goal", extra},
          {"heightmap_matches_goal", missing == 0 && extra == 0},
          {"binary_replay_matches_goal", replayed == p.goal}};
}

nlohmann::json planner_summary(const TrenchPlanSetup& p) {
  nlohmann::json path = nlohmann::json::array();
  for (const GridCell& c : p.plan.cells) path.push_back({c.row, c.col});
  std::string actions;
  for (const TrenchAction a : p.plan.actions) actions += to_string(a)[0];
  return {{"goal", p.goal_name},
          {"goal_map", p.goal.to_rows()},
          {"heuristic",
           p.options.heuristic == TrenchHeuristic::PathCover ? "path_cover" : "cells_remaining"},
          {"alpha", p.options.alpha},
          {"steps", p.plan.steps},
          {"nodes_expanded", p.plan.nodes_expanded},
          {"nodes_generated", p.plan.nodes_generated},
          {"planning_wall_s", p.planning_wall_s},
          {"start", {p.plan.start.row, p.plan.start.col}},
          {"actions", actions},
          {"path", path}};
}

void write_heightmap_images(OutputDir& out, const ShapingScenario& sc,
                            const HeightmapState& state) {
  const HeightmapModel& m = sc.model.heightmap;
  HeightmapImageOptions opt;
  opt.title = fmt::format("{}: final sand surface ({} x {} cells of {:g} mm)", sc.name, m.nx, m.ny,
                          m.cell_size_m * 1e3);
  if (sc.planner) {
    // The planned blade path, in grid-cell coordinates of the heightmap.
    HeightmapPolyline line;
    for (const GridCell& c : sc.planner->plan.cells) {
      const Vec2 p = sc.planner->placement.cell_center(c);
      line.points_ij.push_back({m.u(p.x()), m.v(p.y())});
    }
    opt.polylines.push_back(line);
    const auto& first = line.points_ij.front();
    opt.markers.push_back({first[0], first[1], Rgb{255, 255, 255}, 6, "start"});
  }
  write_png(out.path("heightmap_final.png"),
            render_heightmap(state.height_m.data(), m.nx, m.ny, m.cell_size_m, opt));
  write_npy(out.path("heightmap_final.npy"), state.height_m,
            {static_cast<std::size_t>(m.ny), static_cast<std::size_t>(m.nx)});
}

// What `talus view` plays of a shaping run: the sand surface and the tools (docs/viewer.md).
class ShapingViewRecord {
 public:
  ShapingViewRecord(const ShapingScenario& sc, OutputDir& out)
      : sc_(sc), recording_(sc.steps, sc.view.frames) {
    if (!recording_.on()) return;
    const HeightmapModel& hm = sc.model.heightmap;
    sampling_ = view_heightmap_sampling(hm.nx, hm.ny, hm.cell_size_m, hm.x0_m, hm.y0_m);
    ViewLayout layout = view_layout_head("shaping", sc.name, sc.description);
    layout.heightmap = sampling_.grid;
    const double plane_size_m = std::max(hm.nx, hm.ny) * hm.cell_size_m;
    for (const ShapingTool& tool : sc.model.tools) {
      layout.bodies.push_back(
          ViewBody{tool.name, {0.75, 0.45, 0.2}, view_shape(tool.shape, plane_size_m)});
    }
    recording_.start(out, std::move(layout));
  }

  void sample(const ShapingState& state) {
    if (!recording_.due(state.step)) return;
    sample_heightmap(state.heightmap.height_m, sc_.model.heightmap.nx, sampling_, heights_m_);
    poses_.clear();
    for (const ShapingTool& tool : sc_.model.tools) {
      poses_.push_back(pose_at(tool.driver, state.time_s));
    }
    recording_.recorder().add_frame(
        ViewFrame{state.time_s, {}, {}, {}, {}, {}, {}, heights_m_, poses_});
  }

  std::size_t finish(const OutputDir& out) {
    recording_.finish(out);
    return recording_.frame_count();
  }

 private:
  const ShapingScenario& sc_;
  ViewRecording recording_;
  ViewHeightmapSampling sampling_;
  std::vector<double> heights_m_;
  std::vector<Pose> poses_;
};

}  // namespace

nlohmann::json run_shaping_scenario(const ShapingScenario& sc, OutputDir& out,
                                    const RunProgress& progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  const HeightmapModel& hm = sc.model.heightmap;
  ShapingState state = ShapingState::initial(sc.model, sc.initial);
  ShapingWorkspace work;
  const double volume_initial = sand_volume_m3(hm, state.heightmap);

  CsvWriter log(out.path("steps.csv"),
                {"step", "time_s", "displaced_volume_m3", "cells_in_contact", "erosion_updates",
                 "erosion_converged", "max_repose_excess_m", "sand_volume_m3"});
  long total_updates = 0;
  int max_updates = 0;
  bool all_converged = true;
  double displaced_total = 0.0;
  ShapingViewRecord view(sc, out);
  view.sample(state);
  for (long k = 0; k < sc.steps; ++k) {
    const ShapingStepReport r = step(sc.model, state, work);
    total_updates += r.erosion_updates;
    max_updates = std::max(max_updates, r.erosion_updates);
    all_converged = all_converged && r.erosion_converged;
    displaced_total += r.displaced_volume_m3;
    log.write_row({static_cast<double>(state.step), state.time_s, r.displaced_volume_m3,
                   static_cast<double>(r.cells_in_contact), static_cast<double>(r.erosion_updates),
                   r.erosion_converged ? 1.0 : 0.0, r.max_repose_excess_m,
                   sand_volume_m3(hm, state.heightmap)});
    view.sample(state);
    if (progress) progress(k + 1, sc.steps, state.time_s);
  }
  const double volume_final = sand_volume_m3(hm, state.heightmap);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  const CrossSection cs = take_cross_section(sc, state.heightmap);
  write_cross_section(out, cs, sc.name);
  write_heightmap_images(out, sc, state.heightmap);

  nlohmann::json summary = {
      {"scenario", sc.name},
      {"tier", "shaping"},
      {"file", sc.file.string()},
      {"description", sc.description},
      {"grid", {{"nx", hm.nx}, {"ny", hm.ny}, {"cell_size_m", hm.cell_size_m}}},
      {"repose_angle_deg", rad_to_deg(hm.erosion.repose_angle_rad)},
      {"flow_rate", effective_flow_rate(hm.erosion)},
      {"steps", sc.steps},
      {"time_step_s", sc.model.time_step_s},
      {"simulated_time_s", state.time_s},
      {"wall_time_s", wall_s},
      {"sand_volume_initial_m3", volume_initial},
      {"sand_volume_final_m3", volume_final},
      {"volume_relative_error", std::abs(volume_final - volume_initial) / volume_initial},
      {"displaced_volume_total_m3", displaced_total},
      {"erosion_updates_total", total_updates},
      {"erosion_updates_mean_per_step",
       static_cast<double>(total_updates) / static_cast<double>(sc.steps)},
      {"erosion_updates_max_per_step", max_updates},
      {"erosion_all_converged", all_converged},
      {"max_repose_excess_final_m",
       max_repose_excess(hm, hm.erosion, state.heightmap.height_m, state.heightmap.blocked)},
      {"cross_section", trench_metrics(cs, sc.initial_height_m, hm.cell_size_m)},
  };
  if (sc.planner) {
    summary["planner"] = planner_summary(*sc.planner);
    summary["trench_check"] = check_trench_on_heightmap(sc, state.heightmap);
  }
  log.close();
  summary["view_frames"] = view.finish(out);
  write_json(out.path("summary.json"), summary);
  return summary;
}

}  // namespace talus::shaping
