// Running a particle scenario to its outputs: settling, the main step loop with its logs, the
// measurement (at rest, angle of repose, plate drag), the pictures, and the divergence stop.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>

#include "core/csv_writer.hpp"
#include "core/image.hpp"
#include "core/json_file.hpp"
#include "core/output_dir.hpp"
#include "core/plot.hpp"
#include "core/run_warning.hpp"
#include "core/steps.hpp"
#include "core/stopwatch.hpp"
#include "core/units.hpp"
#include "core/view_recorder.hpp"
#include "core/view_shapes.hpp"
#include "core/vtp_writer.hpp"
#include "particles/depth_camera.hpp"
#include "particles/particle_bed.hpp"
#include "particles/particle_io.hpp"
#include "particles/particle_scenario.hpp"
#include "particles/particle_step.hpp"

namespace talus::particles {

namespace {

using Clock = StopwatchClock;

double mean_radius_m(const ParticleState& s) {
  double sum = 0.0;
  for (const float r : s.radius_m) sum += r;
  return s.size() ? sum / static_cast<double>(s.size()) : 0.0;
}

double max_speed_m_per_s(const ParticleState& s) {
  double v2 = 0.0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    v2 = std::max(v2, double{s.vx_m_per_s[i]} * s.vx_m_per_s[i] +
                          double{s.vy_m_per_s[i]} * s.vy_m_per_s[i] +
                          double{s.vz_m_per_s[i]} * s.vz_m_per_s[i]);
  }
  return std::sqrt(v2);
}

nlohmann::json vec_json(const Vec3& v) { return {v.x(), v.y(), v.z()}; }

// Everything the run keeps in memory for plots and the summary, step by step through the run.
struct Run {
  Run(const ParticleScenario& scenario, OutputDir& out_dir, const RunProgress& report)
      : sc(scenario), out(out_dir), progress(report) {}
  const ParticleScenario& sc;
  OutputDir& out;
  const RunProgress& progress;
  long done = 0;
  long total = 0;
  ParticleWorkspace workspace;
  // energy log
  std::vector<double> t_s, ke_per_particle_J;
  // body log: per body, time and the force averaged over each log interval
  std::vector<std::vector<double>> body_t_s, body_fx, body_fy, body_fz;
  std::optional<CsvWriter> energy_csv, bodies_csv;
  std::optional<BodyPoseLog> pose_log;
  std::vector<PvdFrame> frames;
  std::optional<ViewRecording> view;  // the frames `talus view` plays (docs/viewer.md)

