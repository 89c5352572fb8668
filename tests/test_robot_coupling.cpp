#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <limits>
#include <utility>
#include <variant>

#include "core/units.hpp"
#include "robot/coupling.hpp"
#include "robot_test_paths.hpp"

namespace talus::robot {
namespace {

using test_support::body_entry;
using test_support::contains;
using test_support::robot_data;
using test_support::robot_error_of;

TEST(RobotCoupling, CylinderGeomKeepsItsOffsetPoseInTheBody) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  const auto links = resolve_coupling(robot, {body_entry("axle")});
  ASSERT_EQ(links.size(), 1u);
  const auto* cyl = std::get_if<CylinderShape>(&links[0].shape);
  ASSERT_NE(cyl, nullptr);
  EXPECT_DOUBLE_EQ(cyl->radius_m, 0.2);
  EXPECT_DOUBLE_EQ(cyl->half_length_m, 0.05);
  EXPECT_EQ(links[0].name, "axle");
  EXPECT_EQ(links[0].geom_id, robot.geom_id("drum"));
  // geom pos (0, 0.3, 0), euler 90 deg about x: the cylinder axis z_S is -y_B.
  EXPECT_TRUE(links[0].X_BS.translation().isApprox(Vec3(0, 0.3, 0), 1e-12));
  EXPECT_TRUE((links[0].X_BS.linear() * Vec3::UnitZ()).isApprox(Vec3(0, -1, 0), 1e-9));
  // Centre of mass of the body (at the geom's centre) in S is S's origin.
  EXPECT_LT(links[0].p_SCm.norm(), 1e-9);
  // In the world: the drum's centre is 0.3 m along the body's y from the body origin (6, 0, 1).
  EXPECT_TRUE(link_pose(robot, links[0]).translation().isApprox(Vec3(6, 0.3, 1), 1e-12));
}

TEST(RobotCoupling, PrimitiveGeomsMapOneToOne) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  CouplingEntry by_geom;
  by_geom.geom = "twin_b";
  const auto links = resolve_coupling(
      robot, {body_entry("ball"), body_entry("pill"), body_entry("brick"), by_geom});
  EXPECT_DOUBLE_EQ(std::get<SphereShape>(links[0].shape).radius_m, 0.1);
  EXPECT_DOUBLE_EQ(std::get<CapsuleShape>(links[1].shape).radius_m, 0.05);
  EXPECT_DOUBLE_EQ(std::get<CapsuleShape>(links[1].shape).half_length_m, 0.2);
  EXPECT_TRUE(std::get<BoxShape>(links[2].shape).half_extents_m.isApprox(Vec3(0.3, 0.2, 0.1)));
  EXPECT_EQ(links[3].name, "twin_b");
  EXPECT_EQ(links[3].body_id, robot.body_id("twin"));
  // twin's centre of mass is between its two balls: -0.2 m along y from twin_b's frame.
  EXPECT_TRUE(links[3].p_SCm.isApprox(Vec3(0, -0.2, 0), 1e-9));
  const auto bodies = tier_bodies(links);
  ASSERT_EQ(bodies.size(), 4u);
  EXPECT_EQ(bodies[3].name, "twin_b");
  EXPECT_TRUE(bodies[3].p_BR.isApprox(Vec3(0, -0.2, 0), 1e-9));
}

TEST(RobotCoupling, ExplicitWheelShapeWithPose) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  CouplingEntry e = body_entry("twin");
  e.shape = WheelShape{0.25, 0.1, 12, 0.01, 0.005};
  e.X_BS = make_pose(Vec3(0, 0, -0.05));
  const auto links = resolve_coupling(robot, {e});
  EXPECT_EQ(links[0].geom_id, -1);
  EXPECT_EQ(std::get<WheelShape>(links[0].shape).grouser_count, 12);
  EXPECT_TRUE(links[0].p_SCm.isApprox(Vec3(0, 0, 0.05), 1e-9));
}

TEST(RobotCoupling, UnknownNamesListTheNamesThatExist) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  CouplingEntry e = body_entry("wheel_fl");
  e.where = "rover.toml:7:1: robot.coupling[0]";
  const std::string msg = robot_error_of([&] { resolve_coupling(robot, {e}); });
  EXPECT_TRUE(contains(msg, "rover.toml:7:1: robot.coupling[0]: "));
  EXPECT_TRUE(contains(msg, "no body named 'wheel_fl'"));
  EXPECT_TRUE(contains(msg, "ball, offset_com, axle, pill, brick, twin, egg"));
  CouplingEntry g;
  g.geom = "tyre";
  const std::string gmsg = robot_error_of([&] { resolve_coupling(robot, {g}); });
  EXPECT_TRUE(contains(gmsg, "no geom named 'tyre'"));
  EXPECT_TRUE(contains(gmsg, "drum"));
  // The model's path once, not once for the entry and again for the lookup.
  const std::string path = robot.file().string();
  EXPECT_EQ(gmsg.find(path), 0u) << gmsg;
  EXPECT_EQ(gmsg.find(path, path.size()), std::string::npos) << gmsg;
}

