#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "robot/mujoco_model.hpp"
#include "robot_test_paths.hpp"
#include "scratch_files.hpp"

namespace talus::robot {
namespace {

using test_support::contains;
using test_support::robot_data;
using test_support::robot_error_of;

TEST(RobotModel, LoadsMjcfWithNamesAndMass) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  const auto bodies = robot.body_names();
  ASSERT_EQ(bodies.size(), 8u);
  EXPECT_EQ(bodies[0], "world");
  EXPECT_EQ(bodies[1], "ball");
  EXPECT_EQ(robot.body_id("brick"), 5);
  EXPECT_EQ(robot.geom_names()[robot.geom_id("drum")], "drum");
  EXPECT_NEAR(robot.total_mass_kg(), 10 + 2 + 1 + 1 + 1 + 2 + 1, 1e-9);
  EXPECT_DOUBLE_EQ(robot.time_step_s(), 0.001);
}

TEST(RobotModel, LoadsUrdfAndCouplesItsCylinder) {
  MujocoModel robot = MujocoModel::load(robot_data("wheel.urdf"));
  // The base has no joint to the world, so MuJoCo's URDF import fuses it into the world body:
  // asking for it lists the bodies that survived.
  const auto bodies = robot.body_names();
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_EQ(bodies[1], "wheel");
  EXPECT_TRUE(contains(robot_error_of([&] { robot.body_id("base"); }), "are: world, wheel"));
  EXPECT_EQ(robot.joint_names(), (std::vector<std::string>{"axle"}));
  EXPECT_NEAR(robot.model()->body_mass[robot.body_id("wheel")], 1.0, 1e-9);
  const int g = robot.model()->body_geomadr[robot.body_id("wheel")];
  EXPECT_EQ(robot.model()->geom_type[g], mjGEOM_CYLINDER);
  EXPECT_DOUBLE_EQ(robot.model()->geom_size[3 * g], 0.1);
  EXPECT_DOUBLE_EQ(robot.model()->geom_size[3 * g + 1], 0.025);  // half the URDF length
}

TEST(RobotModel, BadUrdfGivesMuJoCosMessageWithTheFile) {
  const auto file = robot_data("bad_joint.urdf");
  const std::string msg = robot_error_of([&] { MujocoModel::load(file); });
  EXPECT_TRUE(contains(msg, file.string() + ":4: MuJoCo rejected the model"));
  EXPECT_TRUE(contains(msg, "URDF joint parent or child missing"));
}

TEST(RobotModel, MovesKeepOwnership) {
  MujocoModel a = MujocoModel::load(robot_data("bodies.xml"));
  const mjModel* m = a.model();
  MujocoModel b = std::move(a);
  EXPECT_EQ(b.model(), m);
  EXPECT_EQ(b.model()->nbody, 8);
}

TEST(RobotModel, ResetRestoresInitialState) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  for (int i = 0; i < 100; ++i) mj_step(robot.model(), robot.data());
  EXPECT_GT(robot.time_s(), 0.0);
  EXPECT_LT(robot.data()->qpos[2], 0.1);  // the ball fell
  robot.reset();
  EXPECT_EQ(robot.time_s(), 0.0);
  EXPECT_DOUBLE_EQ(robot.data()->qpos[2], 0.1);
}

TEST(RobotModel, SyntaxErrorNamesFileAndLine) {
  const auto file = robot_data("broken_xml.xml");
  const std::string msg = robot_error_of([&] { MujocoModel::load(file); });
  EXPECT_TRUE(contains(msg, file.string() + ":3: MuJoCo rejected the model"));
  EXPECT_TRUE(contains(msg, "XML_ERROR_MISMATCHED_ELEMENT"));
}

TEST(RobotModel, SchemaErrorNamesFileElementAndLine) {
  const auto file = robot_data("unknown_element.xml");
  const std::string msg = robot_error_of([&] { MujocoModel::load(file); });
  EXPECT_TRUE(contains(msg, file.string() + ":5: MuJoCo rejected the model"));
  EXPECT_TRUE(contains(msg, "wheel"));
}

TEST(RobotModel, MissingFileIsNamed) {
  const std::string msg = robot_error_of([] { MujocoModel::load("/nonexistent/robot.xml"); });
  EXPECT_TRUE(contains(msg, "/nonexistent/robot.xml"));
  EXPECT_TRUE(contains(msg, "no such robot file"));
  const std::string folder = robot_error_of([] { MujocoModel::load(robot_data("")); });
  EXPECT_TRUE(contains(folder, "is a folder (expected an MJCF or URDF file)")) << folder;
}

TEST(RobotModel, AnEmptyFileIsNamedWithoutALineZero) {
  testing_files::ScratchDir dir;
  const auto empty = dir.path() / "empty.xml";
  testing_files::write_text(empty, "");
  const std::string msg = robot_error_of([&] { MujocoModel::load(empty); });
  EXPECT_EQ(msg, empty.string() + ": the file is empty (expected an MJCF or URDF file)");
  // Blank lines only: MuJoCo's own message, but no "line 0" place in front of it.
  const auto blank = dir.path() / "blank.xml";
  testing_files::write_text(blank, "\n\n");
  const std::string blank_msg = robot_error_of([&] { MujocoModel::load(blank); });
  EXPECT_TRUE(contains(blank_msg, blank.string() + ": MuJoCo rejected the model")) << blank_msg;
  EXPECT_FALSE(contains(blank_msg, ":0:")) << blank_msg;
}

TEST(RobotModel, UnknownNamesListTheKnownOnes) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  const std::string body = robot_error_of([&] { robot.body_id("wheel"); });
  EXPECT_TRUE(contains(body, "no body named 'wheel'"));
  EXPECT_TRUE(contains(body, "world, ball, offset_com, axle, pill, brick, twin, egg"));
  const std::string geom = robot_error_of([&] { robot.geom_id("wheel"); });
  EXPECT_TRUE(contains(geom, "no geom named 'wheel'"));
  EXPECT_TRUE(contains(geom, "twin_a, twin_b"));
  EXPECT_TRUE(contains(robot_error_of([&] { robot.actuator_id("motor"); }), "(none named)"));
}

TEST(RobotModel, RefusesBadTimeStep) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  EXPECT_TRUE(contains(robot_error_of([&] { robot.set_time_step_s(0.0); }), "> 0 [s]"));
  robot.set_time_step_s(0.002);
  EXPECT_DOUBLE_EQ(robot.time_step_s(), 0.002);
}

}  // namespace
}  // namespace talus::robot
