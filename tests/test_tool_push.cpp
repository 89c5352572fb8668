// Tool interaction (paper 003 §3.2): sand a tool overlaps is moved, not lost; it goes the way the
// tool moves (radially at first contact); cells the tool occupies are blocked for erosion.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "core/erosion.hpp"
#include "core/units.hpp"
#include "shaping/shaping_step.hpp"
#include "shaping/tool_motions.hpp"
#include "shaping/tool_push.hpp"

namespace talus::shaping {
namespace {

HeightmapModel small_grid(int n = 40, double cell = 0.01) {
  HeightmapModel m;
  static_cast<HeightmapGrid&>(m) = grid_of_cells(0.0, 0.0, n, n, cell);  // cells from the origin
  m.erosion.repose_angle_rad = deg_to_rad(30.0);
  m.erosion.tolerance_m = 1e-10;
  return m;
}

double total_height(const HeightmapState& s) {
  double sum = 0;
  for (double h : s.height_m) sum += h;
  return sum;
}

// Sum of heights in cells with x beyond `x_W` (centre), for direction checks.
double height_beyond_x(const HeightmapModel& m, const HeightmapState& s, double x_W) {
  double sum = 0;
  for (int j = 0; j < m.ny; ++j)
    for (int i = 0; i < m.nx; ++i)
      if (m.x(i) > x_W) sum += s.height_m[j * m.nx + i];
  return sum;
}

TEST(ToolPush, CutsTheOverlapDownToTheToolBottomAndKeepsTheVolume) {
  const HeightmapModel m = small_grid();
  HeightmapState s = HeightmapState::flat(m, 0.1);
  const Shape box = BoxShape{Vec3(0.05, 0.05, 0.05)};
  ToolPlacement tool{&box, make_pose(Vec3(0.2, 0.2, 0.12)), Twist{}};  // bottom at z = 0.07
  PushWorkspace work;
  const double before = total_height(s);
  const PushResult r = push_sand(m, s, tool, /*first_contact=*/true, work);
  EXPECT_EQ(r.cells_in_contact, 100);  // 10 x 10 cells of 1 cm under a 10 cm box
  EXPECT_NEAR(r.displaced_volume_m3, 100 * 0.03 * 1e-4, 1e-12);
  EXPECT_NEAR(total_height(s), before, 1e-12 * before);
  for (int j = 0; j < m.ny; ++j) {
    for (int i = 0; i < m.nx; ++i) {
      const bool under = std::abs(m.x(i) - 0.2) < 0.05 && std::abs(m.y(j) - 0.2) < 0.05;
      const double h = s.height_m[j * m.nx + i];
      if (under) {
        EXPECT_NEAR(h, 0.07, 1e-12) << i << "," << j;
        EXPECT_EQ(s.blocked[j * m.nx + i], 1);
      } else {
        EXPECT_GE(h, 0.1 - 1e-12);
        EXPECT_EQ(s.blocked[j * m.nx + i], 0);
      }
    }
  }
}

TEST(ToolPush, FirstContactPushesRadiallyOutwardOnAllSides) {
  const HeightmapModel m = small_grid();
  HeightmapState s = HeightmapState::flat(m, 0.1);
  const Shape ball = SphereShape{0.06};
  ToolPlacement tool{&ball, make_pose(Vec3(0.2, 0.2, 0.13)), Twist{}};
  PushWorkspace work;
  push_sand(m, s, tool, true, work);
  // Symmetric berm: the four sides of the contact patch receive the same sand.
  auto at = [&](int i, int j) { return s.height_m[j * m.nx + i]; };
  double east = 0, west = 0, north = 0, south = 0;
  for (int k = 0; k < m.nx; ++k) {
    east += at(27, k) + at(26, k) + at(25, k) + at(24, k);
    west += at(12, k) + at(13, k) + at(14, k) + at(15, k);
    north += at(k, 27) + at(k, 26) + at(k, 25) + at(k, 24);
    south += at(k, 12) + at(k, 13) + at(k, 14) + at(k, 15);
  }
  EXPECT_GT(east, m.nx * 4 * 0.1 + 1e-3);  // more sand than the level bed holds there
  EXPECT_NEAR(east, west, 1e-9);
  EXPECT_NEAR(north, south, 1e-9);
  EXPECT_NEAR(east, north, 1e-9);
}

TEST(ToolPush, AMovingToolPushesSandAheadOfIt) {
  const HeightmapModel m = small_grid();
  HeightmapState s = HeightmapState::flat(m, 0.1);
  // A blade over the one column of cells at x = 0.205 m, 10 cells wide, its bottom 3 cm deep.
  const Shape blade = BoxShape{Vec3(0.003, 0.05, 0.05)};
  Twist V;
  V.v_WBo = Vec3(0.1, 0, 0);  // moving +x
  ToolPlacement tool{&blade, make_pose(Vec3(0.205, 0.2, 0.12)), V};
  PushWorkspace work;
  const double ahead_before = height_beyond_x(m, s, 0.21);
  const double behind_before = total_height(s) - height_beyond_x(m, s, 0.2);
  const PushResult r = push_sand(m, s, tool, /*first_contact=*/false, work);
  EXPECT_EQ(r.cells_in_contact, 10);
  // All of the 10 cells' 3 cm went to the next column ahead; nothing went behind.
  EXPECT_NEAR(height_beyond_x(m, s, 0.21), ahead_before + 0.03 * 10, 1e-12);
  EXPECT_NEAR(total_height(s) - height_beyond_x(m, s, 0.2), behind_before, 1e-12);
  EXPECT_NEAR(s.height_m[20 * m.nx + 21], 0.13, 1e-12);
}

TEST(ToolPush, ASlippingWheelThrowsSandBackwardsUnderneath) {
  // Contact-point velocity, not body velocity: at slip ratio 0.9 the wheel's bottom moves
  // backwards.
  const HeightmapModel m = small_grid(80, 0.004);
  const WheelShape wheel{0.05, 0.05, 0, 0.0, 0.005};
  WheelTrenchMotion motion;
  motion.start_W = Vec2(0.16, 0.16);
  motion.surface_z_m = 0.1;
  motion.sinkage_m = 0.01;
  motion.slip_ratio = 0.9;
  const ConstantTwistDriver d = wheel_trench_driver(wheel, motion);
  const Twist V = twist_at(Driver(d), 0.0);
  const Vec3 bottom = d.X_WB0.translation() - Vec3(0, 0, wheel.radius_m);
  EXPECT_LT(V.velocity_of_point(d.X_WB0, bottom).x(), 0.0);
  const Shape shape = wheel;
  HeightmapState s = HeightmapState::flat(m, 0.1);
  PushWorkspace work;
  push_sand(m, s, ToolPlacement{&shape, d.X_WB0, V}, false, work);
  const double behind = total_height(s) - height_beyond_x(m, s, 0.16);
  const double ahead = height_beyond_x(m, s, 0.16);
  EXPECT_GT(behind, ahead);  // more sand went back than forward
}

TEST(ToolPush, WheelDriverRealisesSlipRatioAndSlipAngle) {
  const WheelShape wheel{0.048, 0.05, 0, 0.0, 0.005};
  WheelTrenchMotion motion;
  motion.speed_m_per_s = 0.03;
  motion.slip_ratio = 0.3;
  motion.slip_angle_rad = deg_to_rad(20.0);
  motion.surface_z_m = 0.05;
  motion.sinkage_m = 0.01;
  const ConstantTwistDriver d = wheel_trench_driver(wheel, motion);
  const Vec3 axis_W = d.X_WB0.linear() * Vec3::UnitY();
  const Vec3 roll_W = d.X_WB0.linear() * Vec3::UnitX();
  const double omega = d.V_WB.w_W.dot(axis_W);
  const double v_along = d.V_WB.v_WBo.dot(roll_W);
  EXPECT_NEAR(1.0 - v_along / (omega * wheel.radius_m), 0.3, 1e-12);
  EXPECT_NEAR(std::acos(roll_W.dot(d.V_WB.v_WBo.normalized())), deg_to_rad(20.0), 1e-12);
  EXPECT_NEAR(d.X_WB0.translation().z(), 0.05 + 0.048 - 0.01, 1e-15);
  EXPECT_THROW(wheel_trench_driver(wheel, {Vec2::Zero(), 0, 0, 0.01, 1.0, 0, 0.03}),
               std::invalid_argument);
}

TEST(ToolPush, ErosionDoesNotFlowIntoCellsTheToolOccupies) {
  HeightmapModel m = small_grid();
  HeightmapState s = HeightmapState::flat(m, 0.1);
  const Shape box = BoxShape{Vec3(0.05, 0.05, 0.05)};
  PushWorkspace work;
  push_sand(m, s, ToolPlacement{&box, make_pose(Vec3(0.2, 0.2, 0.12)), Twist{}}, true, work);
  std::vector<double> scratch;
  erode_to_steady_state(m, m.erosion, s.height_m, s.blocked, m.whole(), scratch);
  // The pit's walls stand vertical while the box holds them: the cells under it stay at 0.07.
  for (int j = 0; j < m.ny; ++j)
    for (int i = 0; i < m.nx; ++i)
      if (s.blocked[j * m.nx + i]) {
        EXPECT_NEAR(s.height_m[j * m.nx + i], 0.07, 1e-12);
      }
}

TEST(ToolPush, VolumeIsConservedOverTenThousandRandomToolActions) {
  // The acceptance test: 10,000 random tool actions (shape, pose, velocity, first contact
  // or not, near the edges too), each followed by erosion; relative volume error below 1e-9.
  HeightmapModel m = small_grid(24, 0.01);
  // 1 % of a cell: erosion's exactness is not what this test is about.
  m.erosion.tolerance_m = 1e-4;
  HeightmapState s = HeightmapState::flat(m, 0.1);
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const std::vector<Shape> shapes = {BoxShape{Vec3(0.003, 0.04, 0.05)}, SphereShape{0.03},
                                     CylinderShape{0.025, 0.05},
                                     WheelShape{0.04, 0.03, 8, 0.005, 0.004}};
  PushWorkspace work;
  std::vector<double> scratch;
  const double volume0 = sand_volume_m3(m, s);
  for (int k = 0; k < 10000; ++k) {
    const Shape& shape = shapes[static_cast<std::size_t>(k) % shapes.size()];
    Pose X = make_pose(Vec3(-0.02 + 0.28 * u(rng), -0.02 + 0.28 * u(rng), 0.0),
                       0.4 * (u(rng) - 0.5), 0.4 * (u(rng) - 0.5), 2 * kPi * u(rng));
    // The tool's lowest point between 1.5 cm below and 0.5 cm above the 10 cm bed.
    X.translation().z() += 0.085 + 0.02 * u(rng) - world_bounds(shape, X).lo.z();
    Twist V;
    V.v_WBo = Vec3(u(rng) - 0.5, u(rng) - 0.5, 0.0);
    V.w_W = 5.0 * Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
    std::fill(s.blocked.begin(), s.blocked.end(), 0);
    const PushResult r = push_sand(m, s, ToolPlacement{&shape, X, V}, u(rng) < 0.3, work);
    if (!r.touched.empty()) {
      erode_to_steady_state(m, m.erosion, s.height_m, s.blocked, r.touched, scratch);
    }
  }
  const double volume = sand_volume_m3(m, s);
  EXPECT_LT(std::abs(volume - volume0) / volume0, 1e-9);
  for (double h : s.height_m) ASSERT_TRUE(std::isfinite(h));
}

TEST(ToolPush, StraightPushLeavesATrenchAtDepthAndWallsAtRepose) {
  HeightmapModel m = small_grid(60, 0.005);
  m.erosion.tolerance_m = 1e-9;
  HeightmapState s = HeightmapState::flat(m, 0.05);
  const double volume0 = sand_volume_m3(m, s);
  StraightPush push;
  push.start_W = Vec2(0.07, 0.15);
  push.end_W = Vec2(0.20, 0.15);
  push.bottom_z_m = 0.04;
  push.blade_width_m = 0.06;
  push.speed_m_per_s = 0.05;
  const ShapingStepReport r = execute_straight_push(m, s, push);
  EXPECT_TRUE(r.erosion_converged);
  EXPECT_LT(std::abs(sand_volume_m3(m, s) - volume0) / volume0, 1e-12);
  // Mid-trench, the centre line is at the blade's depth; the walls are at most at repose.
  const double h_mid = surface_height_at(m, s, 0.13, 0.15);
  EXPECT_NEAR(h_mid, 0.04, 1e-6);
  EXPECT_LE(max_repose_excess(m, m.erosion, s.height_m, s.blocked), 1e-6 * m.cell_size_m);
  // The berm ahead of the end point holds the pushed sand.
  EXPECT_GT(surface_height_at(m, s, 0.21, 0.15), 0.05);
}

TEST(ToolPush, AStraightPushWithANonFiniteEndIsNamedAsSuch) {
  StraightPush push;
  push.start_W = Vec2(std::nan(""), 0.1);
  push.end_W = Vec2(0.2, 0.1);
  push.speed_m_per_s = 0.05;
  try {
    straight_push_driver(push, 0.0);
    ADD_FAILURE() << "a NaN start was accepted";
  } catch (const std::invalid_argument& e) {
    // It was reported as "start and end are the same point" before.
    EXPECT_NE(std::string(e.what()).find("start_W and end_W must be finite [m], got (nan, 0.1)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace talus::shaping
