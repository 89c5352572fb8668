// Running a robots-tier scenario: load the robot and the SCM terrain, check the placement, drive
// the coupled simulation to its end and write the drive report and the ruts.
//
// Scenario layout (docs/rover.md):
//   [scenario] name, tier = "robots", description
//   [grid] [soil] [flow]            the SCM terrain (docs/scm.md; [grid] slope_deg / slope_start_m)
//   [simulation] duration_s, sample_every (tier steps between drive samples, default 10)
//   [robot] ...                     robot/robot_scenario.hpp
//   [report] chassis, wheels (coupled link names), wheel_joints (the driven hinges)

#include "robot/robot_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include "core/colormap.hpp"
#include "core/image.hpp"
#include "core/npy.hpp"
#include "core/output_dir.hpp"
#include "robot/coupled_sim.hpp"
#include "robot/drive_report.hpp"
#include "robot/drive_telemetry.hpp"
#include "robot/robot_scenario.hpp"
#include "scm/scm_contact_tier.hpp"
#include "scm/scm_scenario.hpp"

namespace talus::robot {

namespace {

struct DriveReportSpec {
  std::string chassis;
  std::vector<std::string> wheels, wheel_joints;
};

struct RobotsScenario {
  explicit RobotsScenario(RobotScenario r) : robot(std::move(r)) {}
  RobotScenario robot;
  std::string name, description;
  scm::ScmModel terrain;
  double duration_s = 0.0;
  long sample_every = 10;
  long steps = 0;
  DriveReportSpec report;
};

// The undisturbed surface: the base terrain, bilinear between nodes (clamped to the map).
double base_surface_z(const scm::ScmModel& m, double x, double y) {
  const double u = std::clamp((x - m.origin_x_m) / m.cell_size_m, 0.0, m.nx - 1.0);
  const double v = std::clamp((y - m.origin_y_m) / m.cell_size_m, 0.0, m.ny - 1.0);
  const int i = std::min(static_cast<int>(u), m.nx - 2),
            j = std::min(static_cast<int>(v), m.ny - 2);
  const double a = u - i, b = v - j;
  return (1 - a) * (1 - b) * m.base_height(i, j) + a * (1 - b) * m.base_height(i + 1, j) +
         (1 - a) * b * m.base_height(i, j + 1) + a * b * m.base_height(i + 1, j + 1);
}

RobotsScenario load(const ScenarioTable& root) {
  const ScenarioTable head = root.table("scenario");
  head.choice("tier", {"robots"});
  const ScenarioTable robot_table = root.table("robot");
  RobotsScenario sc(read_robot_scenario(robot_table));
  sc.name = head.string("name");
  sc.description = head.string_or("description", "");
  head.refuse_unknown_keys();

  scm::ScmModel& m = sc.terrain;
  scm::read_grid(root.table("grid"), m);
  m.soil = scm::read_soil(root.table("soil"));
  scm::read_flow(root.table("flow"), m);

  const ScenarioTable sim = root.table("simulation");
  sc.duration_s = sim.number("duration_s", positive("[s]"));
  sc.sample_every = sim.integer_or("sample_every", 10, 1, 1000000);
  sim.refuse_unknown_keys();

  m.bodies = tier_bodies(sc.robot.links);
  m.time_step_s = sc.robot.model.time_step_s() * sc.robot.mujoco_steps_per_tier_step;
  sc.steps = static_cast<long>(std::ceil(sc.duration_s / m.time_step_s - 1e-9));

  const ScenarioTable rep = root.table("report");
  sc.report.chassis = rep.string("chassis");
  sc.report.wheels = rep.strings("wheels");
  sc.report.wheel_joints = rep.strings("wheel_joints");
  rep.refuse_unknown_keys();
  root.refuse_unknown_keys();

  try {
    scm::validate(m);
  } catch (const std::invalid_argument& e) {
    root.fail("", e.what());
  }
  try {
    check_initial_placement(sc.robot.model, sc.robot.links,
                            [&](double x, double y) { return base_surface_z(m, x, y); });
  } catch (const std::exception& e) {
    robot_table.fail("position_m", e.what());
  }
  return sc;
}

std::vector<CoupledLink> wheel_links(const RobotsScenario& sc, const ScenarioTable& root) {
  std::vector<CoupledLink> wheels;
  for (const std::string& w : sc.report.wheels) {
    const auto it = std::find_if(sc.robot.links.begin(), sc.robot.links.end(),
                                 [&](const CoupledLink& l) { return l.name == w; });
    if (it == sc.robot.links.end()) {
      std::string names;
      for (const CoupledLink& l : sc.robot.links) names += (names.empty() ? "" : ", ") + l.name;
      root.table("report").fail(
          "wheels", fmt::format("'{}' is not a coupled link; the coupled links are: {}", w, names));
    }
    wheels.push_back(*it);
  }
  return wheels;
}

void write_json(const std::filesystem::path& path, const nlohmann::json& value) {
  std::ofstream file(path);
  file << value.dump(2) << "\n";
  file.close();
  if (!file) throw std::runtime_error(fmt::format("{}: cannot write", path.string()));
}

// The soil's deformation (surface minus base terrain) over the nodes the robot drove across.
void write_ruts(OutputDir& out, const scm::ScmModel& m, const scm::ScmState& s,
                const std::string& title) {
  int i0 = m.nx, j0 = m.ny, i1 = -1, j1 = -1;
  // The touched tiles bound the ruts; scan the whole map once at the end (cheap next to the run).
  scm::NodeBlock all;
  all.resize(0, 0, m.nx, m.ny);
  s.gather(all);
  std::vector<double> dz(all.size());
  for (int j = 0; j < m.ny; ++j) {
    for (int i = 0; i < m.nx; ++i) {
      const std::size_t k = all.index(i, j);
      dz[k] = all.height_m[k] - m.base_height(i, j);
      if (std::abs(dz[k]) > 1e-4) {
        i0 = std::min(i0, i), i1 = std::max(i1, i), j0 = std::min(j0, j), j1 = std::max(j1, j);
      }
    }
  }
  if (i1 < 0) i0 = 0, i1 = m.nx - 1, j0 = 0, j1 = m.ny - 1;
  const int pad = 5;
  i0 = std::max(0, i0 - pad), j0 = std::max(0, j0 - pad);
  i1 = std::min(m.nx - 1, i1 + pad), j1 = std::min(m.ny - 1, j1 + pad);
  const int nx = i1 - i0 + 1, ny = j1 - j0 + 1;
  std::vector<double> crop(static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny));
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      crop[static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) +
           static_cast<std::size_t>(i)] = dz[all.index(i0 + i, j0 + j)];
    }
  }
  HeightmapImageOptions o;
  o.title = title;
  write_png(out.path("ruts.png"), render_heightmap(crop.data(), nx, ny, m.cell_size_m, o));
  write_npy(out.path("ruts.npy"), crop,
            {static_cast<std::size_t>(ny), static_cast<std::size_t>(nx)});
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

}  // namespace

