// kind = "foot_accuracy" (paper 000 §IV-C1): the paper's foot follows a path under PID control on
// the wrench-space step, and the same path is driven kinematically through a settled particle bed
// of the database's medium; both resistance wrenches (about p_r, world axes) are compared over
// time.
//
//   [robot]        model (the foot: joints x, z, ry at the bottom centre, site "bottom"),
//                  granular_inertia
//   [wrench_space] database
//   [pid]          kp, ki, kd: gains on (x, z, tilt) of the bottom centre (paper: [8000, 20000,
//                  300], [4000, 6000, 1000], [200, 400, 10])
//   [medium], [particles], [bed], [container], [solver], [settle], [foot], [simulation]
//                  (time_step_s: the particle bed's step): the particle bed and
//                  foot, keys as kind "acquire" (the foot's radius must match the database's)
//   [compare]      filter_window_s (0.05): centred moving average on the particle tier's wrench;
//                  direction_tolerance_rad (0.2): the history-free references count only where
//                  the database sampled a direction this close to the path's motion
//   [[path]]       name, t_s, x_m, depth_m, tilt_rad: waypoints of the bottom centre (x relative
//                  to the bed's centre, depth below the free surface), linear in between
//
// Outputs per path: <path>.png (f_x, f_z, tau_y of both tiers and the two history-free references
// of wrench/history_free_reference.hpp; desired and achieved depth), <path>.csv; summary.json with
// the RMS error per component while in contact, relative to the particle tier's RMS wrench, and
// the same figures between the references (the error split of docs/wrench_space.md §8).

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "core/csv_writer.hpp"
#include "core/image.hpp"
#include "core/json_file.hpp"
#include "core/plot.hpp"
#include "core/steps.hpp"
#include "robot/mujoco_model.hpp"
#include "wrench/acquisition_tables.hpp"
#include "wrench/history_free_reference.hpp"
#include "wrench/wrench_contact_step.hpp"
#include "wrench/wrench_scenario_kinds.hpp"
#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {

namespace {

namespace fs = std::filesystem;

// A path of the bottom centre in configuration space (x, depth, tilt), linear between waypoints,
// held before the first and after the last.
struct ConfigurationPath {
  std::string name;
  std::vector<double> t_s;
  std::vector<Eigen::Vector3d> q;  // (x, depth, tilt)

