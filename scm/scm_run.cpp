// Running an SCM scenario to its outputs: one function per experiment, writing summary.json, CSV
// logs and PNG pictures (docs/scm.md lists them).

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>

#include "core/colormap.hpp"
#include "core/csv_writer.hpp"
#include "core/driver.hpp"
#include "core/image.hpp"
#include "core/json_file.hpp"
#include "core/npy.hpp"
#include "core/output_dir.hpp"
#include "core/plot.hpp"
#include "core/run_warning.hpp"
#include "core/units.hpp"
#include "core/view_recorder.hpp"
#include "core/view_shapes.hpp"
#include "scm/scm_scenario.hpp"
#include "scm/soil_at_edge.hpp"
#include "scm/wong_reece.hpp"

namespace talus::scm {

ScmModel scenario_model(const ScmScenario& sc) {
  ScmModel m = sc.model;
  if (sc.experiment == Experiment::Blade) {
    m.bodies = {CoupledBody{sc.blade.name, sc.blade.shape, Vec3::Zero()}};
    validate(m);
  }
  return m;
}

namespace {

PlotSeries series(std::string name, std::vector<double> x, std::vector<double> y,
                  bool markers = false) {
  PlotSeries p;
  p.name = std::move(name);
  p.x = std::move(x);
  p.y = std::move(y);
  p.markers = markers;
  return p;
}

int node_i(const ScmModel& m, double x) { return std::clamp(m.nearest_i(x), 0, m.nx - 1); }
int node_j(const ScmModel& m, double y) { return std::clamp(m.nearest_j(y), 0, m.ny - 1); }

// The nodes from the one nearest (x_lo, y_lo) to the one nearest (x_hi, y_hi), with `pad` more
// on every side (not yet cut to the map).
IndexBox nodes_around(const ScmModel& m, double x_lo, double y_lo, double x_hi, double y_hi,
                      int pad) {
  return grown({node_i(m, x_lo), node_j(m, y_lo), node_i(m, x_hi) + 1, node_j(m, y_hi) + 1}, pad);
}

// `box` grown to take in every node whose surface moved by more than 0.1 mm, with `pad` nodes
// around them. The flow fields deposit soil up to their reach (0.4 m at the defaults) from the
// body: a picture cropped around the body alone cut those berms off at its edge.
IndexBox with_moved_nodes(const ScmState& s, const IndexBox& box, int pad) {
  const IndexBox moved = s.moved_nodes(1e-4);
  return moved.empty() ? box : united(box, grown(moved, pad));
}

// A dense export of the nodes of `box` that lie on the map.
NodeBlock export_region(const ScmModel& m, const ScmState& s, const IndexBox& box) {
  const IndexBox on_map = m.clamped(box);
  NodeBlock b;
  b.resize(on_map.i0, on_map.j0, on_map.width(), on_map.height());
  s.gather(b);
  return b;
}

void write_heightmap(OutputDir& out, const std::string& stem, const ScmModel& m, const NodeBlock& b,
                     const std::string& title) {
  HeightmapImageOptions o;
  o.title = title;
  write_png(out.path(stem + ".png"),
            render_heightmap(b.height_m.data(), b.nx, b.ny, m.cell_size_m, o));
  write_npy(out.path(stem + ".npy"), b.height_m,
            {static_cast<std::size_t>(b.ny), static_cast<std::size_t>(b.nx)});
}

nlohmann::json model_summary(const ScmScenario& sc) {
  const ScmModel& m = sc.model;
  const SoilParameters& s = m.soil;
  return {{"grid", {{"nx", m.nx}, {"ny", m.ny}, {"cell_size_m", m.cell_size_m}}},
          {"method", flow_method_name(m.method)},
          {"time_step_s", m.time_step_s},
          {"soil",
           {{"kc", s.kc},
            {"kphi", s.kphi},
            {"contact_width_m", s.contact_width_m},
            {"n", s.exponent_n},
            {"cohesion_pa", s.cohesion_pa},
            {"friction_angle_deg", rad_to_deg(s.friction_angle_rad)},
            {"janosi_k_m", s.janosi_shear_modulus_m},
            {"repose_angle_deg", rad_to_deg(s.repose_angle_rad)},
            {"shear_band_m", s.shear_band_m}}}};
}

nlohmann::json storage_summary(const ScmState& s) {
  return {{"tiles", s.tile_count()},
          {"tile_bytes", s.tile_bytes()},
          {"bytes_per_touched_node", bytes_per_node()},
          {"allocated_nodes", s.allocated_nodes()}};
}

// ---- plate sinkage and strip load

// What `talus view` plays of a blade or wheel run: the soil surface (every node up to 400 a
// side, core/view_recorder.hpp) and the body (docs/viewer.md).
class ScmViewRecord {
 public:
  ScmViewRecord(const ScmScenario& sc, OutputDir& out, const std::string& body_name,
                const Shape& body_shape)
      : sc_(sc), recording_(sc.steps, sc.view.frames) {
    if (!recording_.on()) return;
    const ScmModel& m = sc.model;
    sampling_ = view_heightmap_sampling(m.nx, m.ny, m.cell_size_m, m.x0_m, m.y0_m);
    ViewLayout layout = view_layout_head("scm", sc.name, sc.description);
    layout.heightmap = sampling_.grid;
    layout.bodies.push_back(ViewBody{body_name, {0.75, 0.45, 0.2}, view_shape(body_shape, 1.0)});
    recording_.start(out, std::move(layout));
  }

