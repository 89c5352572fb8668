#include "scm/soil_flow_chord.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

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

constexpr int kLanes = 8;  // chords per SIMD vector (AVX-512 doubles)

// The per-node exp, sin and cos of the chords as polynomials that vectorise (libm's cannot: a
// call per lane). Errors about 1 ulp; docs/soil_flow.md (Speed) measures their effect.

// e^x for x <= 0 (0 below -708, where e^x is subnormal): x = n ln 2 + r, |r| <= ln 2 / 2
// (Cody-Waite: ln 2 in two parts, n ln2_hi exact), e^r by its Taylor polynomial of degree 13
// (truncation below 5e-18 relative), times 2^n built in the exponent bits.
inline double exp_nonpositive(double x) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kRound = 0x1.8p52;  // adding it rounds a double of magnitude < 2^51 to integer
  const double xc = std::max(x, -708.0);
  const double n = (xc * kLog2e + kRound) - kRound;
  const double r = (xc - n * kLn2Hi) - n * kLn2Lo;
  double p = 1.0 / 6227020800.0;  // 1 / 13!
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // n lies in [-1022, 0]: converted through int (AVX2 converts doubles to 32-bit integers only,
  // not to 64-bit ones, so a direct conversion would keep this loop scalar), then widened.
  const auto bits =
      static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<int>(n)) + 1023) << 52;
  return x < -708.0 ? 0.0 : p * std::bit_cast<double>(bits);
}

// sin and cos of x for |x| <= 3 pi / 4 (the chords' angles lie within +-gamma_a < pi / 2):
// |x| > pi / 4 is reduced to r = pi / 2 - |x| (exact for the high part of pi / 2: Sterbenz), and
// sin(r), cos(r) on |r| <= pi / 4 by Taylor polynomials of degree 17 and 18 (truncation below
// 1e-19).
inline void sin_cos(double x, double& sin_x, double& cos_x) {
  constexpr double kPio2Hi = 1.57079632679489655800e+00;
  constexpr double kPio2Lo = 6.12323399573676603587e-17;
  const double ax = std::abs(x);
  const bool swap = ax > 0.78539816339744830962;
  const double r = swap ? (kPio2Hi - ax) + kPio2Lo : ax;
  const double z = r * r;
  double s = -1.0 / 355687428096000.0;  // -1 / 17!
  s = s * z + 1.0 / 1307674368000.0;
  s = s * z - 1.0 / 6227020800.0;
  s = s * z + 1.0 / 39916800.0;
  s = s * z - 1.0 / 362880.0;
  s = s * z + 1.0 / 5040.0;
  s = s * z - 1.0 / 120.0;
  s = s * z + 1.0 / 6.0;
  const double sin_r = r - r * z * s;
  double c = 1.0 / 6402373705728000.0;  // 1 / 18!
  c = c * z - 1.0 / 20922789888000.0;
  c = c * z + 1.0 / 87178291200.0;
  c = c * z - 1.0 / 479001600.0;
  c = c * z + 1.0 / 3628800.0;
  c = c * z - 1.0 / 40320.0;
  c = c * z + 1.0 / 720.0;
  c = c * z - 1.0 / 24.0;
  const double cos_r = 1.0 - z * (0.5 + z * c);
  const double s_abs = swap ? cos_r : sin_r;
  sin_x = x < 0.0 ? -s_abs : s_abs;
  cos_x = swap ? sin_r : cos_r;
}

// std::lround for |v| < 2^31 (half away from zero), without the library call (which does not
// vectorise): the conversion truncates, and v minus the truncated value is exact.
inline int round_half_away(double v) {
  const int t = static_cast<int>(v);
  const double f = v - static_cast<double>(t);
  return t + (f >= 0.5 ? 1 : 0) - (f <= -0.5 ? 1 : 0);
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
  // One chord is a batch of one: the same code, so a chord checked here is the chord the fields
  // use.
  thread_local ChordBatch batch;
  thread_local std::vector<double> load_sign;
  chord_load_sign(window, load_sign);
  build_chords(params, window, load_sign.data(), ic, jc, contact_velocity_W, &alpha_rad, 1, reach_m,
               batch);
  nodes.clear();
  const auto lanes = static_cast<std::size_t>(batch.lanes);
  for (int k = 0; k < batch.count[0]; ++k) {
    const std::size_t e = static_cast<std::size_t>(k) * lanes;
    ChordNode node;
    node.di = batch.di[e];
    node.dj = batch.dj[e];
    node.distance_m = batch.distance_m[e];
    node.failure_z_m = batch.failure_z_m[e];
    node.shear_length_m = batch.shear_length_m[e];
    node.angle_rad = batch.angle_rad[e];
    node.sin_angle = batch.sin_angle[e];
    node.cos_angle = batch.cos_angle[e];
    node.flow_depth_m = batch.flow_depth_m[e];
    nodes.push_back(node);
  }
}

