// kind = "foot_drop" and "quadruped": a planar MuJoCo robot on the wrench-space step (paper 000
// §III-C, §IV-C2-4), one run per [[case]] from the model's initial state. Both kinds read the same
// keys (docs/wrench_space.md §8); they differ in the robot and the cases the files ship.
//
//   [robot]       model (MJCF, relative to the scenario file), mass_scale (1: every body's mass
//                 and inertia times this), body (the body reported and drawn as the robot's pose),
//                 feet (site names: bottom centre, z along the foot's axis),
//                 granular_inertia [kg, kg, kg m^2] (M_g per foot, on (v_x, v_z, omega_y))
//   [simulation]  duration_s, time_step_s (MuJoCo's step; default the model's), sample_every_s
//                 (0.01), snapshots (6), depth_beyond_data_m (how far below the data's deepest
//                 depth a foot may sink before the run stops with exit 1; default half the
//                 data's depth span)
//   [[case]]      name, database (HDF5, relative to the scenario file), duration_s (optional),
//                 slope_rad or terrain_points_m [[x, z], ...] (default: flat at z = 0),
//                 initial_joints / initial_values (qpos of named 1-dof joints),
//                 [[case.servo]]: actuators, target, ramp_start_s, ramp_end_s, amplitude,
//                 frequency_hz, phase_rad: ctrl = target * ramp(t) + amplitude sin(2 pi f t +
//                 phase)
//
// Outputs: summary.json (per case: the body's final pose and speed, whether it came to rest, and
// per foot its final depth and tilt, slip while in contact and contact share; clamped queries,
// step timings), <case>.csv (samples), <case>.png (side-view snapshots, feet's x and depth over
// time), overview.png (the body's height and pitch over time, all cases).

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "core/csv_writer.hpp"
#include "core/image.hpp"
#include "core/json_file.hpp"
#include "core/plot.hpp"
#include "core/run_warning.hpp"
#include "core/steps.hpp"
#include "core/view_options.hpp"
#include "core/view_recorder.hpp"
#include "robot/mujoco_model.hpp"
#include "robot/mujoco_view.hpp"
#include "robot/robot_scenario.hpp"
#include "wrench/terrain_profile.hpp"
#include "wrench/wrench_contact_step.hpp"
#include "wrench/wrench_scenario_kinds.hpp"
#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {

namespace {

namespace fs = std::filesystem;

struct ServoProgram {
  std::vector<std::string> actuators;
  double target = 0.0;
  double ramp_start_s = 0.0;
  double ramp_end_s = 0.0;
  double amplitude = 0.0;
  double frequency_hz = 0.0;
  double phase_rad = 0.0;

