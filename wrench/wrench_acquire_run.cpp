// kind = "acquire": a wrench-space database measured in the particle tier (paper 000 §III-B).
// The bed settles once; every run of the grid starts from a copy of it (runs are independent, so
// they run in parallel, one thread each, and the database does not depend on the thread count).
//
//   [path]  duration_s (0.5), insertion_speed_m_per_s (0.2), clearance_m (0.005),
//           filter_window_s (0.1)
//   [grid]  depths_m, tilts_rad, directions (26 | 58), velocity_scale [v_x, v_z, omega_y],
//           use_symmetry (true), depth_at ("bottom_centre", the paper's; or "lowest_point":
//           depths of the foot's lowest point, for tilts up to a foot on its side)
//   [run]   threads (0: OpenMP's default): runs measured at once
//
// Outputs: database.h5 (the layout of docs/wrench_space.md §4), runs.csv (one row per entry),
// wrench_sets.png (f_x against f_z of the m wrenches per depth at tilt 0), traces.png (three runs'
// wrenches over time with the filter window), summary.json (concavity per configuration, 5-fold
// cross validation of the thin-plate spline against a quadratic fit, counts and timings).

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>

#include "core/csv_writer.hpp"
#include "core/image.hpp"
#include "core/json_file.hpp"
#include "core/plot.hpp"
#include "core/steps.hpp"
#include "wrench/acquisition_tables.hpp"
#include "wrench/database_plots.hpp"
#include "wrench/velocity_directions.hpp"
#include "wrench/wrench_scenario_kinds.hpp"
#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {

namespace {

// A depth or tilt listed twice measures the same configuration twice, and the database refuses
// repeated configurations: refused here, before the bed settles, rather than after every run.
void refuse_repeated_value(const ScenarioTable& grid, const std::string& key,
                           const std::vector<double>& values) {
  for (std::size_t j = 1; j < values.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      if (values[i] == values[j]) {
        grid.fail(key, fmt::format("{:g} is listed twice (values {} and {}); expected distinct "
                                   "values, each a configuration of the database",
                                   values[j], i + 1, j + 1));
      }
    }
  }
}

struct AcquireScenario {
  std::string name;
  std::string description;
  BedSetup bed;
  FootPath path;
  AcquisitionSpec spec;
  int threads = 0;
};

