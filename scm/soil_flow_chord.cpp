#include "scm/soil_flow_chord.hpp"

#include <algorithm>
#include <cmath>

#include "core/units.hpp"

namespace talus::scm {

double rankine_active_angle(double friction_angle_rad) {
  return kPi / 4.0 + friction_angle_rad / 2.0;
}

double rankine_passive_angle(double friction_angle_rad) {
  return kPi / 4.0 - friction_angle_rad / 2.0;
}

namespace {

// splitmix64's finaliser: a bijective mix with good avalanche, enough for a rotation angle.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

double chord_set_rotation(std::uint64_t seed, int chord_count, long long gi, long long gj) {
  const std::uint64_t h =
      mix(mix(mix(seed) ^ static_cast<std::uint64_t>(gi)) ^ static_cast<std::uint64_t>(gj));
  const double unit = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
  return unit * 2.0 * kPi / static_cast<double>(chord_count);
}

double chord_direction_weight(const Vec3& contact_velocity_W, const Vec3& e_C, double psi_angle) {
  // Eq. 17 as printed divides by |v|, which leaves a velocity; the text says f_C lies between 0
  // (flow perpendicular or opposed) and 1 (flow along the chord), which needs |v|^2.
  const double v2 = contact_velocity_W.squaredNorm();
  if (!(v2 > 0.0)) return 1.0;
  const double along = std::max(contact_velocity_W.dot(e_C), 0.0);
  const double vz = contact_velocity_W.z();
  const double base = (along * along + vz * vz) / v2;
  return std::pow(std::min(base, 1.0), psi_angle);
}

void build_chord(const FlowParameters& params, const FlowWindow& window, int ic, int jc,
                 double alpha_rad, double reach_m, std::vector<ChordNode>& nodes) {
  build_chord(params, window, ic, jc, window.contact_velocity_W[window.index(ic, jc)], alpha_rad,
              reach_m, nodes);
}

void build_chord(const FlowParameters& params, const FlowWindow& window, int ic, int jc,
                 const Vec3& contact_velocity_W, double alpha_rad, double reach_m,
                 std::vector<ChordNode>& nodes) {
  nodes.clear();
  const double cell = window.cell_size_m;
  const Vec3 e_C = chord_direction(alpha_rad);
  const double gamma_a = rankine_active_angle(params.friction_angle_rad);
  const double gamma_p = rankine_passive_angle(params.friction_angle_rad);
  const std::size_t origin = window.index(ic, jc);

  // Eq. 10-11: the initial angle is the contact velocity's inclination in the chord's vertical
  // plane, bounded to [-gamma_a, gamma_a]. (+0.0 turns a -0 vertical velocity into +0 so that a
  // horizontally moving body gives atan2(0, negative) = +pi, not -pi, whatever produced the 0.)
  const Vec3& v_c = contact_velocity_W;
  const double gamma_bar = std::atan2(v_c.z() + 0.0, v_c.dot(e_C));
  double gamma = std::clamp(gamma_bar, -gamma_a, gamma_a);

  ChordNode node;
  node.failure_z_m = window.height_m[origin];
  node.angle_rad = gamma;
  node.sin_angle = std::sin(gamma);
  node.cos_angle = std::cos(gamma);
  nodes.push_back(node);

  // Step one node along the dominant axis; the other offset is the nearest node to the ray.
  const bool x_major = std::abs(e_C.x()) >= std::abs(e_C.y());
  const double major = x_major ? e_C.x() : e_C.y();
  const double minor_per_major = (x_major ? e_C.y() : e_C.x()) / std::abs(major);
  const int major_step = major >= 0.0 ? 1 : -1;
  const double reach_cells2 = (reach_m / cell) * (reach_m / cell);

  for (int k = 1;; ++k) {
    const int a = k * major_step;
    const int b = static_cast<int>(std::lround(static_cast<double>(k) * minor_per_major));
    const int di = x_major ? a : b;
    const int dj = x_major ? b : a;
    const int i = ic + di;
    const int j = jc + dj;
    if (i < 0 || j < 0 || i >= window.nx || j >= window.ny) break;  // last node stays the end
    if (static_cast<double>(di * di + dj * dj) > reach_cells2) break;
    const std::size_t n = window.index(i, j);
    const ChordNode& prev = nodes.back();

    // Eq. 12: loaded (in contact) nodes steer the failure down, free nodes up. Eq. 14: passive
    // magnitude where the chord runs with the previous flow at the node, active against it.
    const double sign = window.in_contact[n] ? -1.0 : 1.0;
    const bool aligned = e_C.dot(window.previous_flow_velocity_W[n]) >= 0.0;
    const double gamma_tilde = sign * (aligned ? gamma_p : gamma_a);
    // Eq. 15-16: blend with the previous angle; lambda falls from 1 as the shear length grows.
    const double lambda = std::exp(-prev.shear_length_m / params.psi_shape_m);
    gamma = lambda * prev.angle_rad + (1.0 - lambda) * gamma_tilde;

    // Eq. 5-8 (eq. 8's "a_s" is the extraction's d_s).
    const double d_s = std::abs((static_cast<double>(di - prev.di) * e_C.x() +
                                 static_cast<double>(dj - prev.dj) * e_C.y()) *
                                cell);
    node.di = di;
    node.dj = dj;
    node.distance_m = prev.distance_m + d_s;
    const double sin_gamma = std::sin(gamma), cos_gamma = std::cos(gamma);
    node.failure_z_m = prev.failure_z_m + d_s * sin_gamma / cos_gamma;
    node.shear_length_m = prev.shear_length_m + d_s / cos_gamma;
    node.angle_rad = gamma;
    node.sin_angle = sin_gamma;
    node.cos_angle = cos_gamma;

    const double surface = window.height_m[n];
    // talus's floor (FlowParameters::max_flow_depth_m): the failure surface runs along it.
    node.failure_z_m = std::max(node.failure_z_m, surface - params.max_flow_depth_m);
    const bool reached_surface = node.failure_z_m > surface;
    node.flow_depth_m = reached_surface ? 0.0 : surface - node.failure_z_m;
    nodes.push_back(node);
    if (reached_surface) break;
  }
}

}  // namespace talus::scm
