// Running a robots-tier scenario: load the robot and its terrain, check the placement, drive
// the coupled simulation to its end and write the drive report and the terrain's pictures.
//
// Scenario layout (docs/rover.md):
//   [scenario] name, tier = "robots", description, terrain = "scm" (default) | "particles" |
//                                   "wrench" (core/scenario_head.hpp)
//   terrain tables                  robot/robot_terrain.hpp: [grid] [soil] [flow] for SCM soil
//                                   (docs/scm.md); [particles] [bed] [container] [solver]
//                                   [settle] for a particle bed (docs/particle_scenarios.md);
//                                   [wrench_space] for wrench spaces (docs/wrench_space.md §9)
//   [simulation] duration_s, time_step_s (MuJoCo's step, optional), sample_every (tier steps
//                between drive samples, default 10)
//   [robot] ...                     robot/robot_scenario.hpp
//   [report] chassis, wheels (coupled link names), wheel_joints (the driven hinges); optional:
//            without it (a walker, a dropped foot) the run reports the coupled links' poses
//            (robot/link_trace.hpp) instead of the drive

#include "robot/robot_run.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>

#include "core/json_file.hpp"
#include "core/output_dir.hpp"
#include "core/scenario_head.hpp"
#include "core/steps.hpp"
#include "core/view_recorder.hpp"
#include "robot/coupled_sim.hpp"
#include "robot/drive_report.hpp"
#include "robot/drive_telemetry.hpp"
#include "robot/link_trace.hpp"
#include "robot/mujoco_view.hpp"
#include "robot/robot_scenario.hpp"
#include "robot/robot_terrain.hpp"