AcquireScenario load_acquire(const ScenarioTable& root) {
  AcquireScenario sc;
  const ScenarioHead head = read_wrench_head(root, {"acquire"});
  sc.name = head.name;
  sc.description = head.description;

  sc.bed = read_bed_setup(root);
  read_foot(root.table("foot"), sc.bed.model, sc.path);

  const ScenarioTable path = root.table("path");
  sc.path.duration_s = path.number_or("duration_s", sc.path.duration_s, positive("[s]"));
  sc.path.insertion_speed_m_per_s =
      path.number_or("insertion_speed_m_per_s", sc.path.insertion_speed_m_per_s, positive("[m/s]"));
  sc.path.clearance_m = path.number_or("clearance_m", sc.path.clearance_m, non_negative("[m]"));
  sc.path.filter_window_s =
      path.number_or("filter_window_s", sc.path.filter_window_s, positive("[s]"));
  path.refuse_unknown_keys();
  try {
    validate(sc.path);
  } catch (const std::invalid_argument& e) {
    // The keys' own checks ran above: what is left is the filter window against the duration.
    const std::string what = e.what();
    path.fail(what.find("filter_window_s") != std::string::npos ? "filter_window_s" : "", what);
  }

  const ScenarioTable grid = root.table("grid");
  sc.spec.depths_m = grid.numbers("depths_m", 0, in_closed_range(-10.0, 0.0, "[m]"));
  sc.spec.tilts_rad = grid.numbers("tilts_rad", 0, in_closed_range(-1.5708, 1.5708, "[rad]"));
  refuse_repeated_value(grid, "depths_m", sc.spec.depths_m);
  refuse_repeated_value(grid, "tilts_rad", sc.spec.tilts_rad);
  const int m = grid.integer("directions", 26, 58);
  if (m != 26 && m != 58) grid.fail("directions", fmt::format("{}: expected 26 or 58", m));
  sc.spec.velocity_directions = velocity_directions(m);
  const Vec3 scale = grid.vec3("velocity_scale", positive("[m/s, m/s, rad/s]"));
  sc.spec.velocity_scale.resize(3);
  for (int a = 0; a < 3; ++a) sc.spec.velocity_scale[a] = scale[a];
  sc.spec.use_symmetry = grid.boolean_or("use_symmetry", true);
  // choice_or refuses any other name, so the parse always succeeds.
  sc.spec.depth_reference = *parse_depth_reference(
      grid.choice_or("depth_at", "bottom_centre", {"bottom_centre", "lowest_point"}));
  sc.spec.foot_radius_m = sc.path.foot_radius_m;
  grid.refuse_unknown_keys();
  sc.spec.reference_point_m = Eigen::Vector3d(0.0, 0.0, sc.path.reference_height_m);
  sc.spec.medium = sc.bed.medium;
  if (const auto run = root.optional_table("run")) {
    sc.threads = run->integer_or("threads", 0, 0, 256);
    run->refuse_unknown_keys();
  }
  root.refuse_unknown_keys();
  // Every planned run stays inside the container (issue 16: a foot wider than the box passed
  // check and failed the run after the bed settled). The surface height does not move the foot
  // sideways; the bed's fill top stands in for the settled surface.
  const double surface_z = sc.bed.initial.size() > 0 ? *std::max_element(sc.bed.initial.z_m.begin(),
                                                                         sc.bed.initial.z_m.end())
                                                     : 0.0;
  for (const AcquisitionRun& run : planned_runs(sc.spec)) {
    try {
      check_run_inside_walls(sc.bed.model.container, sc.path, run, surface_z,
                             sc.bed.model.time_step_s);
    } catch (const std::invalid_argument& e) {
      // Which run reaches the wall depends on [foot], [path], [container] and the configuration
      // together; the message names the run's depth and tilt, listed in [grid].
      root.table("grid").fail("", std::string(e.what()) +
                                      " (the run's depth and tilt are [grid] depths_m and "
                                      "tilts_rad; the foot's size and place are [foot])");
    }
  }
  return sc;
}

// Index of the direction closest to `target` (unit, 3 components).
int closest_direction(const Eigen::MatrixXd& directions, const Eigen::Vector3d& target) {
  int best = 0;
  for (int i = 1; i < directions.rows(); ++i) {
    if (directions.row(i).dot(target) > directions.row(best).dot(target)) best = i;
  }
  return best;
}

// The measured sets at the database's tilt nearest 0 (a part of a sweep split by tilt may have
// no tilt 0: its picture at 0 was empty).
void plot_wrench_sets(OutputDir& out, const AcquireScenario& sc, const WrenchDatabase& db) {
  double tilt = db.configurations(0, 1);
  for (Eigen::Index j = 1; j < db.configurations.rows(); ++j) {
    if (std::abs(db.configurations(j, 1)) < std::abs(tilt)) tilt = db.configurations(j, 1);
  }
  write_png(out.path("wrench_sets.png"),
            plot_wrench_sets_by_depth(
                db, tilt,
                fmt::format("{}: measured wrenches at tilt {:g} rad (f_x, f_z)", sc.name, tilt)));
}