  void tick(const ParticleState& s) {
    ++done;
    if (progress) progress(done, total, s.time_s);
  }
};

// One step of `model` with its drivers at the state's time; a divergence saves the last good state
// and the summary so far, then stops the run.
void guarded_step(Run& run, const ParticleModel& model, std::span<const Driver> drivers,
                  ParticleState& state, nlohmann::json& summary, const char* phase) {
  const std::vector<BodyMotion> motions = motions_at(drivers, state.time_s);
  try {
    step(model, state, motions, run.workspace);
  } catch (const ParticleDivergence& e) {
    save_particle_state(state, run.out.path("last_good_state.tps"));
    summary["diverged"] = {{"phase", phase},
                           {"step", e.step()},
                           {"particle", e.particle()},
                           {"message", e.what()},
                           {"last_good_state", "last_good_state.tps"}};
    if (run.energy_csv) run.energy_csv->close();
    if (run.bodies_csv) run.bodies_csv->close();
    if (run.pose_log) run.pose_log->close();
    if (!run.frames.empty()) write_pvd(run.out.path("particles.pvd"), run.frames);
    if (run.view) run.view->finish(run.out);  // the run up to the last good frame can be watched
    write_json(run.out.path("summary.json"), summary);
    throw ParticleRunDiverged(fmt::format(
        "{}: the particles diverged during {} at step {} (first bad particle {}): {}; the last "
        "good state is saved in last_good_state.tps",
        run.sc.file.string(), phase, e.step(), e.particle(), e.what()));
  }
}

// One VTK PolyData frame of the particles (radius and velocity as point data), listed in the .pvd;
// points in creation order (a model that sorts the state keeps each particle's point id).
void write_frame(Run& run, const ParticleState& state) {
  ParticleState copy;
  const ParticleState& s = creation_ordered(state, copy);
  const std::string name = fmt::format("frames/particles_{:06d}.vtp", s.step);
  write_vtp_points(run.out.path(name), s.x_m, s.y_m, s.z_m,
                   {VtpArray{"radius_m", {s.radius_m}},
                    VtpArray{"velocity_m_per_s", {s.vx_m_per_s, s.vy_m_per_s, s.vz_m_per_s}}});
  run.frames.push_back(PvdFrame{s.time_s, name});
}

// The scene `talus view` draws: the particles and the scenario's bodies.
void start_view(Run& run, const ParticleState& s) {
  const ParticleScenario& sc = run.sc;
  run.view.emplace(sc.steps, sc.view.frames);
  if (!run.view->on()) return;
  ViewLayout layout = view_layout_head("particles", sc.name, sc.description);
  layout.particle_count = s.size();
  ParticleState copy;  // the radii in the frames' order: creation order (add_view_frame)
  const std::vector<float>& radii = creation_ordered(s, copy).radius_m;
  layout.particle_radii_m.assign(radii.begin(), radii.end());
  layout.quantised = sc.view.quantised;
  const Aabb& box = sc.model.container.box;
  const double plane_size_m =
      sc.model.container.kind == Container::Kind::kNone ? 2.0 : (box.hi - box.lo).maxCoeff();
  for (const auto& body : sc.model.bodies) {
    layout.bodies.push_back(
        ViewBody{body.name, {0.75, 0.45, 0.2}, view_shape(body.shape, plane_size_m)});
  }
  run.view->start(run.out, std::move(layout));
}

// The viewer's radii are the first frame's, per index: particles go in creation order.
void add_view_frame(Run& run, const ParticleState& state) {
  ParticleState copy;
  const ParticleState& s = creation_ordered(state, copy);
  std::vector<Pose> poses;
  for (const BodyMotion& m : motions_at(run.sc.drivers, s.time_s)) poses.push_back(m.X_WB);
  run.view->recorder().add_frame(ViewFrame{
      s.time_s, s.x_m, s.y_m, s.z_m, s.vx_m_per_s, s.vy_m_per_s, s.vz_m_per_s, {}, poses});
}

// A top-down depth image of the particles and bodies over the container (or the particles'
// extent when there is no container), from just above its top.
void write_sky_depth(const Run& run, const ParticleState& s, double t_s, const std::string& stem,
                     nlohmann::json& files) {
  const ParticleScenario& sc = run.sc;
  if (sc.depth_image_px <= 0 || s.size() == 0) return;
  Aabb box = sc.model.container.box;
  if (sc.model.container.kind == Container::Kind::kNone) {
    box.lo = box.hi = Vec3(s.x_m[0], s.y_m[0], s.z_m[0]);
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Vec3 p(s.x_m[i], s.y_m[i], s.z_m[i]);
      box.lo = box.lo.cwiseMin(p);
      box.hi = box.hi.cwiseMax(p);
    }
  }
  SkyCamera cam;
  cam.x_min_m = box.lo.x();
  cam.x_max_m = box.hi.x();
  cam.y_min_m = box.lo.y();
  cam.y_max_m = box.hi.y();
  cam.z_camera_m = box.hi.z();
  cam.width_px = sc.depth_image_px;
  cam.height_px =
      std::max(1, static_cast<int>(std::lround(sc.depth_image_px * (box.hi.y() - box.lo.y()) /
                                               (box.hi.x() - box.lo.x()))));
  cam.max_depth_m = box.hi.z() - box.lo.z();
  std::vector<CameraBody> bodies;
  const std::vector<BodyMotion> motions = motions_at(sc.drivers, t_s);
  for (std::size_t b = 0; b < sc.model.bodies.size(); ++b) {
    bodies.push_back(CameraBody{sc.model.bodies[b].shape, motions[b].X_WB});
  }
  const DepthImage image =
      render_depth(cam, ParticleSpheres{s.x_m, s.y_m, s.z_m, s.radius_m}, bodies);
  // Coloured from the floor to the highest particle top.
  double top = box.lo.z();
  for (std::size_t i = 0; i < s.size(); ++i) top = std::max(top, double{s.z_m[i]} + s.radius_m[i]);
  const double top_above_floor = std::min(top, cam.z_camera_m) - box.lo.z();
  write_png(run.out.path(stem + ".png"),
            sky_depth_picture(cam, image, box.lo.z(), 0.0, std::max(1e-3, top_above_floor),
                              fmt::format("{}: seen from above at t = {:.3g} s; colour: height "
                                          "above the container floor [mm]",
                                          sc.name, t_s),
                              "above floor"));
  write_depth_npy(run.out.path(stem + ".npy"), image);
  files.push_back(stem + ".png");
}

