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
  double deposit = 0.0;      ///< V_delta(i_c -> i_delta) [m^3]
  Vec3 flow = Vec3::Zero();  ///< Q_delta(i_c -> i_delta) [m^3]
  double flow_norm = 0.0;    ///< |Q_delta(i_c -> i_delta)| [m^3], the weight of eq. 27
  double depth = 0.0;        ///< h_delta(i_c -> i_delta) [m]
};

/// A chord node's values that the interpolation reads, kept together (one cache line).
struct ChordValue {
  double distance;    ///< l_s
  double inv_gap;     ///< 1 / (l_s of the next node - l_s), 0 on the last node
  double deposit;     ///< f_s (eq. 18-19)
  double flow;        ///< s_s, the flow factor (eq. 20)
  double depth;       ///< flow depth below the surface
  double tx, ty, tz;  ///< t_s (eq. 21)
};

/// A chord's values resampled at evenly spaced relative distances rho = m / M, m = 0..M, so
/// that the interpolation of Fig. 5 finds its place on a chord without searching or branching.
struct TableValue {
  double deposit, flow, depth, tx, ty, tz;
};

/// The chords of one field, flattened: chord k's nodes are [begin[k], begin[k + 1]).
struct ChordSet {
  std::vector<ChordNode> scratch;
  std::vector<int> begin;
  std::vector<double> length;     ///< l_C per chord
  std::vector<double> direction;  ///< f_C per chord (eq. 17)
  std::vector<int> end_di, end_dj;
  std::vector<ChordValue> values;
  std::vector<int> table_begin, table_size;  ///< chord k's table: M = table_size[k] intervals
  std::vector<TableValue> table;
};

/// Distance and angle (from +y towards +x, as alpha in eq. 3-4) of every grid offset within a
/// radius, shared by all fields of a call: offset (di, dj) is entry (dj + radius) * side + di +
/// radius.
struct OffsetTable {
  double cell_m = 0.0;
  int radius = -1;
  int side = 0;
  std::vector<double> distance_m;
  std::vector<double> angle_rad;

  void build(double cell, int r) {
    if (cell == cell_m && r == radius) return;
    cell_m = cell;
    radius = r;
    side = 2 * r + 1;
    const auto n = static_cast<std::size_t>(side) * static_cast<std::size_t>(side);
    distance_m.resize(n);
    angle_rad.resize(n);
    for (int dj = -r; dj <= r; ++dj) {
      for (int di = -r; di <= r; ++di) {
        const double x = static_cast<double>(di) * cell, y = static_cast<double>(dj) * cell;
        const auto k = static_cast<std::size_t>((dj + r) * side + di + r);
        distance_m[k] = std::sqrt(x * x + y * y);
        angle_rad[k] = std::atan2(x, y);
      }
    }
  }
};

/// Per-call scratch of the calling thread; vectors keep their capacity between calls.
struct Workspace {
  std::vector<std::uint32_t> sources;
  std::vector<std::vector<Contribution>> fields;
  std::vector<std::size_t> field_sizes;
  OffsetTable offsets;
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
  require(w.height_m.size() == n && w.displaced_volume_m3.size() == n && w.in_contact.size() == n &&
              w.contact_velocity_W.size() == n && w.previous_flow_velocity_W.size() == n,
          "window input arrays must hold nx * ny entries (call FlowWindow::resize)");
  require(n <= 0xFFFFFFFFu, "window too large");
}

/// Resamples chord k (nodes [b, e) of set.values) at M + 1 relative distances into table.
void resample_chord(const std::vector<ChordValue>& values, int b, int e, int M,
                    std::vector<TableValue>& table) {
  const double l_C = values[static_cast<std::size_t>(e - 1)].distance;
  int n = b;
  for (int m = 0; m <= M; ++m) {
    const double l = l_C * static_cast<double>(m) / static_cast<double>(M);
    while (n + 1 < e - 1 && values[static_cast<std::size_t>(n) + 1].distance <= l) ++n;
    const ChordValue& lo = values[static_cast<std::size_t>(n)];
    const ChordValue& hi = values[static_cast<std::size_t>(std::min(n + 1, e - 1))];
    const double t = &hi == &lo ? 0.0 : std::clamp((l - lo.distance) * lo.inv_gap, 0.0, 1.0);
    const double u = 1.0 - t;
    table.push_back({u * lo.deposit + t * hi.deposit, u * lo.flow + t * hi.flow,
                     u * lo.depth + t * hi.depth, u * lo.tx + t * hi.tx, u * lo.ty + t * hi.ty,
                     u * lo.tz + t * hi.tz});
  }
}

