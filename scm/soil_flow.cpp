// Soil flow by superposed local flow fields (paper 002 §3.1). The derivations of the equations
// the extracted paper garbles (8, 17, 18, 28, 29) and the parts it leaves open (the chord's grid
// walk, the interpolation's details, the floor max_flow_depth_m, the reach) are in
// docs/soil_flow.md.
//
// Determinism: every displacing node's local field is computed on its own (in parallel) into its
// own list of contributions, stored row by row. The superposition is split into bands of window
// rows, one per thread; each thread walks all fields in node order and adds only the rows of its
// band, so every output node receives its contributions in the same order (field by field) for
// any thread count, and the outputs are bit-identical. A node's chord set depends on its global
// index only (chord_set_rotation), not on the window's origin.

#include "scm/soil_flow.hpp"

#include <omp.h>

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

static_assert(sizeof(Vec3) == 3 * sizeof(double), "the superposition reads Vec3 arrays as doubles");

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

/// Chord k's resampled table and length, in one place for the interpolation's inner loop.
struct ChordTable {
  const TableValue* values;  ///< M + 1 entries
  int M;
  double M_d;     ///< M as a double
  double length;  ///< l_C
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
  std::vector<ChordTable> chords;        ///< what the interpolation reads per chord
  std::vector<int> sector_empty;         ///< 1 where chords k and k + 1 both have f_C = 0
  std::vector<int> row_a, row_in_field;  ///< per node of a row: chord a, whether in the field
  std::vector<double> row_w_b, row_rho;  ///< per node of a row: weight of chord b, rho
};