namespace talus::robot {

RobotsScenario load_robots(const ScenarioTable& root) {
  const ScenarioHead head =
      read_scenario_head(root, "robots", {{"terrain", robot_terrain_kinds(), "scm"}});
  const ScenarioTable robot_table = root.table("robot");
  const ScenarioTable sim = root.table("simulation");
  RobotsScenario sc(read_robot_scenario(robot_table, sim));
  sc.name = head.name;
  sc.description = head.description;
  sc.terrain_kind = head.choice("terrain");

  sc.duration_s = sim.number("duration_s", positive("[s]"));
  sc.sample_every = sim.integer_or("sample_every", 10, 1, 1000000);
  sim.refuse_unknown_keys();

  const double dt = sc.robot.model.time_step_s() * sc.robot.mujoco_steps_per_tier_step;
  sc.steps = steps_for(sim, "duration_s", sc.duration_s, dt);
  sc.terrain = read_robot_terrain(root, sc.terrain_kind, sc.robot, dt);

  if (const std::optional<ScenarioTable> rep = root.optional_table("report")) {
    sc.report = DriveReportSpec{rep->string("chassis"), rep->strings("wheels"),
                                rep->strings("wheel_joints")};
    rep->refuse_unknown_keys();
  }
  sc.view = read_view_options(root);
  root.refuse_unknown_keys();

  mj_forward(sc.robot.model.model(), sc.robot.model.data());  // the links' starting poses
  for (const CoupledLink& l : sc.robot.links) {
    const Vec3 p = link_motion(sc.robot.model, l).X_WB.translation();
    if (!sc.terrain->covers_xy(p.x(), p.y())) {
      robot_table.fail("position_m",
                       fmt::format("coupled body '{}' starts at ({:.4g}, {:.4g}) m, off the "
                                   "terrain; place the robot over the [grid] or the container",
                                   l.name, p.x(), p.y()));
    }
  }
  try {
    const RobotTerrain& terrain = *sc.terrain;
    check_initial_placement(sc.robot.model, sc.robot.links,
                            [&](double x, double y) { return terrain.surface_z(x, y); });
  } catch (const std::exception& e) {
    robot_table.fail("position_m", e.what());
  }
  return sc;
}

namespace {

// The report's wheels as coupled links, and their indices in the coupling table.
std::vector<CoupledLink> wheel_links(const RobotsScenario& sc, const ScenarioTable& root,
                                     std::vector<std::size_t>* indices = nullptr) {
  std::vector<CoupledLink> wheels;
  if (!sc.report) return wheels;
  for (const std::string& w : sc.report->wheels) {
    const auto it = std::find_if(sc.robot.links.begin(), sc.robot.links.end(),
                                 [&](const CoupledLink& l) { return l.name == w; });
    if (it == sc.robot.links.end()) {
      std::string names;
      for (const CoupledLink& l : sc.robot.links) names += (names.empty() ? "" : ", ") + l.name;
      root.table("report").fail(
          "wheels", fmt::format("'{}' is not a coupled link; the coupled links are: {}", w, names));
    }
    wheels.push_back(*it);
    if (indices) indices->push_back(static_cast<std::size_t>(it - sc.robot.links.begin()));
  }
  return wheels;
}

// The [report] names, checked against the model before anything runs (issue 16: a wrong chassis
// or wheel joint passed `talus check` and failed the run with exit 1 and no file or line).
void check_report(const RobotsScenario& sc, const ScenarioTable& root) {
  if (!sc.report) return;
  const ScenarioTable rep = root.table("report");
  const std::vector<CoupledLink> wheels = wheel_links(sc, root);
  try {
    sc.robot.model.body_id(sc.report->chassis);
  } catch (const RobotError& e) {
    rep.fail("chassis", e.what());
  }
  const mjModel* m = sc.robot.model.model();
  for (const std::string& name : sc.report->wheel_joints) {
    const int j = mj_name2id(m, mjOBJ_JOINT, name.c_str());
    if (j < 0 || m->jnt_type[j] != mjJNT_HINGE) {
      std::string hinges;
      for (int k = 0; k < m->njnt; ++k) {
        if (m->jnt_type[k] == mjJNT_HINGE)
          hinges += (hinges.empty() ? "" : ", ") + std::string(mj_id2name(m, mjOBJ_JOINT, k));
      }
      rep.fail(
          "wheel_joints",
          fmt::format("'{}' is not a hinge joint of the model; its hinges are: {}", name, hinges));
    }
  }
  try {  // what is left: the chassis translates, the wheels are round
    DriveRecorder probe(sc.robot.model, sc.report->chassis, wheels, sc.report->wheel_joints,
                        [](double, double) { return 0.0; });
  } catch (const RobotError& e) {
    rep.fail("", e.what());
  }
}

// Mean slip in bins of driven distance (the shape of paper 002 Fig. 11 in numbers).
nlohmann::json slip_by_distance(const std::vector<DriveSample>& samples, double bin_m) {
  nlohmann::json rows = nlohmann::json::array();
  if (samples.empty()) return rows;
  const double end = samples.back().distance_m;
  for (double a = 0.0; a < end; a += bin_m) {
    double sum = 0.0;
    int n = 0;
    for (const DriveSample& s : samples) {
      if (s.distance_m >= a && s.distance_m < a + bin_m && s.wheel_speed_rad_per_s != 0.0) {
        sum += s.slip, ++n;
      }
    }
    if (n > 0) rows.push_back({{"from_m", a}, {"to_m", a + bin_m}, {"mean_slip", sum / n}});
  }
  return rows;
}

// Means over the steady part of the drive (the second half of the time the wheels are driven):
// slip, speed, sinkage per wheel, the terrain's force and torque on each wheel (about its centre
// of mass, world axes) and the drive torque of the driven actuators.
class SteadyWindow {
 public:
  SteadyWindow(double from_s, std::size_t wheels)
      : from_s_(from_s), force_(wheels, Vec3::Zero()), torque_(wheels, Vec3::Zero()) {}