void plot_energy(const Run& run) {
  PlotSpec plot;
  plot.title = fmt::format("{}: kinetic energy per particle", run.sc.name);
  plot.x_label = "time [s]";
  // The unit that puts the largest value between 1 and 1000 (a bed at rest ran to 0.0015 uJ).
  double largest = 0.0;
  for (const double e : run.ke_per_particle_J) largest = std::max(largest, e);
  static const std::pair<double, const char*> kUnits[] = {
      {1.0, "J"}, {1e3, "mJ"}, {1e6, "uJ"}, {1e9, "nJ"}, {1e12, "pJ"}};
  auto unit = kUnits[0];
  for (const auto& u : kUnits) {
    unit = u;
    if (largest * u.first >= 1.0) break;
  }
  plot.y_label = fmt::format("kinetic energy per particle [{}]", unit.second);
  std::vector<double> scaled(run.ke_per_particle_J.size());
  std::transform(run.ke_per_particle_J.begin(), run.ke_per_particle_J.end(), scaled.begin(),
                 [&](double e) { return unit.first * e; });
  plot.series.push_back({"", run.t_s, scaled, std::nullopt, 2, false});
  plot.y_min = 0.0;
  write_png(run.out.path("kinetic_energy.png"), plot_lines(plot));
}

void plot_body_forces(const Run& run) {
  const auto& bodies = run.sc.model.bodies;
  PlotSpec plot;
  plot.title = fmt::format("{}: force of the particles on the bodies", run.sc.name);
  plot.x_label = "time [s]";
  plot.y_label = "force [N]";
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    plot.series.push_back({bodies[b].name + " fx", run.body_t_s[b], run.body_fx[b], {}, 2, false});
    plot.series.push_back({bodies[b].name + " fy", run.body_t_s[b], run.body_fy[b], {}, 2, false});
    plot.series.push_back({bodies[b].name + " fz", run.body_t_s[b], run.body_fz[b], {}, 2, false});
  }
  write_png(run.out.path("body_forces.png"), plot_lines(plot));
}

