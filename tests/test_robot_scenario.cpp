#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "core/scenario_file.hpp"
#include "robot/robot_scenario.hpp"
#include "robot_test_paths.hpp"

namespace talus::robot {
namespace {

using test_support::contains;

// The text stands for a file in scenarios/robots/, so the model path is relative to that folder.
RobotScenario read(const std::string& text) {
  const auto doc = ScenarioDocument::parse(
      text, std::filesystem::path(TALUS_SOURCE_DIR) / "scenarios" / "robots" / "test.toml");
  const ScenarioTable root = doc->root();
  return read_robot_scenario(root.table("robot"), root.table("simulation"));
}

std::string robot_scenario_error_of(const std::string& text) {
  try {
    read(text);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

const std::string kRover = R"(
[simulation]
time_step_s = 0.002

[robot]
model = "../../robots/rover/rover.xml"
mujoco_steps_per_tier_step = 2
position_m = [1.0, 2.0, 0.4]
yaw_deg = 90
[[robot.coupling]]
body = "wheel_fl"
[[robot.coupling]]
geom = "wheel_fr"
[[robot.coupling]]
body = "wheel_rl"
offset_m = [0.0, 0.0, 0.0]
[robot.coupling.shape]
kind = "wheel"
radius_m = 0.25
width_m = 0.15
grouser_count = 12
grouser_height_m = 0.01
grouser_thickness_m = 0.005
[[robot.coupling]]
body = "wheel_rr"
[robot.drive]
settle_s = 1.0
ramp_s = 0.5
speed_rad_per_s = 2.0
actuators = ["wheel_fl", "wheel_fr", "wheel_rl", "wheel_rr"]
)";

TEST(RobotScenario, ReadsTheRoverTable) {
  RobotScenario r = read(kRover);
  EXPECT_DOUBLE_EQ(r.model.time_step_s(), 0.002);
  EXPECT_EQ(r.mujoco_steps_per_tier_step, 2);
  ASSERT_EQ(r.links.size(), 4u);
  EXPECT_EQ(r.links[1].name, "wheel_fr");
  EXPECT_TRUE(std::holds_alternative<CylinderShape>(r.links[0].shape));
  EXPECT_EQ(std::get<WheelShape>(r.links[2].shape).grouser_count, 12);
  // Placed at (1, 2, 0.4) facing +y: the front-left wheel (0.45, 0.4, -0.05) is at (0.6, 2.45).
  EXPECT_TRUE(link_pose(r.model, r.links[0]).translation().isApprox(Vec3(0.6, 2.45, 0.35), 1e-9));
  EXPECT_EQ(r.drive.actuator_ids, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(r.drive.speed_at(0.5), 0.0);
  EXPECT_DOUBLE_EQ(r.drive.speed_at(1.25), 1.0);
  EXPECT_DOUBLE_EQ(r.drive.speed_at(3.0), 2.0);
  r.model.data()->time = 1.25;
  r.drive.apply(r.model);
  EXPECT_DOUBLE_EQ(r.model.data()->ctrl[3], 1.0);
}

TEST(RobotScenario, WithoutATimeStepMujocoStepsAtTheModels) {
  std::string text = kRover;
  text.replace(text.find("time_step_s = 0.002"), 19, "");
  EXPECT_DOUBLE_EQ(read(text).model.time_step_s(), 0.001);  // rover.xml's <option timestep>
}

TEST(RobotScenario, TheOldTimeStepKeyIsRefusedNamingTheNewOne) {
  std::string text = kRover;
  const std::string steps = "mujoco_steps_per_tier_step = 2";
  text.replace(text.find(steps), steps.size(), steps + "\ntime_step_s = 0.002");
  const std::string msg = robot_scenario_error_of(text);
  EXPECT_TRUE(contains(msg,
                       "test.toml:8:15: robot.time_step_s: moved to [simulation] "
                       "time_step_s (one key for every tier)"))
      << msg;
}

TEST(RobotScenario, AnUnknownKeyDoesNotOfferAMovedOne) {
  std::string text = kRover;
  const std::string steps = "mujoco_steps_per_tier_step = 2";
  text.replace(text.find(steps), steps.size(), steps + "\nbogus = 1");
  const std::string msg = robot_scenario_error_of(text);
  EXPECT_TRUE(contains(msg, "robot.bogus: unknown key; expected one of:")) << msg;
  EXPECT_FALSE(contains(msg, "time_step_s")) << msg;  // refused as moved, so not offered
}

TEST(RobotScenario, ErrorsNameTheLineAndWhatExists) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string t = kRover;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  const std::string body =
      robot_scenario_error_of(with("body = \"wheel_rr\"", "body = \"wheel_xx\""));
  EXPECT_TRUE(contains(body, "test.toml:"));
  EXPECT_TRUE(contains(body, "robot.coupling[3].body"));
  EXPECT_TRUE(contains(body, "no body named 'wheel_xx'"));
  EXPECT_TRUE(contains(body, "chassis, wheel_fl, wheel_fr, wheel_rl, wheel_rr"));
  const std::string model = robot_scenario_error_of(with("rover/rover.xml", "rover/missing.xml"));
  EXPECT_TRUE(contains(model, "robot.model"));
  EXPECT_TRUE(contains(model, "no such robot file"));
  const std::string broken = robot_scenario_error_of(
      with("../../robots/rover/rover.xml", "../../tests/data/robot/unknown_element.xml"));
  EXPECT_TRUE(contains(broken, "unknown_element.xml:5: MuJoCo rejected the model"));
  EXPECT_TRUE(contains(
      robot_scenario_error_of(with("\"wheel_rl\", \"wheel_rr\"]", "\"wheel_rl\", \"motor\"]")),
      "no actuator named 'motor'"));
  EXPECT_TRUE(contains(robot_scenario_error_of(with("time_step_s = 0.002", "time_step_s = -1")),
                       "simulation.time_step_s"));
  EXPECT_TRUE(contains(robot_scenario_error_of(with("settle_s", "settle_time_s")), "settle_s"));
  EXPECT_TRUE(contains(robot_scenario_error_of(
                           with("body = \"wheel_fl\"", "body = \"wheel_fl\"\nrpy_deg = [0, 0, 1]")),
                       "only an explicit [shape] takes an offset"));
  EXPECT_TRUE(contains(robot_scenario_error_of(with("geom = \"wheel_fr\"", "geom = \"wheel_fl\"")),
                       "'wheel_fl' is coupled twice"));
  EXPECT_TRUE(
      contains(robot_scenario_error_of(with("yaw_deg = 90", "yaw_deg = 90\nspeed = 3")), "speed"));
}

}  // namespace
}  // namespace talus::robot