  void add_step(const CoupledSim& sim, const MujocoModel& robot,
                const std::vector<std::size_t>& wheel_links, const WheelSpeedSchedule& drive) {
    if (sim.time_s() < from_s_) return;
    for (std::size_t w = 0; w < wheel_links.size(); ++w) {
      force_[w] += sim.wrenches()[wheel_links[w]].f_W;
      torque_[w] += sim.wrenches()[wheel_links[w]].tau_W;
    }
    const mjData* d = robot.data();
    double torque = 0.0;
    for (const int a : drive.actuator_ids) torque += d->actuator_force[a];
    if (!drive.actuator_ids.empty()) {
      drive_torque_ += torque / static_cast<double>(drive.actuator_ids.size());
    }
    ++steps_;
  }

  nlohmann::json summary(const std::vector<DriveSample>& samples,
                         const std::vector<std::string>& wheels, double to_s) const {
    double slip = 0.0, speed = 0.0;
    std::vector<double> sinkage(wheels.size(), 0.0);
    int n = 0;
    for (const DriveSample& s : samples) {
      if (s.t_s < from_s_) continue;
      slip += s.slip, speed += s.speed_m_per_s, ++n;
      for (std::size_t w = 0; w < wheels.size(); ++w) sinkage[w] += s.sinkage_m[w];
    }
    const double ns = std::max(n, 1), nk = static_cast<double>(std::max(steps_, 1L));
    nlohmann::json r = {{"from_s", from_s_},
                        {"to_s", to_s},
                        {"samples", n},
                        {"mean_slip", slip / ns},
                        {"mean_speed_m_per_s", speed / ns},
                        {"mean_drive_torque_Nm", drive_torque_ / nk}};
    for (std::size_t w = 0; w < wheels.size(); ++w) {
      const Vec3 f = force_[w] / nk, tau = torque_[w] / nk;
      r["mean_sinkage_m"][wheels[w]] = sinkage[w] / ns;
      r["mean_terrain_force_N"][wheels[w]] = {f.x(), f.y(), f.z()};
      r["mean_terrain_torque_Nm"][wheels[w]] = {tau.x(), tau.y(), tau.z()};
    }
    return r;
  }

 private:
  double from_s_;
  std::vector<Vec3> force_, torque_;
  double drive_torque_ = 0.0;
  long steps_ = 0;
};

}  // namespace

namespace {

// Whether the robot can travel: some joint of the model is free or slides. MuJoCo welds a URDF's
// base link to the world (URDF has no floating base), so a URDF rover loads as a fixed-base
// machine whose wheels spin in place; valid for an arm, a surprise for a vehicle.
bool has_free_or_slide_joint(const mjModel* m) {
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] == mjJNT_FREE || m->jnt_type[j] == mjJNT_SLIDE) return true;
  }
  return false;
}

}  // namespace

nlohmann::json check_robots(const ScenarioTable& root) {
  const RobotsScenario sc = load_robots(root);
  check_report(sc, root);
  std::vector<std::string> warnings;
  if (!has_free_or_slide_joint(sc.robot.model.model())) {
    warnings.push_back(fmt::format(
        "{}: {} has no free or slide joint: its base is welded to the world, so its coupled "
        "links can turn but not travel over the terrain (MuJoCo loads a URDF this way; a robot "
        "that drives or walks needs a <freejoint/> in MJCF: docs/robots.md)",
        root.table("robot").where("model"), sc.robot.model.file().string()));
  }
  return {{"tier", "robots"},
          {"name", sc.name},
          {"terrain", sc.terrain_kind},
          {"steps", sc.steps + sc.terrain->preparation_steps()},
          {"view", view_frame_interval(sc.steps, sc.view.frames) > 0},
          {"warnings", warnings}};
}