  double at(double t) const {
    double ramp = 1.0;
    if (ramp_end_s > ramp_start_s) {
      ramp = std::clamp((t - ramp_start_s) / (ramp_end_s - ramp_start_s), 0.0, 1.0);
    } else if (t < ramp_start_s) {
      ramp = 0.0;
    }
    return target * ramp + amplitude * std::sin(2.0 * M_PI * frequency_hz * t + phase_rad);
  }
};

struct RobotCase {
  std::string name;
  fs::path database;
  TerrainProfile terrain = TerrainProfile::plane(0.0);
  std::vector<std::string> initial_joints;
  std::vector<double> initial_values;
  std::vector<ServoProgram> servos;
  double duration_s = 0.0;
};

struct RobotKindScenario {
  std::string name, description, kind;
  fs::path model_file;
  std::string body;
  std::vector<std::string> feet;
  Eigen::Vector3d granular_inertia = Eigen::Vector3d::Zero();
  double mass_scale = 1.0;   // every body's mass and inertia times this
  double time_step_s = 0.0;  // MuJoCo's step: [simulation] time_step_s or the model's
  double sample_every_s = 0.01;
  int snapshots = 6;
  ViewOptions view;                   // [view]: the frames `talus view` plays, per case
  double depth_beyond_data_m = -1.0;  // < 0: half the data's depth span
  std::vector<RobotCase> cases;
};

int joint_id(const robot::MujocoModel& robot, const ScenarioTable& t, const std::string& name) {
  const int id = mj_name2id(robot.model(), mjOBJ_JOINT, name.c_str());
  if (id < 0)
    t.fail("initial_joints", fmt::format("no joint '{}' in {}", name, robot.file().string()));
  const int type = robot.model()->jnt_type[id];
  if (type != mjJNT_HINGE && type != mjJNT_SLIDE) {
    t.fail("initial_joints", fmt::format("joint '{}' is not a hinge or slide", name));
  }
  return id;
}

RobotKindScenario load_robot_kind(const ScenarioTable& root) {
  RobotKindScenario sc;
  const ScenarioHead head = read_wrench_head(root, {"foot_drop", "quadruped"});
  sc.name = head.name;
  sc.description = head.description;
  sc.kind = head.choice("kind");
  const fs::path base = root.file().parent_path();

  const ScenarioTable robot_t = root.table("robot");
  sc.model_file = (base / robot_t.string("model")).lexically_normal();
  sc.body = robot_t.string("body");
  sc.feet = robot_t.strings("feet");
  const Vec3 mg = robot_t.vec3("granular_inertia", non_negative("[kg, kg, kg m^2]"));
  sc.granular_inertia = Eigen::Vector3d(mg.x(), mg.y(), mg.z());
  sc.mass_scale = robot_t.number_or("mass_scale", 1.0, positive(""));
  robot_t.refuse_unknown_keys();
  std::optional<robot::MujocoModel> robot;
  try {
    robot.emplace(robot::MujocoModel::load(sc.model_file));
  } catch (const robot::RobotError& e) {
    robot_t.fail("model", e.what());
  }
  try {
    robot->body_id(sc.body);
  } catch (const robot::RobotError& e) {
    robot_t.fail("body", e.what());  // the body's key and line, not the model's
  }
  for (const std::string& foot : sc.feet) {
    if (mj_name2id(robot->model(), mjOBJ_SITE, foot.c_str()) < 0) {
      std::vector<std::string> sites;
      for (int k = 0; k < robot->model()->nsite; ++k) {
        const char* n = mj_id2name(robot->model(), mjOBJ_SITE, k);
        sites.emplace_back(n ? n : "");
      }
      robot_t.fail("feet", fmt::format("no site '{}' in {}; its sites are: {}", foot,
                                       sc.model_file.string(), fmt::join(sites, ", ")));
    }
  }
  const ScenarioTable sim = root.table("simulation");
  robot::read_mujoco_time_step(sim, *robot);
  sc.time_step_s = robot->time_step_s();
  const double duration = sim.number("duration_s", positive("[s]"));
  sc.sample_every_s = sim.number_or("sample_every_s", 0.01, positive("[s]"));
  sc.snapshots = sim.integer_or("snapshots", 6, 1, 50);
  if (sim.has("depth_beyond_data_m")) {
    sc.depth_beyond_data_m = sim.number("depth_beyond_data_m", non_negative("[m]"));
  }
  sim.refuse_unknown_keys();

  for (const ScenarioTable& c : root.named_tables("case")) {
    RobotCase rc;
    rc.name = c.string("name");
    // Each case writes NAME.png and NAME.csv beside the all-cases overview.png.
    if (rc.name == "overview") {
      c.fail("name",
             "'overview' is the all-cases plot's name (overview.png), which this case's "
             "own plot would write over; expected another case name");
    }
    rc.database = (base / c.string("database")).lexically_normal();
    if (!fs::exists(rc.database)) {
      c.fail("database", fmt::format("{} does not exist (scripts/regenerate-wrench-data.sh makes "
                                     "the shipped ones)",
                                     rc.database.string()));
    }
    load_database_at(c, "database", rc.database);  // readable, complete, finite: before any run
    rc.duration_s = c.number_or("duration_s", duration, positive("[s]"));
    steps_for(c, "duration_s", rc.duration_s, sc.time_step_s);  // bounded here, before any run
    rc.terrain = read_terrain_profile(c);
    if (c.has("initial_joints")) {
      rc.initial_joints = c.strings("initial_joints");
      rc.initial_values =
          c.numbers("initial_values", rc.initial_joints.size(), any_finite("[m or rad]"));
      for (const std::string& j : rc.initial_joints) joint_id(*robot, c, j);
    }
    for (const ScenarioTable& s : c.tables("servo")) {
      ServoProgram p;
      p.actuators = s.strings("actuators");
      for (const std::string& a : p.actuators) {
        try {
          robot->actuator_id(a);
        } catch (const robot::RobotError& e) {
          s.fail("actuators", e.what());
        }
      }
      p.target = s.number_or("target", 0.0, any_finite(""));
      p.ramp_start_s = s.number_or("ramp_start_s", 0.0, non_negative("[s]"));
      p.ramp_end_s = s.number_or("ramp_end_s", p.ramp_start_s, non_negative("[s]"));
      p.amplitude = s.number_or("amplitude", 0.0, any_finite(""));
      p.frequency_hz = s.number_or("frequency_hz", 0.0, non_negative("[Hz]"));
      p.phase_rad = s.number_or("phase_rad", 0.0, any_finite("[rad]"));
      s.refuse_unknown_keys();
      rc.servos.push_back(p);
    }
    c.refuse_unknown_keys();
    sc.cases.push_back(std::move(rc));
  }
  if (sc.cases.empty()) root.fail("case", "expected at least one [[case]]");
  sc.view = read_view_options(root);
  root.refuse_unknown_keys();
  return sc;
}

WrenchStepModel step_model(const RobotKindScenario& sc, const RobotCase& rc) {
  WrenchStepModel m;
  for (const std::string& site : sc.feet) {
    m.feet.push_back(FootSpec{site, site, sc.granular_inertia.asDiagonal()});
  }
  m.terrain = rc.terrain;
  m.depth_beyond_data_m = sc.depth_beyond_data_m;
  return m;
}

struct Sample {
  double t;
  double x, z, pitch;
  std::vector<FootContact> feet;
};

// Stick figure of the robot in the x-z plane: a segment from every body to its parent (not the
// world) and from each foot's body to its bottom site.
std::vector<std::pair<Eigen::Vector2d, Eigen::Vector2d>> stick_figure(const mjModel* m,
                                                                      const mjData* d) {
  std::vector<std::pair<Eigen::Vector2d, Eigen::Vector2d>> segments;
  for (int b = 1; b < m->nbody; ++b) {
    const int parent = m->body_parentid[b];
    if (parent == 0) continue;
    segments.push_back(
        {{d->xpos[3 * parent], d->xpos[3 * parent + 2]}, {d->xpos[3 * b], d->xpos[3 * b + 2]}});
  }
  for (int s = 0; s < m->nsite; ++s) {
    const int b = m->site_bodyid[s];
    segments.push_back(
        {{d->xpos[3 * b], d->xpos[3 * b + 2]}, {d->site_xpos[3 * s], d->site_xpos[3 * s + 2]}});
  }
  return segments;
}

struct CaseResult {
  nlohmann::json summary;
  std::vector<Sample> samples;
  nlohmann::json view_manifest;  // null when the run records no view
  std::string stopped;           // why the wrench-space step stopped the case; "" if it ran out
};

// The case's robot in its initial state: the scenario's model at its time step, every body's mass
// and inertia scaled, the case's initial joint values set, and the kinematics computed.
robot::MujocoModel initial_robot(const RobotKindScenario& sc, const RobotCase& rc) {
  robot::MujocoModel robot = robot::MujocoModel::load(sc.model_file);
  robot.set_time_step_s(sc.time_step_s);
  mjModel* m = robot.model();
  mjData* d = robot.data();
  // MuJoCo recomputes the composite inertias from body_mass and body_inertia every step, so
  // scaling them scales the robot (same shape, lighter or heavier).
  for (int b = 0; b < m->nbody; ++b) {
    m->body_mass[b] *= sc.mass_scale;
    for (int a = 0; a < 3; ++a) m->body_inertia[3 * b + a] *= sc.mass_scale;
  }
  for (std::size_t k = 0; k < rc.initial_joints.size(); ++k) {
    const int j = mj_name2id(m, mjOBJ_JOINT, rc.initial_joints[k].c_str());
    d->qpos[m->jnt_qposadr[j]] = rc.initial_values[k];
  }
  mj_forward(m, d);
  return robot;
}

using ServoBinding = std::pair<std::vector<int>, const ServoProgram*>;

// Each servo program with the ids of the actuators it drives.
std::vector<ServoBinding> bind_servos(const robot::MujocoModel& robot, const RobotCase& rc) {
  std::vector<ServoBinding> servos;
  for (const ServoProgram& p : rc.servos) {
    std::vector<int> ids;
    for (const std::string& a : p.actuators) ids.push_back(robot.actuator_id(a));
    servos.push_back({ids, &p});
  }
  return servos;
}

// Every actuator's control at time t: the sum of the programs that drive it (0 if none does).
void apply_servos(const std::vector<ServoBinding>& servos, mjData* d) {
  for (const auto& [ids, p] : servos) {
    for (const int a : ids) d->ctrl[a] = 0.0;
  }
  for (const auto& [ids, p] : servos) {
    for (const int a : ids) d->ctrl[a] += p->at(d->time);
  }
}

// The columns of <case>.csv: time and the body's pose, then eight per foot.
std::vector<std::string> sample_header(const RobotKindScenario& sc) {
  std::vector<std::string> header = {"t_s", "body_x_m", "body_z_m", "body_pitch_rad"};
  for (const std::string& f : sc.feet) {
    for (const char* c : {"in_contact", "depth_m", "tilt_rad", "center_x_m", "center_z_m", "f_x_N",
                          "f_z_N", "tau_y_N_m"}) {
      header.push_back(f + "_" + c);
    }
  }
  return header;
}

// The body's pose and every foot's contact now (no contact for a foot the step has not reported).
Sample take_sample(const mjData* d, int body, const WrenchContactStep& step, std::size_t feet) {
  Sample s{d->time, d->xpos[3 * body], d->xpos[3 * body + 2],
           std::atan2(d->xmat[9 * body + 2], d->xmat[9 * body + 0]), step.state().feet};
  if (s.feet.size() != feet) s.feet.assign(feet, FootContact{});
  return s;
}

// A sample as a row of <case>.csv (sample_header's columns).
std::vector<double> sample_row(const Sample& s) {
  std::vector<double> row = {s.t, s.x, s.z, s.pitch};
  for (const FootContact& f : s.feet) {
    const Eigen::Vector3d w = planar_components(f.wrench);
    row.insert(row.end(), {f.in_contact ? 1.0 : 0.0, f.depth_m, f.tilt_rad, f.p_WCenter.x(),
                           f.p_WCenter.y(), w[0], w[1], w[2]});
  }
  return row;
}

// The side view's snapshots of the robot as the run draws them, and the x range they cover (for
// the ground drawn under them).
struct SideView {
  PlotSpec plot;
  double x_lo = 1e9, x_hi = -1e9;
  int snapshots = 0;
};

SideView side_view(const RobotKindScenario& sc, const RobotCase& rc) {
  SideView view;
  PlotSpec& side = view.plot;
  side.title = fmt::format("{} / {}: side view, {} snapshots (light = early)", sc.name, rc.name,
                           sc.snapshots);
  side.x_label = "x [m]";
  side.y_label = "z [m]";
  side.equal_aspect = true;
  side.legend = LegendPlacement::None;
  side.height_px = 420;
  side.width_px = 900;
  return view;
}

// The robot's stick figure now, as the next snapshot: early ones light grey, later ones darker
// and bluer.
void draw_snapshot(const RobotKindScenario& sc, const mjModel* m, const mjData* d, SideView& view) {
  const double shade =
      sc.snapshots > 1 ? static_cast<double>(view.snapshots) / (sc.snapshots - 1) : 1;
  const auto level = static_cast<std::uint8_t>(200.0 * (1.0 - shade));
  PlotSeries s;
  s.colour = Rgb{level, level, static_cast<std::uint8_t>(std::min(255.0, level + 55.0))};
  for (const auto& [a, b] : stick_figure(m, d)) {
    s.x.insert(s.x.end(), {a.x(), b.x(), std::numeric_limits<double>::quiet_NaN()});
    s.y.insert(s.y.end(), {a.y(), b.y(), std::numeric_limits<double>::quiet_NaN()});
    view.x_lo = std::min({view.x_lo, a.x(), b.x()});
    view.x_hi = std::max({view.x_hi, a.x(), b.x()});
  }
  view.plot.series.push_back(s);
  ++view.snapshots;
}

// The terrain under the drawn range (and a margin), drawn first so that the robot covers it.
void add_ground(const TerrainProfile& terrain, SideView& view) {
  const double x_lo = view.x_lo, x_hi = view.x_hi;
  PlotSeries ground;
  ground.colour = Rgb{150, 110, 60};
  ground.line_width_px = 3;
  const double pad = 0.1 * std::max(0.2, x_hi - x_lo);
  for (int i = 0; i <= 100; ++i) {
    const double x = x_lo - pad + (x_hi - x_lo + 2 * pad) * i / 100.0;
    ground.x.push_back(x);
    ground.y.push_back(terrain.height_at(x));
  }
  view.plot.series.insert(view.plot.series.begin(), ground);
}

// A panel of every foot over time: part 0 its bottom centre's x (NaN before its first contact),
// part 1 its depth.
PlotSpec foot_panel(const RobotKindScenario& sc, const std::vector<Sample>& samples, int part) {
  PlotSpec p;
  p.x_label = "time [s]";
  p.y_label = part == 0 ? "foot bottom centre x [m]" : "foot depth d [mm]";
  p.height_px = 300;
  p.width_px = 900;
  for (std::size_t f = 0; f < sc.feet.size(); ++f) {
    PlotSeries s;
    s.name = sc.feet[f];
    for (const Sample& smp : samples) {
      const FootContact& c = smp.feet[f];
      s.x.push_back(smp.t);
      s.y.push_back(part == 0 ? (c.p_WCenter.x() != 0.0 || c.in_contact
                                     ? c.p_WCenter.x()
                                     : std::numeric_limits<double>::quiet_NaN())
                              : 1e3 * c.depth_m);
    }
    p.series.push_back(s);
  }
  return p;
}

// <case>.png: the side view with the ground under it, then the feet's x and depth over time.
void write_case_picture(const RobotKindScenario& sc, const RobotCase& rc,
                        const std::vector<Sample>& samples, SideView& view, OutputDir& out) {
  add_ground(rc.terrain, view);
  std::vector<RgbImage> panels = {plot_lines(view.plot)};
  for (int part = 0; part < 2; ++part) panels.push_back(plot_lines(foot_panel(sc, samples, part)));
  write_png(out.path(rc.name + ".png"), stack_vertically(panels));
}

// Per foot: its final depth, tilt, contact and wrench, how far it slipped along x between
// samples both in contact, and the share of sample intervals that end in contact.
nlohmann::json feet_summary(const RobotKindScenario& sc, const std::vector<Sample>& samples) {
  const Sample& last = samples.back();
  nlohmann::json feet = nlohmann::json::object();
  for (std::size_t f = 0; f < sc.feet.size(); ++f) {
    double slip = 0.0, contact = 0.0;
    for (std::size_t k = 1; k < samples.size(); ++k) {
      const FootContact& a = samples[k - 1].feet[f];
      const FootContact& b = samples[k].feet[f];
      if (a.in_contact && b.in_contact) slip += b.p_WCenter.x() - a.p_WCenter.x();
      contact += b.in_contact ? 1.0 : 0.0;
    }
    feet[sc.feet[f]] = {
        {"final_depth_m", last.feet[f].depth_m},
        {"final_tilt_rad", last.feet[f].tilt_rad},
        {"final_in_contact", last.feet[f].in_contact},
        {"slip_in_contact_m", slip},
        {"contact_share", contact / std::max(1.0, static_cast<double>(samples.size()) - 1.0)},
        {"final_wrench_W",
         {last.feet[f].wrench.f_W.x(), last.feet[f].wrench.f_W.z(),
          last.feet[f].wrench.tau_W.y()}}};
  }
  return feet;
}

// The body's start and final pose, how far it moved between them, its largest pitch, and its speed
// and pitch rate over the last 0.1 s, which decide whether it came to rest.
nlohmann::json body_summary(const RobotKindScenario& sc, const std::vector<Sample>& samples) {
  const Sample& last = samples.back();
  const Sample* before = &samples.front();
  for (const Sample& s : samples) {
    if (s.t <= last.t - 0.1 + 1e-9) before = &s;
  }
  const double span = std::max(last.t - before->t, 1e-9);
  const double speed = std::hypot(last.x - before->x, last.z - before->z) / span;
  const double pitch_rate = std::abs(last.pitch - before->pitch) / span;
  double max_pitch = 0.0;
  for (const Sample& s : samples) max_pitch = std::max(max_pitch, std::abs(s.pitch));
  return {{"name", sc.body},
          {"start_xz_m", {samples.front().x, samples.front().z}},
          {"final_xz_m", {last.x, last.z}},
          {"travel_m", std::hypot(last.x - samples.front().x, last.z - samples.front().z)},
          {"final_pitch_rad", last.pitch},
          {"max_abs_pitch_rad", max_pitch},
          {"final_speed_m_per_s", speed},
          {"final_pitch_rate_rad_per_s", pitch_rate},
          {"at_rest", speed < 0.01 && pitch_rate < 0.05}};
}

// The case's entry of summary.json: the body's final state, the feet's slip while in contact, the
// step's query counts and timings.
nlohmann::json case_summary(const RobotKindScenario& sc, const RobotCase& rc,
                            const std::vector<Sample>& samples, const WrenchContactStep& step,
                            const WrenchSpaceModel& predictor, double wall) {
  const WrenchStepState& st = step.state();
  return {{"name", rc.name},
          {"database", rc.database.filename().string()},
          {"medium", predictor.database().medium.name},
          {"steps", st.step},
          {"duration_s", samples.back().t},
          {"body", body_summary(sc, samples)},
          {"feet", feet_summary(sc, samples)},
          {"contact_queries", st.contact_queries},
          {"clamped_queries", st.clamped_queries},
          {"worst_qp_stationarity", st.worst_stationarity},
          {"wall_s", wall},
          {"us_per_step", 1e6 * wall / static_cast<double>(std::max<long>(1, st.step))}};
}

// What `talus view` plays of a case: the robot's visible geoms over the case's ground profile,
// in view/<case> (docs/viewer.md).
class CaseViewRecord {
 public:
  CaseViewRecord(const RobotKindScenario& sc, const RobotCase& rc, const robot::MujocoModel& robot,
                 long steps, OutputDir& out)
      : robot_(robot), recording_(steps, sc.view.frames) {
    if (!recording_.on()) return;
    ViewLayout layout = view_layout_head(
        "wrench", sc.name, fmt::format("{} ({})", rc.name, rc.database.stem().string()));
    const double* p = robot.data()->xpos + 3 * robot.body_id(sc.body);
    const ViewHeightmapGrid grid = profile_view_grid(p[0], p[1]);
    layout.heightmap = grid;
    profile_view_heights(rc.terrain, grid, heights_m_);  // the profile does not change
    geoms_ = robot::robot_view(robot, 10.0);
    layout.bodies = geoms_.bodies;
    recording_.start(out, std::move(layout), "view/" + rc.name);
  }

