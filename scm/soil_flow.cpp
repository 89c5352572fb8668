// Soil flow by superposed local flow fields (paper 002 §3.1). The derivations of the equations
// the extracted paper garbles (8, 17, 18, 28, 29) and the parts it leaves open (the chord's grid
// walk, the interpolation's details, the floor max_flow_depth_m, the reach) are in
// docs/soil_flow.md.
//
// Determinism: every displacing node's local field is computed on its own (in parallel) into its
// own list of contributions, and the lists are superposed in node order by one thread, so the
// sums, and therefore the outputs, are bit-identical for any thread count. A node's chord set
// depends on its global index only (chord_set_rotation), not on the window's origin.

#include "scm/soil_flow.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "scm/soil_flow_chord.hpp"

namespace talus::scm {
namespace {

/// What one local field adds to one grid node. Before normalisation (eq. 22-23) deposit holds
/// f_delta and flow holds t_delta s_delta.
struct Contribution {
  std::uint32_t node = 0;
  double deposit = 0.0;  ///< V_delta(i_c -> i_delta) [m^3]
  Vec3 flow = Vec3::Zero();  ///< Q_delta(i_c -> i_delta) [m^3]
  double depth = 0.0;    ///< h_delta(i_c -> i_delta) [m]
};

/// The chords of one field, flattened: chord k's nodes are [begin[k], begin[k + 1]).
struct ChordSet {
  std::vector<ChordNode> scratch;
  std::vector<int> begin;
  std::vector<double> length;     ///< l_C per chord
  std::vector<double> direction;  ///< f_C per chord (eq. 17)
  std::vector<int> end_di, end_dj;
  // per chord node
  std::vector<double> distance;  ///< l_s
  std::vector<double> deposit;   ///< f_s (eq. 18-19)
  std::vector<double> flow;      ///< s_s, the flow factor (eq. 20)
  std::vector<double> depth;     ///< flow depth below the surface
  std::vector<Vec3> along;       ///< t_s (eq. 21)
};

/// Per-call scratch of the calling thread; vectors keep their capacity between calls.
struct Workspace {
  std::vector<std::uint32_t> sources;
  std::vector<std::vector<Contribution>> fields;
  std::vector<double> depth_times_flow;
  std::vector<double> flow_magnitude;
};

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("flow_by_local_fields: " + what);
}

void validate(const FlowParameters& p, double dt_s, const FlowWindow& w) {
  require(p.chord_count >= 3, "chord_count must be >= 3, got " + std::to_string(p.chord_count));
  require(p.psi_shape_m > 0.0, "psi_shape_m must be > 0");
  require(p.psi_angle >= 0.0, "psi_angle must be >= 0");
  require(p.psi_distance >= 0.0, "psi_distance must be >= 0");
  require(p.friction_angle_rad > 0.0 && p.friction_angle_rad < kPi / 2.0,
          "friction_angle_rad must be in (0, pi/2)");
  require(p.max_flow_depth_m > 0.0, "max_flow_depth_m must be > 0");
  require(dt_s > 0.0, "dt_s must be > 0");
  require(w.cell_size_m > 0.0, "window cell_size_m must be > 0");
  require(w.nx >= 0 && w.ny >= 0, "window nx, ny must be >= 0");
  const std::size_t n = w.size();
  require(w.height_m.size() == n && w.displaced_volume_m3.size() == n &&
              w.in_contact.size() == n && w.contact_velocity_W.size() == n &&
              w.previous_flow_velocity_W.size() == n,
          "window input arrays must hold nx * ny entries (call FlowWindow::resize)");
  require(n <= 0xFFFFFFFFu, "window too large");
}

/// Chord values at distance l along chord k, linear between its nodes.
struct ChordSample {
  double deposit, flow, depth;
  Vec3 along;
};

ChordSample sample_chord(const ChordSet& set, int k, double l) {
  const int b = set.begin[static_cast<std::size_t>(k)];
  const int e = set.begin[static_cast<std::size_t>(k) + 1];
  const double* first = set.distance.data() + b;
  const double* last = set.distance.data() + e;
  const auto hi_it = std::upper_bound(first, last, l);
  if (hi_it == last) {  // at or beyond the end node
    const auto n = static_cast<std::size_t>(e - 1);
    return {set.deposit[n], set.flow[n], set.depth[n], set.along[n]};
  }
  const auto hi = static_cast<std::size_t>(hi_it - set.distance.data());
  if (hi == static_cast<std::size_t>(b)) {
    return {set.deposit[hi], set.flow[hi], set.depth[hi], set.along[hi]};
  }
  const std::size_t lo = hi - 1;
  const double w = (l - set.distance[lo]) / (set.distance[hi] - set.distance[lo]);
  return {set.deposit[lo] + w * (set.deposit[hi] - set.deposit[lo]),
          set.flow[lo] + w * (set.flow[hi] - set.flow[lo]),
          set.depth[lo] + w * (set.depth[hi] - set.depth[lo]),
          set.along[lo] + w * (set.along[hi] - set.along[lo])};
}

/// Builds displacing node (ic, jc)'s chords (eq. 3-21) and interpolates them onto the grid
/// (Fig. 5), normalised to its displaced volume (eq. 22-23), into out.
void local_field(const FlowParameters& p, const FlowWindow& w, double reach_m, int ic, int jc,
                 ChordSet& set, std::vector<Contribution>& out) {
  out.clear();
  const int n_c = p.chord_count;
  const double cell = w.cell_size_m;
  const std::size_t origin = w.index(ic, jc);
  const double spacing = 2.0 * kPi / static_cast<double>(n_c);
  const double alpha_rnd = chord_set_rotation(p.seed, n_c, static_cast<long long>(w.i0) + ic,
                                              static_cast<long long>(w.j0) + jc);
  const Vec3& v_c = w.contact_velocity_W[origin];

  set.begin.assign(1, 0);
  set.length.clear();
  set.direction.clear();
  set.end_di.clear();
  set.end_dj.clear();
  set.distance.clear();
  set.deposit.clear();
  set.flow.clear();
  set.depth.clear();
  set.along.clear();

  double longest = 0.0;
  for (int k = 0; k < n_c; ++k) {
    const double alpha = spacing * static_cast<double>(k) + alpha_rnd;  // eq. 3
    const Vec3 e_C = chord_direction(alpha);                            // eq. 4
    build_chord(p, w, ic, jc, alpha, reach_m, set.scratch);
    const double l_C = set.scratch.back().distance_m;
    longest = std::max(longest, l_C);
    set.length.push_back(l_C);
    set.direction.push_back(chord_direction_weight(v_c, e_C, p.psi_angle));
    set.end_di.push_back(set.scratch.back().di);
    set.end_dj.push_back(set.scratch.back().dj);
    for (const ChordNode& node : set.scratch) {
      // Eq. 18 (reconstructed: l_s / l_C, the relative distance, see docs) and eq. 21.
      set.distance.push_back(node.distance_m);
      set.deposit.push_back(l_C > 0.0 ? std::pow(node.distance_m / l_C, p.psi_distance) : 1.0);
      set.depth.push_back(node.flow_depth_m);
      const double c = std::cos(node.angle_rad);
      set.along.emplace_back(c * e_C.x(), c * e_C.y(), std::sin(node.angle_rad));
    }
    set.begin.push_back(static_cast<int>(set.distance.size()));
  }

  // f_C can vanish for every chord only through underflow (psi_angle huge); then no direction is
  // preferred.
  if (!(*std::max_element(set.direction.begin(), set.direction.end()) > 0.0)) {
    std::fill(set.direction.begin(), set.direction.end(), 1.0);
  }
  // Eq. 19: f_s = f_C * fbar_s; eq. 20: s_s(i) = sum of f_s beyond i.
  set.flow.resize(set.deposit.size());
  for (int k = 0; k < n_c; ++k) {
    const double f_C = set.direction[static_cast<std::size_t>(k)];
    double beyond = 0.0;
    for (int n = set.begin[static_cast<std::size_t>(k) + 1] - 1;
         n >= set.begin[static_cast<std::size_t>(k)]; --n) {
      const auto u = static_cast<std::size_t>(n);
      set.deposit[u] *= f_C;
      set.flow[u] = beyond;
      beyond += set.deposit[u];
    }
  }

  // Fig. 5: a grid node P between chords A and B takes, at its relative distance
  // rho = |r_P| / r_max with r_max interpolated between the chord lengths, the values of both
  // chords at rho * l_A and rho * l_B, weighted by its angle to each. Nodes up to half a cell
  // beyond r_max belong to the field too (with the end values), so that the chords' end nodes,
  // which lie off the rays by up to half a cell, are covered.
  const double support = std::min(longest + cell, reach_m);
  const int radius = static_cast<int>(std::ceil(support / cell));
  const int i_lo = std::max(ic - radius, 0), i_hi = std::min(ic + radius, w.nx - 1);
  const int j_lo = std::max(jc - radius, 0), j_hi = std::min(jc + radius, w.ny - 1);
  double total = 0.0;
  for (int j = j_lo; j <= j_hi; ++j) {
    const double y = static_cast<double>(j - jc) * cell;
    for (int i = i_lo; i <= i_hi; ++i) {
      const double x = static_cast<double>(i - ic) * cell;
      const double r = std::sqrt(x * x + y * y);
      if (r > support) continue;
      double u = (std::atan2(x, y) - alpha_rnd) / spacing;  // angle from +y, as alpha
      u = u < 0.0 ? u + static_cast<double>(n_c) : u;
      int a = static_cast<int>(u);
      a = std::min(a, n_c - 1);
      const double w_b = std::clamp(u - static_cast<double>(a), 0.0, 1.0);
      const int b = a + 1 == n_c ? 0 : a + 1;
      const double l_a = set.length[static_cast<std::size_t>(a)];
      const double l_b = set.length[static_cast<std::size_t>(b)];
      const double r_max = (1.0 - w_b) * l_a + w_b * l_b;
      if (r > r_max + 0.5 * cell || r > reach_m) continue;
      const double rho = r_max > 0.0 ? std::min(r / r_max, 1.0) : 0.0;
      const ChordSample sa = sample_chord(set, a, rho * l_a);
      const ChordSample sb = sample_chord(set, b, rho * l_b);
      Contribution c;
      c.node = static_cast<std::uint32_t>(w.index(i, j));
      c.deposit = (1.0 - w_b) * sa.deposit + w_b * sb.deposit;
      const Vec3 t = (1.0 - w_b) * sa.along + w_b * sb.along;
      const double t_norm = t.norm();
      c.flow = t_norm > 0.0 ? Vec3(t * (((1.0 - w_b) * sa.flow + w_b * sb.flow) / t_norm))
                            : Vec3::Zero();
      c.depth = (1.0 - w_b) * sa.depth + w_b * sb.depth;
      total += c.deposit;
      out.push_back(c);
    }
  }

  if (!(total > 0.0)) {
    // Degenerate field (every node that would take soil is cut off): the soil goes to the
    // chords' end nodes, by direction weight, and no flow is recorded.
    out.clear();
    total = 0.0;
    for (int k = 0; k < n_c; ++k) {
      Contribution c;
      const auto ku = static_cast<std::size_t>(k);
      c.node = static_cast<std::uint32_t>(w.index(ic + set.end_di[ku], jc + set.end_dj[ku]));
      c.deposit = set.direction[ku];
      total += c.deposit;
      out.push_back(c);
    }
  }

  // Eq. 22-23.
  const double scale = w.displaced_volume_m3[origin] / total;
  for (Contribution& c : out) {
    c.deposit *= scale;
    c.flow *= scale;
  }
}

}  // namespace