/// Adds weight times chord k's values at relative distance rho in [0, 1] to acc.
inline void accumulate_sample(const ChordSet& set, int k, double rho, double weight,
                              TableValue& acc) {
  const auto ku = static_cast<std::size_t>(k);
  const int M = set.table_size[ku];
  const double x = rho * static_cast<double>(M);
  const int m = std::min(static_cast<int>(x), M - 1);
  const double t = x - static_cast<double>(m);
  const TableValue& lo = set.table[static_cast<std::size_t>(set.table_begin[ku] + m)];
  const TableValue& hi = (&lo)[1];
  const double wl = weight * (1.0 - t), wh = weight * t;
  acc.deposit += wl * lo.deposit + wh * hi.deposit;
  acc.flow += wl * lo.flow + wh * hi.flow;
  acc.depth += wl * lo.depth + wh * hi.depth;
  acc.tx += wl * lo.tx + wh * hi.tx;
  acc.ty += wl * lo.ty + wh * hi.ty;
  acc.tz += wl * lo.tz + wh * hi.tz;
}

/// Builds displacing node (ic, jc)'s chords (eq. 3-21) and interpolates them onto the grid
/// (Fig. 5), normalised to its displaced volume (eq. 22-23), into out[0, returned count). out
/// only grows, so that its elements are not constructed again on every call.
std::size_t local_field(const FlowParameters& p, const FlowWindow& w, double reach_m,
                        const OffsetTable& offsets, int ic, int jc, ChordSet& set,
                        std::vector<Contribution>& out) {
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
  set.values.clear();

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
      const double rel = l_C > 0.0 ? node.distance_m / l_C : 1.0;
      const double fbar = p.psi_distance == 2.0 ? rel * rel : std::pow(rel, p.psi_distance);
      const double c = node.cos_angle;
      set.values.push_back({node.distance_m, 0.0, fbar, 0.0, node.flow_depth_m, c * e_C.x(),
                            c * e_C.y(), node.sin_angle});
    }
    set.begin.push_back(static_cast<int>(set.values.size()));
  }

  // f_C can vanish for every chord only through underflow (psi_angle huge); then no direction is
  // preferred.
  if (!(*std::max_element(set.direction.begin(), set.direction.end()) > 0.0)) {
    std::fill(set.direction.begin(), set.direction.end(), 1.0);
  }
  // Eq. 19: f_s = f_C * fbar_s; eq. 20: s_s(i) = sum of f_s beyond i.
  for (int k = 0; k < n_c; ++k) {
    const double f_C = set.direction[static_cast<std::size_t>(k)];
    double beyond = 0.0;
    const int last = set.begin[static_cast<std::size_t>(k) + 1] - 1;
    for (int n = last; n >= set.begin[static_cast<std::size_t>(k)]; --n) {
      ChordValue& v = set.values[static_cast<std::size_t>(n)];
      v.inv_gap = n < last
                      ? 1.0 / (set.values[static_cast<std::size_t>(n) + 1].distance - v.distance)
                      : 0.0;
      v.deposit *= f_C;
      v.flow = beyond;
      beyond += v.deposit;
    }
  }

  set.table_begin.clear();
  set.table_size.clear();
  set.table.clear();
  for (int k = 0; k < n_c; ++k) {
    const int b = set.begin[static_cast<std::size_t>(k)];
    const int e = set.begin[static_cast<std::size_t>(k) + 1];
    const int M = std::max(2 * (e - b - 1), 1);  // twice the chord's node spacing
    set.table_begin.push_back(static_cast<int>(set.table.size()));
    set.table_size.push_back(M);
    resample_chord(set.values, b, e, M, set.table);
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
  const std::size_t box =
      static_cast<std::size_t>(i_hi - i_lo + 1) * static_cast<std::size_t>(j_hi - j_lo + 1);
  if (out.size() < std::max<std::size_t>(box, static_cast<std::size_t>(n_c))) {
    out.resize(std::max<std::size_t>(box, static_cast<std::size_t>(n_c)));
  }
  std::size_t used = 0;
  const double n_c_d = static_cast<double>(n_c);
  const double inv_spacing = 1.0 / spacing;
  double total = 0.0;
  for (int j = j_lo; j <= j_hi; ++j) {
    const std::ptrdiff_t row =
        static_cast<std::ptrdiff_t>(j - jc + offsets.radius) * offsets.side + offsets.radius - ic;
    for (int i = i_lo; i <= i_hi; ++i) {
      const auto o = static_cast<std::size_t>(row + i);
      const double r = offsets.distance_m[o];
      if (r > support) continue;
      double u = (offsets.angle_rad[o] - alpha_rnd) * inv_spacing;
      u = u < 0.0 ? u + n_c_d : u;
      const int a = std::min(static_cast<int>(u), n_c - 1);
      const double w_b = std::clamp(u - static_cast<double>(a), 0.0, 1.0);
      const int b = a + 1 == n_c ? 0 : a + 1;
      // Between two chords that carry nothing (f_C = 0, opposed to the motion) every value is 0:
      // leaving the node out changes no sum.
      if (set.direction[static_cast<std::size_t>(a)] == 0.0 &&
          set.direction[static_cast<std::size_t>(b)] == 0.0) {
        continue;
      }
      const double l_a = set.length[static_cast<std::size_t>(a)];
      const double l_b = set.length[static_cast<std::size_t>(b)];
      const double r_max = (1.0 - w_b) * l_a + w_b * l_b;
      if (r > r_max + 0.5 * cell || r > reach_m) continue;
      const double rho = r_max > 0.0 ? std::min(r / r_max, 1.0) : 0.0;
      TableValue s{0, 0, 0, 0, 0, 0};
      accumulate_sample(set, a, rho, 1.0 - w_b, s);
      accumulate_sample(set, b, rho, w_b, s);
      Contribution& c = out[used++];
      c.node = static_cast<std::uint32_t>(w.index(i, j));
      c.deposit = s.deposit;
      const double t_norm = std::sqrt(s.tx * s.tx + s.ty * s.ty + s.tz * s.tz);
      const double q = t_norm > 0.0 ? s.flow / t_norm : 0.0;
      c.flow = Vec3(s.tx * q, s.ty * q, s.tz * q);
      c.flow_norm = t_norm > 0.0 ? s.flow : 0.0;
      c.depth = s.depth;
      total += c.deposit;
    }
  }

  if (!(total > 0.0)) {
    // Degenerate field (every node that would take soil is cut off): the soil goes to the
    // chords' end nodes, by direction weight, and no flow is recorded.
    used = 0;
    total = 0.0;
    for (int k = 0; k < n_c; ++k) {
      Contribution& c = out[used++];
      c = Contribution{};
      const auto ku = static_cast<std::size_t>(k);
      c.node = static_cast<std::uint32_t>(w.index(ic + set.end_di[ku], jc + set.end_dj[ku]));
      c.deposit = set.direction[ku];
      total += c.deposit;
    }
  }

  // Eq. 22-23.
  const double scale = w.displaced_volume_m3[origin] / total;
  for (std::size_t k = 0; k < used; ++k) {
    Contribution& c = out[k];
    c.deposit *= scale;
    c.flow *= scale;
    c.flow_norm *= scale;
  }
  return used;
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
  ws.field_sizes.assign(ws.sources.size(), 0);
  const double reach_m = flow_reach_m(params, params.max_flow_depth_m);
  ws.offsets.build(window.cell_size_m,
                   static_cast<int>(std::ceil(reach_m / window.cell_size_m)) + 1);
  const OffsetTable& offsets = ws.offsets;

  // Each local field on its own (assumptions 1-2: it depends on its node's state and the
  // previous states of the others only).
  std::vector<std::vector<Contribution>>& fields = ws.fields;
  std::vector<std::size_t>& field_sizes = ws.field_sizes;
  const std::vector<std::uint32_t>& source_nodes = ws.sources;
#pragma omp parallel for schedule(dynamic, 1) if (sources > 1)
  for (int s = 0; s < sources; ++s) {
    thread_local ChordSet set;
    const auto k = static_cast<int>(source_nodes[static_cast<std::size_t>(s)]);
    field_sizes[static_cast<std::size_t>(s)] =
        local_field(params, window, reach_m, offsets, k % window.nx, k / window.nx, set,
                    fields[static_cast<std::size_t>(s)]);
  }

  // Superposition in node order (eq. 24-25 and the sums of eq. 27).
  ws.depth_times_flow.assign(n, 0.0);
  ws.flow_magnitude.assign(n, 0.0);
  for (int s = 0; s < sources; ++s) {
    const std::vector<Contribution>& field = fields[static_cast<std::size_t>(s)];
    for (std::size_t m = 0; m < field_sizes[static_cast<std::size_t>(s)]; ++m) {
      const Contribution& c = field[m];
      window.deposited_volume_m3[c.node] += c.deposit;
      window.volumetric_flow_W[c.node] += c.flow;
      ws.depth_times_flow[c.node] += c.depth * c.flow_norm;
      ws.flow_magnitude[c.node] += c.flow_norm;
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
    const double area = Vec3(dy * h * dir.x(), dx * h * dir.y(), dx * dy * dir.z()).norm();
    if (area > 0.0) window.flow_velocity_W[k] = q / (area * dt_s);  // eq. 29
  }
}

}  // namespace talus::scm