  void sample(long step) {
    if (!recording_.due(step)) return;
    robot::robot_view_poses(robot_, geoms_, poses_);
    recording_.recorder().add_frame(
        ViewFrame{robot_.data()->time, {}, {}, {}, {}, {}, {}, heights_m_, poses_});
  }

  /// The case's manifest (null when no frames were asked for).
  nlohmann::json finish(const std::vector<std::string>& plots) {
    return recording_.on() ? recording_.recorder().finish(plots) : nlohmann::json();
  }

 private:
  const robot::MujocoModel& robot_;
  ViewRecording recording_;
  robot::RobotView geoms_;
  std::vector<double> heights_m_;
  std::vector<Pose> poses_;
};

CaseResult run_case(const RobotKindScenario& sc, const RobotCase& rc, OutputDir& out,
                    const std::function<void()>& tick) {
  robot::MujocoModel robot = initial_robot(sc, rc);
  mjModel* m = robot.model();
  mjData* d = robot.data();
  WrenchSpaceModel predictor(load_database(rc.database));
  WrenchContactStep step(robot, predictor, step_model(sc, rc));
  const int body = robot.body_id(sc.body);
  const std::vector<ServoBinding> servos = bind_servos(robot, rc);
  const double h = step.time_step_s();
  const long steps = steps_for(rc.duration_s, h);
  const long sample_every = std::max(1L, std::lround(sc.sample_every_s / h));
  const long snapshot_every = std::max(1L, steps / std::max(1, sc.snapshots - 1));

  CsvWriter csv(out.path(rc.name + ".csv"), sample_header(sc));
  std::vector<Sample> samples;
  SideView view = side_view(sc, rc);
  CaseViewRecord recording(sc, rc, robot, steps, out);
  std::string stopped;
  const auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k <= steps; ++k) {
    if (k % snapshot_every == 0 && view.snapshots < sc.snapshots) draw_snapshot(sc, m, d, view);
    recording.sample(k);
    // The state before each step is kept, so that a step that fails leaves its last good state
    // as the case's final sample (a few feet copied: nothing beside the step's QP).
    Sample before = take_sample(d, body, step, sc.feet.size());
    if (k % sample_every == 0 || k == steps) {
      csv.write_row(sample_row(before));
      samples.push_back(before);
    }
    if (k == steps) break;
    apply_servos(servos, d);
    try {
      step.step();
    } catch (const WrenchStepError& e) {
      // The step may have left MuJoCo's state half-updated: the outputs end at `before`.
      stopped = e.what();
      if (samples.back().t != before.t) {
        csv.write_row(sample_row(before));
        samples.push_back(std::move(before));
      }
      break;
    }
    tick();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  csv.close();

  write_case_picture(sc, rc, samples, view, out);
  nlohmann::json summary = case_summary(sc, rc, samples, step, predictor, wall);
  if (!stopped.empty()) summary["stopped"] = stopped;
  return {summary, std::move(samples), recording.finish({rc.name + ".png"}), stopped};
}

long total_steps(const RobotKindScenario& sc) {
  long steps = 0;
  for (const RobotCase& rc : sc.cases) steps += steps_for(rc.duration_s, sc.time_step_s);
  return steps;
}

}  // namespace