// The main run: steps with the scenario's bodies, logging energy and body wrenches and poses.
nlohmann::json main_run(Run& run, ParticleState& state, nlohmann::json& summary) {
  const ParticleScenario& sc = run.sc;
  const std::size_t nb = sc.model.bodies.size();
  std::vector<std::string> header = {"t_s",   "body",  "name",  "fx_N", "fy_N", "fz_N",
                                     "tx_Nm", "ty_Nm", "tz_Nm", "x_m",  "y_m",  "z_m",
                                     "qw",    "qx",    "qy",    "qz"};
  if (nb > 0) {
    run.bodies_csv.emplace(run.out.path("bodies.csv"), header);
    run.pose_log.emplace(run.out.path("body_poses.csv"));
  }
  if (sc.frame_every_steps > 0) write_frame(run, state);
  start_view(run, state);
  if (run.view->due(0)) add_view_frame(run, state);
  run.body_t_s.assign(nb, {});
  run.body_fx.assign(nb, {});
  run.body_fy.assign(nb, {});
  run.body_fz.assign(nb, {});
  std::vector<Wrench> sum(nb);
  long in_interval = 0;
  double ke_max = 0.0;
  const double n = static_cast<double>(state.size());
  const auto t0 = Clock::now();
  for (long k = 0; k < sc.steps; ++k) {
    guarded_step(run, sc.model, sc.drivers, state, summary, "the main run");
    run.tick(state);
    for (std::size_t b = 0; b < nb; ++b) {
      sum[b].f_W += state.body_wrenches[b].f_W;
      sum[b].tau_W += state.body_wrenches[b].tau_W;
    }
    ++in_interval;
    if (sc.frame_every_steps > 0 && (k + 1) % sc.frame_every_steps == 0) write_frame(run, state);
    if (run.view->due(k + 1)) add_view_frame(run, state);
    if ((k + 1) % sc.log_every_steps == 0 || k + 1 == sc.steps) {
      const double ke = kinetic_energy_J(state);
      ke_max = std::max(ke_max, ke);
      run.t_s.push_back(state.time_s);
      run.ke_per_particle_J.push_back(ke / n);
      run.energy_csv->write_row(
          {state.time_s, static_cast<double>(state.step), ke, ke / n, max_speed_m_per_s(state)});
      const std::vector<BodyMotion> motions = motions_at(sc.drivers, state.time_s);
      for (std::size_t b = 0; b < nb; ++b) {
        const Vec3 f = sum[b].f_W / static_cast<double>(in_interval);
        const Vec3 tau = sum[b].tau_W / static_cast<double>(in_interval);
        const Vec3 p = motions[b].X_WB.translation();
        const Eigen::Quaterniond q(motions[b].X_WB.linear());
        run.bodies_csv->write_row({state.time_s, static_cast<double>(b), sc.model.bodies[b].name,
                                   f.x(), f.y(), f.z(), tau.x(), tau.y(), tau.z(), p.x(), p.y(),
                                   p.z(), q.w(), q.x(), q.y(), q.z()});
        run.pose_log->add(state.time_s, sc.model.bodies[b].name, motions[b].X_WB);
        run.body_t_s[b].push_back(state.time_s);
        run.body_fx[b].push_back(f.x());
        run.body_fy[b].push_back(f.y());
        run.body_fz[b].push_back(f.z());
        sum[b] = Wrench{};
      }
      in_interval = 0;
    }
  }
  const double wall = seconds_since(t0);
  nlohmann::json r = {
      {"steps", sc.steps},
      {"wall_s", wall},
      {"particle_steps_per_s", wall > 0 ? n * static_cast<double>(sc.steps) / wall : 0.0},
      {"kinetic_energy_max_J", ke_max},
      {"kinetic_energy_final_J", kinetic_energy_J(state)}};
  nlohmann::json bodies = nlohmann::json::array();
  for (std::size_t b = 0; b < nb; ++b) {
    // Mean and peak force over the second half of the run (the steady part of a push).
    const auto& fx = run.body_fx[b];
    const std::size_t from = fx.size() / 2;
    Vec3 mean = Vec3::Zero();
    double peak = 0.0;
    for (std::size_t k = from; k < fx.size(); ++k) {
      const Vec3 f(fx[k], run.body_fy[b][k], run.body_fz[b][k]);
      mean += f;
      peak = std::max(peak, f.norm());
    }
    if (fx.size() > from) mean /= static_cast<double>(fx.size() - from);
    bodies.push_back({{"name", sc.model.bodies[b].name},
                      {"mean_force_second_half_N", vec_json(mean)},
                      {"peak_force_magnitude_second_half_N", peak}});
  }
  r["bodies"] = bodies;
  return r;
}