  // Configuration and its time derivative at t.
  std::pair<Eigen::Vector3d, Eigen::Vector3d> at(double t) const {
    if (t <= t_s.front()) return {q.front(), Eigen::Vector3d::Zero()};
    if (t >= t_s.back()) return {q.back(), Eigen::Vector3d::Zero()};
    std::size_t k = 0;
    while (t >= t_s[k + 1]) ++k;
    const double span = t_s[k + 1] - t_s[k];
    const double s = (t - t_s[k]) / span;
    return {q[k] + s * (q[k + 1] - q[k]), (q[k + 1] - q[k]) / span};
  }
  double duration_s() const { return t_s.back(); }
};

struct AccuracyScenario {
  std::string name, description;
  fs::path model_file, database;
  Eigen::Vector3d granular_inertia, kp, ki, kd;
  BedSetup bed;
  FootPath foot;
  double filter_window_s = 0.05;
  double direction_tolerance_rad = 0.2;
  std::vector<ConfigurationPath> paths;
};

Eigen::Vector3d vec(const ScenarioTable& t, const std::string& key, const NumberCheck& check) {
  const Vec3 v = t.vec3(key, check);
  return {v.x(), v.y(), v.z()};
}

AccuracyScenario load_accuracy(const ScenarioTable& root) {
  AccuracyScenario sc;
  const ScenarioHead head = read_wrench_head(root, {"foot_accuracy"});
  sc.name = head.name;
  sc.description = head.description;
  const fs::path base = root.file().parent_path();

  const ScenarioTable robot_t = root.table("robot");
  sc.model_file = (base / robot_t.string("model")).lexically_normal();
  sc.granular_inertia = vec(robot_t, "granular_inertia", non_negative("[kg, kg, kg m^2]"));
  robot_t.refuse_unknown_keys();
  try {
    const robot::MujocoModel robot = robot::MujocoModel::load(sc.model_file);
    for (const char* j : {"x", "z", "ry"}) {
      if (mj_name2id(robot.model(), mjOBJ_JOINT, j) < 0) {
        robot_t.fail("model", fmt::format("{}: the foot needs joints x, z and ry (no '{}')",
                                          sc.model_file.string(), j));
      }
    }
    if (mj_name2id(robot.model(), mjOBJ_SITE, "bottom") < 0) {
      robot_t.fail("model", fmt::format("{}: no site 'bottom'", sc.model_file.string()));
    }
  } catch (const robot::RobotError& e) {
    robot_t.fail("model", e.what());
  }
  const ScenarioTable ws = root.table("wrench_space");
  sc.database = (base / ws.string("database")).lexically_normal();
  ws.refuse_unknown_keys();
  if (!fs::exists(sc.database)) {
    ws.fail("database", fmt::format("{} does not exist (scripts/regenerate-wrench-data.sh)",
                                    sc.database.string()));
  }
  load_database_at(ws, "database", sc.database);  // readable, complete, finite: before any run
  const ScenarioTable pid = root.table("pid");
  sc.kp = vec(pid, "kp", non_negative(""));
  sc.ki = vec(pid, "ki", non_negative(""));
  sc.kd = vec(pid, "kd", non_negative(""));
  pid.refuse_unknown_keys();

  sc.bed = read_bed_setup(root);
  read_foot(root.table("foot"), sc.bed.model, sc.foot);
  if (const auto c = root.optional_table("compare")) {
    sc.filter_window_s = c->number_or("filter_window_s", sc.filter_window_s, positive("[s]"));
    sc.direction_tolerance_rad = c->number_or("direction_tolerance_rad", sc.direction_tolerance_rad,
                                              in_closed_range(0.0, M_PI, "[rad]"));
    c->refuse_unknown_keys();
  }
  for (const ScenarioTable& p : root.named_tables("path")) {
    ConfigurationPath path;
    path.name = p.string("name");
    path.t_s = p.numbers("t_s", 0, non_negative("[s]"));
    const std::size_t n = path.t_s.size();
    if (n < 2) p.fail("t_s", "expected at least 2 waypoint times");
    for (std::size_t k = 1; k < n; ++k) {
      if (!(path.t_s[k] > path.t_s[k - 1])) {
        p.fail("t_s", fmt::format("waypoint {}: time {:g} s is not after {:g} s", k, path.t_s[k],
                                  path.t_s[k - 1]));
      }
    }
    if (path.t_s.front() != 0.0) p.fail("t_s", "the first waypoint must be at 0 s");
    const auto x = p.numbers("x_m", n, any_finite("[m]"));
    const auto d = p.numbers("depth_m", n, any_finite("[m]"));
    const auto phi = p.numbers("tilt_rad", n, in_closed_range(-1.5, 1.5, "[rad]"));
    for (std::size_t k = 0; k < n; ++k) path.q.emplace_back(x[k], d[k], phi[k]);
    p.refuse_unknown_keys();
    steps_for(p, "t_s", path.duration_s(),
              sc.bed.model.time_step_s);  // bounded here, before any run
    sc.paths.push_back(std::move(path));
  }
  if (sc.paths.empty()) root.fail("path", "expected at least one [[path]]");
  root.refuse_unknown_keys();
  return sc;
}

struct Series {
  std::vector<double> t_s;
  std::vector<Eigen::Vector3d> wrench;    // (f_x, f_z, tau_y) about p_r, world axes
  std::vector<double> depth_m;            // achieved depth of the bottom centre
  std::vector<Eigen::Vector3d> velocity;  // (v_x, v_z, omega_y) of the bottom centre
};

// The wrench-space tier: the foot under PID on (x, z, ry) towards the path; generalised forces
// through qfrc_applied (the joints sit at the bottom centre, so they are a force at p_center and
// the torque about it).
Series run_wrench_space(const AccuracyScenario& sc, const ConfigurationPath& path,
                        const WrenchSpaceModel& predictor,
                        const std::function<void(double)>& tick) {
  robot::MujocoModel robot = robot::MujocoModel::load(sc.model_file);
  mjModel* m = robot.model();
  mjData* d = robot.data();
  int qadr[3], vadr[3];
  const char* names[3] = {"x", "z", "ry"};
  for (int a = 0; a < 3; ++a) {
    const int j = mj_name2id(m, mjOBJ_JOINT, names[a]);
    qadr[a] = m->jnt_qposadr[j];
    vadr[a] = m->jnt_dofadr[j];
  }
  const Eigen::Vector3d q0 = path.at(0.0).first;
  for (int a = 0; a < 3; ++a) d->qpos[qadr[a]] = q0[a];
  mj_forward(m, d);
  WrenchStepModel model;
  model.feet.push_back(FootSpec{"foot", "bottom", sc.granular_inertia.asDiagonal()});
  WrenchContactStep step(robot, predictor, model);
  const double h = step.time_step_s();
  const long steps = steps_for(path.duration_s(), h);
  Eigen::Vector3d integral = Eigen::Vector3d::Zero();
  Series out;
  for (long k = 0; k < steps; ++k) {
    const auto [q_des, v_des] = path.at(d->time);
    Eigen::Vector3d q, v;
    for (int a = 0; a < 3; ++a) {
      q[a] = d->qpos[qadr[a]];
      v[a] = d->qvel[vadr[a]];
    }
    const Eigen::Vector3d e = q_des - q;
    integral += h * e;
    const Eigen::Vector3d u =
        sc.kp.cwiseProduct(e) + sc.ki.cwiseProduct(integral) + sc.kd.cwiseProduct(v_des - v);
    mju_zero(d->qfrc_applied, m->nv);
    for (int a = 0; a < 3; ++a) d->qfrc_applied[vadr[a]] = u[a];
    step.step();
    tick(d->time);
    out.t_s.push_back(d->time);
    out.wrench.push_back(planar_components(step.state().feet[0].wrench));
    out.depth_m.push_back(d->qpos[qadr[1]]);  // flat ground at z = 0: z is the depth, unclamped
    out.velocity.emplace_back(d->qvel[vadr[0]], d->qvel[vadr[1]], d->qvel[vadr[2]]);
  }
  return out;
}

// The particle tier: the foot driven along the path (analytic twist per segment) through a copy
// of the settled bed; the reaction wrench about p_r.
Series run_particles(const AccuracyScenario& sc, const ConfigurationPath& path,
                     const SettledBed& bed, const std::function<void(double)>& tick) {
  particles::ParticleModel model = bed.model;
  const Vec3 p_BR(0.0, 0.0, sc.foot.reference_height_m - 0.5 * sc.foot.foot_length_m);
  model.bodies.push_back(
      CoupledBody{"foot", CylinderShape{sc.foot.foot_radius_m, 0.5 * sc.foot.foot_length_m}, p_BR});
  particles::ParticleState state = bed.state;
  particles::ParticleWorkspace workspace = bed.workspace;
  const double dt = model.time_step_s;
  const long steps = steps_for(path.duration_s(), dt);
  std::vector<BodyMotion> motions(1);
  Series out;
  for (long k = 0; k < steps; ++k) {
    const double t = static_cast<double>(k) * dt;
    const auto [q, qdot] = path.at(t);
    FootPath at = sc.foot;
    at.target_xy_m.x() += q[0];
    BodyMotion& m = motions[0];
    m.X_WB = foot_pose_at(at, bed.surface_z_m, q[1], q[2]);
    const Vec3 axis = m.X_WB.linear().col(2);
    const Vec3 p_center = m.X_WB.translation() - 0.5 * sc.foot.foot_length_m * axis;
    m.V_WB.w_W = Vec3(0.0, qdot[2], 0.0);
    m.V_WB.v_WBo = Vec3(qdot[0], 0.0, qdot[1]) + m.V_WB.w_W.cross(m.X_WB.translation() - p_center);
    particles::step(model, state, motions, workspace);
    tick(t + dt);
    const Wrench w = state.body_wrenches[0].shifted_to(m.X_WB * p_BR);
    out.t_s.push_back(t + dt);
    out.wrench.emplace_back(w.f_W.x(), w.f_W.z(), w.tau_W.y());
    out.depth_m.push_back(q[1]);
    out.velocity.push_back(qdot);
  }
  return out;
}

// Centred moving average over `window_s` (the acquisition's low-pass filter), same samples.
std::vector<Eigen::Vector3d> smoothed(const Series& s, double window_s) {
  std::vector<Eigen::Vector3d> out(s.wrench.size());
  std::size_t lo = 0, hi = 0;
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  for (std::size_t i = 0; i < s.t_s.size(); ++i) {
    while (hi < s.t_s.size() && s.t_s[hi] <= s.t_s[i] + 0.5 * window_s) sum += s.wrench[hi++];
    while (s.t_s[lo] < s.t_s[i] - 0.5 * window_s) sum -= s.wrench[lo++];
    out[i] = sum / static_cast<double>(hi - lo);
  }
  return out;
}

// RMS of (a - b) per component over the samples added, with the RMS of the particle tier's wrench
// over the same samples as the scale.
struct RelativeRms {
  Eigen::Vector3d err2 = Eigen::Vector3d::Zero();
  Eigen::Vector3d ref2 = Eigen::Vector3d::Zero();
  long samples = 0;