nlohmann::json check_robot_kind(const ScenarioTable& root) {
  const RobotKindScenario sc = load_robot_kind(root);
  // A case whose foot starts deeper past the data than the run allows would stop at its first
  // step (exit 1): bad input, refused here at the case's initial state.
  const std::vector<ScenarioTable> tables = root.named_tables("case");
  for (std::size_t k = 0; k < sc.cases.size(); ++k) {
    const RobotCase& rc = sc.cases[k];
    robot::MujocoModel robot = initial_robot(sc, rc);
    const WrenchSpaceModel predictor(load_database(rc.database));
    const WrenchContactStep step(robot, predictor, step_model(sc, rc));
    const double limit = depth_beyond_data_limit_m(predictor, sc.depth_beyond_data_m);
    for (std::size_t f = 0; f < sc.feet.size(); ++f) {
      if (const auto why = depth_beyond_data(step.state().feet[f], predictor, limit, sc.feet[f])) {
        tables[k].fail(tables[k].has("initial_values") ? "initial_values" : "",
                       "at the case's start, " + *why);
      }
    }
  }

  return {{"tier", "wrench"},
          {"name", sc.name},
          {"steps", total_steps(sc)},
          {"view", sc.view.frames > 0}};  // a view per case (CaseViewRecord)
}