nlohmann::json check_robots(const ScenarioTable& root) {
  const RobotsScenario sc = load(root);
  wheel_links(sc, root);
  return {{"tier", "robots"}, {"name", sc.name}, {"steps", sc.steps}};
}

nlohmann::json run_robots(const ScenarioTable& root, const std::filesystem::path& out_dir,
                          const RunProgress& progress) {
  RobotsScenario sc = load(root);
  const std::vector<CoupledLink> wheels = wheel_links(sc, root);
  const scm::ScmModel terrain = sc.terrain;
  DriveRecorder rec(sc.robot.model, sc.report.chassis, wheels, sc.report.wheel_joints,
                    [&](double x, double y) { return base_surface_z(terrain, x, y); });
  scm::ScmContactTier tier(sc.terrain);
  CoupledSim sim(sc.robot.model, sc.robot.links, tier, sc.robot.mujoco_steps_per_tier_step);

  OutputDir out(out_dir);
  const auto start = std::chrono::steady_clock::now();
  std::vector<DriveSample> samples;
  samples.push_back(rec.sample(sc.robot.model));
  for (long k = 1; k <= sc.steps; ++k) {
    sc.robot.drive.apply(sc.robot.model);
    sim.step();
    if (k % sc.sample_every == 0 || k == sc.steps) samples.push_back(rec.sample(sc.robot.model));
    if (progress && k % 100 == 0) progress(k, sc.steps, 0.0);
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  write_drive_report(out.path("summary.json").parent_path(), samples, sc.report.wheels);
  write_ruts(out, terrain, tier.state(), sc.name + ": ruts (surface minus base terrain)");

  const DriveSample& last = samples.back();
  nlohmann::json max_sinkage = nlohmann::json::object();
  for (std::size_t w = 0; w < wheels.size(); ++w) {
    double z = 0.0;
    for (const DriveSample& s : samples) z = std::max(z, s.sinkage_m[w]);
    max_sinkage[sc.report.wheels[w]] = z;
  }
  const double sim_s = sim.time_s();
  nlohmann::json summary = {{"scenario", sc.name},
                            {"tier", "robots"},
                            {"terrain", "scm"},
                            {"description", sc.description},
                            {"flow_method", scm::flow_method_name(terrain.method)},
                            {"cell_size_m", terrain.cell_size_m},
                            {"tier_time_step_s", sim.tier_time_step_s()},
                            {"mujoco_steps_per_tier_step", sim.mujoco_steps_per_tier_step()},
                            {"steps", sc.steps},
                            {"simulated_s", sim_s},
                            {"wall_s", wall},
                            {"real_time_factor", wall > 0.0 ? sim_s / wall : 0.0},
                            {"result",
                             {{"driven_distance_m", last.distance_m},
                              {"final_slip", last.slip},
                              {"final_speed_m_per_s", last.speed_m_per_s},
                              {"max_sinkage_m", max_sinkage},
                              {"slip_by_distance", slip_by_distance(samples, 0.1)}}}};
  write_json(out.path("summary.json"), summary);
  out.commit();
  return summary;
}

}  // namespace talus::robot