// Issue 16: with 0.05 s soil steps the rover drove 8,718 m in 4 s at slip -165 and the run
// reported success. A link off the terrain, or a state that is no longer finite, stops the run:
// returns why ("" while the state is sound).
std::string links_off_terrain(const std::filesystem::path& file, const RobotsScenario& sc,
                              const RobotTerrain& terrain, long step, double time_s) {
  const mjModel* m = sc.robot.model.model();
  const mjData* d = sc.robot.model.data();
  for (int k = 0; k < m->nq; ++k) {
    if (!std::isfinite(d->qpos[k])) {
      return fmt::format(
          "{}: step {} (t = {:.4f} s): the robot's joint position {} is {}; stopping (the "
          "coupled step is unstable: shorten the time step)",
          file.string(), step, time_s, k, d->qpos[k]);
    }
  }
  for (const CoupledLink& l : sc.robot.links) {
    const Vec3 p = link_motion(sc.robot.model, l).X_WB.translation();
    if (!terrain.covers_xy(p.x(), p.y())) {
      return fmt::format(
          "{}: step {} (t = {:.4f} s): link '{}' at ({:.4g}, {:.4g}) m left the terrain; "
          "stopping (a robot this far from its start in the time simulated is a diverged "
          "coupled step: shorten the time step, or enlarge the map)",
          file.string(), step, time_s, l.name, p.x(), p.y());
    }
  }
  return "";
}

namespace {

// What a run records and reports of its robot: the drive (slip, sinkage, wheel forces) when the
// scenario has a [report], otherwise the coupled links' poses.
class RunRecord {
 public:
  virtual ~RunRecord() = default;
  virtual void sample(CoupledSim& sim) = 0;    // at the start and every sample_every steps
  virtual void add_step(CoupledSim& sim) = 0;  // after every step
  // Writes the record's files into `dir` and returns the summary's "result".
  virtual nlohmann::json finish(const std::filesystem::path& dir, const std::string& title,
                                double sim_s) = 0;
};

class DriveRecord final : public RunRecord {
 public:
  DriveRecord(RobotsScenario& sc, const ScenarioTable& root, const RobotTerrain& terrain)
      : sc_(sc),
        wheels_(wheel_links(sc, root, &wheel_index_)),
        rec_(sc.robot.model, sc.report->chassis, wheels_, sc.report->wheel_joints,
             [&terrain](double x, double y) { return terrain.surface_z(x, y); }),
        steady_(steady_from_s(sc), wheels_.size()) {}

  void sample(CoupledSim&) override { samples_.push_back(rec_.sample(sc_.robot.model)); }
  void add_step(CoupledSim& sim) override {
    steady_.add_step(sim, sc_.robot.model, wheel_index_, sc_.robot.drive);
  }
  nlohmann::json finish(const std::filesystem::path& dir, const std::string& title,
                        double sim_s) override {
    write_drive_report(dir, samples_, sc_.report->wheels, title);
    const DriveSample& last = samples_.back();
    nlohmann::json max_sinkage = nlohmann::json::object();
    for (std::size_t w = 0; w < wheels_.size(); ++w) {
      double z = 0.0;
      for (const DriveSample& s : samples_) z = std::max(z, s.sinkage_m[w]);
      max_sinkage[sc_.report->wheels[w]] = z;
    }
    return {{"driven_distance_m", last.distance_m},
            {"final_slip", last.slip},
            {"final_speed_m_per_s", last.speed_m_per_s},
            {"max_sinkage_m", max_sinkage},
            {"slip_by_distance", slip_by_distance(samples_, 0.1)},
            {"steady", steady_.summary(samples_, sc_.report->wheels, sim_s)}};
  }

 private:
  // The steady part of the drive: the second half of the time the wheels are driven.
  static double steady_from_s(const RobotsScenario& sc) {
    const WheelSpeedSchedule& drive = sc.robot.drive;
    const double drive_from_s = std::min(drive.settle_s + drive.ramp_s, sc.duration_s);
    return drive_from_s + 0.5 * (sc.duration_s - drive_from_s);
  }