  void add(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& particles) {
    err2 += (a - b).cwiseAbs2();
    ref2 += particles.cwiseAbs2();
    ++samples;
  }
  nlohmann::json json() const {
    static const char* key[3] = {"f_x", "f_z", "tau_y"};
    nlohmann::json out = nlohmann::json::object();
    const double n = static_cast<double>(std::max<long>(samples, 1));
    for (int c = 0; c < 3; ++c) {
      const double rms = std::sqrt(err2[c] / n);
      const double ref = std::sqrt(ref2[c] / n);
      out[key[c]] = {
          {"rms_error", rms}, {"particle_rms", ref}, {"relative", ref > 0.0 ? rms / ref : 0.0}};
    }
    return out;
  }
};

// The history-free references at the path's desired configuration and twist at t; none above
// the surface, while the path holds still, or where the database sampled no direction within
// the tolerance of the path's motion.
std::optional<HistoryFreeReference> reference_at(const AccuracyScenario& sc,
                                                 const ConfigurationPath& path,
                                                 const WrenchSpaceModel& predictor, double t) {
  const auto [q, qdot] = path.at(t);
  const Eigen::Vector2d theta(predictor.configuration_depth(q[1], q[2]), q[2]);
  if (theta[0] >= 0.0 || qdot.isZero(0.0)) return std::nullopt;
  // The database's twists are those of p_r: v_r = v_center + omega x (p_r - p_center), p_r up
  // the axis tilted by phi about y.
  const double up = sc.foot.reference_height_m;
  const Eigen::Vector3d r(up * std::sin(q[2]), 0.0, up * std::cos(q[2]));
  const Eigen::Vector3d omega(0.0, qdot[2], 0.0);
  const Eigen::Vector3d v_r = Eigen::Vector3d(qdot[0], 0.0, qdot[1]) + omega.cross(r);
  HistoryFreeReference ref =
      history_free_reference(predictor, theta, Eigen::Vector3d(v_r.x(), v_r.z(), qdot[2]));
  if (ref.direction_error_rad > sc.direction_tolerance_rad) return std::nullopt;
  return ref;
}

// Value of series `s` at time t (the sample at or just before t).
std::size_t sample_at(const Series& s, double t) {
  const auto it = std::upper_bound(s.t_s.begin(), s.t_s.end(), t + 1e-12);
  return it == s.t_s.begin() ? 0 : static_cast<std::size_t>(it - s.t_s.begin()) - 1;
}

}  // namespace