nlohmann::json measure_repose(const Run& run, const ParticleState& state, nlohmann::json& summary) {
  const ReposeMeasurement m = measure_repose_angle(state, run.sc.repose);
  CsvWriter csv(run.out.path("repose_profile.csv"), {"r_m", "height_m", "in_flank"});
  std::vector<double> fr, fh;
  for (std::size_t k = 0; k < m.r_m.size(); ++k) {
    csv.write_row({m.r_m[k], m.h_m[k], m.in_flank[k] ? 1.0 : 0.0});
    if (m.in_flank[k]) {
      fr.push_back(1e3 * m.r_m[k]);
      fh.push_back(1e3 * (m.intercept_m + m.slope * m.r_m[k]));
    }
  }
  csv.close();
  // A pour that spread into a layer has no flank: say so rather than report the fit's angle.
  const std::string not_a_pile = why_not_a_pile(m);
  PlotSpec plot;
  plot.title =
      not_a_pile.empty()
          ? fmt::format("{}: pile profile, angle of repose {:.1f} deg", run.sc.name, m.angle_deg)
          : fmt::format("{}: profile of a layer, not a pile (no angle of repose)", run.sc.name);
  plot.x_label = "distance from the pile axis [mm]";
  plot.y_label = "height [mm]";
  std::vector<double> r_mm(m.r_m.size()), h_mm(m.h_m.size());
  for (std::size_t k = 0; k < m.r_m.size(); ++k) {
    r_mm[k] = 1e3 * m.r_m[k];
    h_mm[k] = 1e3 * m.h_m[k];
  }
  plot.series.push_back({"highest particle top per ring", r_mm, h_mm, std::nullopt, 2, true});
  if (not_a_pile.empty()) {
    plot.series.push_back({"fitted flank (20-80 % of height)", fr, fh, Rgb{220, 40, 40}, 3, false});
  }
  plot.equal_aspect = true;
  plot.y_min = 0.0;
  write_png(run.out.path("repose_profile.png"), plot_lines(plot));
  nlohmann::json angle = m.angle_deg;
  if (!not_a_pile.empty()) {
    const std::string warning =
        fmt::format("{}: [measure] repose: {}", run.sc.file.string(), not_a_pile);
    add_run_warning(summary, warning);
    angle = nullptr;
  }
  return {{"angle_of_repose_deg", angle},
          {"not_a_pile", not_a_pile.empty() ? nlohmann::json() : nlohmann::json(not_a_pile)},
          {"flank_drop_m", m.flank_drop_m},
          {"pile_height_m", m.height_m},
          {"flank_slope", m.slope},
          {"flank_rings", m.flank_bins},
          {"ring_width_m", m.r_m.size() > 1 ? m.r_m[1] - m.r_m[0] : 0.0},
          {"pile_axis_xy_m", {m.centre_xy_m.x(), m.centre_xy_m.y()}},
          {"method",
           "highest particle top per ring about the pile axis; least-squares line over the rings "
           "beyond the peak between lo_fraction and hi_fraction of the pile height"}};
}