  /// Records the state after the run's `step`-th step (counted from 1 over the whole run) with
  /// the body at X_WB: the first step, every few after it, and the last (the rigs hand no state
  /// before their first step).
  void sample(const ScmState& state, long step, const Pose& X_WB) {
    if (!recording_.due(step - 1) && !(recording_.on() && step == sc_.steps)) return;
    block_.resize(0, 0, sc_.model.nx, sc_.model.ny);
    state.gather(block_, kHeight);
    sample_heightmap(block_.height_m, sc_.model.nx, sampling_, heights_m_);
    const Pose poses[1] = {X_WB};
    recording_.recorder().add_frame(
        ViewFrame{state.time_s, {}, {}, {}, {}, {}, {}, heights_m_, poses});
  }

  void finish(const OutputDir& out) { recording_.finish(out); }

 private:
  const ScmScenario& sc_;
  ViewRecording recording_;
  ViewHeightmapSampling sampling_;
  NodeBlock block_;
  std::vector<double> heights_m_;
};

// The run's soil at the grid's edge, recorded in its summary `j` (scm/soil_at_edge.hpp).
void record_edge(const ScmScenario& sc, double change_m, nlohmann::json& j) {
  record_soil_at_edge(sc.file, sc.grid_extent_keys, sc.model, change_m, j);
}

nlohmann::json run_plate_like(const ScmScenario& sc, OutputDir& out, const RunProgress& progress) {
  const ScmModel& m = sc.model;
  ScmState final_state(m);
  const PlateResult r = run_plate(m, sc.plate, &final_state);
  if (progress) progress(r.steps, r.steps, 0.0);
  CsvWriter csv(out.path("plate.csv"), {"time_s", "load_n", "soil_force_n", "sinkage_m"});
  for (std::size_t k = 0; k < r.time_s.size(); ++k) {
    csv.write_row({r.time_s[k], r.load_n[k], r.soil_force_n[k], r.sinkage_m[k]});
  }
  csv.close();
  PlotSpec p;
  p.title = sc.name + ": sinkage under the ramped load";
  p.x_label = "time [s]";
  p.y_label = "sinkage [mm]";
  std::vector<double> z_mm, bekker;
  for (double z : r.sinkage_m) z_mm.push_back(1e3 * z);
  bekker.assign(r.time_s.size(), 1e3 * r.bekker_sinkage_m);
  p.series = {series("SCM", r.time_s, z_mm), series("Bekker closed form", r.time_s, bekker)};
  write_png(out.path("sinkage.png"), plot_lines(p));

  const Vec2 c = sc.plate.centre_xy_m;
  const Vec3 h = sc.plate.half_extents_m;
  const int pad = 8;
  const NodeBlock b = export_region(
      m, final_state,
      with_moved_nodes(
          final_state,
          nodes_around(m, c.x() - h.x(), c.y() - h.y(), c.x() + h.x(), c.y() + h.y(), pad), 2));
  write_heightmap(out, "heightmap_final", m, b,
                  sc.name + ": surface under the load at the end of the hold");

  nlohmann::json j = {
      {"sinkage_m", r.final_sinkage_m},
      {"bekker_closed_form_sinkage_m", r.bekker_sinkage_m},
      {"ratio_scm_to_bekker", r.final_sinkage_m / r.bekker_sinkage_m},
      {"bekker_formula", "z = (W / (A (kc / b + kphi)))^(1/n), b = smaller plate side"},
      {"load_n", sc.plate.load_n},
      {"plate_area_m2", 4.0 * h.x() * h.y()},
      {"contact_area_m2", r.contact_area_m2},
      {"steps", r.steps}};
  if (!r.stopped.empty()) j["stopped"] = r.stopped;
  // The sinkage is the plate's equilibrium only once the soil carries the load: a hold too short
  // for the rig reported a sinkage still rising (strip_load: 84 % of Bekker's, at 82 % of the
  // load).
  const double carried = r.soil_force_n.empty() ? 0.0 : r.soil_force_n.back() / sc.plate.load_n;
  j["load_carried_fraction"] = carried;
  if (r.stopped.empty() && !(carried >= 0.99)) {
    const std::string warning = fmt::format(
        "{}: the soil carries {:.1f} % of the {:g} N load at the end of the hold: the plate is "
        "still sinking and sinkage_m is not its equilibrium; a longer [experiment] hold_s "
        "lets it settle",
        sc.file.string(), 100.0 * carried, sc.plate.load_n);
    add_run_warning(j, warning);
  }
  record_edge(sc, final_state.largest_change_at_edge_m(), j);
  if (sc.experiment == Experiment::StripLoad) {
    // Cross-section across the strip (along x) through its middle: surface and the flow depth.
    const int jc = node_j(m, c.y());
    const NodeBlock s = export_region(m, final_state, {0, jc, m.nx, jc + 1});
    CsvWriter sec(out.path("section.csv"), {"x_m", "height_m", "flow_depth_m"});
    std::vector<double> x, surf, bottom;
    for (int i = 0; i < s.nx; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      sec.write_row({m.x(i), s.height_m[k], s.flow_depth_m[k]});
      x.push_back(m.x(i));
      surf.push_back(1e3 * s.height_m[k]);
      bottom.push_back(1e3 * (s.height_m[k] - s.flow_depth_m[k]));
    }
    sec.close();
    PlotSpec q;
    q.title = sc.name + ": flow depth under the strip";
    q.x_label = "x [m]";
    q.y_label = "z [mm]";
    q.series = {series("surface", x, surf), series("surface - flow depth", x, bottom)};
    write_png(out.path("section.png"), plot_lines(q));
  }
  return j;
}

// ---- wheels

void write_wheel_csv(OutputDir& out, const std::string& file, const WheelResult& r) {
  CsvWriter csv(out.path(file),
                {"time_s", "x_m", "sinkage_m", "drawbar_pull_n", "torque_nm", "vertical_force_n",
                 "nodes_in_contact", "displaced_m3", "deposited_m3"});
  for (const WheelSample& s : r.samples) {
    csv.write_row({s.time_s, s.x_m, s.sinkage_m, s.drawbar_pull_n, s.torque_nm, s.vertical_force_n,
                   static_cast<double>(s.nodes_in_contact), s.displaced_m3, s.deposited_m3});
  }
  csv.close();
}

void plot_wheel_history(OutputDir& out, const std::string& file, const std::string& title,
                        const std::vector<const WheelResult*>& runs,
                        const std::vector<std::string>& names) {
  PlotSpec p;
  p.title = title;
  p.x_label = "time [s]";
  p.y_label = "N, N m, mm";
  for (std::size_t k = 0; k < runs.size(); ++k) {
    std::vector<double> t, dp, tq, z;
    for (const WheelSample& s : runs[k]->samples) {
      t.push_back(s.time_s);
      dp.push_back(s.drawbar_pull_n);
      tq.push_back(s.torque_nm);
      z.push_back(1e3 * s.sinkage_m);
    }
    p.series.push_back(series(names[k] + " drawbar pull [N]", t, dp));
    p.series.push_back(series(names[k] + " torque [N m]", t, tq));
    p.series.push_back(series(names[k] + " sinkage [mm]", t, z));
  }
  write_png(out.path(file), plot_lines(p));
}

nlohmann::json wheel_json(const WheelResult& r) {
  return {{"mean_drawbar_pull_n", r.mean_drawbar_pull_n},
          {"mean_torque_nm", r.mean_torque_nm},
          {"mean_sinkage_m", r.mean_sinkage_m},
          {"max_step_volume_error_m3", r.max_volume_error_m3},
          {"steps", r.steps}};
}

// Flow depth and flow velocity along the wheel's centre line (paper 002 Fig. 10) at the end.
void write_centre_line(OutputDir& out, const ScmScenario& sc, const ScmState& state,
                       const WheelSample& last) {
  const ScmModel& m = sc.model;
  const WheelTest& w = sc.wheel;
  const double y = w.start_xy_m.y();
  const NodeBlock b = export_region(
      m, state, nodes_around(m, last.x_m - 3.0 * w.radius_m, y, last.x_m + 2.0 * w.radius_m, y, 0));
  const double axle_z = -last.sinkage_m + w.radius_m;  // surface level 0 at the start
  CsvWriter csv(out.path("centre_line.csv"),
                {"x_m", "height_m", "flow_depth_m", "flow_vx_m_per_s", "flow_vz_m_per_s",
                 "wheel_bottom_m", "plastic_sinkage_m"});
  std::vector<double> x, surf, bottom, wheel, vx, vz;
  for (int i = 0; i < b.nx; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    const double xi = m.x(b.i0 + i);
    const double dx = xi - last.x_m;
    const double wb = std::abs(dx) < w.radius_m
                          ? axle_z - std::sqrt(w.radius_m * w.radius_m - dx * dx)
                          : std::nan("");
    csv.write_row({xi, b.height_m[k], b.flow_depth_m[k], b.flow_vx[k], b.flow_vz[k], wb,
                   b.plastic_sinkage_m[k]});
    x.push_back(xi);
    surf.push_back(1e3 * b.height_m[k]);
    bottom.push_back(1e3 * (b.height_m[k] - b.flow_depth_m[k]));
    wheel.push_back(1e3 * wb);
    vx.push_back(b.flow_vx[k]);
    vz.push_back(b.flow_vz[k]);
  }
  csv.close();
  PlotSpec p;
  p.title = sc.name + ": flow depth along the centre line";
  p.x_label = "x [m]";
  p.y_label = "z [mm]";
  p.series = {series("surface", x, surf), series("surface - flow depth", x, bottom),
              series("wheel rim", x, wheel)};
  // Down to the deepest flow (the fields reach far below the rut; the border path's flow depth is
  // the shear band), up to 40 mm above the surface for the rim.
  double deepest_mm = -60.0;
  for (const double z : bottom) {
    if (std::isfinite(z)) deepest_mm = std::min(deepest_mm, z);
  }
  p.y_min = 20.0 * std::floor(deepest_mm / 20.0 - 0.25);
  p.y_max = 40.0;
  write_png(out.path("centre_line_flow_depth.png"), plot_lines(p));
  PlotSpec q;
  q.title = sc.name + ": flow velocity along the centre line";
  q.x_label = "x [m]";
  q.y_label = "flow velocity [m/s]";
  q.series = {series("v_x", x, vx), series("v_z", x, vz)};
  write_png(out.path("centre_line_flow_velocity.png"), plot_lines(q));
}

// One panel of a plot against slip: each run's values (markers, one colour each) and
// Wong-Reece's on the same wheel and soil (a thin grey line).
RgbImage slip_panel(const std::string& title, const std::string& y_label,
                    const std::vector<std::string>& names,
                    const std::vector<const std::vector<double>*>& slips,
                    const std::vector<const std::vector<double>*>& values,
                    const std::vector<double>& wong_reece) {
  const Rgb colours[2] = {Rgb{31, 119, 180}, Rgb{214, 39, 40}};
  PlotSpec p;
  p.title = title;
  p.x_label = "slip [-]";
  p.y_label = y_label;
  p.width_px = 800;
  p.height_px = 400;
  for (std::size_t k = 0; k < names.size(); ++k) {
    p.series.push_back(series(names[k], *slips[k], *values[k], true));
    p.series.back().colour = colours[k % 2];
  }
  p.series.push_back(series("Wong-Reece", *slips[0], wong_reece));
  p.series.back().colour = Rgb{120, 120, 120};
  p.series.back().line_width_px = 1;
  return plot_lines(p);
}

// slip_sweep with compare_method: sinkage and drawbar pull against slip for both deformation
// methods (markers) over Wong-Reece's (thin line), one panel each.
void plot_methods_side_by_side(OutputDir& out, const std::string& name,
                               const std::array<std::string, 2>& methods,
                               const std::array<std::vector<double>, 2>& slip,
                               const std::array<std::vector<double>, 2>& sinkage_mm,
                               const std::array<std::vector<double>, 2>& drawbar_pull_n,
                               const std::vector<double>& wong_reece_sinkage_mm,
                               const std::vector<double>& wong_reece_drawbar_pull_n) {
  const std::vector<std::string> names(methods.begin(), methods.end());
  const std::vector<const std::vector<double>*> slips = {&slip[0], &slip[1]};
  write_png(out.path("slip_sweep_methods.png"),
            stack_vertically(
                {slip_panel(name + ": the two deformation methods against slip", "sinkage [mm]",
                            names, slips, {&sinkage_mm[0], &sinkage_mm[1]}, wong_reece_sinkage_mm),
                 slip_panel("", "drawbar pull [N]", names, slips,
                            {&drawbar_pull_n[0], &drawbar_pull_n[1]}, wong_reece_drawbar_pull_n)}));
}

nlohmann::json run_wheels(const ScmScenario& sc, OutputDir& out, const RunProgress& progress) {
  const ScmModel& m = sc.model;
  const WheelTest& w = sc.wheel;
  const double surface = m.base_height(node_i(m, w.start_xy_m.x()), node_j(m, w.start_xy_m.y()));
  long done = 0;
  // Slip sweeps run many wheels over fresh soil: they record no view (experiment_records_view).
  std::optional<ScmViewRecord> view;
  if (experiment_records_view(sc.experiment)) view.emplace(sc, out, "wheel", w.shape);
  auto tick = [&](const ScmState& state, const WheelSample& sample) {
    ++done;
    if (view) view->sample(state, done, sample.X_WB);
    if (progress && done % 100 == 0) progress(done, sc.steps, 0.0);
  };
  const int pad = static_cast<int>(std::ceil(1.5 * w.radius_m / m.cell_size_m));
  const double end_x = w.start_xy_m.x() + w.speed_m_per_s * w.drive_s;
  auto map_of = [&](const ScmState& s) {
    return export_region(
        m, s,
        with_moved_nodes(
            s, nodes_around(m, w.start_xy_m.x(), w.start_xy_m.y(), end_x, w.start_xy_m.y(), pad),
            2));
  };
  nlohmann::json j;
  if (sc.experiment == Experiment::SingleWheel) {
    ScmState state(m);
    const WheelResult r = run_wheel(m, state, w, surface, tick);
    write_wheel_csv(out, "wheel.csv", r);
    plot_wheel_history(out, "wheel.png", sc.name + ": wheel at slip " + fmt::format("{:g}", w.slip),
                       {&r}, {""});
    if (!r.samples.empty()) write_centre_line(out, sc, state, r.samples.back());
    write_heightmap(out, "heightmap_final", m, map_of(state), sc.name + ": rut");
    j = wheel_json(r);
    if (!r.stopped.empty()) j["stopped"] = r.stopped;
    j["slip"] = w.slip;
    j["storage"] = storage_summary(state);
    record_edge(sc, state.largest_change_at_edge_m(), j);
  } else if (sc.experiment == Experiment::Multipass) {
    ScmState state(m);
    const WheelResult first = run_wheel(m, state, w, surface, tick);
    // A first pass that stopped leaves no rut to drive a second pass in.
    const WheelResult second =
        first.stopped.empty() ? run_wheel(m, state, w, surface, tick) : WheelResult{};
    write_wheel_csv(out, "pass1.csv", first);
    write_wheel_csv(out, "pass2.csv", second);
    plot_wheel_history(out, "passes.png", sc.name + ": first and second pass", {&first, &second},
                       {"1st", "2nd"});
    write_heightmap(out, "heightmap_final", m, map_of(state), sc.name + ": rut after two passes");
    j = {{"slip", w.slip},
         {"first_pass", wheel_json(first)},
         {"second_pass", wheel_json(second)},
         {"drawbar_pull_change_n", second.mean_drawbar_pull_n - first.mean_drawbar_pull_n},
         {"storage", storage_summary(state)}};
    if (!first.stopped.empty()) j["stopped"] = "first pass: " + first.stopped;
    if (!second.stopped.empty()) j["stopped"] = "second pass: " + second.stopped;
    record_edge(sc, state.largest_change_at_edge_m(), j);
  } else {
    // The Wong-Reece rigid-wheel model on the same soil, wheel and load is the analytic
    // reference (scm/wong_reece.hpp, docs/wong_reece.md); it has no soil transport, so the two
    // are expected to part where SCM's slip sinkage grows.
    WongReeceSoil wr_soil;
    wr_soil.kc = m.soil.kc;
    wr_soil.kphi = m.soil.kphi;
    wr_soil.n = m.soil.exponent_n;
    wr_soil.cohesion_Pa = m.soil.cohesion_pa;
    wr_soil.friction_angle_rad = m.soil.friction_angle_rad;
    wr_soil.shear_modulus_m = m.soil.janosi_shear_modulus_m;
    WongReeceWheel wr_wheel;
    wr_wheel.radius_m = w.radius_m;
    if (const auto* cylinder = std::get_if<CylinderShape>(&w.shape)) {
      wr_wheel.width_m = 2.0 * cylinder->half_length_m;
    } else if (const auto* wheel = std::get_if<WheelShape>(&w.shape)) {
      wr_wheel.width_m = wheel->width_m;
    }
    wr_wheel.load_N = w.load_n;
    // One sweep of the slips on `model` (one deformation method): slip_sweep[_<method>].csv and
    // the rows; stops at the first run that stopped.
    struct Sweep {
      std::vector<double> slip, dp, tq, z, wr_dp, wr_tq, wr_z;
      nlohmann::json rows = nlohmann::json::array();
      std::string stopped;
      double change_at_edge_m = 0.0;  // the largest over the sweep's runs
    };
    auto sweep = [&](const ScmModel& model, const std::string& csv_name) {
      Sweep r;
      CsvWriter csv(out.path(csv_name),
                    {"slip", "drawbar_pull_n", "torque_nm", "sinkage_m",
                     "wong_reece_drawbar_pull_n", "wong_reece_torque_nm", "wong_reece_sinkage_m"});
      for (double s : sc.slips) {
        WheelTest t = w;
        t.slip = s;
        ScmState state(model);
        const WheelResult run = run_wheel(model, state, t, surface, tick);
        r.change_at_edge_m = std::max(r.change_at_edge_m, state.largest_change_at_edge_m());
        const WongReeceResult wr = wong_reece_at_slip(wr_wheel, wr_soil, s);
        csv.write_row({s, run.mean_drawbar_pull_n, run.mean_torque_nm, run.mean_sinkage_m,
                       wr.drawbar_pull_N, wr.torque_Nm, wr.sinkage_m});
        r.slip.push_back(s);
        r.dp.push_back(run.mean_drawbar_pull_n);
        r.tq.push_back(run.mean_torque_nm);
        r.z.push_back(1e3 * run.mean_sinkage_m);
        r.wr_dp.push_back(wr.drawbar_pull_N);
        r.wr_tq.push_back(wr.torque_Nm);
        r.wr_z.push_back(1e3 * wr.sinkage_m);
        nlohmann::json row = wheel_json(run);
        row["slip"] = s;
        row["wong_reece"] = {{"drawbar_pull_n", wr.drawbar_pull_N},
                             {"torque_nm", wr.torque_Nm},
                             {"sinkage_m", wr.sinkage_m}};
        r.rows.push_back(row);
        if (!run.stopped.empty()) {
          r.stopped = fmt::format("slip {:g}: {}", s, run.stopped);
          break;  // the rows so far are written; the sweep stops here
        }
      }
      csv.close();
      return r;
    };
    const Sweep main = sweep(m, "slip_sweep.csv");
    if (!main.stopped.empty()) j["stopped"] = main.stopped;
    double change_at_edge_m = main.change_at_edge_m;
    // Pull, torque and sinkage each on its own axis (one axis in N, N m and mm together read
    // badly), SCM's against Wong-Reece's.
    const std::vector<std::string> scm_name = {"SCM (" + flow_method_name(m.method) + ")"};
    const std::vector<const std::vector<double>*> slips = {&main.slip};
    write_png(
        out.path("slip_sweep.png"),
        stack_vertically({slip_panel(sc.name + ": SCM and Wong-Reece against slip",
                                     "drawbar pull [N]", scm_name, slips, {&main.dp}, main.wr_dp),
                          slip_panel("", "torque [N m]", scm_name, slips, {&main.tq}, main.wr_tq),
                          slip_panel("", "sinkage [mm]", scm_name, slips, {&main.z}, main.wr_z)}));
    if (sc.compare_method && main.stopped.empty()) {
      ScmModel other = m;
      other.method = *sc.compare_method;
      validate(other);
      const std::string other_name = flow_method_name(other.method);
      const Sweep second = sweep(other, "slip_sweep_" + other_name + ".csv");
      j["compare"] = {{"method", other_name}, {"sweep", second.rows}};
      if (!second.stopped.empty()) j["stopped"] = other_name + ": " + second.stopped;
      change_at_edge_m = std::max(change_at_edge_m, second.change_at_edge_m);
      plot_methods_side_by_side(out, sc.name, {flow_method_name(m.method), other_name},
                                {main.slip, second.slip}, {main.z, second.z}, {main.dp, second.dp},
                                main.wr_z, main.wr_dp);
    }
    j["sweep"] = main.rows;
    record_edge(sc, change_at_edge_m, j);
  }
  if (view) view->finish(out);
  return j;
}

// ---- blade

nlohmann::json run_blade(const ScmScenario& sc, OutputDir& out, const RunProgress& progress) {
  const ScmModel m = scenario_model(sc);
  ScmState state(m);
  ScmWorkspace work;
  std::vector<BodyMotion> motion(1);
  std::vector<Wrench> wrench(1);
  const auto* waypoints = std::get_if<WaypointDriver>(&sc.blade.driver);
  const double t0 = waypoints ? waypoints->times_s.front() : 0.0;
  CsvWriter log(out.path("blade.csv"),
                {"time_s", "x_m", "z_m", "force_x_n", "force_z_n", "displaced_m3", "deposited_m3"});
  // The mean force over the second half of the run (the steady part of a push), as the particle
  // tier reports its bodies' (particle_run.cpp), so that a [terrain] file's tiers compare.
  Vec3 force_sum_N = Vec3::Zero();
  long force_count = 0;
  ScmViewRecord view(sc, out, sc.blade.name, sc.blade.shape);
  for (long s = 1; s <= sc.steps; ++s) {
    const double t = t0 + static_cast<double>(s) * m.time_step_s;
    const double t_start = t0 + static_cast<double>(s - 1) * m.time_step_s;
    motion[0] = step_motion(sc.blade.driver, t_start, m.time_step_s);
    const ScmStepReport r = step(m, state, motion, wrench, work);
    const Vec3 p_end = pose_at(sc.blade.driver, t).translation();
    log.write_row({t, p_end.x(), p_end.z(), wrench[0].f_W.x(), wrench[0].f_W.z(),
                   r.displaced_volume_m3, r.deposited_volume_m3});
    view.sample(state, s, pose_at(sc.blade.driver, t));
    if (s > sc.steps / 2) {
      force_sum_N += wrench[0].f_W;
      ++force_count;
    }
    if (progress && s % 100 == 0) progress(s, sc.steps, 0.0);
  }
  log.close();
  const Vec3 p = motion[0].X_WB.translation();
  const int j = node_j(m, p.y());
  const NodeBlock b = export_region(m, state, nodes_around(m, p.x(), p.y(), p.x() + 0.3, p.y(), 0));
  CsvWriter prof(out.path("hill_profile.csv"), {"distance_from_blade_m", "height_m"});
  std::vector<double> d, h;
  double peak = -1e300;
  for (int i = 0; i < b.nx; ++i) {
    const double dist = m.x(b.i0 + i) - p.x();
    prof.write_row({dist, b.height_m[static_cast<std::size_t>(i)]});
    d.push_back(dist);
    h.push_back(1e3 * b.height_m[static_cast<std::size_t>(i)]);
    peak = std::max(peak, b.height_m[static_cast<std::size_t>(i)]);
  }
  prof.close();
  PlotSpec q;
  q.title = sc.name + ": hill in front of the " + sc.blade.name + " (centre line)";
  q.x_label = "distance from the " + sc.blade.name + " centre [m]";
  q.y_label = "height [mm]";
  q.series = {series("surface", d, h)};
  write_png(out.path("hill_profile.png"), plot_lines(q));
  const int pad = 20;
  write_heightmap(out, "heightmap_final", m,
                  export_region(m, state,
                                with_moved_nodes(state,
                                                 {node_i(m, p.x()) - 3 * pad, j - pad,
                                                  node_i(m, p.x()) + 2 * pad + 1, j + pad + 1},
                                                 2)),
                  sc.name + ": surface at the end");
  view.finish(out);
  const Vec3 mean_N =
      force_count > 0 ? Vec3(force_sum_N / static_cast<double>(force_count)) : Vec3::Zero();
  nlohmann::json result = {{"hill_peak_height_m", peak},
                           {"hill_peak_above_base_m", peak - m.base_height_m},
                           {"bodies",
                            {{{"name", sc.blade.name},
                              {"mean_force_second_half_N", {mean_N.x(), mean_N.y(), mean_N.z()}}}}},
                           {"storage", storage_summary(state)}};
  record_edge(sc, state.largest_change_at_edge_m(), result);
  return result;
}

}  // namespace

nlohmann::json run_scm_scenario(const ScmScenario& sc, OutputDir& out,
                                const RunProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  nlohmann::json result;
  switch (sc.experiment) {
    case Experiment::PlateSinkage:
    case Experiment::StripLoad:
      result = run_plate_like(sc, out, progress);
      break;
    case Experiment::Blade:
      result = run_blade(sc, out, progress);
      break;
    default:
      result = run_wheels(sc, out, progress);
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  static const char* const kNames[] = {"plate_sinkage", "single_wheel", "multipass",
                                       "slip_sweep",    "strip_load",   "blade"};
  nlohmann::json summary = {{"scenario", sc.name},
                            {"tier", "scm"},
                            {"experiment", kNames[static_cast<int>(sc.experiment)]},
                            {"description", sc.description},
                            {"model", model_summary(sc)},
                            {"steps", sc.steps},
                            {"wall_s", wall},
                            {"result", result}};
  if (result.contains("stopped")) summary["stopped"] = result["stopped"];
  if (result.contains("warnings")) summary["warnings"] = result["warnings"];
  write_json(out.path("summary.json"), summary);
  if (summary.contains("stopped")) {
    throw ScmRunStopped(fmt::format("{}: {} (the outputs up to the last good step are written)",
                                    sc.file.string(), summary["stopped"].get<std::string>()));
  }
  return summary;
}

}  // namespace talus::scm
