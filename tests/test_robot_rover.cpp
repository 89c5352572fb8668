#include <gtest/gtest.h>
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/csv_writer.hpp"
#include "robot/coupled_sim.hpp"
#include "robot/drive_report.hpp"
#include "robot/drive_telemetry.hpp"
#include "robot_spring_ground.hpp"
#include "robot_test_paths.hpp"

namespace talus::robot {
namespace {

using test_support::rover_file;
using test_support::SpringGroundParams;
using test_support::SpringGroundTier;

using test_support::kRoverWheels;

std::vector<CoupledLink> wheel_links(const MujocoModel& rover) {
  std::vector<CouplingEntry> entries;
  for (const auto& w : kRoverWheels)
    entries.push_back(CouplingEntry{w, "", {}, Pose::Identity(), ""});
  return resolve_coupling(rover, entries);
}

// A stiff ground for a quarter of the rover (25 kg per wheel): k = 2e5 N/m gives omega = 89 rad/s,
// dt_max = 21 ms with one MuJoCo step (1 ms) per tier step; zeta = 0.3.
SpringGroundParams stiff_ground() {
  SpringGroundParams p;
  p.stiffness_n_per_m = 2e5;
  p.damping_n_s_per_m = 2.0 * 0.3 * std::sqrt(2e5 * 25.0);
  p.friction_coefficient = 0.8;
  // Explicit too: the wheel's spin sees a rotational damping c_t r^2 (plus the servo's kv) on its
  // axial inertia I = 0.156 kg m^2, stable for (c_t r^2 + kv) dt / I < 2; c_t = 5e3 N s/m broke
  // that (a chattering wheel), 1e3 N s/m keeps it at 1.0.
  p.tangential_damping_n_s_per_m = 1e3;
  return p;
}

TEST(RobotRover, HasFourActuatedHingesAndTheDocumentedMass) {
  MujocoModel rover = MujocoModel::load(rover_file());
  const mjModel* m = rover.model();
  EXPECT_NEAR(rover.total_mass_kg(), 100.0, 1e-9);  // 80 kg chassis + 4 x 5 kg wheels
  ASSERT_EQ(m->nu, 4);
  for (int a = 0; a < m->nu; ++a) {
    ASSERT_EQ(m->actuator_trntype[a], mjTRN_JOINT);
    const int j = m->actuator_trnid[2 * a];
    EXPECT_EQ(m->jnt_type[j], mjJNT_HINGE);
    EXPECT_EQ(rover.joint_names()[j], kRoverWheels[a]);
    EXPECT_DOUBLE_EQ(m->jnt_axis[3 * j + 1], 1.0);              // about the chassis y axis
    EXPECT_DOUBLE_EQ(m->actuator_gainprm[mjNGAIN * a], 100.0);  // velocity servo kv
  }
  // The terrain is the tier's: MuJoCo computes no contacts.
  for (int g = 0; g < m->ngeom; ++g) {
    EXPECT_EQ(m->geom_contype[g], 0);
    EXPECT_EQ(m->geom_conaffinity[g], 0);
  }
  for (const auto& link : wheel_links(rover)) {
    const auto& cyl = std::get<CylinderShape>(link.shape);
    EXPECT_DOUBLE_EQ(cyl.radius_m, 0.25);
    EXPECT_DOUBLE_EQ(cyl.half_length_m, 0.075);
  }
}

TEST(RobotRover, StandsOnStiffGroundWithoutDrifting) {
  MujocoModel rover = MujocoModel::load(rover_file());
  // Start turned and a little pitched so that the wheels land one after another.
  mjData* d = rover.data();
  const Quat q =
      Quat(Eigen::AngleAxisd(0.4, Vec3::UnitZ()) * Eigen::AngleAxisd(0.03, Vec3::UnitY()));
  d->qpos[2] = 0.33;
  d->qpos[3] = q.w();
  d->qpos[4] = q.x();
  d->qpos[5] = q.y();
  d->qpos[6] = q.z();
  const auto links = wheel_links(rover);
  SpringGroundTier ground(tier_bodies(links), stiff_ground());
  CoupledSim sim(rover, links, ground, 1);
  for (int i = 0; i < 1000; ++i) sim.step();  // 1 s: landed and settled
  const Vec3 p_settled(d->qpos[0], d->qpos[1], d->qpos[2]);
  for (int i = 0; i < 2000; ++i) sim.step();  // 2 s more
  const Vec3 p_end(d->qpos[0], d->qpos[1], d->qpos[2]);
  EXPECT_LT((p_end - p_settled).head<2>().norm(), 1e-4);
  // It stands: wheel centres at the radius above ground less the static deflection m g / (4 k).
  const double deflection = 100.0 * 9.81 / (4 * 2e5);
  for (const auto& link : links) {
    EXPECT_NEAR(link_pose(rover, link).translation().z(), 0.25 - deflection, 2e-4);
  }
  double vertical = 0.0;
  for (const Wrench& w : sim.wrenches()) vertical += w.f_W.z();
  EXPECT_NEAR(vertical, 100.0 * 9.81, 1.0);
}

TEST(RobotRover, DrivesForwardWhenTheWheelsTurn) {
  MujocoModel rover = MujocoModel::load(rover_file());
  const auto links = wheel_links(rover);
  SpringGroundTier ground(tier_bodies(links), stiff_ground());
  CoupledSim sim(rover, links, ground, 1);
  for (int i = 0; i < 300; ++i) sim.step();
  const double x0 = rover.data()->qpos[0];
  for (int a = 0; a < 4; ++a) rover.data()->ctrl[a] = 2.0;  // rad/s, the paper's wheel speed
  for (int i = 0; i < 1500; ++i) sim.step();
  // About omega r = 0.5 m/s forward (+x) once rolling; some slip of the regularised friction.
  const double vx = rover.data()->qvel[0];
  EXPECT_GT(vx, 0.4);
  EXPECT_LT(vx, 0.51);
  EXPECT_GT(rover.data()->qpos[0] - x0, 0.4);
  EXPECT_LT(std::abs(rover.data()->qpos[1]), 1e-3);  // straight
}

TEST(RobotRover, RecorderReportsSinkageSlipAndDistance) {
  MujocoModel rover = MujocoModel::load(rover_file());
  const auto links = wheel_links(rover);
  SpringGroundParams soft = stiff_ground();
  soft.stiffness_n_per_m = 2e4;  // sinks 100 kg g / (4 k) = 12 mm
  soft.damping_n_s_per_m = 2.0 * 0.5 * std::sqrt(2e4 * 25.0);
  SpringGroundTier ground(tier_bodies(links), soft);
  CoupledSim sim(rover, links, ground, 1);
  DriveRecorder recorder(rover, "chassis", links, kRoverWheels, [](double, double) { return 0.0; });
  EXPECT_DOUBLE_EQ(recorder.wheel_radius_m(), 0.25);
  for (int i = 0; i < 1500; ++i) sim.step();  // sinks and settles
  const DriveSample rest = recorder.sample(rover);
  for (const double z : rest.sinkage_m) EXPECT_NEAR(z, 100.0 * 9.81 / (4 * 2e4), 2e-4);
  EXPECT_EQ(rest.slip, 0.0);  // wheels at rest: no slip
  EXPECT_EQ(rest.distance_m, 0.0);
  for (int a = 0; a < 4; ++a) rover.data()->ctrl[a] = 2.0;
  // A 100 N drag on the chassis (its xfrc_applied row is the user's: the coupling only writes the
  // coupled bodies' rows). The wheels then slide by F / (4 c_t) = 0.025 m/s under the friction's
  // regularisation: slip 0.025 / (omega r) = 0.052 at the wheels' 1.9375 rad/s.
  const int chassis = rover.body_id("chassis");
  rover.data()->xfrc_applied[6 * chassis] = -100.0;
  const double x0 = rover.data()->qpos[0];
  for (int i = 0; i < 1000; ++i) {
    sim.step();
    if (i % 10 == 0) recorder.sample(rover);
  }
  DriveSample s = recorder.sample(rover);
  EXPECT_NEAR(s.distance_m, rover.data()->qpos[0] - x0, 1e-3);
  // The servos lag by their torque over kv: 100 N x 0.25 m / 4 wheels / 100 N m s = 0.0625 rad/s.
  EXPECT_NEAR(s.wheel_speed_rad_per_s, 2.0 - 0.0625, 1e-3);
  EXPECT_NEAR(s.slip, 1.0 - rover.data()->qvel[0] / (s.wheel_speed_rad_per_s * 0.25), 1e-5);
  EXPECT_NEAR(s.slip, 0.025 / (1.9375 * 0.25), 1e-3);
  // The report: one CSV row per sample, slip in [-], sinkage per wheel; two plots.
  const auto dir = std::filesystem::temp_directory_path() /
                   ("talus_test_drive_report_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  write_drive_report(dir, {rest, s}, kRoverWheels);
  std::ifstream csv(dir / "drive.csv");
  std::stringstream buffer;
  buffer << csv.rdbuf();
  const std::string text = buffer.str();
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "t_s,distance_m,speed_m_per_s,wheel_speed_rad_per_s,slip,sinkage_wheel_fl_m,"
            "sinkage_wheel_fr_m,sinkage_wheel_rl_m,sinkage_wheel_rr_m");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_TRUE(test_support::contains(text, format_csv_number(s.slip)));
  EXPECT_GT(std::filesystem::file_size(dir / "slip.png"), 1000u);
  EXPECT_GT(std::filesystem::file_size(dir / "sinkage.png"), 1000u);
  s.sinkage_m.pop_back();
  EXPECT_THROW(write_drive_report(dir, {s}, kRoverWheels), std::invalid_argument);
  std::filesystem::remove_all(dir);
  EXPECT_THROW(DriveRecorder(rover, "wheel_fl", links, kRoverWheels, {}), RobotError);
  EXPECT_THROW(DriveRecorder(rover, "chassis", links, {"chassis_free"}, {}), RobotError);
}

TEST(DriveReport, TheSlipChartClipsTheSettlingSpikeAndSaysSo) {
  PlotSeries slip{"vehicle slip", {0.0, 0.05, 0.1, 0.2}, {0.0, 12.0, 8.0, 6.0}, {}, 2, false};
  const PlotSpec driving = slip_plot(slip);
  EXPECT_FALSE(driving.y_min.has_value());  // in range: the axis follows the data
  EXPECT_EQ(driving.y_label, "slip [%]");
  EXPECT_EQ(driving.title, "Vehicle slip");
  EXPECT_EQ(slip_plot(slip, "rover_slope").title, "Vehicle slip: rover_slope");
  slip.y[1] = -400.0;  // a wheel barely turning while it lands
  const PlotSpec spiked = slip_plot(slip);
  EXPECT_EQ(spiked.y_min, -100.0);
  EXPECT_EQ(spiked.y_max, 100.0);
  EXPECT_EQ(spiked.y_label, "slip [%] (clipped to -100..100; drive.csv has all)");
  EXPECT_EQ(spiked.series.front().y, slip.y);  // the data are not changed, only the view
}

}  // namespace
}  // namespace talus::robot