// The drag passes: one per depth, each from a copy of the settled bed.
nlohmann::json measure_drag(Run& run, const ParticleState& settled, nlohmann::json& summary) {
  const ParticleScenario& sc = run.sc;
  const DragSetup& d = *sc.drag;
  const double surface = free_surface_z_m(settled);
  ParticleModel model = sc.model;
  model.bodies.push_back(CoupledBody{"plate", d.plate, Vec3::Zero()});
  std::vector<Driver> drivers = sc.drivers;
  drivers.emplace_back(WaypointDriver{});
  CsvWriter csv(run.out.path("drag.csv"), {"depth_m", "t_s", "plate_x_m", "drag_N", "lift_N"});
  PlotSpec plot;
  plot.title = fmt::format("{}: drag on the plate at {:g} m/s", sc.name, d.speed_m_per_s);
  plot.x_label = "plate position x [mm]";
  plot.y_label = "drag force -fx [N]";
  nlohmann::json rows = nlohmann::json::array();
  std::vector<double> depth_mm, drag_N;
  const double travel_s = (d.x_end_m - d.x_start_m) / d.speed_m_per_s;
  const long lower_steps = steps_for(d.lower_time_s, model.time_step_s);
  const long travel_steps = steps_for(travel_s, model.time_step_s);
  const long average_from =
      lower_steps +
      static_cast<long>(std::floor((1.0 - d.average_fraction) * static_cast<double>(travel_steps)));
  for (const double depth : d.depths_m) {
    ParticleState state = settled;
    const double t0 = state.time_s;
    const double z_low = surface - depth + d.plate_half_height_m;
    const double z_high = surface + d.plate_half_height_m + 2.0 * mean_radius_m(settled);
    WaypointDriver plate_path;
    plate_path.times_s = {t0, t0 + d.lower_time_s, t0 + d.lower_time_s + travel_s};
    plate_path.poses = {make_pose(Vec3(d.x_start_m, d.y_m, z_high)),
                        make_pose(Vec3(d.x_start_m, d.y_m, z_low)),
                        make_pose(Vec3(d.x_end_m, d.y_m, z_low))};
    drivers.back() = plate_path;
    std::vector<double> x_mm, drag;
    double sum = 0.0, interval = 0.0;
    long averaged = 0;
    double mean_drag = 0.0;
    for (long k = 0; k < lower_steps + travel_steps; ++k) {
      guarded_step(run, model, drivers, state, summary, "the drag passes");
      run.tick(state);
      const double fx = state.body_wrenches.back().f_W.x();
      if (k >= average_from) {
        mean_drag += -fx;
        ++averaged;
      }
      sum += -fx;
      interval += 1.0;
      if ((k + 1) % sc.log_every_steps == 0) {
        const Vec3 p = pose_at(plate_path, state.time_s).translation();
        csv.write_row(
            {depth, state.time_s, p.x(), sum / interval, state.body_wrenches.back().f_W.z()});
        if (k >= lower_steps) {
          x_mm.push_back(1e3 * p.x());
          drag.push_back(sum / interval);
        }
        sum = interval = 0.0;
      }
    }
    mean_drag /= static_cast<double>(std::max<long>(averaged, 1));
    // The bed each pass leaves (each starts from the settled bed, so there is no one "end").
    write_sky_depth(run, state, state.time_s,
                    fmt::format("sky_depth_after_drag_{:g}mm", 1e3 * depth),
                    summary["depth_images"]);
    plot.series.push_back({fmt::format("depth {:g} mm", 1e3 * depth), x_mm, drag, {}, 2, false});
    depth_mm.push_back(1e3 * depth);
    drag_N.push_back(mean_drag);
    rows.push_back({{"depth_m", depth}, {"mean_drag_N", mean_drag}, {"steps_averaged", averaged}});
  }
  csv.close();
  write_png(run.out.path("drag_force.png"), plot_lines(plot));
  PlotSpec per_depth;
  per_depth.title = fmt::format("{}: mean drag force against depth", sc.name);
  per_depth.x_label = "plate depth below the surface [mm]";
  per_depth.y_label = "mean drag force [N]";
  per_depth.series.push_back({"", depth_mm, drag_N, std::nullopt, 2, true});
  per_depth.x_min = 0.0;
  per_depth.y_min = 0.0;
  write_png(run.out.path("drag_vs_depth.png"), plot_lines(per_depth));
  return {{"surface_z_m", surface},
          {"speed_m_per_s", d.speed_m_per_s},
          {"plate_half_extents_m", vec_json(std::get<BoxShape>(d.plate).half_extents_m)},
          {"averaged_over",
           fmt::format("the last {:g} % of the horizontal travel", 100 * d.average_fraction)},
          {"per_depth", rows}};
}

}  // namespace