double flow_reach_m(const FlowParameters& params, double max_flow_depth_m) {
  // A RANKINE failure line that runs down to the floor at the active angle and back up at the
  // passive one spans D (cot gamma_a + cot gamma_p); eq. 16 turns the chord gradually rather than
  // at a kink, for which one more passive run, D cot gamma_p, is allowed. build_chord ends every
  // chord before this distance, so it is a hard bound (docs/soil_flow.md).
  const double gamma_a = rankine_active_angle(params.friction_angle_rad);
  const double gamma_p = rankine_passive_angle(params.friction_angle_rad);
  return max_flow_depth_m * (1.0 / std::tan(gamma_a) + 2.0 / std::tan(gamma_p));
}

void flow_by_local_fields(const FlowParameters& params, double dt_s, FlowWindow& window) {
  validate(params, dt_s, window);
  const std::size_t n = window.size();
  window.deposited_volume_m3.assign(n, 0.0);
  window.volumetric_flow_W.assign(n, Vec3::Zero());
  window.flow_depth_m.assign(n, 0.0);
  window.flow_velocity_W.assign(n, Vec3::Zero());

  thread_local Workspace ws;
  ws.sources.clear();
  for (std::size_t k = 0; k < n; ++k) {
    if (window.displaced_volume_m3[k] > 0.0) ws.sources.push_back(static_cast<std::uint32_t>(k));
  }
  const int sources = static_cast<int>(ws.sources.size());
  if (ws.fields.size() < ws.sources.size()) ws.fields.resize(ws.sources.size());
  const double reach_m = flow_reach_m(params, params.max_flow_depth_m);

  // Each local field on its own (assumptions 1-2: it depends on its node's state and the
  // previous states of the others only).
  std::vector<std::vector<Contribution>>& fields = ws.fields;
  const std::vector<std::uint32_t>& source_nodes = ws.sources;
#pragma omp parallel for schedule(dynamic, 1) if (sources > 1)
  for (int s = 0; s < sources; ++s) {
    thread_local ChordSet set;
    const auto k = static_cast<int>(source_nodes[static_cast<std::size_t>(s)]);
    local_field(params, window, reach_m, k % window.nx, k / window.nx, set,
                fields[static_cast<std::size_t>(s)]);
  }

  // Superposition in node order (eq. 24-25 and the sums of eq. 27).
  ws.depth_times_flow.assign(n, 0.0);
  ws.flow_magnitude.assign(n, 0.0);
  for (int s = 0; s < sources; ++s) {
    for (const Contribution& c : fields[static_cast<std::size_t>(s)]) {
      window.deposited_volume_m3[c.node] += c.deposit;
      window.volumetric_flow_W[c.node] += c.flow;
      const double q = c.flow.norm();
      ws.depth_times_flow[c.node] += c.depth * q;
      ws.flow_magnitude[c.node] += q;
    }
  }

  // Eq. 27-29 per node.
  const double dx = window.cell_size_m, dy = window.cell_size_m;
  for (std::size_t k = 0; k < n; ++k) {
    const double q_sum = ws.flow_magnitude[k];
    if (!(q_sum > 0.0)) continue;
    const double h = ws.depth_times_flow[k] / q_sum;
    window.flow_depth_m[k] = h;
    const Vec3& q = window.volumetric_flow_W[k];
    const double q_norm = q.norm();
    if (!(q_norm > 0.0)) continue;
    // Eq. 28 (reconstructed): the cross-section of the dx x dy x h cell perpendicular to the
    // flow direction n, taken as the norm of the face-area vector (dy h n_x, dx h n_y, dx dy n_z);
    // exact for flow along an axis (dy h for flow along x, dx dy for vertical flow).
    const Vec3 dir = q / q_norm;
    const double area =
        Vec3(dy * h * dir.x(), dx * h * dir.y(), dx * dy * dir.z()).norm();
    if (area > 0.0) window.flow_velocity_W[k] = q / (area * dt_s);  // eq. 29
  }
}

}  // namespace talus::scm
