#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "core/units.hpp"
#include "error_message.hpp"

namespace talus {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The message of the std::invalid_argument that f throws, or "" when it throws none.
using talus::test_support::invalid_argument_of;

WheelShape grousered_wheel(int count = 12, double thickness_m = 0.004) {
  WheelShape w;
  w.radius_m = 0.1;
  w.width_m = 0.06;
  w.grouser_count = count;
  w.grouser_height_m = 0.02;
  w.grouser_thickness_m = thickness_m;
  return w;
}

// Every bounded kind, with a grousered wheel and one with very thin grousers (0.3 mm).
std::vector<Shape> bounded_shapes() {
  return {BoxShape{Vec3(0.1, 0.05, 0.03)},
          SphereShape{0.08},
          CylinderShape{0.06, 0.1},
          CapsuleShape{0.04, 0.09},
          WheelShape{0.1, 0.06, 0, 0.0, 0.005},
          grousered_wheel(),
          grousered_wheel(6, 3e-4)};
}

Pose random_pose(std::mt19937& rng) {
  std::uniform_real_distribution<double> pos(-0.3, 0.3);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  return make_pose(Vec3(pos(rng), pos(rng), pos(rng)), angle(rng), angle(rng), angle(rng));
}

Vec3 random_point(std::mt19937& rng, double half_width_m) {
  std::uniform_real_distribution<double> u(-half_width_m, half_width_m);
  return Vec3(u(rng), u(rng), u(rng));
}

// ------------------------------------------------------------------------------------ distances

TEST(ShapeDistance, PlaneIsHeightAboveTheBodyXyPlane) {
  EXPECT_DOUBLE_EQ(signed_distance(PlaneShape{}, Vec3(1, 2, 3)), 3.0);
  EXPECT_DOUBLE_EQ(signed_distance(PlaneShape{}, Vec3(-4, 5, -2)), -2.0);
}

TEST(ShapeDistance, BoxAtFacesEdgesCornersAndInside) {
  const Shape box = BoxShape{Vec3(1, 2, 3)};
  EXPECT_NEAR(signed_distance(box, Vec3(2, 0, 0)), 1.0, 1e-15);
  EXPECT_NEAR(signed_distance(box, Vec3(2, 3, 0)), std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(signed_distance(box, Vec3(-2, 3, -4)), std::sqrt(3.0), 1e-15);
  EXPECT_NEAR(signed_distance(box, Vec3(0, 0, 0)), -1.0, 1e-15);      // nearest face is x
  EXPECT_NEAR(signed_distance(box, Vec3(0.5, 0, 2.8)), -0.2, 1e-15);  // nearest face is +z
}

TEST(ShapeDistance, SphereCylinderCapsule) {
  EXPECT_NEAR(signed_distance(SphereShape{1.0}, Vec3(0, 0, 3)), 2.0, 1e-15);
  EXPECT_NEAR(signed_distance(SphereShape{1.0}, Vec3::Zero()), -1.0, 1e-15);

  const Shape cyl = CylinderShape{1.0, 2.0};
  EXPECT_NEAR(signed_distance(cyl, Vec3(3, 0, 0)), 2.0, 1e-15);
  EXPECT_NEAR(signed_distance(cyl, Vec3(0, 0, 3)), 1.0, 1e-15);
  EXPECT_NEAR(signed_distance(cyl, Vec3(0, 2, -3)), std::sqrt(2.0), 1e-15);  // rim edge
  EXPECT_NEAR(signed_distance(cyl, Vec3(0.5, 0, 0)), -0.5, 1e-15);
  EXPECT_NEAR(signed_distance(cyl, Vec3(0, 0, 1.75)), -0.25, 1e-15);

  const Shape cap = CapsuleShape{0.5, 1.0};
  EXPECT_NEAR(signed_distance(cap, Vec3(0, 0, 2)), 0.5, 1e-15);
  EXPECT_NEAR(signed_distance(cap, Vec3(1, 0, 0.3)), 0.5, 1e-15);
  EXPECT_NEAR(signed_distance(cap, Vec3(1, 0, 1.5)), std::sqrt(1.25) - 0.5, 1e-15);
  EXPECT_NEAR(signed_distance(cap, Vec3(0, 0, -0.7)), -0.5, 1e-15);
}

TEST(ShapeDistance, WheelRimAlongYAndGrousersFromStraightDown) {
  const Shape rim = WheelShape{0.1, 0.04, 0, 0.0, 0.005};
  EXPECT_NEAR(signed_distance(rim, Vec3(0, 0, -0.15)), 0.05, 1e-15);
  EXPECT_NEAR(signed_distance(rim, Vec3(0, 0.05, 0)), 0.03, 1e-15);  // beyond the side face
  EXPECT_NEAR(signed_distance(rim, Vec3(0.1, 0, 0)), 0.0, 1e-15);
  EXPECT_NEAR(signed_distance(rim, Vec3::Zero()), -0.02, 1e-15);

  WheelShape w{0.1, 0.04, 4, 0.02, 0.01};
  // Grouser 0 points along -z, grouser 1 (90 deg about +y) along -x, grouser 3 along +x.
  EXPECT_NEAR(signed_distance(w, Vec3(0, 0, -0.15)), 0.03, 1e-15);
  EXPECT_NEAR(signed_distance(w, Vec3(-0.15, 0, 0)), 0.03, 1e-15);
  EXPECT_NEAR(signed_distance(w, Vec3(0.15, 0, 0)), 0.03, 1e-15);
  EXPECT_NEAR(signed_distance(w, Vec3(0, 0, 0.15)), 0.03, 1e-15);
  // Inside grouser 0, 1 mm from its tip: the thinnest way out is tangential (half thickness 5 mm)
  // or through the tip (1 mm).
  EXPECT_NEAR(signed_distance(w, Vec3(0, 0, -0.119)), -0.001, 1e-15);
  // Between grousers at 45 deg, 0.15 m from the axle: the rim is nearest.
  const double c = std::sqrt(0.5);
  EXPECT_NEAR(signed_distance(w, Vec3(-0.15 * c, 0, -0.15 * c)), 0.05, 1e-15);
}

TEST(ShapeDistance, RotatedBoxSeenFromTheWorld) {
  // A unit cube yawed 45 deg puts a vertical edge at world x = sqrt(2).
  const Shape box = BoxShape{Vec3(1, 1, 1)};
  const Pose X_WB = make_pose(Vec3::Zero(), 0.0, 0.0, deg_to_rad(45.0));
  const Vec3 p_W(2, 0, 0.5);
  EXPECT_NEAR(signed_distance(box, X_WB.inverse() * p_W), 2.0 - std::sqrt(2.0), 1e-14);
  // A cylinder rolled 90 deg about x has its axis along world y.
  const Pose X_WC = make_pose(Vec3(0, 0, 1), deg_to_rad(90.0));
  EXPECT_NEAR(signed_distance(CylinderShape{0.5, 2.0}, X_WC.inverse() * Vec3(0, 1.5, 0)), 0.5,
              1e-14);
  EXPECT_NEAR(signed_distance(CylinderShape{0.5, 2.0}, X_WC.inverse() * Vec3(0, 3, 1)), 1.0, 1e-14);
}

TEST(ShapeDistance, IsOneLipschitzOnRandomPairs) {
  std::mt19937 rng(7);
  std::vector<Shape> shapes = bounded_shapes();
  shapes.emplace_back(std::in_place_type<PlaneShape>);
  std::uniform_real_distribution<double> log_scale(-6.0, -0.5);
  for (const Shape& shape : shapes) {
    for (int i = 0; i < 3000; ++i) {
      const Vec3 a = random_point(rng, 0.2);
      const Vec3 b = a + random_point(rng, 1.0).normalized() * std::pow(10.0, log_scale(rng));
      const double lhs = std::abs(signed_distance(shape, a) - signed_distance(shape, b));
      ASSERT_LE(lhs, (a - b).norm() * (1.0 + 1e-9) + 1e-15) << shape_kind(shape) << " pair " << i;
    }
  }
}

// The wheel picks only the grouser nearest in angle; it must equal the minimum over every part,
// computed here independently: the rim cylinder and each grouser as a box from the axle out to the
// tip (its part inside the rim does not change the union).
TEST(ShapeDistance, WheelEqualsTheMinimumOverAllItsParts) {
  std::mt19937 rng(11);
  for (const WheelShape& w : {grousered_wheel(12), grousered_wheel(3, 0.02), grousered_wheel(1)}) {
    const double tip = w.radius_m + w.grouser_height_m;
    for (int i = 0; i < 3000; ++i) {
      const Vec3 p = random_point(rng, 0.16);
      double parts =
          signed_distance(CylinderShape{w.radius_m, 0.5 * w.width_m}, Vec3(p.x(), p.z(), p.y()));
      for (int k = 0; k < w.grouser_count; ++k) {
        const double theta = 2.0 * kPi * k / w.grouser_count;
        const Vec3 d(-std::sin(theta), 0, -std::cos(theta));
        const Vec3 e(-std::cos(theta), 0, std::sin(theta));
        const Vec3 p_G(p.dot(d) - 0.5 * tip, p.dot(e), p.y());
        const BoxShape plate{Vec3(0.5 * tip, 0.5 * w.grouser_thickness_m, 0.5 * w.width_m)};
        parts = std::min(parts, signed_distance(plate, p_G));
      }
      const double got = signed_distance(w, p);
      if (parts > 0.0) {
        ASSERT_NEAR(got, parts, 1e-14) << "outside point " << i;
      } else {
        ASSERT_LE(got, 0.0) << "inside point " << i;
      }
    }
  }
}

// ------------------------------------------------------------------------------------ normals

TEST(ShapeNormal, KnownDirections) {
  EXPECT_TRUE(outward_normal(PlaneShape{}, Vec3(3, 4, -1)).isApprox(Vec3::UnitZ()));
  EXPECT_TRUE(outward_normal(BoxShape{Vec3(1, 2, 3)}, Vec3(0.5, 0, 2.8)).isApprox(Vec3::UnitZ()));
  EXPECT_TRUE(
      outward_normal(BoxShape{Vec3(1, 1, 1)}, Vec3(2, 2, 0)).isApprox(Vec3(1, 1, 0).normalized()));
  EXPECT_TRUE(outward_normal(SphereShape{1}, Vec3(0, -3, 0)).isApprox(-Vec3::UnitY()));
  EXPECT_TRUE(outward_normal(CylinderShape{1, 2}, Vec3(0, 0.3, -1.9)).isApprox(-Vec3::UnitZ()));
  EXPECT_TRUE(outward_normal(CylinderShape{1, 2}, Vec3(0, 0.9, 0.1)).isApprox(Vec3::UnitY()));
  EXPECT_TRUE(outward_normal(CapsuleShape{0.5, 1}, Vec3(0, 0, 3)).isApprox(Vec3::UnitZ()));
  // Below grouser 0's tip the normal points straight down; off its side tangentially.
  const WheelShape w = grousered_wheel(12);
  EXPECT_TRUE(outward_normal(w, Vec3(0, 0, -0.2)).isApprox(-Vec3::UnitZ()));
  EXPECT_TRUE(outward_normal(w, Vec3(0.003, 0.01, -0.115)).isApprox(Vec3::UnitX()));
  EXPECT_TRUE(outward_normal(w, Vec3(0.0, 0.2, 0.0)).isApprox(Vec3::UnitY()));
}

TEST(ShapeNormal, UnitAndEqualToTheCentralDifferenceGradient) {
  std::mt19937 rng(3);
  const double h = 1e-6;
  for (const Shape& shape : bounded_shapes()) {
    int checked = 0;
    const int samples = 2000;
    for (int i = 0; i < samples; ++i) {
      const Vec3 p = random_point(rng, 0.16);
      const Vec3 n = outward_normal(shape, p);
      ASSERT_NEAR(n.norm(), 1.0, 1e-12);
      Vec3 g;
      for (int j = 0; j < 3; ++j) {
        Vec3 dp = Vec3::Zero();
        dp[j] = h;
        g[j] = (signed_distance(shape, p + dp) - signed_distance(shape, p - dp)) / (2 * h);
      }
      if (std::abs(g.norm() - 1.0) > 1e-6) continue;  // within h of a ridge: no unique gradient
      ++checked;
      ASSERT_GT(n.dot(g), 1.0 - 1e-6) << shape_kind(shape) << " at " << p.transpose();
    }
    EXPECT_GT(checked, samples * 8 / 10) << shape_kind(shape);
  }
}

// ------------------------------------------------------------------------------------ bounds

TEST(ShapeBounds, ExactForKnownPoses) {
  const Pose yaw45 = make_pose(Vec3(1, 2, 3), 0, 0, deg_to_rad(45.0));
  const Aabb box = world_bounds(BoxShape{Vec3(1, 1, 0.5)}, yaw45);
  EXPECT_TRUE(box.lo.isApprox(Vec3(1 - std::sqrt(2.0), 2 - std::sqrt(2.0), 2.5)));
  EXPECT_TRUE(box.hi.isApprox(Vec3(1 + std::sqrt(2.0), 2 + std::sqrt(2.0), 3.5)));
  // A cylinder on its side (axis along world y) spans its radius in z.
  const Aabb cyl = world_bounds(CylinderShape{0.5, 2.0}, make_pose(Vec3::Zero(), kPi / 2));
  EXPECT_TRUE(cyl.lo.isApprox(Vec3(-0.5, -2.0, -0.5)));
  EXPECT_TRUE(cyl.hi.isApprox(Vec3(0.5, 2.0, 0.5)));
  const Aabb cap = world_bounds(CapsuleShape{0.5, 1.0}, Pose::Identity());
  EXPECT_TRUE(cap.hi.isApprox(Vec3(0.5, 0.5, 1.5)));
  // An unrotated wheel's axle is along y: width in y, grouser-corner radius in x and z.
  const WheelShape w = grousered_wheel(12);
  const Aabb wb = world_bounds(w, Pose::Identity());
  const double corner = std::hypot(0.12, 0.002);
  EXPECT_TRUE(wb.hi.isApprox(Vec3(corner, 0.03, corner)));
  EXPECT_NE(
      invalid_argument_of([] { world_bounds(PlaneShape{}, Pose::Identity()); }).find("unbounded"),
      std::string::npos);
}

// Surface points come from projecting random points along the normal (q = p - f(p) n(p)), which
// also checks that distance and normal agree; every such point and every sampled inside point must
// lie in the bounds, and for the exact kinds the extreme surface points must reach the bounds.
TEST(ShapeBounds, ContainSampledSurfacePointsAndAreTight) {
  std::mt19937 rng(5);
  for (const Shape& shape : bounded_shapes()) {
    const bool exact_bounds = !std::holds_alternative<WheelShape>(shape);
    for (int trial = 0; trial < 3; ++trial) {
      const Pose X_WB = random_pose(rng);
      const Aabb box = world_bounds(shape, X_WB);
      Vec3 reach_lo = Vec3::Constant(kInf);
      Vec3 reach_hi = Vec3::Constant(-kInf);
      for (int i = 0; i < 8000; ++i) {
        const Vec3 p_B = random_point(rng, 0.2);
        const double f = signed_distance(shape, p_B);
        const Vec3 q_B = p_B - f * outward_normal(shape, p_B);
        if (f > 0.0 || exact_bounds) {  // projection is exact where the distance is
          ASSERT_NEAR(signed_distance(shape, q_B), 0.0, 1e-12) << shape_kind(shape);
        }
        const Vec3 q_W = X_WB * q_B;
        ASSERT_TRUE((q_W.array() >= box.lo.array() - 1e-12).all() &&
                    (q_W.array() <= box.hi.array() + 1e-12).all())
            << shape_kind(shape) << " surface point " << q_W.transpose();
        if (f <= 0.0) {
          ASSERT_TRUE(box.contains(X_WB * p_B)) << shape_kind(shape);
        }
        reach_lo = reach_lo.cwiseMin(q_W);
        reach_hi = reach_hi.cwiseMax(q_W);
      }
      if (exact_bounds) {
        const double size = (box.hi - box.lo).maxCoeff();
        EXPECT_LT((reach_lo - box.lo).maxCoeff(), 0.02 * size) << shape_kind(shape);
        EXPECT_LT((box.hi - reach_hi).maxCoeff(), 0.02 * size) << shape_kind(shape);
      }
    }
  }
}

// ------------------------------------------------------------------------------------ lowest point

TEST(ShapeLowestPoint, KnownValues) {
  const Pose up = make_pose(Vec3(0, 0, 1));
  EXPECT_NEAR(lowest_point_z(SphereShape{0.5}, up, 0, 0), 0.5, 1e-15);
  EXPECT_NEAR(lowest_point_z(SphereShape{0.5}, up, 0.3, 0), 0.6, 1e-15);
  EXPECT_EQ(lowest_point_z(SphereShape{0.5}, up, 0.3, 0.5), kInf);
  // A cube rolled 45 deg hangs an edge sqrt(2) below its centre.
  const Pose rolled = make_pose(Vec3::Zero(), deg_to_rad(45.0));
  EXPECT_NEAR(lowest_point_z(BoxShape{Vec3(1, 1, 1)}, rolled, 0, 0), -std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(lowest_point_z(BoxShape{Vec3(1, 1, 1)}, rolled, 0.9, 0.5), -std::sqrt(2.0) + 0.5,
              1e-14);
  EXPECT_EQ(lowest_point_z(BoxShape{Vec3(1, 1, 1)}, rolled, 1.1, 0), kInf);
  // A cylinder on its side, an upright one and a capsule's end ball.
  const Pose side = make_pose(Vec3(0, 0, 1), kPi / 2);
  EXPECT_NEAR(lowest_point_z(CylinderShape{0.5, 2}, side, 0.3, 1.9), 0.6, 1e-14);
  EXPECT_EQ(lowest_point_z(CylinderShape{0.5, 2}, side, 0.3, 2.1), kInf);
  EXPECT_NEAR(lowest_point_z(CylinderShape{0.5, 2}, up, 0.3, 0.3), -1.0, 1e-14);
  EXPECT_NEAR(lowest_point_z(CapsuleShape{0.5, 1}, up, 0.3, 0), 0.6 - 1.0, 1e-14);
  // Wheel at height 0.2: grouser 0 hangs straight down; just beside it the rim is lowest.
  const WheelShape w = grousered_wheel(12);
  const Pose hub = make_pose(Vec3(0, 0, 0.2));
  EXPECT_NEAR(lowest_point_z(w, hub, 0.001, 0.01), 0.2 - 0.12, 1e-9);
  EXPECT_NEAR(lowest_point_z(w, hub, 0.02, 0.01), 0.2 - std::sqrt(0.01 - 0.0004), 1e-9);
  EXPECT_EQ(lowest_point_z(w, hub, 0.02, 0.031), kInf);
}

TEST(ShapeLowestPoint, ThinGrousersAreNotSteppedOver) {
  // 0.2 mm plates 1 cm tall: a line through grouser 0 finds its tip, a line 0.15 mm aside the rim.
  const WheelShape w{0.05, 0.02, 6, 0.01, 2e-4};
  EXPECT_NEAR(lowest_point_z(w, Pose::Identity(), 5e-5, 0), -0.06, 1e-9);
  EXPECT_NEAR(lowest_point_z(w, Pose::Identity(), 1.5e-4, 0), -std::sqrt(0.05 * 0.05 - 2.25e-8),
              1e-9);
  // A line 45 mm beside the axle passes obliquely through grouser 1 (at 60 deg) just outside the
  // rim; the lowest point is on the plate's lower face u = -t/2, at radial coordinate s.
  const double x = -0.045;
  const Vec3 d1(-std::sin(kPi / 3), 0, -std::cos(kPi / 3));
  const Vec3 e1(-std::cos(kPi / 3), 0, std::sin(kPi / 3));
  const double u = -1e-4;
  const double s = (x - u * e1.x()) / d1.x();
  ASSERT_GT(s, 0.05);
  ASSERT_LT(s, 0.06);
  EXPECT_NEAR(lowest_point_z(w, Pose::Identity(), x, 0), s * d1.z() + u * e1.z(), 1e-9);
}

// Lines running beside a vertical face: 50 nm away (inside the 100 nm touch distance) and 0.2 um
// away (inside the 10 um near distance, where plain sphere tracing would take a step of 0.2 um at a
// time up the whole face) both count as touching at the face's bottom edge; 30 um away the line
// passes by. (Lines outside the bounds never reach the march, so the faces here are inside them.)
TEST(ShapeLowestPoint, TracingALineAlongAFaceCountsItAsTouching) {
  const Shape box = BoxShape{Vec3(0.05, 0.05, 0.05)};
  const Pose yawed = make_pose(Vec3::Zero(), 0.0, 0.0, kPi / 4);
  const double c = std::sqrt(0.5);
  const auto beside = [&](double gap) {
    return lowest_point_z_traced(box, yawed, (0.05 + gap) * c, (0.05 + gap) * c);
  };
  EXPECT_NEAR(beside(5e-8), -0.05, 2e-6);
  EXPECT_LE(beside(5e-8), -0.05);
  EXPECT_NEAR(beside(2e-7), -0.05, 2e-5);
  EXPECT_LE(beside(2e-7), -0.05);
  EXPECT_EQ(beside(3e-5), kInf);
  // Beside grouser 0's side face (x = t/2): touching at its tip, else the rim above.
  const WheelShape w = grousered_wheel(12);
  const double half_t = 0.5 * w.grouser_thickness_m;
  EXPECT_NEAR(lowest_point_z(w, Pose::Identity(), half_t + 5e-8, 0.0), -0.12, 2e-6);
  EXPECT_NEAR(lowest_point_z(w, Pose::Identity(), half_t + 2e-7, 0.0), -0.12, 2e-5);
  const double x = half_t + 3e-5;
  EXPECT_NEAR(lowest_point_z(w, Pose::Identity(), x, 0.0), -std::sqrt(0.01 - x * x), 1e-9);
}

TEST(ShapeLowestPoint, PlaneDependsOnWhichSideIsSolid) {
  const Pose upright = make_pose(Vec3(0, 0, 0.3));
  EXPECT_EQ(lowest_point_z(PlaneShape{}, upright, 1, 2), -kInf);  // the solid goes down forever
  const Pose upside_down = make_pose(Vec3(0.5, 0, 0.3), kPi + 0.2);
  const Vec3 n_W = upside_down.linear().col(2);
  const double x = 1.0;
  const double y = 2.0;
  const double z_plane = 0.3 - (n_W.x() * (x - 0.5) + n_W.y() * y) / n_W.z();
  EXPECT_NEAR(lowest_point_z(PlaneShape{}, upside_down, x, y), z_plane, 1e-14);
  Pose wall = Pose::Identity();  // exactly vertical, normal along -y: solid at y >= 0
  wall.linear() << 1, 0, 0, 0, 0, -1, 0, 1, 0;
  EXPECT_EQ(lowest_point_z(PlaneShape{}, wall, 0, 1), -kInf);
  EXPECT_EQ(lowest_point_z(PlaneShape{}, wall, 0, -1), kInf);
  EXPECT_EQ(lowest_point_z_traced(PlaneShape{}, upside_down, x, y),
            lowest_point_z(PlaneShape{}, upside_down, x, y));
}

// Lowest points at random poses against a brute force: dense vertical sampling of the signed
// distance. The answer must lie within one sample step below the first inside sample, sit on the
// surface, and agree with the other method (traced vs exact).
TEST(ShapeLowestPoint, MatchesDenseSamplingAtRandomPoses) {
  std::mt19937 rng(19);
  const double step = 6e-5;
  for (const Shape& shape : bounded_shapes()) {
    int hits = 0;
    for (int trial = 0; trial < 4; ++trial) {
      const Pose X_WB = random_pose(rng);
      const Pose X_BW = X_WB.inverse();
      const Aabb box = world_bounds(shape, X_WB);
      std::uniform_real_distribution<double> ux(box.lo.x() - 0.01, box.hi.x() + 0.01);
      std::uniform_real_distribution<double> uy(box.lo.y() - 0.01, box.hi.y() + 0.01);
      for (int i = 0; i < 25; ++i) {
        const double x = ux(rng);
        const double y = uy(rng);
        double first_inside = kInf;
        for (double z = box.lo.z() - step; z <= box.hi.z() + step; z += step) {
          if (signed_distance(shape, X_BW * Vec3(x, y, z)) <= 0.0) {
            first_inside = z;
            break;
          }
        }
        const double got = lowest_point_z(shape, X_WB, x, y);
        const double traced = lowest_point_z_traced(shape, X_WB, x, y);
        if (got == kInf) {
          ASSERT_EQ(first_inside, kInf) << shape_kind(shape) << " missed at " << x << ", " << y;
          ASSERT_EQ(traced, kInf);
          continue;
        }
        ++hits;
        ASSERT_NEAR(signed_distance(shape, X_BW * Vec3(x, y, got)), 0.0, 1e-9) << shape_kind(shape);
        ASSERT_NEAR(traced, got, 1e-9) << shape_kind(shape);
        if (first_inside < kInf) {
          ASSERT_LE(got, first_inside + 1e-12) << shape_kind(shape);
          ASSERT_GT(got, first_inside - step - 1e-12) << shape_kind(shape);
        }
      }
    }
    EXPECT_GT(hits, 30) << shape_kind(shape);
  }
}

// The traced wheel against an exact union of its parts, each intersected exactly: the rim
// cylinder and every grouser as a box from the axle to the tip.
TEST(ShapeLowestPoint, TracedWheelEqualsTheExactUnionOfItsParts) {
  std::mt19937 rng(23);
  for (const WheelShape& w : {grousered_wheel(12), grousered_wheel(6, 3e-4)}) {
    const double tip = w.radius_m + w.grouser_height_m;
    for (int trial = 0; trial < 10; ++trial) {
      const Pose X_WB = random_pose(rng);
      const Aabb box = world_bounds(w, X_WB);
      std::uniform_real_distribution<double> ux(box.lo.x(), box.hi.x());
      std::uniform_real_distribution<double> uy(box.lo.y(), box.hi.y());
      const Pose X_BR = make_pose(Vec3::Zero(), -kPi / 2);  // cylinder z axis onto y_B
      for (int i = 0; i < 200; ++i) {
        const double x = ux(rng);
        const double y = uy(rng);
        double expected =
            lowest_point_z(CylinderShape{w.radius_m, 0.5 * w.width_m}, X_WB * X_BR, x, y);
        for (int k = 0; k < w.grouser_count; ++k) {
          const double theta = 2.0 * kPi * k / w.grouser_count;
          Pose X_BG = Pose::Identity();
          X_BG.linear().col(0) = Vec3(-std::sin(theta), 0, -std::cos(theta));
          X_BG.linear().col(1) = Vec3(-std::cos(theta), 0, std::sin(theta));
          X_BG.linear().col(2) = Vec3::UnitY();
          X_BG.translation() = 0.5 * tip * X_BG.linear().col(0);
          const BoxShape plate{Vec3(0.5 * tip, 0.5 * w.grouser_thickness_m, 0.5 * w.width_m)};
          expected = std::min(expected, lowest_point_z(plate, X_WB * X_BG, x, y));
        }
        const double got = lowest_point_z(w, X_WB, x, y);
        if (expected == kInf) {
          ASSERT_EQ(got, kInf);
        } else {
          ASSERT_NEAR(got, expected, 1e-9) << "trial " << trial << " line " << i;
        }
      }
    }
  }
}

// ------------------------------------------------------------------------------------ grousers

TEST(ShapeWheel, GrouserFractionMatchesAreaSampling) {
  const WheelShape w = grousered_wheel(12, 0.006);
  const double r = w.radius_m;
  const double big_r = r + w.grouser_height_m;
  const int n = 1200;
  int in_annulus = 0;
  int in_grouser = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double x = -big_r + (i + 0.5) * 2 * big_r / n;
      const double z = -big_r + (j + 0.5) * 2 * big_r / n;
      const double rho = std::hypot(x, z);
      if (rho < r || rho > big_r) continue;
      ++in_annulus;
      if (signed_distance(w, Vec3(x, 0, z)) <= 0.0) ++in_grouser;
    }
  }
  const double sampled = static_cast<double>(in_grouser) / in_annulus;
  EXPECT_NEAR(grouser_volume_fraction(w), sampled, 2e-3);
  EXPECT_GT(grouser_volume_fraction(w), 0.1);  // not vacuous: about 12 * 6 mm / (2 pi 11 cm)
  EXPECT_EQ(grouser_volume_fraction(WheelShape{0.1, 0.05, 0, 0.0, 0.005}), 0.0);
}

TEST(ShapeWheel, SolvesThicknessForPaper003Table1) {
  // Paper 003 Table 1: radius 48 mm, width 50 mm, 5 mm grousers filling 0.1 of the annulus (the
  // count is not given; 12 here).
  const WheelShape w = wheel_with_grouser_fraction(0.048, 0.05, 12, 0.005, 0.1);
  EXPECT_NEAR(grouser_volume_fraction(w), 0.1, 1e-12);
  EXPECT_EQ(w.grouser_count, 12);
  EXPECT_DOUBLE_EQ(w.radius_m, 0.048);
  // Thin plates: area fraction ~ count * thickness * height / annulus area.
  const double annulus = kPi * (0.053 * 0.053 - 0.048 * 0.048);
  EXPECT_NEAR(w.grouser_thickness_m, 0.1 * annulus / (12 * 0.005), 5e-5);
  EXPECT_NE(invalid_argument_of([] {
              wheel_with_grouser_fraction(0.048, 0.05, 12, 0.005, 0.99);
            }).find("grouser fraction must be in (0, "),
            std::string::npos);
  EXPECT_NE(invalid_argument_of([] {
              wheel_with_grouser_fraction(0.048, 0.05, 0, 0.005, 0.1);
            }).find("wheel.grouser_count must be >= 1"),
            std::string::npos);
}

// ------------------------------------------------------------------------------------ validation

TEST(ShapeValidate, MessagesNameTheFieldAndTheExpectation) {
  EXPECT_EQ(invalid_argument_of([] { validate(SphereShape{-1}); }),
            "sphere.radius_m must be > 0, got -1");
  EXPECT_EQ(invalid_argument_of([] {
              validate(CylinderShape{1, 0});
            }),
            "cylinder.half_length_m must be > 0, got 0");
  EXPECT_EQ(invalid_argument_of([] {
              validate(CapsuleShape{1, -0.5});
            }),
            "capsule.half_length_m must be >= 0, got -0.5");
  EXPECT_EQ(invalid_argument_of([] { validate(BoxShape{Vec3(1, -2, 3)}); }),
            "box.half_extents_m must be finite and > 0 in every component, got (1, -2, 3)");
  EXPECT_EQ(invalid_argument_of([] {
              validate(WheelShape{std::nan(""), 0.1, 0, 0, 0.005});
            }),
            "wheel.radius_m must be finite, got nan");
  EXPECT_EQ(invalid_argument_of([] {
              validate(WheelShape{0.1, 0.1, -2, 0, 0.005});
            }),
            "wheel.grouser_count must be >= 0, got -2");
  EXPECT_EQ(invalid_argument_of([] {
              validate(WheelShape{0.1, 0.1, 12, 0, 0.005});
            }),
            "wheel.grouser_height_m must be > 0, got 0");
  EXPECT_EQ(invalid_argument_of([] {
              validate(WheelShape{0.1, 0.1, 12, 0.01, 0.06});
            }).rfind("wheel.grouser_thickness_m must be < 0.0517", 0),
            0u);
  EXPECT_NE(invalid_argument_of([] {
              validate(WheelShape{0.1, 0.1, 12, 0.01, 0.06});
            }).find("got 0.06"),
            std::string::npos);
  for (const Shape& shape : bounded_shapes()) EXPECT_NO_THROW(validate(shape));
  EXPECT_NO_THROW(validate(PlaneShape{}));
  EXPECT_NO_THROW(validate(CapsuleShape{1, 0}));
}

TEST(ShapeKind, NamesEveryKind) {
  EXPECT_EQ(shape_kind(PlaneShape{}), "plane");
  EXPECT_EQ(shape_kind(BoxShape{}), "box");
  EXPECT_EQ(shape_kind(SphereShape{}), "sphere");
  EXPECT_EQ(shape_kind(CylinderShape{}), "cylinder");
  EXPECT_EQ(shape_kind(CapsuleShape{}), "capsule");
  EXPECT_EQ(shape_kind(WheelShape{}), "wheel");
}

}  // namespace
}  // namespace talus