/// One displacing node's field on the grid, as what it adds to each grid node it covers
/// (structure of arrays, so that the per-contribution passes vectorise), before normalisation
/// (eq. 22-23): the superposition multiplies by scale. Contributions for window rows
/// j_lo .. j_lo + rows - 1, row j's are [row_begin[j - j_lo], row_begin[j - j_lo + 1]). A
/// degenerate field (by_row false) holds n_C contributions at the chords' end nodes, in chord
/// order. Vectors only grow (capacity reused between calls).
struct Field {
  std::vector<std::uint32_t> node;  ///< window index of the grid node
  std::vector<double> deposit;      ///< f_delta -> V_delta(i_c -> i_delta) (eq. 22) [m^3]
  std::vector<double> qx, qy, qz;   ///< t_delta, then t_delta s_delta / |t_delta| -> Q_delta [m^3]
  std::vector<double> flow_norm;    ///< s_delta, then |Q_delta|, the weight of eq. 27 [m^3]
  std::vector<double> depth;        ///< h_delta(i_c -> i_delta) [m]
  std::vector<std::uint32_t> row_begin;
  int j_lo = 0;
  int rows = 0;
  std::size_t used = 0;
  bool by_row = true;
  double scale = 0.0;  ///< eq. 22-23: displaced volume / sum of the field's f_delta
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
  std::vector<Field> fields;
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

/// Adds weight times a chord's values at relative distance rho in [0, 1] to acc.
inline void accumulate_sample(const ChordTable& chord, double rho, double weight, TableValue& acc) {
  const double x = rho * chord.M_d;
  const int m = std::min(static_cast<int>(x), chord.M - 1);
  const double t = x - static_cast<double>(m);
  const TableValue& lo = chord.values[m];
  const TableValue& hi = chord.values[m + 1];
  const double wl = weight * (1.0 - t), wh = weight * t;
  acc.deposit += wl * lo.deposit + wh * hi.deposit;
  acc.flow += wl * lo.flow + wh * hi.flow;
  acc.depth += wl * lo.depth + wh * hi.depth;
  acc.tx += wl * lo.tx + wh * hi.tx;
  acc.ty += wl * lo.ty + wh * hi.ty;
  acc.tz += wl * lo.tz + wh * hi.tz;
}

/// Builds displacing node (ic, jc)'s chords (eq. 3-21) and interpolates them onto the grid
/// (Fig. 5) into field, with the scale that normalises it to its displaced volume (eq. 22-23).
void local_field(const FlowParameters& p, const FlowWindow& w, double reach_m,
                 const OffsetTable& offsets, int ic, int jc, ChordSet& set, Field& field) {
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
  set.chords.clear();
  set.sector_empty.clear();
  for (int k = 0; k < n_c; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    set.chords.push_back({set.table.data() + set.table_begin[ku], set.table_size[ku],
                          static_cast<double>(set.table_size[ku]), set.length[ku]});
    const auto next = static_cast<std::size_t>(k + 1 == n_c ? 0 : k + 1);
    set.sector_empty.push_back(set.direction[ku] == 0.0 && set.direction[next] == 0.0 ? 1 : 0);
  }

  // Fig. 5: a grid node P between chords A and B takes, at its relative distance
  // rho = |r_P| / r_max with r_max interpolated between the chord lengths, the values of both
  // chords at rho * l_A and rho * l_B, weighted by its angle to each. Nodes up to half a cell
  // beyond r_max belong to the field too (with the end values), so that the chords' end nodes,
  // which lie off the rays by up to half a cell, are covered. Only nodes within support of the
  // displacing node can be in the field; each row is visited over that disc's chord only.
  const double support = std::min(longest + cell, reach_m);
  const int radius = static_cast<int>(std::ceil(support / cell));
  const int i_lo = std::max(ic - radius, 0), i_hi = std::min(ic + radius, w.nx - 1);
  const int j_lo = std::max(jc - radius, 0), j_hi = std::min(jc + radius, w.ny - 1);
  const std::size_t box =
      static_cast<std::size_t>(i_hi - i_lo + 1) * static_cast<std::size_t>(j_hi - j_lo + 1);
  const std::size_t capacity = std::max<std::size_t>(box, static_cast<std::size_t>(n_c));
  if (field.node.size() < capacity) {
    for (auto* v :
         {&field.deposit, &field.qx, &field.qy, &field.qz, &field.flow_norm, &field.depth})
      v->resize(capacity);
    field.node.resize(capacity);
  }
  std::uint32_t* node_out = field.node.data();
  double* deposit_out = field.deposit.data();
  double* qx_out = field.qx.data();
  double* qy_out = field.qy.data();
  double* qz_out = field.qz.data();
  double* flow_out = field.flow_norm.data();
  double* depth_out = field.depth.data();
  field.j_lo = j_lo;
  field.rows = j_hi - j_lo + 1;
  field.row_begin.resize(static_cast<std::size_t>(field.rows) + 1);
  field.by_row = true;
  std::size_t used = 0;
  const double n_c_d = static_cast<double>(n_c);
  const double inv_spacing = 1.0 / spacing;
  const double support_cells2 = (support / cell) * (support / cell);
  const double half_cell = 0.5 * cell;
  const ChordTable* chords = set.chords.data();
  const int* sector_empty = set.sector_empty.data();
  const double* length = set.length.data();
  for (auto* v : {&set.row_a, &set.row_in_field})
    v->resize(static_cast<std::size_t>(2 * radius + 1));
  for (auto* v : {&set.row_w_b, &set.row_rho}) v->resize(static_cast<std::size_t>(2 * radius + 1));
  int* row_a = set.row_a.data();
  int* in_field = set.row_in_field.data();
  double* row_w_b = set.row_w_b.data();
  double* row_rho = set.row_rho.data();
  const double* distance = offsets.distance_m.data();
  const double* angle = offsets.angle_rad.data();
  double total = 0.0;
  for (int j = j_lo; j <= j_hi; ++j) {
    field.row_begin[static_cast<std::size_t>(j - j_lo)] = static_cast<std::uint32_t>(used);
    // The disc's half chord in this row, one node wider than needed: the test on r below
    // decides, this only saves visiting nodes that are certainly outside.
    const double dj = static_cast<double>(j - jc);
    const int half =
        std::min(radius, static_cast<int>(std::sqrt(std::max(support_cells2 - dj * dj, 0.0))) + 1);
    const int i_first = std::max(i_lo, ic - half), i_last = std::min(i_hi, ic + half);
    const std::ptrdiff_t row =
        static_cast<std::ptrdiff_t>(j - jc + offsets.radius) * offsets.side + offsets.radius - ic;
    const auto row_node = static_cast<std::uint32_t>(w.index(0, j));
    // Pass 1 over the row, without branches (it vectorises): where each node lies between the
    // chords (a, w_b), its relative distance rho, and whether it is in the field.
    const int count = i_last - i_first + 1;
    const double* row_distance = distance + (row + i_first);
    const double* row_angle = angle + (row + i_first);
#pragma omp simd
    for (int n = 0; n < count; ++n) {
      const double r = row_distance[n];
      double u = (row_angle[n] - alpha_rnd) * inv_spacing;
      u = u < 0.0 ? u + n_c_d : u;
      const int a = std::min(static_cast<int>(u), n_c - 1);
      const double w_b = std::clamp(u - static_cast<double>(a), 0.0, 1.0);
      const int b = a + 1 == n_c ? 0 : a + 1;
      const double r_max = (1.0 - w_b) * length[a] + w_b * length[b];
      // Between two chords that carry nothing (f_C = 0, opposed to the motion) every value is 0:
      // leaving the node out changes no sum.
      in_field[n] = static_cast<int>(!(r > support)) & static_cast<int>(!(r > r_max + half_cell)) &
                    (1 - sector_empty[a]);
      row_a[n] = a;
      row_w_b[n] = w_b;
      row_rho[n] = r_max > 0.0 ? std::min(r / r_max, 1.0) : 0.0;
    }
    // Pass 2: the nodes in the field sample both chords.
    for (int n = 0; n < count; ++n) {
      if (!in_field[n]) continue;
      const int a = row_a[n];
      const int b = a + 1 == n_c ? 0 : a + 1;
      const double w_b = row_w_b[n], rho = row_rho[n];
      TableValue s{0, 0, 0, 0, 0, 0};
      accumulate_sample(chords[a], rho, 1.0 - w_b, s);
      accumulate_sample(chords[b], rho, w_b, s);
      node_out[used] = row_node + static_cast<std::uint32_t>(i_first + n);
      deposit_out[used] = s.deposit;
      qx_out[used] = s.tx;
      qy_out[used] = s.ty;
      qz_out[used] = s.tz;
      flow_out[used] = s.flow;
      depth_out[used] = s.depth;
      ++used;
      total += s.deposit;
    }
  }
  field.row_begin[static_cast<std::size_t>(field.rows)] = static_cast<std::uint32_t>(used);

  // Eq. 20-21 on the grid: Q = s_delta t_delta / |t_delta|. Kept out of the loop above, whose
  // latency it would lengthen (a square root and a division); this loop vectorises.
  for (std::size_t m = 0; m < used; ++m) {
    const double tx = qx_out[m], ty = qy_out[m], tz = qz_out[m];
    const double t_norm = std::sqrt(tx * tx + ty * ty + tz * tz);
    const bool has_direction = t_norm > 0.0;
    const double q = has_direction ? flow_out[m] / t_norm : 0.0;
    qx_out[m] = tx * q;
    qy_out[m] = ty * q;
    qz_out[m] = tz * q;
    flow_out[m] = has_direction ? flow_out[m] : 0.0;
  }

  if (!(total > 0.0)) {
    // Degenerate field (every node that would take soil is cut off): the soil goes to the
    // chords' end nodes, by direction weight, and no flow is recorded.
    field.by_row = false;
    used = 0;
    total = 0.0;
    for (int k = 0; k < n_c; ++k) {
      const auto ku = static_cast<std::size_t>(k);
      node_out[used] =
          static_cast<std::uint32_t>(w.index(ic + set.end_di[ku], jc + set.end_dj[ku]));
      deposit_out[used] = set.direction[ku];
      qx_out[used] = qy_out[used] = qz_out[used] = flow_out[used] = depth_out[used] = 0.0;
      total += deposit_out[used];
      ++used;
    }
  }

  // Eq. 22-23, applied as the superposition adds the field.
  field.scale = w.displaced_volume_m3[origin] / total;
  field.used = used;
}

/// Adds field's contributions to window rows [row_begin, row_end) of the sums (eq. 24-25 and
/// the sums of eq. 27), scaled by the field's eq. 22-23 factor.
void superpose_rows(const Field& field, int row_begin, int row_end, std::size_t nx, FlowWindow& w,
                    double* depth_times_flow, double* flow_magnitude) {
  std::size_t m_begin = 0, m_end = 0;
  if (field.by_row) {
    const int r0 = std::max(row_begin, field.j_lo) - field.j_lo;
    const int r1 = std::min(row_end, field.j_lo + field.rows) - field.j_lo;
    if (r0 >= r1) return;
    m_begin = field.row_begin[static_cast<std::size_t>(r0)];
    m_end = field.row_begin[static_cast<std::size_t>(r1)];
  } else {
    m_end = field.used;
  }
  const std::size_t node_lo = static_cast<std::size_t>(row_begin) * nx;
  const std::size_t node_hi = static_cast<std::size_t>(row_end) * nx;
  const double scale = field.scale;
  double* deposited = w.deposited_volume_m3.data();
  double* flow = w.volumetric_flow_W.data()->data();  // Vec3 is three packed doubles
  for (std::size_t m = m_begin; m < m_end; ++m) {
    const std::uint32_t k = field.node[m];
    if (!field.by_row && (k < node_lo || k >= node_hi)) continue;
    const double flow_norm = field.flow_norm[m] * scale;
    deposited[k] += field.deposit[m] * scale;
    flow[3 * std::size_t{k}] += field.qx[m] * scale;
    flow[3 * std::size_t{k} + 1] += field.qy[m] * scale;
    flow[3 * std::size_t{k} + 2] += field.qz[m] * scale;
    depth_times_flow[k] += field.depth[m] * flow_norm;
    flow_magnitude[k] += flow_norm;
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
  // Every output is written below, band by band.
  window.deposited_volume_m3.resize(n);
  window.volumetric_flow_W.resize(n);
  window.flow_depth_m.resize(n);
  window.flow_velocity_W.resize(n);

  thread_local Workspace ws;
  ws.sources.clear();
  for (std::size_t k = 0; k < n; ++k) {
    if (window.displaced_volume_m3[k] > 0.0) ws.sources.push_back(static_cast<std::uint32_t>(k));
  }
  const int sources = static_cast<int>(ws.sources.size());
  if (ws.fields.size() < ws.sources.size()) ws.fields.resize(ws.sources.size());
  const double reach_m = flow_reach_m(params, params.max_flow_depth_m);
  ws.offsets.build(window.cell_size_m,
                   static_cast<int>(std::ceil(reach_m / window.cell_size_m)) + 1);
  const OffsetTable& offsets = ws.offsets;

  // Each local field on its own (assumptions 1-2: it depends on its node's state and the
  // previous states of the others only).
  std::vector<Field>& fields = ws.fields;
  const std::vector<std::uint32_t>& source_nodes = ws.sources;
#pragma omp parallel for schedule(dynamic, 1) if (sources > 1)
  for (int s = 0; s < sources; ++s) {
    thread_local ChordSet set;
    const auto k = static_cast<int>(source_nodes[static_cast<std::size_t>(s)]);
    local_field(params, window, reach_m, offsets, k % window.nx, k / window.nx, set,
                fields[static_cast<std::size_t>(s)]);
  }

  // Superposition (eq. 24-25 and the sums of eq. 27) and eq. 27-29, each thread on its own band
  // of rows, walking the fields in node order (bit-identical for any thread count).
  ws.depth_times_flow.resize(n);
  ws.flow_magnitude.resize(n);
  double* depth_times_flow = ws.depth_times_flow.data();
  double* flow_magnitude = ws.flow_magnitude.data();
  const auto nx = static_cast<std::size_t>(window.nx);
  const double dx = window.cell_size_m, dy = window.cell_size_m;
#pragma omp parallel if (sources > 0 && n >= 1024)
  {
    const int threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int row_begin = static_cast<int>(static_cast<long long>(window.ny) * thread / threads);
    const int row_end =
        static_cast<int>(static_cast<long long>(window.ny) * (thread + 1) / threads);
    const std::size_t k_begin = static_cast<std::size_t>(row_begin) * nx;
    const std::size_t k_end = static_cast<std::size_t>(row_end) * nx;
    std::fill(window.deposited_volume_m3.begin() + static_cast<std::ptrdiff_t>(k_begin),
              window.deposited_volume_m3.begin() + static_cast<std::ptrdiff_t>(k_end), 0.0);
    std::fill(window.volumetric_flow_W.begin() + static_cast<std::ptrdiff_t>(k_begin),
              window.volumetric_flow_W.begin() + static_cast<std::ptrdiff_t>(k_end), Vec3::Zero());
    std::fill(window.flow_depth_m.begin() + static_cast<std::ptrdiff_t>(k_begin),
              window.flow_depth_m.begin() + static_cast<std::ptrdiff_t>(k_end), 0.0);
    std::fill(window.flow_velocity_W.begin() + static_cast<std::ptrdiff_t>(k_begin),
              window.flow_velocity_W.begin() + static_cast<std::ptrdiff_t>(k_end), Vec3::Zero());
    std::fill(depth_times_flow + k_begin, depth_times_flow + k_end, 0.0);
    std::fill(flow_magnitude + k_begin, flow_magnitude + k_end, 0.0);
    for (int s = 0; s < sources; ++s) {
      superpose_rows(fields[static_cast<std::size_t>(s)], row_begin, row_end, nx, window,
                     depth_times_flow, flow_magnitude);
    }

    // Eq. 27-29 per node.
    for (std::size_t k = k_begin; k < k_end; ++k) {
      const double q_sum = flow_magnitude[k];
      if (!(q_sum > 0.0)) continue;
      const double h = depth_times_flow[k] / q_sum;
      window.flow_depth_m[k] = h;
      const Vec3& q = window.volumetric_flow_W[k];
      const double q_norm = q.norm();
      if (!(q_norm > 0.0)) continue;
      // Eq. 28 (reconstructed): the cross-section of the dx x dy x h cell perpendicular to the
      // flow direction n, taken as the norm of the face-area vector (dy h n_x, dx h n_y,
      // dx dy n_z); exact for flow along an axis (dy h for flow along x, dx dy for vertical flow).
      const Vec3 dir = q / q_norm;
      const double area = Vec3(dy * h * dir.x(), dx * h * dir.y(), dx * dy * dir.z()).norm();
      if (area > 0.0) window.flow_velocity_W[k] = q / (area * dt_s);  // eq. 29
    }
  }
}

}  // namespace talus::scm
