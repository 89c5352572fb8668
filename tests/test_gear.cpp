// Involute helical gear geometry: closed mesh, tooth count, pitch radius, helix twist, SDF.

#include <gtest/gtest.h>

#include <cmath>

#include "core/gear.hpp"
#include "core/mesh_sdf.hpp"
#include "core/units.hpp"
#include "error_message.hpp"

namespace talus {
namespace {

using test_support::invalid_argument_of;

GearParams test_gear() {
  GearParams g;
  g.module_m = 0.004;
  g.teeth = 17;
  g.pressure_angle_rad = deg_to_rad(20.0);
  g.face_width_m = 0.02;
  g.helix_angle_rad = deg_to_rad(20.0);
  return g;
}

// Even-odd point-in-polygon.
bool inside(const std::vector<Vec2>& poly, const Vec2& p) {
  bool in = false;
  for (std::size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const Vec2& a = poly[i];
    const Vec2& b = poly[j];
    if ((a.y() > p.y()) != (b.y() > p.y()) &&
        p.x() < (b.x() - a.x()) * (p.y() - a.y()) / (b.y() - a.y()) + a.x()) {
      in = !in;
    }
  }
  return in;
}

// Share of a circle of radius r inside the profile, and the number of inside runs on it.
std::pair<double, int> circle_census(const std::vector<Vec2>& poly, double r) {
  const int samples = 20000;
  int in_count = 0;
  int runs = 0;
  const double last = 2.0 * kPi * (samples - 0.5) / samples;  // the circle closes on itself
  bool prev = inside(poly, Vec2(r * std::cos(last), r * std::sin(last)));
  for (int i = 0; i < samples; ++i) {
    const double a = 2.0 * kPi * (i + 0.5) / samples;
    const bool in = inside(poly, Vec2(r * std::cos(a), r * std::sin(a)));
    in_count += in;
    if (in && !prev) ++runs;
    prev = in;
  }
  return {static_cast<double>(in_count) / samples, runs};
}

TEST(Gear, MeshIsClosedAndOutward) {
  const TriangleMesh m = gear_mesh(test_gear());
  const ClosednessReport r = check_closedness(m);
  EXPECT_TRUE(r.closed()) << r.boundary_edges << " " << r.non_manifold_edges << " "
                          << r.misoriented_edges;
  EXPECT_GT(m.signed_volume(), 0.0);
  // The volume lies between the root and tip cylinders' volumes.
  const GearParams g = test_gear();
  const double b = g.face_width_m;
  EXPECT_GT(m.signed_volume(), kPi * std::pow(root_radius(g), 2) * b);
  EXPECT_LT(m.signed_volume(), kPi * std::pow(tip_radius(g), 2) * b);
}

TEST(Gear, ProfileHasTheTeethAndThePitchCircle) {
  const GearParams g = test_gear();
  const std::vector<Vec2> profile = gear_profile(g);
  EXPECT_DOUBLE_EQ(pitch_radius(g), 0.004 * 17 / 2);
  // Just inside the tip circle, the circle crosses each tooth once.
  EXPECT_EQ(circle_census(profile, tip_radius(g) - 1e-5).second, 17);
  // The pitch circle is where tooth and gap are equally wide: half its length lies in teeth.
  EXPECT_NEAR(circle_census(profile, pitch_radius(g)).first, 0.5, 2e-3);
  // ... and not a module away.
  EXPECT_GT(circle_census(profile, pitch_radius(g) - 0.5 * g.module_m).first, 0.55);
  EXPECT_LT(circle_census(profile, pitch_radius(g) + 0.5 * g.module_m).first, 0.45);
  // Extremes: every vertex between root and tip.
  for (const Vec2& p : profile) {
    EXPECT_GE(p.norm(), root_radius(g) - 1e-12);
    EXPECT_LE(p.norm(), tip_radius(g) + 1e-12);
  }
}

TEST(Gear, InvoluteFlankHasTheInvolutePolarAngle) {
  GearParams g = test_gear();
  g.flank_points = 3;
  g.arc_points = 2;
  const std::vector<Vec2> profile = gear_profile(g);
  // Tooth 0's rising flank: the point at the tip radius has polar angle -h(r_a).
  const double rb = base_radius(g);
  const double ra = tip_radius(g);
  const double inv = [](double p) { return std::tan(p) - p; }(std::acos(rb / ra));
  const double h =
      kPi / (2 * g.teeth) + (std::tan(g.pressure_angle_rad) - g.pressure_angle_rad) - inv;
  bool found = false;
  for (const Vec2& p : profile) {
    if (std::abs(p.norm() - ra) < 1e-12 && std::abs(std::atan2(p.y(), p.x()) + h) < 1e-12) {
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(Gear, HelixTwistOverTheFaceWidth) {
  const GearParams g = test_gear();
  const double expected = g.face_width_m * std::tan(g.helix_angle_rad) / pitch_radius(g);
  EXPECT_DOUBLE_EQ(helix_twist_rad(g), expected);
  const TriangleMesh m = gear_mesh(g);
  const std::size_t n = gear_profile(g).size();
  // Vertex 0 (bottom layer) and its copy in the top layer: the same radius, turned by the twist.
  const std::size_t top_layer_start = m.vertices_m.size() - 2 - n;
  const Vec3& bottom = m.vertices_m[0];
  const Vec3& top = m.vertices_m[top_layer_start];
  EXPECT_NEAR(bottom.z(), -0.01, 1e-15);
  EXPECT_NEAR(top.z(), 0.01, 1e-15);
  const double turn = std::atan2(top.y(), top.x()) - std::atan2(bottom.y(), bottom.x());
  EXPECT_NEAR(turn, expected, 1e-12);
  // Spur gear: one layer pair, no twist.
  GearParams spur = g;
  spur.helix_angle_rad = 0.0;
  EXPECT_EQ(gear_mesh(spur).vertices_m.size(), 2 * n + 2);
}

TEST(Gear, SdfSeesTheTeeth) {
  const GearParams g = test_gear();
  const MeshShape shape = gear_shape(g, 0.0015);
  // Around the pitch circle in the mid-plane the SDF changes sign twice per tooth.
  int changes = 0;
  const int samples = 3400;
  double prev = shape.sdf->distance(Vec3(pitch_radius(g), 0, 0));
  for (int i = 1; i <= samples; ++i) {
    const double a = 2.0 * kPi * i / samples;
    const double d = shape.sdf->distance(
        Vec3(pitch_radius(g) * std::cos(a), pitch_radius(g) * std::sin(a), 0.0));
    if ((d < 0.0) != (prev < 0.0)) ++changes;
    prev = d;
  }
  EXPECT_EQ(changes, 2 * 17);
  EXPECT_LT(shape.sdf->distance(Vec3(root_radius(g) * 0.5, 0, 0)), 0.0);
  EXPECT_NEAR(shape.sdf->distance(Vec3(0, 0, 0.0105)), 0.0005, 1e-6);  // above the end cap
}

TEST(Gear, RefusesBadParameters) {
  GearParams g = test_gear();
  g.teeth = 3;
  EXPECT_NE(invalid_argument_of([&] { gear_mesh(g); }).find("gear.teeth must be in 6 .. 1000"),
            std::string::npos);
  g = test_gear();
  g.pressure_angle_rad = deg_to_rad(44.0);
  g.teeth = 6;
  EXPECT_NE(invalid_argument_of([&] { gear_mesh(g); }).find("pointed"), std::string::npos);
  g = test_gear();
  g.module_m = -1.0;
  EXPECT_NE(invalid_argument_of([&] { validate(g); }).find("gear.module_m must be finite and > 0"),
            std::string::npos);
}

}  // namespace
}  // namespace talus