void plot_traces(OutputDir& out, const AcquireScenario& sc,
                 const std::vector<std::pair<std::string, AcquisitionTrace>>& traces) {
  const char* component[3] = {"f_x [N]", "f_z [N]", "tau_y [N m]"};
  RgbImage sheet;
  std::vector<RgbImage> panels;
  for (int c = 0; c < 3; ++c) {
    PlotSpec plot;
    plot.title = c == 0 ? fmt::format("{}: deepest runs at tilt 0 (dots: readings)", sc.name) : "";
    plot.x_label = "time along the path [s]";
    plot.y_label = component[c];
    plot.height_px = 330;
    plot.width_px = 900;
    int k = 0;
    for (const auto& [name, tr] : traces) {
      PlotSeries s;
      s.name = name;
      s.colour = series_colour(k);
      s.line_width_px = 1;
      for (std::size_t i = 0; i < tr.t_s.size(); ++i) {
        s.x.push_back(tr.t_s[i]);
        s.y.push_back(tr.wrench[i][c]);
      }
      plot.series.push_back(s);
      PlotSeries reading;
      reading.colour = series_colour(k);
      reading.markers = true;
      reading.x = {tr.target_time_s};
      reading.y = {tr.filtered[c]};
      plot.series.push_back(reading);
      ++k;
    }
    panels.push_back(plot_lines(plot));
  }
  write_png(out.path("traces.png"), stack_vertically(panels));
}

}  // namespace

nlohmann::json check_acquire(const ScenarioTable& root) {
  const AcquireScenario sc = load_acquire(root);
  const long runs = static_cast<long>(planned_runs(sc.spec).size());
  const long per_run = steps_for(sc.path.duration_s, sc.bed.model.time_step_s);
  return {{"tier", "wrench"},
          {"name", sc.name},
          {"steps", sc.bed.settle.max_steps + runs * per_run},
          {"view", false}};  // tables and pictures of the database, no frames
}