nlohmann::json run_particle_scenario(const ParticleScenario& sc, OutputDir& out,
                                     const RunProgress& progress) {
  const auto t_start = Clock::now();
  Run run(sc, out, progress);
  run.total = sc.total_steps();
  ParticleState state = sc.initial;
  nlohmann::json summary = {{"scenario", sc.name},
                            {"tier", "particles"},
                            {"file", sc.file.string()},
                            {"description", sc.description},
                            {"particles", state.size()},
                            {"bed", sc.bed_kind},
                            {"mean_radius_m", mean_radius_m(state)},
                            {"time_step_s", sc.model.time_step_s},
                            {"iterations", sc.model.iterations},
                            {"friction", sc.model.friction},
                            {"rotation", sc.model.rotation}};
  // Which grains ran: rotating ones with their rolling friction, or paper 001's.
  if (sc.model.rotation) summary["rolling_friction"] = sc.model.rolling_friction;
  if (sc.particles_removed_in_bodies > 0) {
    summary["particles_removed_in_bodies"] = sc.particles_removed_in_bodies;
  }
  run.energy_csv.emplace(
      out.path("energy.csv"),
      std::vector<std::string>{"t_s", "step", "kinetic_energy_J", "kinetic_energy_per_particle_J",
                               "max_speed_m_per_s"});

  if (sc.settle) {
    // Settle with the bodies held at their starting poses.
    std::vector<BodyMotion> held = motions_at(sc.drivers, 0.0);
    for (BodyMotion& m : held) m.V_WB = Twist{};
    const auto t0 = Clock::now();
    SettleResult r;
    try {
      r = settle(sc.model, state, held, run.workspace, *sc.settle,
                 [&](long, long, double) { run.tick(state); });
    } catch (const ParticleDivergence& e) {
      save_particle_state(state, out.path("last_good_state.tps"));
      summary["diverged"] = {{"phase", "settling"},
                             {"step", e.step()},
                             {"particle", e.particle()},
                             {"message", e.what()}};
      run.energy_csv->close();
      write_json(out.path("summary.json"), summary);
      throw ParticleRunDiverged(fmt::format(
          "{}: the particles diverged while settling at step {} (first bad particle {}): {}; the "
          "last good state is saved in last_good_state.tps",
          sc.file.string(), e.step(), e.particle(), e.what()));
    }
    run.total -= sc.settle->max_steps - r.steps;  // settling ended early
    summary["settle"] = {{"steps", r.steps},
                         {"at_rest", r.at_rest},
                         {"kinetic_energy_per_particle_J", r.kinetic_energy_per_particle_J},
                         {"wall_s", seconds_since(t0)}};
    if (!r.at_rest) {
      // The run goes on from a bed still moving: its forces and surfaces include that motion.
      const std::string warning = fmt::format(
          "{}: the bed did not come to rest in {} settling steps (kinetic energy per particle "
          "{:.3g} J, above the {:.3g} J of at rest): the run starts from a bed still moving; "
          "more settling steps ([settle] max_steps) or a smaller time step settle it",
          sc.file.string(), r.steps, r.kinetic_energy_per_particle_J,
          sc.settle->kinetic_energy_per_particle_J);
      add_run_warning(summary, warning);
    }
    // The run's clock starts at the settled bed: drivers see t = 0 at the start of the main run.
    state.time_s = 0.0;
    state.step = 0;
  }
  nlohmann::json start_images = nlohmann::json::array();
  write_sky_depth(run, state, 0.0, "sky_depth_start", start_images);
  const double surface_before = free_surface_z_m(state);
  summary["free_surface_z_start_m"] = surface_before;
  if (sc.steps > 0) {
    summary["run"] = main_run(run, state, summary);
    const double surface_after = free_surface_z_m(state);
    summary["free_surface_z_end_m"] = surface_after;
    if (sc.measure == Measurement::kAtRest) {
      const double drift = surface_after - surface_before;
      summary["at_rest"] = {{"free_surface_drift_m", drift},
                            {"free_surface_drift_radii", drift / mean_radius_m(state)},
                            {"kinetic_energy_per_particle_final_J",
                             kinetic_energy_J(state) / static_cast<double>(state.size())}};
    }
  }
  run.energy_csv->close();
  if (run.bodies_csv) run.bodies_csv->close();
  if (run.pose_log) run.pose_log->close();
  if (!run.frames.empty()) write_pvd(out.path("particles.pvd"), run.frames);
  nlohmann::json images = start_images;
  // Without a main run the end is the start (a drag-only file writes the bed after each pass).
  if (sc.steps > 0) write_sky_depth(run, state, state.time_s, "sky_depth_end", images);
  summary["depth_images"] = images;
  summary["vtk_frames"] = run.frames.size();
  if (!run.t_s.empty()) plot_energy(run);
  if (!sc.model.bodies.empty() && sc.steps > 0) plot_body_forces(run);
  if (sc.measure == Measurement::kRepose) {
    nlohmann::json repose = measure_repose(run, state, summary);  // may add a warning
    summary["repose"] = std::move(repose);
  }
  save_particle_state(state, out.path("final_state.tps"));
  if (sc.measure == Measurement::kDrag) summary["drag"] = measure_drag(run, state, summary);
  if (run.view && run.view->on()) {
    run.view->finish(out);
    summary["view_frames"] = run.view->frame_count();
  }
  summary["wall_s"] = seconds_since(t_start);
  write_json(out.path("summary.json"), summary);
  return summary;
}

}  // namespace talus::particles