nlohmann::json check_accuracy(const ScenarioTable& root) {
  const AccuracyScenario sc = load_accuracy(root);
  const WrenchDatabase db = load_database(sc.database);
  if (std::abs(db.reference_point_m.z() - sc.foot.reference_height_m) > 1e-9) {
    root.table("foot").fail(
        "reference_height_m",
        fmt::format("{:g} m differs from the database's p_r ({:g} m up the axis)",
                    sc.foot.reference_height_m, db.reference_point_m.z()));
  }
  long steps = sc.bed.settle.max_steps;
  for (const ConfigurationPath& p : sc.paths) {
    steps += 2 * steps_for(p.duration_s(), sc.bed.model.time_step_s);
  }
  return {{"tier", "wrench"}, {"name", sc.name}, {"steps", steps}, {"view", false}};
}

nlohmann::json run_accuracy(const ScenarioTable& root, OutputDir& out,
                            const RunProgress& progress) {
  const AccuracyScenario sc = load_accuracy(root);
  const WrenchSpaceModel predictor(load_database(sc.database));
  // One count over the whole run, as check_accuracy states it: the settling's steps (all of them
  // once it has ended, early or not), then each path's wrench-space and particle steps (progress
  // stopped after the settling, 15 s before the end of foot_accuracy_sand).
  long total = sc.bed.settle.max_steps;
  for (const ConfigurationPath& p : sc.paths) {
    total += 2 * steps_for(p.duration_s(), sc.bed.model.time_step_s);
  }
  long done = 0;
  const SettledBed bed = settle_bed(sc.bed, [&](long k, long, double t) {
    if (progress) progress(k, total, t);
  });
  done = sc.bed.settle.max_steps;
  const auto tick = [&](double path_time_s) {  // the time along the path being run
    ++done;
    if (progress) progress(std::min(done, total), total, path_time_s);
  };
  nlohmann::json paths = nlohmann::json::array();
  const char* component[3] = {"f_x [N]", "f_z [N]", "tau_y [N m]"};
  for (const ConfigurationPath& path : sc.paths) {
    const auto t0 = std::chrono::steady_clock::now();
    const Series ws = run_wrench_space(sc, path, predictor, tick);
    const double ws_wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Series pt = run_particles(sc, path, bed, tick);
    const std::vector<Eigen::Vector3d> pt_smooth = smoothed(pt, sc.filter_window_s);

    CsvWriter csv(out.path(path.name + ".csv"),
                  {"t_s", "depth_desired_m", "depth_wrench_space_m", "f_x_wrench_space_N",
                   "f_z_wrench_space_N", "tau_y_wrench_space_N_m", "f_x_particles_N",
                   "f_z_particles_N", "tau_y_particles_N_m", "v_x_wrench_space_m_per_s",
                   "v_z_wrench_space_m_per_s", "omega_y_wrench_space_rad_per_s", "f_x_fresh_bed_N",
                   "f_z_fresh_bed_N", "tau_y_fresh_bed_N_m", "f_x_max_dissipation_N",
                   "f_z_max_dissipation_N", "tau_y_max_dissipation_N_m", "direction_error_rad"});
    RelativeRms ws_vs_pt, fresh_vs_pt, choice_vs_fresh, ws_vs_choice, choice_vs_pt;
    double worst_direction_rad = 0.0;
    PlotSpec panel[3];
    PlotSeries a[3], b[3], fresh[3], choice[3];
    for (int c = 0; c < 3; ++c) {
      a[c].name = "wrench space (PID)";
      b[c].name = fmt::format("particle tier ({:g} s mean)", sc.filter_window_s);
      fresh[c].name = "fresh bed, same motion (database)";
      fresh[c].colour = Rgb{40, 160, 60};
      choice[c].name = "max dissipation in W(theta)";
      choice[c].colour = Rgb{150, 150, 150};
      choice[c].line_width_px = 1;  // drawn over the fresh bed's line, which it often equals
    }
    PlotSeries depth_des, depth_ws;
    depth_des.name = "desired";
    depth_ws.name = "wrench space (PID)";
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < ws.t_s.size(); ++i) {
      const double t = ws.t_s[i];
      const std::size_t j = sample_at(pt, t);
      const Eigen::Vector3d& w_ws = ws.wrench[i];
      const Eigen::Vector3d& w_pt = pt_smooth[j];
      const Eigen::Vector3d& v_ws = ws.velocity[i];
      const std::optional<HistoryFreeReference> ref = reference_at(sc, path, predictor, t);
      const Eigen::Vector3d w_fresh =
          ref ? Eigen::Vector3d(ref->measured) : Eigen::Vector3d::Constant(nan);
      const Eigen::Vector3d w_choice =
          ref ? Eigen::Vector3d(ref->max_dissipation) : Eigen::Vector3d::Constant(nan);
      csv.write_row({t, path.at(t).first[1], ws.depth_m[i], w_ws[0], w_ws[1], w_ws[2], w_pt[0],
                     w_pt[1], w_pt[2], v_ws[0], v_ws[1], v_ws[2], w_fresh[0], w_fresh[1],
                     w_fresh[2], w_choice[0], w_choice[1], w_choice[2],
                     ref ? ref->direction_error_rad : nan});
      // Compared while the desired path is below the surface (either tier may touch it).
      if (path.at(t).first[1] < 0.0) ws_vs_pt.add(w_ws, w_pt, w_pt);
      if (ref) {
        fresh_vs_pt.add(w_fresh, w_pt, w_pt);
        choice_vs_fresh.add(w_choice, w_fresh, w_pt);
        ws_vs_choice.add(w_ws, w_choice, w_pt);
        choice_vs_pt.add(w_choice, w_pt, w_pt);
        worst_direction_rad = std::max(worst_direction_rad, ref->direction_error_rad);
      }
      for (int c = 0; c < 3; ++c) {
        a[c].x.push_back(t);
        a[c].y.push_back(w_ws[c]);
        b[c].x.push_back(t);
        b[c].y.push_back(w_pt[c]);
        fresh[c].x.push_back(t);
        fresh[c].y.push_back(w_fresh[c]);
        choice[c].x.push_back(t);
        choice[c].y.push_back(w_choice[c]);
      }
      depth_des.x.push_back(t);
      depth_des.y.push_back(1e3 * path.at(t).first[1]);
      depth_ws.x.push_back(t);
      depth_ws.y.push_back(1e3 * ws.depth_m[i]);
    }
    csv.close();
    std::vector<RgbImage> panels;
    for (int c = 0; c < 3; ++c) {
      panel[c].title =
          c == 0 ? fmt::format("{} / {}: resistance wrench about p_r", sc.name, path.name) : "";
      panel[c].x_label = "time [s]";
      panel[c].y_label = component[c];
      panel[c].width_px = 900;
      panel[c].height_px = 300;
      panel[c].series = {b[c], a[c], fresh[c], choice[c]};
      panels.push_back(plot_lines(panel[c]));
    }
    PlotSpec dp;
    dp.x_label = "time [s]";
    dp.y_label = "depth [mm]";
    dp.width_px = 900;
    dp.height_px = 300;
    dp.series = {depth_des, depth_ws};
    panels.push_back(plot_lines(dp));
    write_png(out.path(path.name + ".png"), stack_vertically(panels));

    double max_track = 0.0;
    for (std::size_t i = 0; i < ws.t_s.size(); ++i) {
      max_track = std::max(max_track, std::abs(ws.depth_m[i] - path.at(ws.t_s[i]).first[1]));
    }
    paths.push_back(
        {{"name", path.name},
         {"duration_s", path.duration_s()},
         {"samples_compared", ws_vs_pt.samples},
         {"error", ws_vs_pt.json()},
         {"history_free_reference",
          {{"samples", fresh_vs_pt.samples},
           {"direction_tolerance_rad", sc.direction_tolerance_rad},
           {"worst_direction_error_rad", worst_direction_rad},
           {"fresh_bed_vs_particles", fresh_vs_pt.json()},
           {"max_dissipation_vs_fresh_bed", choice_vs_fresh.json()},
           {"wrench_space_vs_max_dissipation", ws_vs_choice.json()},
           {"max_dissipation_vs_particles", choice_vs_pt.json()}}},
         {"max_depth_tracking_error_m", max_track},
         {"wrench_space_wall_s", ws_wall},
         {"wrench_space_us_per_step",
          1e6 * ws_wall / static_cast<double>(std::max<std::size_t>(1, ws.t_s.size()))}});
  }
  nlohmann::json summary = {{"scenario", sc.name},
                            {"description", sc.description},
                            {"tier", "wrench"},
                            {"kind", "foot_accuracy"},
                            {"database", sc.database.filename().string()},
                            {"medium", predictor.database().medium.name},
                            {"particles", bed.state.size()},
                            {"settle_steps", bed.settle_steps},
                            {"clamped_queries", predictor.clamped_queries()},
                            {"paths", paths}};
  write_json(out.path("summary.json"), summary);
  return summary;
}

}  // namespace talus::wrench
