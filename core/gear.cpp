#include "core/gear.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/mesh_sdf.hpp"
#include "core/units.hpp"

namespace talus {
namespace {

double involute(double phi) { return std::tan(phi) - phi; }

// Tooth half angle [rad] at radius r (see the header).
double half_angle(const GearParams& g, double r) {
  const double rb = base_radius(g);
  const double phi = std::acos(std::min(1.0, rb / std::max(r, rb)));
  return kPi / (2.0 * g.teeth) + involute(g.pressure_angle_rad) - involute(phi);
}

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

}  // namespace

double pitch_radius(const GearParams& g) { return 0.5 * g.module_m * g.teeth; }
double base_radius(const GearParams& g) { return pitch_radius(g) * std::cos(g.pressure_angle_rad); }
double tip_radius(const GearParams& g) { return pitch_radius(g) + g.module_m; }
double root_radius(const GearParams& g) { return pitch_radius(g) - 1.25 * g.module_m; }
double helix_twist_rad(const GearParams& g) {
  return g.face_width_m * std::tan(g.helix_angle_rad) / pitch_radius(g);
}

void validate(const GearParams& g) {
  require(std::isfinite(g.module_m) && g.module_m > 0.0,
          fmt::format("gear.module_m must be finite and > 0, got {}", g.module_m));
  require(g.teeth >= 6 && g.teeth <= 1000,
          fmt::format("gear.teeth must be in 6 .. 1000, got {}", g.teeth));
  require(
      g.pressure_angle_rad > 0.0 && g.pressure_angle_rad < deg_to_rad(45.0),
      fmt::format("gear.pressure_angle_rad must be in (0, 45 deg), got {}", g.pressure_angle_rad));
  require(std::isfinite(g.face_width_m) && g.face_width_m > 0.0,
          fmt::format("gear.face_width_m must be finite and > 0, got {}", g.face_width_m));
  require(
      std::abs(g.helix_angle_rad) < deg_to_rad(60.0),
      fmt::format("gear.helix_angle_rad must be in (-60 deg, 60 deg), got {}", g.helix_angle_rad));
  require(g.flank_points >= 2 && g.flank_points <= 1000,
          fmt::format("gear.flank_points must be in 2 .. 1000, got {}", g.flank_points));
  require(g.arc_points >= 2 && g.arc_points <= 1000,
          fmt::format("gear.arc_points must be in 2 .. 1000, got {}", g.arc_points));
  require(g.max_layer_twist_rad > 0.0,
          fmt::format("gear.max_layer_twist_rad must be > 0, got {}", g.max_layer_twist_rad));
  require(root_radius(g) > 0.0, "gear: the root radius r_p - 1.25 m must be > 0");
  const double h_tip = half_angle(g, tip_radius(g));
  require(h_tip > 0.0, fmt::format("gear: {} teeth at pressure angle {} rad are pointed below the "
                                   "tip circle (half angle at the tip {} rad)",
                                   g.teeth, g.pressure_angle_rad, h_tip));
  const double h_root = half_angle(g, root_radius(g));
  require(h_root < kPi / g.teeth,
          fmt::format("gear: {} teeth leave no gap at the root circle (root half angle {} rad >= "
                      "pi / z)",
                      g.teeth, h_root));
}

std::vector<Vec2> gear_profile(const GearParams& g) {
  validate(g);
  const double r_f = root_radius(g);
  const double r_a = tip_radius(g);
  const double r_b = base_radius(g);
  // Flank radii from root to tip; the base circle is a sample when the flank reaches below it,
  // so the radial part ends exactly where the involute begins.
  std::vector<double> radii;
  const double r_inv0 = std::max(r_f, r_b);
  if (r_f < r_b) radii.push_back(r_f);
  for (int i = 0; i < g.flank_points; ++i) {
    radii.push_back(r_inv0 + (r_a - r_inv0) * i / (g.flank_points - 1));
  }
  const double pitch = 2.0 * kPi / g.teeth;
  auto polar = [](double r, double a) { return Vec2(r * std::cos(a), r * std::sin(a)); };
  std::vector<Vec2> poly;
  for (int k = 0; k < g.teeth; ++k) {
    const double c = k * pitch;
    // Root arc from the gap's middle (c - pitch / 2) to the flank's foot, without its end.
    const double foot = c - half_angle(g, r_f);
    const double gap = c - 0.5 * pitch;
    for (int i = 0; i < g.arc_points - 1; ++i) {
      poly.push_back(polar(r_f, gap + (foot - gap) * i / (g.arc_points - 1)));
    }
    for (double r : radii) poly.push_back(polar(r, c - half_angle(g, r)));  // rising flank
    const double h_a = half_angle(g, r_a);
    for (int i = 1; i < g.arc_points - 1; ++i) {  // tip arc, inner points
      poly.push_back(polar(r_a, c - h_a + 2.0 * h_a * i / (g.arc_points - 1)));
    }
    for (auto it = radii.rbegin(); it != radii.rend(); ++it) {  // falling flank
      poly.push_back(polar(*it, c + half_angle(g, *it)));
    }
    const double foot2 = c + half_angle(g, r_f);
    const double gap2 = c + 0.5 * pitch;
    for (int i = 1; i < g.arc_points - 1; ++i) {  // root arc up to the next gap's middle
      poly.push_back(polar(r_f, foot2 + (gap2 - foot2) * i / (g.arc_points - 1)));
    }
  }
  return poly;
}

TriangleMesh gear_mesh(const GearParams& g) {
  const std::vector<Vec2> profile = gear_profile(g);
  const auto n = static_cast<int>(profile.size());
  const double twist = helix_twist_rad(g);
  const int layers =
      std::max(2, static_cast<int>(std::ceil(std::abs(twist) / g.max_layer_twist_rad)) + 1);
  TriangleMesh mesh;
  for (int l = 0; l < layers; ++l) {
    const double s = g.face_width_m * (static_cast<double>(l) / (layers - 1) - 0.5);
    const double turn = s * std::tan(g.helix_angle_rad) / pitch_radius(g);
    const double cs = std::cos(turn);
    const double sn = std::sin(turn);
    for (const Vec2& p : profile) {
      mesh.vertices_m.emplace_back(cs * p.x() - sn * p.y(), sn * p.x() + cs * p.y(), s);
    }
  }
  auto at = [n](int layer, int i) { return layer * n + (i % n); };
  for (int l = 0; l + 1 < layers; ++l) {
    for (int i = 0; i < n; ++i) {
      // The profile runs counter-clockwise, so (next along the profile) x (up the axis) points out.
      const int a = at(l, i), b = at(l, i + 1), c = at(l + 1, i + 1), d = at(l + 1, i);
      mesh.triangles.push_back({a, b, c});
      mesh.triangles.push_back({a, c, d});
    }
  }
  const int bottom = static_cast<int>(mesh.vertices_m.size());
  mesh.vertices_m.emplace_back(0.0, 0.0, -0.5 * g.face_width_m);
  const int top = bottom + 1;
  mesh.vertices_m.emplace_back(0.0, 0.0, 0.5 * g.face_width_m);
  for (int i = 0; i < n; ++i) {  // fans: the profile is star-shaped about the axis
    mesh.triangles.push_back({bottom, at(0, i + 1), at(0, i)});
    mesh.triangles.push_back({top, at(layers - 1, i), at(layers - 1, i + 1)});
  }
  return mesh;
}

MeshShape gear_shape(const GearParams& g, double sdf_cell_m) {
  const std::string name = fmt::format("gear(m={} m, z={})", g.module_m, g.teeth);
  return MeshShape{MeshSdfGrid::build(gear_mesh(g), sdf_cell_m, -1.0, name), name};
}

}  // namespace talus