nlohmann::json run_acquire(const ScenarioTable& root, OutputDir& out, const RunProgress& progress) {
  using Clock = std::chrono::steady_clock;
  const AcquireScenario sc = load_acquire(root);
  const auto t0 = Clock::now();
  // Progress in check_acquire's steps: the settling's, then each measured run's path (the runs
  // are counted as they finish; progress counted runs, with the time at 0, after the settling's
  // own count).
  const std::vector<AcquisitionRun> plan = planned_runs(sc.spec);
  const long per_run = steps_for(sc.path.duration_s, sc.bed.model.time_step_s);
  const long total = sc.bed.settle.max_steps + static_cast<long>(plan.size()) * per_run;
  const SettledBed bed = settle_bed(sc.bed, [&](long k, long, double t) {
    if (progress) progress(k, total, t);
  });
  const double settle_s = std::chrono::duration<double>(Clock::now() - t0).count();

  // Every planned run, in parallel; the database is assembled from the results in plan order.
  std::vector<Eigen::VectorXd> measured(plan.size());
  SettledBed serial_bed = bed;
  serial_bed.model.threads = 1;
  const int deepest = [&] {
    int j = 0;
    for (std::size_t k = 0; k < sc.spec.depths_m.size(); ++k) {
      if (sc.spec.depths_m[k] < sc.spec.depths_m[static_cast<std::size_t>(j)])
        j = static_cast<int>(k);
    }
    return j;
  }();
  const Eigen::MatrixXd& dirs = sc.spec.velocity_directions;
  const std::vector<std::pair<std::string, int>> traced = {
      {"pressed down (-z)", closest_direction(dirs, Eigen::Vector3d(0, -1, 0))},
      {"dragged +x", closest_direction(dirs, Eigen::Vector3d(1, 0, 0))},
      {"turned +omega_y", closest_direction(dirs, Eigen::Vector3d(0, 0, 1))}};
  std::vector<std::pair<std::string, AcquisitionTrace>> traces(traced.size());
  std::exception_ptr failure;
  std::atomic<bool> failed{false};  // the other runs are skipped once one failed or was stopped
  std::mutex lock;
  long done = 0;
  const int threads = sc.threads > 0 ? sc.threads : omp_get_max_threads();
  const auto runs_start = Clock::now();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::size_t k = 0; k < plan.size(); ++k) {
    if (failed.load()) continue;
    try {
      const AcquisitionRun& run = plan[k];
      AcquisitionTrace trace;
      int slot = -1;
      const bool tilt_zero = run.tilt_rad == 0.0;
      for (std::size_t s = 0; s < traced.size(); ++s) {
        if (tilt_zero && run.depth_m == sc.spec.depths_m[static_cast<std::size_t>(deepest)] &&
            run.direction == traced[s].second) {
          slot = static_cast<int>(s);
        }
      }
      measured[k] = measure_in_particles(serial_bed, sc.path, run, slot >= 0 ? &trace : nullptr);
      const std::lock_guard<std::mutex> guard(lock);
      if (slot >= 0)
        traces[static_cast<std::size_t>(slot)] = {traced[static_cast<std::size_t>(slot)].first,
                                                  trace};
      ++done;
      // Simulated time: the runs' paths measured so far, one after another.
      if (progress) {
        progress(sc.bed.settle.max_steps + done * per_run, total,
                 static_cast<double>(done * per_run) * sc.bed.model.time_step_s);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> guard(lock);
      if (!failure) failure = std::current_exception();
      failed.store(true);
    }
  }
  if (failure) std::rethrow_exception(failure);
  const double runs_s = std::chrono::duration<double>(Clock::now() - runs_start).count();

  std::size_t next = 0;
  const WrenchDatabase db =
      acquire_database(sc.spec, [&](const AcquisitionRun&) { return measured.at(next++); });
  save_database(db, out.path("database.h5"));

  CsvWriter csv(out.path("runs.csv"),
                {"depth_m", "tilt_rad", "direction", "v_x_m_per_s", "v_z_m_per_s",
                 "omega_y_rad_per_s", "f_x_N", "f_z_N", "tau_y_N_m"});
  for (int j = 0; j < db.configuration_count(); ++j) {
    for (int i = 0; i < db.direction_count(); ++i) {
      const Eigen::VectorXd v =
          db.velocity_directions.row(i).transpose().cwiseProduct(db.velocity_scale);
      csv.write_row({db.configurations(j, 0), db.configurations(j, 1), static_cast<double>(i), v[0],
                     v[1], v[2], db.wrenches[j](i, 0), db.wrenches[j](i, 1), db.wrenches[j](i, 2)});
    }
  }
  csv.close();
  plot_wrench_sets(out, sc, db);
  std::vector<std::pair<std::string, AcquisitionTrace>> drawn;
  for (auto& t : traces) {
    if (!t.second.t_s.empty()) drawn.push_back(t);
  }
  if (!drawn.empty()) plot_traces(out, sc, drawn);

  nlohmann::json summary = {
      {"scenario", sc.name},
      {"description", sc.description},
      {"tier", "wrench"},
      {"kind", "acquire"},
      {"medium",
       {{"name", db.medium.name},
        {"grain_radius_m", db.medium.grain_radius_m},
        {"density_kg_m3", db.medium.density_kg_m3},
        {"friction", db.medium.friction},
        {"source", db.medium.source}}},
      {"particles", bed.state.size()},
      {"settle_steps", bed.settle_steps},
      {"surface_z_m", bed.surface_z_m},
      {"configurations", db.configuration_count()},
      {"depth_at", depth_reference_name(db.depth_reference)},
      {"directions", db.direction_count()},
      {"runs", plan.size()},
      {"runs_saved_by_zero_depth_and_symmetry",
       db.configuration_count() * db.direction_count() - static_cast<long>(plan.size())},
      {"settle_wall_s", settle_s},
      {"runs_wall_s", runs_s},
      {"threads", threads},
      {"database", "database.h5"}};
  summary.update(database_quality(db));
  write_json(out.path("summary.json"), summary);
  return summary;
}

}  // namespace talus::wrench