// A mesh geom becomes a signed-distance shape: placed by the geom's pose, its lowest points are
// the bottom face of the 0.1 x 0.2 x 0.3 m box the mesh describes, which spans world x [0.5, 0.6],
// y [0.2, 0.4], z [1.0, 1.3] (tests/data/robot/mesh_box.xml).
TEST(RobotCoupling, MeshGeomBecomesASignedDistanceShapeOfTheSameBox) {
  MujocoModel robot = MujocoModel::load(robot_data("mesh_box.xml"));
  const auto links = resolve_coupling(robot, {body_entry("crate")});
  ASSERT_EQ(links.size(), 1u);
  ASSERT_TRUE(std::holds_alternative<MeshShape>(links[0].shape));
  mj_forward(robot.model(), robot.data());
  const Pose X_WS = link_pose(robot, links[0]);
  for (const auto& [x, y] : {std::pair{0.55, 0.3}, {0.51, 0.21}, {0.59, 0.39}, {0.52, 0.35}}) {
    EXPECT_NEAR(lowest_point_z(links[0].shape, X_WS, x, y), 1.0, 1e-3) << x << ", " << y;
  }
  // Beside the box there is nothing below.
  for (const auto& [x, y] : {std::pair{0.62, 0.3}, {0.45, 0.3}, {0.55, 0.43}}) {
    EXPECT_EQ(lowest_point_z(links[0].shape, X_WS, x, y), std::numeric_limits<double>::infinity())
        << x << ", " << y;
  }
}

TEST(RobotCoupling, RefusesAmbiguousWrongAndUnsupported) {
  MujocoModel robot = MujocoModel::load(robot_data("bodies.xml"));
  EXPECT_TRUE(contains(robot_error_of([&] { resolve_coupling(robot, {body_entry("twin")}); }),
                       "has 2 geoms; name the one to couple"));
  EXPECT_TRUE(contains(robot_error_of([&] { resolve_coupling(robot, {body_entry("egg")}); }),
                       "geom 'egg' has type ellipsoid"));
  CouplingEntry wrong = body_entry("ball");
  wrong.geom = "drum";
  EXPECT_TRUE(contains(robot_error_of([&] { resolve_coupling(robot, {wrong}); }),
                       "geom 'drum' belongs to body 'axle', not to body 'ball'"));
  EXPECT_TRUE(contains(robot_error_of([&] {
                         resolve_coupling(robot, {body_entry("ball"), body_entry("ball")});
                       }),
                       "'ball' is coupled twice"));
  EXPECT_TRUE(contains(robot_error_of([&] { resolve_coupling(robot, {body_entry("world")}); }),
                       "world body cannot be coupled"));
  CouplingEntry bad_shape = body_entry("ball");
  bad_shape.shape = SphereShape{-1.0};
  EXPECT_TRUE(
      contains(robot_error_of([&] { resolve_coupling(robot, {bad_shape}); }), "explicit shape"));
  EXPECT_TRUE(contains(robot_error_of([&] { resolve_coupling(robot, {CouplingEntry{}}); }),
                       "name a body or a geom"));
}

TEST(RobotCoupling, WheelMoreThanItsRadiusBelowTheSurfaceIsRefused) {
  MujocoModel robot = MujocoModel::load(test_support::rover_file());
  std::vector<CouplingEntry> entries;
  for (const char* w : {"wheel_fl", "wheel_fr", "wheel_rl", "wheel_rr"}) {
    entries.push_back(body_entry(w));
  }
  const auto links = resolve_coupling(robot, entries);
  // Wheel centres at z = 0.26 m, radius 0.25 m.
  EXPECT_NO_THROW(check_initial_placement(robot, links, [](double, double) { return 0.0; }));
  EXPECT_NO_THROW(check_initial_placement(robot, links, [](double, double) { return 0.25; }));
  // A terrain rising along x: the front wheels (x = 0.45) are buried past their centres.
  const std::string msg = robot_error_of([&] {
    check_initial_placement(robot, links, [](double x, double) { return x > 0.0 ? 0.3 : 0.0; });
  });
  EXPECT_TRUE(contains(msg, "coupled body 'wheel_fl' starts 0.29 m below the terrain surface"));
  EXPECT_TRUE(contains(msg, "more than its radius 0.25 m"));
}

}  // namespace
}  // namespace talus::robot