void chord_load_sign(const FlowWindow& window, std::vector<double>& load_sign) {
  load_sign.resize(window.size());
  for (std::size_t n = 0; n < window.size(); ++n) load_sign[n] = window.in_contact[n] ? -1.0 : 1.0;
}

void build_chords(const FlowParameters& params, const FlowWindow& window, const double* load_sign,
                  int ic, int jc, const Vec3& contact_velocity_W, const double* alpha_rad, int n_c,
                  double reach_m, ChordBatch& batch) {
  const double cell = window.cell_size_m;
  const double gamma_a = rankine_active_angle(params.friction_angle_rad);
  const double gamma_p = rankine_passive_angle(params.friction_angle_rad);
  const std::size_t origin = window.index(ic, jc);
  const int lanes = (n_c + kLanes - 1) / kLanes * kLanes;
  const auto L = static_cast<std::size_t>(lanes);
  batch.chords = n_c;
  batch.lanes = lanes;
  for (auto* v : {&batch.e_x, &batch.e_y, &batch.minor_per_major}) v->resize(L);
  for (auto* v : {&batch.major_step, &batch.x_major, &batch.active, &batch.count}) v->resize(L);
  // No chord is longer than the reach along its major axis, nor than the window.
  const double reach_cells = reach_m / cell;
  const int steps = static_cast<int>(std::min(
      std::floor(reach_cells) + 2.0, static_cast<double>(std::max(window.nx, window.ny) + 1)));
  if (batch.distance_m.size() < static_cast<std::size_t>(steps) * L) {
    const std::size_t n = static_cast<std::size_t>(steps) * L;
    for (auto* v : {&batch.di, &batch.dj}) v->resize(n);
    for (auto* v : {&batch.distance_m, &batch.failure_z_m, &batch.shear_length_m, &batch.angle_rad,
                    &batch.sin_angle, &batch.cos_angle, &batch.flow_depth_m})
      v->resize(n);
  }
  batch.steps = steps;

  // Node 0 of every chord: the displacing node. Eq. 10-11: the initial angle is the contact
  // velocity's inclination in the chord's vertical plane, bounded to [-gamma_a, gamma_a]. (+0.0
  // turns a -0 vertical velocity into +0 so that a horizontally moving body gives atan2(0,
  // negative) = +pi, not -pi, whatever produced the 0.) Idle lanes repeat chord 0, inactive.
  const Vec3& v_c = contact_velocity_W;
  for (std::size_t c = 0; c < L; ++c) {
    const double alpha = alpha_rad[c < static_cast<std::size_t>(n_c) ? c : 0];
    const Vec3 e_C = chord_direction(alpha);  // eq. 4
    const double gamma = std::clamp(std::atan2(v_c.z() + 0.0, v_c.dot(e_C)), -gamma_a, gamma_a);
    // Step one node along the dominant axis; the other offset is the nearest node to the ray.
    const bool x_major = std::abs(e_C.x()) >= std::abs(e_C.y());
    const double major = x_major ? e_C.x() : e_C.y();
    batch.e_x[c] = e_C.x();
    batch.e_y[c] = e_C.y();
    batch.minor_per_major[c] = (x_major ? e_C.y() : e_C.x()) / std::abs(major);
    batch.major_step[c] = major >= 0.0 ? 1 : -1;
    batch.x_major[c] = x_major ? 1 : 0;
    batch.active[c] = c < static_cast<std::size_t>(n_c) ? 1 : 0;
    batch.count[c] = 1;
    batch.di[c] = batch.dj[c] = 0;
    batch.distance_m[c] = 0.0;
    batch.failure_z_m[c] = window.height_m[origin];
    batch.shear_length_m[c] = 0.0;
    batch.angle_rad[c] = gamma;
    sin_cos(gamma, batch.sin_angle[c], batch.cos_angle[c]);
    batch.flow_depth_m[c] = 0.0;
  }

  const double reach_cells2 = reach_cells * reach_cells;
  const double inv_psi_shape = -1.0 / params.psi_shape_m;
  const double floor_depth = params.max_flow_depth_m;
  const int nx = window.nx, ny = window.ny;
  const double* height = window.height_m.data();
  const double* previous_flow = window.previous_flow_velocity_W.data()->data();
  const double* e_x = batch.e_x.data();
  const double* e_y = batch.e_y.data();
  const double* minor_per_major = batch.minor_per_major.data();
  const int* major_step = batch.major_step.data();
  const int* x_major = batch.x_major.data();
  int* active = batch.active.data();
  int* count = batch.count.data();
  for (int k = 1; k < steps; ++k) {
    const std::size_t prev = static_cast<std::size_t>(k - 1) * L;
    const std::size_t cur = static_cast<std::size_t>(k) * L;
    const int* p_di = batch.di.data() + prev;
    const int* p_dj = batch.dj.data() + prev;
    const double* p_distance = batch.distance_m.data() + prev;
    const double* p_failure = batch.failure_z_m.data() + prev;
    const double* p_shear = batch.shear_length_m.data() + prev;
    const double* p_angle = batch.angle_rad.data() + prev;
    int* o_di = batch.di.data() + cur;
    int* o_dj = batch.dj.data() + cur;
    double* o_distance = batch.distance_m.data() + cur;
    double* o_failure = batch.failure_z_m.data() + cur;
    double* o_shear = batch.shear_length_m.data() + cur;
    double* o_angle = batch.angle_rad.data() + cur;
    double* o_sin = batch.sin_angle.data() + cur;
    double* o_cos = batch.cos_angle.data() + cur;
    double* o_depth = batch.flow_depth_m.data() + cur;
    int any = 0;
    // Every lane computes; a lane whose chord has ended reads the displacing node (always in
    // the window) and its results are never read (count stays).
#pragma omp simd reduction(| : any)
    for (int c = 0; c < lanes; ++c) {
      const int a = k * major_step[c];
      const int b = round_half_away(static_cast<double>(k) * minor_per_major[c]);
      const int di = x_major[c] != 0 ? a : b;
      const int dj = x_major[c] != 0 ? b : a;
      const int i = ic + di;
      const int j = jc + dj;
      // The chord ends before it would leave the window or exceed reach_m (its last node stays
      // the end).
      const int inside = static_cast<int>(i >= 0) & static_cast<int>(j >= 0) &
                         static_cast<int>(i < nx) & static_cast<int>(j < ny) &
                         static_cast<int>(!(static_cast<double>(di * di + dj * dj) > reach_cells2));
      const int live = active[c] & inside;
      const std::size_t n = live != 0 ? static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) +
                                            static_cast<std::size_t>(i)
                                      : origin;

      // Eq. 12: loaded (in contact) nodes steer the failure down, free nodes up. Eq. 14: passive
      // magnitude where the chord runs with the previous flow at the node, active against it.
      const double sign = load_sign[n];
      const bool aligned = e_x[c] * previous_flow[3 * n] + e_y[c] * previous_flow[3 * n + 1] >= 0.0;
      const double gamma_tilde = sign * (aligned ? gamma_p : gamma_a);
      // Eq. 15-16: blend with the previous angle; lambda falls from 1 as the shear length grows.
      const double lambda = exp_nonpositive(p_shear[c] * inv_psi_shape);
      const double gamma = lambda * p_angle[c] + (1.0 - lambda) * gamma_tilde;

      // Eq. 5-8 (eq. 8's "a_s" is the extraction's d_s).
      const double d_s = std::abs((static_cast<double>(di - p_di[c]) * e_x[c] +
                                   static_cast<double>(dj - p_dj[c]) * e_y[c]) *
                                  cell);
      double sin_gamma = 0.0, cos_gamma = 1.0;
      sin_cos(gamma, sin_gamma, cos_gamma);
      const double surface = height[n];
      // talus's floor (FlowParameters::max_flow_depth_m): the failure surface runs along it.
      const double failure =
          std::max(p_failure[c] + d_s * sin_gamma / cos_gamma, surface - floor_depth);
      const bool reached_surface = failure > surface;
      o_di[c] = di;
      o_dj[c] = dj;
      o_distance[c] = p_distance[c] + d_s;
      o_failure[c] = failure;
      o_shear[c] = p_shear[c] + d_s / cos_gamma;
      o_angle[c] = gamma;
      o_sin[c] = sin_gamma;
      o_cos[c] = cos_gamma;
      o_depth[c] = reached_surface ? 0.0 : surface - failure;
      count[c] = live != 0 ? k + 1 : count[c];
      // A chord ends at the first node where the failure surface is above the surface.
      const int still = live & static_cast<int>(!reached_surface);
      active[c] = still;
      any |= still;
    }
    if (any == 0) break;
  }
}

}  // namespace talus::scm