  RobotsScenario& sc_;
  std::vector<std::size_t> wheel_index_;
  std::vector<CoupledLink> wheels_;
  DriveRecorder rec_;
  SteadyWindow steady_;
  std::vector<DriveSample> samples_;
};

class LinkRecord final : public RunRecord {
 public:
  explicit LinkRecord(RobotsScenario& sc) : sc_(sc), trace_(link_names(sc)) {}

  void sample(CoupledSim& sim) override {
    // A MuJoCo step leaves the kinematics one step behind qpos: bring them up to date first.
    const mjModel* m = sc_.robot.model.model();
    mjData* d = sc_.robot.model.data();
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_comVel(m, d);
    // The body frames B (as the model file draws them), not the coupling frames S.
    std::vector<BodyMotion> now;
    for (const CoupledLink& l : sc_.robot.links) {
      const BodyMotion S = link_motion(sc_.robot.model, l);
      BodyMotion B;
      B.X_WB = S.X_WB * l.X_BS.inverse();
      B.V_WB.w_W = S.V_WB.w_W;
      B.V_WB.v_WBo = S.V_WB.velocity_of_point(S.X_WB, B.X_WB.translation());
      now.push_back(B);
    }
    trace_.add(sim.time_s(), now);
  }
  void add_step(CoupledSim&) override {}
  nlohmann::json finish(const std::filesystem::path& dir, const std::string& title,
                        double) override {
    trace_.write(dir, title);
    return trace_.summary();
  }

 private:
  static std::vector<std::string> link_names(const RobotsScenario& sc) {
    std::vector<std::string> names;
    for (const CoupledLink& l : sc.robot.links) names.push_back(l.name);
    return names;
  }
  RobotsScenario& sc_;
  LinkTrace trace_;
};

std::unique_ptr<RunRecord> make_record(RobotsScenario& sc, const ScenarioTable& root) {
  if (sc.report) return std::make_unique<DriveRecord>(sc, root, *sc.terrain);
  return std::make_unique<LinkRecord>(sc);
}

// What `talus view` plays of a robots run: the robot's visible geoms and the terrain
// (docs/viewer.md), a frame every `every_steps` coupled steps.
class RobotViewRecord {
 public:
  RobotViewRecord(const RobotsScenario& sc, OutputDir& out)
      : sc_(sc), recording_(sc.steps, sc.view.frames) {
    if (!recording_.on()) return;
    ViewLayout layout = view_layout_head("robots", sc.name, sc.description);
    layout.quantised = sc.view.quantised;
    const Vec3 start = sc.robot.links.empty()
                           ? Vec3(Vec3::Zero())
                           : link_motion(sc.robot.model, sc.robot.links[0]).X_WB.translation();
    sc.terrain->view_layout(layout, start);
    geoms_ = robot_view(sc.robot.model, 10.0);
    layout.bodies = geoms_.bodies;
    recording_.start(out, std::move(layout));
  }

  void sample(const CoupledSim& sim, long step) {
    if (!recording_.due(step)) return;
    ViewFrame frame;
    frame.time_s = sim.time_s();
    sc_.terrain->view_frame(frame, heights_m_);
    frame.heights_m = heights_m_;
    robot_view_poses(sc_.robot.model, geoms_, poses_);
    frame.X_WB = poses_;
    recording_.recorder().add_frame(frame);
  }

  /// Writes the manifest; returns the number of frames (0 when none were asked for).
  std::size_t finish(const OutputDir& out) {
    recording_.finish(out);
    return recording_.frame_count();
  }

 private:
  const RobotsScenario& sc_;
  ViewRecording recording_;
  RobotView geoms_;
  std::vector<double> heights_m_;
  std::vector<Pose> poses_;
};

}  // namespace