nlohmann::json run_robot_kind(const ScenarioTable& root, OutputDir& out,
                              const RunProgress& progress) {
  const RobotKindScenario sc = load_robot_kind(root);
  const long total = total_steps(sc);
  long done = 0;
  const auto tick = [&] {
    ++done;
    if (progress) progress(done, total, 0.0);
  };
  nlohmann::json cases = nlohmann::json::array();
  nlohmann::json first_view;
  std::vector<std::string> case_names;
  PlotSpec height, pitch;
  height.title = fmt::format("{}: {} over time", sc.name, sc.body);
  height.y_label = "height z [m]";
  pitch.y_label = "pitch [rad]";
  height.x_label = pitch.x_label = "time [s]";
  height.height_px = pitch.height_px = 360;
  height.width_px = pitch.width_px = 900;
  std::string stopped;
  for (const RobotCase& rc : sc.cases) {
    CaseResult r = run_case(sc, rc, out, tick);
    if (!r.stopped.empty()) stopped = fmt::format("case '{}': {}", rc.name, r.stopped);
    PlotSeries z, p;
    z.name = p.name = rc.name;
    for (const Sample& s : r.samples) {
      z.x.push_back(s.t);
      z.y.push_back(s.z);
      p.x.push_back(s.t);
      p.y.push_back(s.pitch);
    }
    height.series.push_back(z);
    pitch.series.push_back(p);
    cases.push_back(r.summary);
    if (first_view.is_null()) first_view = r.view_manifest;
    case_names.push_back(rc.name);
    if (!stopped.empty()) break;  // the later cases are not run: the run failed here
  }
  write_png(out.path("overview.png"), stack_vertically({plot_lines(height), plot_lines(pitch)}));
  if (!first_view.is_null()) {
    first_view["plots"].push_back("overview.png");
    write_view_cases(out, first_view, case_names);
  }
  nlohmann::json summary = {{"scenario", sc.name},
                            {"description", sc.description},
                            {"tier", "wrench"},
                            {"kind", sc.kind},
                            {"model", sc.model_file.filename().string()},
                            {"mass_scale", sc.mass_scale},
                            {"steps", total},
                            {"cases", cases}};
  long clamped = 0;
  for (const auto& c : cases) {
    clamped += c["clamped_queries"].get<long>();
    // Queries outside the data's sampled range took the nearest sampled wrench sets: say so (a
    // quadruped case clamped 19 % of its queries with nothing but a count in summary.json).
    const long queries = c["contact_queries"].get<long>();
    if (c["clamped_queries"].get<long>() > 0) {
      const std::string warning = fmt::format(
          "{}: case '{}': {} of {} contact queries ({:.1f} %) were outside the wrench-space "
          "data's depths or tilts and took the nearest sampled sets",
          root.file().string(), c["name"].get<std::string>(), c["clamped_queries"].get<long>(),
          queries, 100.0 * c["clamped_queries"].get<double>() / std::max(1.0, double(queries)));
      add_run_warning(summary, warning);
    }
  }
  summary["clamped_queries"] = clamped;
  if (!stopped.empty()) summary["stopped"] = stopped;
  write_json(out.path("summary.json"), summary);
  if (!stopped.empty()) {
    throw WrenchRunStopped(
        fmt::format("{}: {}: {} (the outputs up to the last good step are written)",
                    root.file().string(), sc.name, stopped));
  }
  return summary;
}

}  // namespace talus::wrench