nlohmann::json run_robots(const ScenarioTable& root, const OutputTarget& out_dir,
                          const RunProgress& progress) {
  RobotsScenario sc = load_robots(root);
  check_report(sc, root);
  RobotTerrain& terrain = *sc.terrain;
  const long total = sc.steps + terrain.preparation_steps();

  // The terrain comes to rest under the robot held still at its starting pose.
  mj_forward(sc.robot.model.model(), sc.robot.model.data());
  std::vector<BodyMotion> start;
  for (const CoupledLink& l : sc.robot.links) start.push_back(link_motion(sc.robot.model, l));
  const auto t_prepare = std::chrono::steady_clock::now();
  const nlohmann::json prepared = terrain.prepare(start, [&](long k, long, double t) {
    if (progress) progress(k, total, t);
  });
  const double prepare_wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_prepare).count();

  const std::unique_ptr<RunRecord> record = make_record(sc, root);
  CoupledSim sim(sc.robot.model, sc.robot.links, terrain.tier(),
                 sc.robot.mujoco_steps_per_tier_step);
  OutputDir out(out_dir);
  RobotViewRecord view(sc, out);
  const auto start_clock = std::chrono::steady_clock::now();
  record->sample(sim);
  view.sample(sim, 0);
  std::string stopped;
  long steps_done = 0;
  double good_time_s = sim.time_s();  // the last good step's end
  for (long k = 1; k <= sc.steps; ++k) {
    sc.robot.drive.apply(sc.robot.model);
    const double t_start_s = sim.time_s();  // a failed step may have reset MuJoCo's clock
    try {
      sim.step();
      stopped = links_off_terrain(root.file(), sc, terrain, k, sim.time_s());
    } catch (const std::runtime_error& e) {
      // The tier refused the step (a body off its map), its wrench was not finite, or MuJoCo
      // reset the robot after a bad acceleration.
      stopped = fmt::format("{}: the coupled step {} (from t = {:.4f} s) failed: {}",
                            root.file().string(), k, t_start_s, e.what());
    }
    if (!stopped.empty()) break;  // the samples end at the last good step
    steps_done = k;
    good_time_s = sim.time_s();
    record->add_step(sim);
    if (k % sc.sample_every == 0 || k == sc.steps) record->sample(sim);
    view.sample(sim, k);
    if (progress && k % 100 == 0) progress(terrain.preparation_steps() + k, total, sim.time_s());
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_clock).count();

  const double sim_s = good_time_s;
  const nlohmann::json result =
      record->finish(out.path("summary.json").parent_path(), sc.name, sim_s);
  std::vector<BodyMotion> end;
  for (const CoupledLink& l : sc.robot.links) end.push_back(link_motion(sc.robot.model, l));
  nlohmann::json terrain_summary = terrain.finish(out, sc.name, end);
  terrain_summary["preparation"] = prepared;
  terrain_summary["preparation_wall_s"] = prepare_wall;

  nlohmann::json summary = {{"scenario", sc.name},
                            {"tier", "robots"},
                            {"terrain", sc.terrain_kind},
                            {"description", sc.description},
                            {"terrain_details", terrain_summary},
                            {"tier_time_step_s", sim.tier_time_step_s()},
                            {"mujoco_steps_per_tier_step", sim.mujoco_steps_per_tier_step()},
                            {"steps", steps_done},
                            {"planned_steps", sc.steps},
                            {"simulated_s", sim_s},
                            {"wall_s", wall},
                            {"real_time_factor", wall > 0.0 ? sim_s / wall : 0.0},
                            {"result", result}};
  if (!stopped.empty()) summary["stopped"] = stopped;
  // The terrain's warnings (printed as it made them), with the run's.
  if (terrain_summary.contains("warnings")) summary["warnings"] = terrain_summary["warnings"];
  summary["view_frames"] = view.finish(out);
  write_json(out.path("summary.json"), summary);
  out.commit();
  if (!stopped.empty()) {
    throw std::runtime_error(stopped + " (the outputs up to the last good step are written)");
  }
  return summary;
}

}  // namespace talus::robot
