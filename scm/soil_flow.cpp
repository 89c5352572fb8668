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
//
// Speed approximations (talus's, docs/soil_flow.md "Approximations"; both 1 = the paper's model):
// FlowParameters::cluster_nodes merges the displacing nodes of k x k global blocks into one field
// (gather_sources), FlowParameters::field_stride evaluates and superposes the fields on every c-th
// global node only and spreads the sums with tent weights (build_lattice, spread_rows).

#include "scm/soil_flow.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
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
struct alignas(64) TableValue {
  // deposit, flow, depth, tx, ty, tz, then two zeros: eight doubles, one cache line and one
  // AVX-512 register, so that sampling a chord is one vector operation per table entry.
  std::array<double, 8> v;
};
enum TableField : int { kDeposit, kFlow, kDepth, kTx, kTy, kTz };

/// Chord k's resampled table and length, in one place for the interpolation's inner loop.
struct ChordTable {
  const TableValue* values;  ///< M + 1 entries
  int M;
  double M_d;     ///< M as a double
  double length;  ///< l_C
};

/// The chords of one field, flattened: chord k's nodes are [begin[k], begin[k + 1]).
struct ChordSet {
  std::vector<double> alpha;  ///< alpha per chord (eq. 3)
  ChordBatch batch;
  std::vector<int> begin;
  std::vector<double> length;     ///< l_C per chord
  std::vector<double> direction;  ///< f_C per chord (eq. 17)
  std::vector<int> end_di, end_dj;
  std::vector<ChordValue> values;
  std::vector<double> lane_length;           ///< l_C per lane of the batch (1 on idle lanes)
  std::vector<double> fbar, inv_gap;         ///< eq. 18 and 1 / node gap, in the batch's layout
  std::vector<int> table_begin, table_size;  ///< chord k's table: M = table_size[k] intervals
  std::vector<TableValue> table;
  std::vector<double> sample_distance;   ///< resample_chord's scratch
  std::vector<ChordTable> chords;        ///< what the interpolation reads per chord
  std::vector<int> sector_empty;         ///< 1 where chords k and k + 1 both have f_C = 0
  std::vector<int> row_a, row_in_field;  ///< per node of a row: chord a, whether in the field
  std::vector<double> row_w_b, row_rho;  ///< per node of a row: weight of chord b, rho
  std::vector<double> row_distance, row_angle;  ///< a row's lattice nodes' offsets (stride > 1)
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

/// What one local field is built from: a displacing node, or with cluster_nodes > 1 the member
/// of a cluster that represents it, with the cluster's summed volume and volume-weighted contact
/// velocity (docs/soil_flow.md, Approximations).
struct Source {
  int ic = 0, jc = 0;  ///< window node the field starts from
  double volume_m3 = 0.0;
  Vec3 velocity_W = Vec3::Zero();
};

/// The global-grid lattice of the evaluated field nodes (stride c) as seen from a window: for
/// every window column (row) the two lattice columns (rows) around it and their spreading
/// weights, already divided by the lattice node's total weight inside the window so that every
/// lattice node hands out exactly what it holds.
struct Lattice {
  int stride = 1;
  int first_i = 0, first_j = 0;  ///< first window column / row on the lattice
  std::vector<int> col_a, col_b, row_a, row_b;
  std::vector<double> col_wa, col_wb, row_wa, row_wb;
};

/// A displacing node as gather_sources sees it: its window index, its block and its offset in
/// the block.
struct ClusterMember {
  int node = 0;
  int cluster = 0;
  int li = 0, lj = 0;
};

/// Per-call scratch of the calling thread; vectors keep their capacity between calls.
struct Workspace {
  std::vector<Source> sources;
  std::vector<double> cluster_volume, cluster_x, cluster_y, cluster_best;
  std::vector<Vec3> cluster_momentum;
  std::vector<int> cluster_member;
  std::vector<int> column_cluster, column_offset;  ///< per window column: block - ci0, offset
  std::vector<ClusterMember> members;              ///< the displacing nodes, in row order
  Lattice lattice;
  std::vector<double> lattice_deposit, lattice_flow, lattice_depth_times_flow,
      lattice_flow_magnitude;
  std::vector<Field> fields;
  OffsetTable offsets;
  std::vector<double> depth_times_flow;
  std::vector<double> flow_magnitude;
  std::vector<double> load_sign;  ///< chord_load_sign of the window (eq. 12)
};

int floor_div(int a, int b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }
int floor_mod(int a, int b) { return a - floor_div(a, b) * b; }

/// The displacing nodes, one Source each (k = 1, the exact model), or one Source per k x k
/// block of the global grid that holds displacing nodes (FlowParameters::cluster_nodes): the
/// member nearest the block's volume-weighted centroid (the first in row order on a tie) with the
/// block's summed volume and volume-weighted contact velocity. Blocks and member order depend on
/// global indices only, so the result does not depend on where the window starts.
void gather_sources(const FlowWindow& w, int k, Workspace& ws) {
  ws.sources.clear();
  if (k == 1) {
    for (int j = 0; j < w.ny; ++j) {
      for (int i = 0; i < w.nx; ++i) {
        const std::size_t n = w.index(i, j);
        const double v = w.displaced_volume_m3[n];
        if (v > 0.0) ws.sources.push_back({i, j, v, w.contact_velocity_W[n]});
      }
    }
    return;
  }
  const int ci0 = floor_div(w.i0, k), cj0 = floor_div(w.j0, k);
  const int cnx = floor_div(w.i0 + w.nx - 1, k) - ci0 + 1;
  const int cny = floor_div(w.j0 + w.ny - 1, k) - cj0 + 1;
  const auto clusters = static_cast<std::size_t>(cnx) * static_cast<std::size_t>(cny);
  ws.cluster_volume.assign(clusters, 0.0);
  ws.cluster_x.assign(clusters, 0.0);
  ws.cluster_y.assign(clusters, 0.0);
  ws.cluster_momentum.assign(clusters, Vec3::Zero());
  ws.cluster_best.assign(clusters, 0.0);
  ws.cluster_member.assign(clusters, -1);
  // Offsets inside a block are taken from its global corner, so they do not depend on the
  // window. A column's block and offset are the same in every row: computed once per call.
  ws.column_cluster.resize(static_cast<std::size_t>(w.nx));
  ws.column_offset.resize(static_cast<std::size_t>(w.nx));
  for (int i = 0; i < w.nx; ++i) {
    const int ci = floor_div(w.i0 + i, k);
    ws.column_cluster[static_cast<std::size_t>(i)] = ci - ci0;
    ws.column_offset[static_cast<std::size_t>(i)] = w.i0 + i - ci * k;
  }
  // One scan of the window: the displacing nodes (in row order) with their blocks, summed per
  // block; the members are then chosen from that list only.
  ws.members.clear();
  for (int j = 0; j < w.ny; ++j) {
    const int cj = floor_div(w.j0 + j, k);
    const int lj = w.j0 + j - cj * k;
    const std::size_t row_clusters =
        static_cast<std::size_t>(cj - cj0) * static_cast<std::size_t>(cnx);
    const double* volume = w.displaced_volume_m3.data() + w.index(0, j);
    for (int i = 0; i < w.nx; ++i) {
      const double v = volume[i];
      if (!(v > 0.0)) continue;
      const auto iu = static_cast<std::size_t>(i);
      const int li = ws.column_offset[iu];
      const std::size_t c = row_clusters + static_cast<std::size_t>(ws.column_cluster[iu]);
      const std::size_t n = w.index(i, j);
      ws.cluster_volume[c] += v;
      ws.cluster_x[c] += v * static_cast<double>(li);
      ws.cluster_y[c] += v * static_cast<double>(lj);
      ws.cluster_momentum[c] += v * w.contact_velocity_W[n];
      ws.members.push_back({static_cast<int>(n), static_cast<int>(c), li, lj});
    }
  }
  for (const ClusterMember& m : ws.members) {
    const auto c = static_cast<std::size_t>(m.cluster);
    const double dx = static_cast<double>(m.li) - ws.cluster_x[c] / ws.cluster_volume[c];
    const double dy = static_cast<double>(m.lj) - ws.cluster_y[c] / ws.cluster_volume[c];
    const double d2 = dx * dx + dy * dy;
    if (ws.cluster_member[c] < 0 || d2 < ws.cluster_best[c]) {
      ws.cluster_member[c] = m.node;
      ws.cluster_best[c] = d2;
    }
  }
  for (std::size_t c = 0; c < clusters; ++c) {
    const int n = ws.cluster_member[c];
    if (n < 0) continue;
    const double v = ws.cluster_volume[c];
    ws.sources.push_back({n % w.nx, n / w.nx, v, ws.cluster_momentum[c] / v});
  }
}

/// The lattice of every c-th global node as seen from window w, with the spreading weights
/// (tent weights (c - |d|) along each axis, normalised per lattice node over the window).
void build_lattice(const FlowWindow& w, int c, Lattice& lat) {
  lat.stride = c;
  lat.first_i = floor_mod(-w.i0, c);
  lat.first_j = floor_mod(-w.j0, c);
  auto axis = [c](int n, int first, std::vector<int>& a, std::vector<int>& b,
                  std::vector<double>& wa, std::vector<double>& wb) {
    a.assign(static_cast<std::size_t>(n), 0);
    b.assign(static_cast<std::size_t>(n), 0);
    wa.assign(static_cast<std::size_t>(n), 0.0);
    wb.assign(static_cast<std::size_t>(n), 0.0);
    // A lattice node L's weights (c - |x - L|) over the window's nodes x, summed.
    auto total = [c, n](int L) {
      double t = 0.0;
      for (int x = std::max(L - c + 1, 0); x <= std::min(L + c - 1, n - 1); ++x)
        t += static_cast<double>(c - std::abs(x - L));
      return t;
    };
    for (int x = 0; x < n; ++x) {
      const int lo = x - floor_mod(x - first, c);  // lattice node at or before x (maybe < 0)
      const int hi = lo + c;
      const int d = x - lo;
      const auto xu = static_cast<std::size_t>(x);
      // Entries of weight 0 point at x itself, so that the spread reads in bounds.
      const bool has_lo = lo >= 0, has_hi = d > 0 && hi < n;
      a[xu] = has_lo ? lo : x;
      wa[xu] = has_lo ? static_cast<double>(c - d) / total(lo) : 0.0;
      b[xu] = has_hi ? hi : x;
      wb[xu] = has_hi ? static_cast<double>(d) / total(hi) : 0.0;
    }
  };
  axis(w.nx, lat.first_i, lat.col_a, lat.col_b, lat.col_wa, lat.col_wb);
  axis(w.ny, lat.first_j, lat.row_a, lat.row_b, lat.row_wa, lat.row_wb);
}

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
  require(std::isfinite(p.cluster_span_m) && std::isfinite(p.field_spacing_m),
          "cluster_span_m and field_spacing_m must be finite");
  const int cluster = cluster_nodes_on(p, w.cell_size_m);
  require(cluster >= 1 && cluster <= 64,
          "cluster_nodes must be in [1, 64] (1: one field per displacing node; 0: from "
          "cluster_span_m), got " +
              std::to_string(cluster));
  const int stride = field_stride_on(p, w.cell_size_m);
  require(stride >= 1 && stride <= 64,
          "field_stride must be in [1, 64] (1: every grid node; 0: from field_spacing_m), got " +
              std::to_string(stride));
  require(w.nx >= 0 && w.ny >= 0, "window nx, ny must be >= 0");
  const std::size_t n = w.size();
  require(w.height_m.size() == n && w.displaced_volume_m3.size() == n && w.in_contact.size() == n &&
              w.contact_velocity_W.size() == n && w.previous_flow_velocity_W.size() == n,
          "window input arrays must hold nx * ny entries (call FlowWindow::resize)");
  require(n <= 0xFFFFFFFFu, "window too large");
}

/// Resamples chord k (nodes [b, e) of set.values) at M + 1 relative distances into table.
void resample_chord(const std::vector<ChordValue>& values, int b, int e, int M,
                    std::vector<double>& sample_distance, std::vector<TableValue>& table) {
  const double l_C = values[static_cast<std::size_t>(e - 1)].distance;
  // The sample distances first, in SIMD lanes: a division each, off the walk below.
  sample_distance.resize(static_cast<std::size_t>(M) + 1);
  double* ls = sample_distance.data();
#pragma omp simd
  for (int m = 0; m <= M; ++m) ls[m] = l_C * static_cast<double>(m) / static_cast<double>(M);
  int n = b;
  for (int m = 0; m <= M; ++m) {
    const double l = ls[m];
    while (n + 1 < e - 1 && values[static_cast<std::size_t>(n) + 1].distance <= l) ++n;
    const ChordValue& lo = values[static_cast<std::size_t>(n)];
    const ChordValue& hi = values[static_cast<std::size_t>(std::min(n + 1, e - 1))];
    const double t = &hi == &lo ? 0.0 : std::clamp((l - lo.distance) * lo.inv_gap, 0.0, 1.0);
    const double u = 1.0 - t;
    table.push_back(
        {{u * lo.deposit + t * hi.deposit, u * lo.flow + t * hi.flow, u * lo.depth + t * hi.depth,
          u * lo.tx + t * hi.tx, u * lo.ty + t * hi.ty, u * lo.tz + t * hi.tz, 0.0, 0.0}});
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
  // Per value the same operations as one at a time (the padding lanes add zeros).
#pragma omp simd
  for (std::size_t f = 0; f < acc.v.size(); ++f) acc.v[f] += wl * lo.v[f] + wh * hi.v[f];
}

/// Eq. 3 and eq. 5-16: the field's n_C chord directions, turned by the node's chord set
/// rotation, and all its chords at once (build_chords), into set.batch. Clears the per-chord
/// lists that the next stages fill.
void cast_chords(const FlowParameters& p, const FlowWindow& w, const double* load_sign,
                 double reach_m, const Source& source, double alpha_rnd, ChordSet& set) {
  const int n_c = p.chord_count;
  const double spacing = 2.0 * kPi / static_cast<double>(n_c);
  set.begin.assign(1, 0);
  set.length.clear();
  set.direction.clear();
  set.end_di.clear();
  set.end_dj.clear();
  set.values.clear();

  // Eq. 3: the chord directions; eq. 5-16: all chords of the field at once (build_chords).
  set.alpha.resize(static_cast<std::size_t>(n_c));
  for (int k = 0; k < n_c; ++k)
    set.alpha[static_cast<std::size_t>(k)] = spacing * static_cast<double>(k) + alpha_rnd;
  build_chords(p, w, load_sign, source.ic, source.jc, source.velocity_W, set.alpha.data(), n_c,
               reach_m, set.batch);
}

/// What measure_chords finds over all chords of a field.
struct ChordExtent {
  double longest = 0.0;  ///< the longest l_C
  int most_nodes = 1;    ///< the most nodes on one chord
};

/// Per chord: its length l_C, end node and direction weight f_C (eq. 17).
ChordExtent measure_chords(const FlowParameters& p, const Vec3& v_c, ChordSet& set) {
  const int n_c = p.chord_count;
  const ChordBatch& batch = set.batch;
  const auto lanes = static_cast<std::size_t>(batch.lanes);
  ChordExtent extent;
  set.lane_length.assign(lanes, 1.0);
  for (int k = 0; k < n_c; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    const Vec3 e_C(batch.e_x[ku], batch.e_y[ku], 0.0);  // eq. 4
    const std::size_t last = static_cast<std::size_t>(batch.count[ku] - 1) * lanes + ku;
    const double l_C = batch.distance_m[last];
    extent.longest = std::max(extent.longest, l_C);
    extent.most_nodes = std::max(extent.most_nodes, batch.count[ku]);
    set.lane_length[ku] = l_C;
    set.length.push_back(l_C);
    set.direction.push_back(chord_direction_weight(v_c, e_C, p.psi_angle));
    set.end_di.push_back(batch.di[last]);
    set.end_dj.push_back(batch.dj[last]);
  }
  // f_C can vanish for every chord only through underflow (psi_angle huge); then no direction is
  // preferred.
  if (!(*std::max_element(set.direction.begin(), set.direction.end()) > 0.0)) {
    std::fill(set.direction.begin(), set.direction.end(), 1.0);
  }
  return extent;
}

/// Eq. 18 (reconstructed: l_s / l_C, the relative distance, see docs) and the inverse node gaps
/// of the chords' linear interpolation, for all chords in SIMD lanes (node m of chord c at
/// m * lanes + c, as in the batch; entries past a chord's end are not read).
void relative_distance_weights(const FlowParameters& p, int most_nodes, ChordSet& set) {
  const ChordBatch& batch = set.batch;
  const auto lanes = static_cast<std::size_t>(batch.lanes);
  const std::size_t entries = static_cast<std::size_t>(most_nodes) * lanes;
  set.fbar.resize(entries);
  set.inv_gap.resize(entries);
  const double* chord_distance = batch.distance_m.data();
  const double* lane_length = set.lane_length.data();
  const int* chord_nodes = batch.count.data();
  for (int m = 0; m < most_nodes; ++m) {
    const std::size_t row = static_cast<std::size_t>(m) * lanes;
    const bool has_next_row = m + 1 < most_nodes;
    double* fbar = set.fbar.data() + row;
    double* inv_gap = set.inv_gap.data() + row;
#pragma omp simd
    for (std::size_t c = 0; c < lanes; ++c) {
      const double l = chord_distance[row + c];
      const double rel = lane_length[c] > 0.0 ? l / lane_length[c] : 1.0;
      fbar[c] = rel * rel;
      const bool inner = has_next_row && m + 1 < chord_nodes[c];
      inv_gap[c] = inner ? 1.0 / (chord_distance[row + (has_next_row ? lanes : 0) + c] - l) : 0.0;
    }
    if (p.psi_distance != 2.0) {
      for (std::size_t c = 0; c < lanes; ++c) {
        const double rel = lane_length[c] > 0.0 ? chord_distance[row + c] / lane_length[c] : 1.0;
        fbar[c] = std::pow(rel, p.psi_distance);
      }
    }
  }
}

/// The chords' node values in chord order (chord k's at [begin[k], begin[k + 1]) of set.values).
void chord_node_values(int n_c, ChordSet& set) {
  const ChordBatch& batch = set.batch;
  const auto lanes = static_cast<std::size_t>(batch.lanes);
  // Eq. 19: f_s = f_C * fbar_s; eq. 20: s_s(i) = sum of f_s beyond i; eq. 21: t_s.
  for (int k = 0; k < n_c; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    const double f_C = set.direction[ku];
    const double e_x = batch.e_x[ku], e_y = batch.e_y[ku];
    const std::size_t first = set.values.size();
    set.values.resize(first + static_cast<std::size_t>(batch.count[ku]));
    double beyond = 0.0;
    for (int n = batch.count[ku] - 1; n >= 0; --n) {
      const std::size_t e = static_cast<std::size_t>(n) * lanes + ku;
      const double deposit = set.fbar[e] * f_C;
      const double c = batch.cos_angle[e];
      set.values[first + static_cast<std::size_t>(n)] = {
          batch.distance_m[e],   set.inv_gap[e], deposit, beyond,
          batch.flow_depth_m[e], c * e_x,        c * e_y, batch.sin_angle[e]};
      beyond += deposit;
    }
    set.begin.push_back(static_cast<int>(set.values.size()));
  }
}

/// Every chord resampled into its table (resample_chord), and what the interpolation reads per
/// chord: the table, and whether the sector up to the next chord carries anything.
void tabulate_chords(int n_c, ChordSet& set) {
  set.table_begin.clear();
  set.table_size.clear();
  set.table.clear();
  for (int k = 0; k < n_c; ++k) {
    const int b = set.begin[static_cast<std::size_t>(k)];
    const int e = set.begin[static_cast<std::size_t>(k) + 1];
    const int M = std::max(2 * (e - b - 1), 1);  // twice the chord's node spacing
    set.table_begin.push_back(static_cast<int>(set.table.size()));
    set.table_size.push_back(M);
    resample_chord(set.values, b, e, M, set.sample_distance, set.table);
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
}

/// The part of the window a field can cover: the disc of its support around the displacing node,
/// clipped to the window as a box of nodes.
struct FieldExtent {
  double support = 0.0;  ///< radius of the field's support [m]
  int radius = 0;        ///< support in whole cells
  int i_lo = 0, i_hi = 0, j_lo = 0, j_hi = 0;
};

/// Only nodes within support of the displacing node can be in the field: the longest chord and
/// half a cell more (end nodes lie off the rays), never beyond the reach.
FieldExtent field_extent(const FlowWindow& w, int ic, int jc, double longest, double reach_m) {
  const double cell = w.cell_size_m;
  FieldExtent x;
  x.support = std::min(longest + cell, reach_m);
  x.radius = static_cast<int>(std::ceil(x.support / cell));
  x.i_lo = std::max(ic - x.radius, 0);
  x.i_hi = std::min(ic + x.radius, w.nx - 1);
  x.j_lo = std::max(jc - x.radius, 0);
  x.j_hi = std::min(jc + x.radius, w.ny - 1);
  return x;
}

/// Makes field hold the box's contributions (or n_C end-node ones if degenerate), by row, and the
/// per-row scratch of set hold a row of the disc.
void reserve_field(const FieldExtent& x, int n_c, Field& field, ChordSet& set) {
  const std::size_t box =
      static_cast<std::size_t>(x.i_hi - x.i_lo + 1) * static_cast<std::size_t>(x.j_hi - x.j_lo + 1);
  const std::size_t capacity = std::max<std::size_t>(box, static_cast<std::size_t>(n_c));
  if (field.node.size() < capacity) {
    for (auto* v :
         {&field.deposit, &field.qx, &field.qy, &field.qz, &field.flow_norm, &field.depth})
      v->resize(capacity);
    field.node.resize(capacity);
  }
  field.j_lo = x.j_lo;
  field.rows = x.j_hi - x.j_lo + 1;
  field.row_begin.resize(static_cast<std::size_t>(field.rows) + 1);
  field.by_row = true;
  for (auto* v : {&set.row_a, &set.row_in_field})
    v->resize(static_cast<std::size_t>(2 * x.radius + 1));
  for (auto* v : {&set.row_w_b, &set.row_rho, &set.row_distance, &set.row_angle})
    v->resize(static_cast<std::size_t>(2 * x.radius + 1));
}

/// One row of the disc, as pass 1 and pass 2 of interpolate_field see it: count nodes from
/// window column i_first, stride apart, with their offsets' distances and angles contiguous.
struct FieldRow {
  int i_first = 0;
  int count = 0;
  std::uint32_t row_node = 0;  ///< window index of the row's column 0
  const double* distance = nullptr;
  const double* angle = nullptr;
};

/// Row j of the field's disc: the disc's half chord in this row, one node wider than needed (the
/// test on r in place_between_chords decides, this only saves visiting nodes that are certainly
/// outside), on the lattice's columns where stride > 1.
FieldRow field_row(const FlowWindow& w, const OffsetTable& offsets, const Lattice& lattice, int ic,
                   int jc, const FieldExtent& x, double support_cells2, int j, ChordSet& set) {
  const int stride = lattice.stride;
  const double dj = static_cast<double>(j - jc);
  const int half =
      std::min(x.radius, static_cast<int>(std::sqrt(std::max(support_cells2 - dj * dj, 0.0))) + 1);
  int i_first = std::max(x.i_lo, ic - half);
  const int i_last = std::min(x.i_hi, ic + half);
  if (stride > 1) i_first += floor_mod(lattice.first_i - i_first, stride);
  const std::ptrdiff_t row =
      static_cast<std::ptrdiff_t>(j - jc + offsets.radius) * offsets.side + offsets.radius - ic;
  FieldRow r;
  r.i_first = i_first;
  r.row_node = static_cast<std::uint32_t>(w.index(0, j));
  r.count = i_last < i_first ? 0 : (i_last - i_first) / stride + 1;
  r.distance = offsets.distance_m.data() + (row + i_first);
  r.angle = offsets.angle_rad.data() + (row + i_first);
  if (stride > 1) {
    // The row's lattice nodes, gathered so that pass 1 reads contiguous arrays.
    for (int n = 0; n < r.count; ++n) {
      set.row_distance[static_cast<std::size_t>(n)] = r.distance[n * stride];
      set.row_angle[static_cast<std::size_t>(n)] = r.angle[n * stride];
    }
    r.distance = set.row_distance.data();
    r.angle = set.row_angle.data();
  }
  return r;
}

/// Pass 1 over a row, without branches (it vectorises): where each node lies between the chords
/// (a, w_b), its relative distance rho, and whether it is in the field, into set's row scratch.
void place_between_chords(int n_c, double alpha_rnd, double support, double half_cell,
                          const FieldRow& row, ChordSet& set) {
  const double spacing = 2.0 * kPi / static_cast<double>(n_c);
  const double n_c_d = static_cast<double>(n_c);
  const double inv_spacing = 1.0 / spacing;
  const int* sector_empty = set.sector_empty.data();
  const double* length = set.length.data();
  int* row_a = set.row_a.data();
  int* in_field = set.row_in_field.data();
  double* row_w_b = set.row_w_b.data();
  double* row_rho = set.row_rho.data();
  const double* row_distance = row.distance;
  const double* row_angle = row.angle;
  const int count = row.count;
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
}

/// Pass 2: the row's nodes in the field sample both chords; each becomes a contribution of field
/// (from index used on, which it advances), and its f_delta is added to total.
void sample_row(int n_c, int stride, const FieldRow& row, const ChordSet& set, Field& field,
                std::size_t& used, double& total) {
  const ChordTable* chords = set.chords.data();
  const int* row_a = set.row_a.data();
  const int* in_field = set.row_in_field.data();
  const double* row_w_b = set.row_w_b.data();
  const double* row_rho = set.row_rho.data();
  std::uint32_t* node_out = field.node.data();
  double* deposit_out = field.deposit.data();
  double* qx_out = field.qx.data();
  double* qy_out = field.qy.data();
  double* qz_out = field.qz.data();
  double* flow_out = field.flow_norm.data();
  double* depth_out = field.depth.data();
  for (int n = 0; n < row.count; ++n) {
    if (!in_field[n]) continue;
    const int a = row_a[n];
    const int b = a + 1 == n_c ? 0 : a + 1;
    const double w_b = row_w_b[n], rho = row_rho[n];
    TableValue s{};
    accumulate_sample(chords[a], rho, 1.0 - w_b, s);
    accumulate_sample(chords[b], rho, w_b, s);
    node_out[used] = row.row_node + static_cast<std::uint32_t>(row.i_first + n * stride);
    deposit_out[used] = s.v[kDeposit];
    qx_out[used] = s.v[kTx];
    qy_out[used] = s.v[kTy];
    qz_out[used] = s.v[kTz];
    flow_out[used] = s.v[kFlow];
    depth_out[used] = s.v[kDepth];
    ++used;
    total += s.v[kDeposit];
  }
}

/// Fig. 5: a grid node P between chords A and B takes, at its relative distance
/// rho = |r_P| / r_max with r_max interpolated between the chord lengths, the values of both
/// chords at rho * l_A and rho * l_B, weighted by its angle to each. Nodes up to half a cell
/// beyond r_max belong to the field too (with the end values), so that the chords' end nodes,
/// which lie off the rays by up to half a cell, are covered. Only nodes within support of the
/// displacing node can be in the field; each row is visited over that disc's chord only.
/// With stride c > 1 only the lattice's nodes in this disc are evaluated; the spread then
/// carries their sums up to c - 1 nodes further along each axis (docs/soil_flow.md).
/// Writes field's contributions by row (t_delta still unnormalised) and returns the sum of their
/// f_delta.
double interpolate_field(const FlowParameters& p, const FlowWindow& w, const OffsetTable& offsets,
                         const Lattice& lattice, int ic, int jc, double alpha_rnd,
                         const FieldExtent& x, ChordSet& set, Field& field) {
  const int n_c = p.chord_count;
  const double cell = w.cell_size_m;
  const int stride = lattice.stride;
  const double support_cells2 = (x.support / cell) * (x.support / cell);
  const double half_cell = 0.5 * cell;
  std::size_t used = 0;
  double total = 0.0;
  // Row j is a lattice row when (j - first_j) mod stride is 0; the phase is kept as j advances
  // (an integer division per row was a visible part of this loop).
  int phase = floor_mod(x.j_lo - lattice.first_j, stride);
  for (int j = x.j_lo; j <= x.j_hi; ++j, phase = phase + 1 == stride ? 0 : phase + 1) {
    field.row_begin[static_cast<std::size_t>(j - x.j_lo)] = static_cast<std::uint32_t>(used);
    if (phase != 0) continue;
    const FieldRow row = field_row(w, offsets, lattice, ic, jc, x, support_cells2, j, set);
    place_between_chords(n_c, alpha_rnd, x.support, half_cell, row, set);
    sample_row(n_c, stride, row, set, field, used, total);
  }
  field.row_begin[static_cast<std::size_t>(field.rows)] = static_cast<std::uint32_t>(used);
  field.used = used;
  return total;
}

/// Eq. 20-21 on the grid: Q = s_delta t_delta / |t_delta|. Kept out of interpolate_field's loop,
/// whose latency it would lengthen (a square root and a division); this loop vectorises.
void normalise_flow(Field& field) {
  const std::size_t used = field.used;
  double* qx_out = field.qx.data();
  double* qy_out = field.qy.data();
  double* qz_out = field.qz.data();
  double* flow_out = field.flow_norm.data();
#pragma omp simd
  for (std::size_t m = 0; m < used; ++m) {
    const double tx = qx_out[m], ty = qy_out[m], tz = qz_out[m];
    const double t_norm = std::sqrt(tx * tx + ty * ty + tz * tz);
    const bool has_direction = t_norm > 0.0;
    const double flow = has_direction ? flow_out[m] : 0.0;
    const double q = flow / (has_direction ? t_norm : 1.0);
    qx_out[m] = tx * q;
    qy_out[m] = ty * q;
    qz_out[m] = tz * q;
    flow_out[m] = flow;
  }
}

/// Degenerate field (every node that would take soil is cut off): the soil goes to the chords'
/// end nodes, by direction weight, and no flow is recorded. Returns the sum of the deposits.
double deposit_at_chord_ends(const FlowWindow& w, int n_c, int ic, int jc, const ChordSet& set,
                             Field& field) {
  field.by_row = false;
  std::uint32_t* node_out = field.node.data();
  double* deposit_out = field.deposit.data();
  double* qx_out = field.qx.data();
  double* qy_out = field.qy.data();
  double* qz_out = field.qz.data();
  double* flow_out = field.flow_norm.data();
  double* depth_out = field.depth.data();
  std::size_t used = 0;
  double total = 0.0;
  for (int k = 0; k < n_c; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    node_out[used] = static_cast<std::uint32_t>(w.index(ic + set.end_di[ku], jc + set.end_dj[ku]));
    deposit_out[used] = set.direction[ku];
    qx_out[used] = qy_out[used] = qz_out[used] = flow_out[used] = depth_out[used] = 0.0;
    total += deposit_out[used];
    ++used;
  }
  field.used = used;
  return total;
}

/// Builds source's chords (eq. 3-21) and interpolates them onto the grid (Fig. 5) into field,
/// with the scale that normalises it to the source's displaced volume (eq. 22-23). With
/// lattice.stride c > 1 only the lattice's nodes (global indices multiples of c) are evaluated.
void local_field(const FlowParameters& p, const FlowWindow& w, const double* load_sign,
                 double reach_m, const OffsetTable& offsets, const Lattice& lattice,
                 const Source& source, ChordSet& set, Field& field) {
  const int n_c = p.chord_count;
  const int ic = source.ic, jc = source.jc;
  // The chord set's rotation depends on the node's global index only (not the window's origin).
  const double alpha_rnd = chord_set_rotation(p.seed, n_c, static_cast<long long>(w.i0) + ic,
                                              static_cast<long long>(w.j0) + jc);

  cast_chords(p, w, load_sign, reach_m, source, alpha_rnd, set);
  const ChordExtent chords = measure_chords(p, source.velocity_W, set);
  relative_distance_weights(p, chords.most_nodes, set);
  chord_node_values(n_c, set);
  tabulate_chords(n_c, set);

  const FieldExtent extent = field_extent(w, ic, jc, chords.longest, reach_m);
  reserve_field(extent, n_c, field, set);
  double total = interpolate_field(p, w, offsets, lattice, ic, jc, alpha_rnd, extent, set, field);
  normalise_flow(field);
  if (!(total > 0.0)) total = deposit_at_chord_ends(w, n_c, ic, jc, set, field);

  // Eq. 22-23, applied as the superposition adds the field.
  field.scale = source.volume_m3 / total;
}

/// Adds field's contributions to window rows [row_begin, row_end) of the sums (eq. 24-25 and
/// the sums of eq. 27), scaled by the field's eq. 22-23 factor.
/// Which fields superpose_rows adds: all, those evaluated by rows only (onto the lattice, stride
/// > 1), or the degenerate ones only (onto the grid, after the lattice's sums were spread).
enum class FieldKind { All, ByRow, Degenerate };

/// Output arrays of the superposition: deposit, flow (3 packed doubles per node), and the sums
/// of eq. 27.
struct Sums {
  double* deposit;
  double* flow;
  double* depth_times_flow;
  double* flow_magnitude;
};

void superpose_rows(const Field& field, FieldKind kind, int row_begin, int row_end, std::size_t nx,
                    const Sums& out) {
  if (kind == FieldKind::ByRow && !field.by_row) return;
  if (kind == FieldKind::Degenerate && field.by_row) return;
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
  double* deposited = out.deposit;
  double* flow = out.flow;
  double* depth_times_flow = out.depth_times_flow;
  double* flow_magnitude = out.flow_magnitude;
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

/// Spreads the lattice's sums to grid rows [row_begin, row_end): every node takes from the (up
/// to) four lattice nodes around it their tent weights (docs/soil_flow.md, Approximations). Each
/// lattice node's weights sum to 1 over the window, so the deposits keep their total.
void spread_rows(const Lattice& lat, int row_begin, int row_end, std::size_t nx,
                 const Sums& lattice, const Sums& grid) {
  for (int j = row_begin; j < row_end; ++j) {
    const auto ju = static_cast<std::size_t>(j);
    const std::size_t ra = static_cast<std::size_t>(lat.row_a[ju]) * nx;
    const std::size_t rb = static_cast<std::size_t>(lat.row_b[ju]) * nx;
    const double wra = lat.row_wa[ju], wrb = lat.row_wb[ju];
    for (std::size_t i = 0; i < nx; ++i) {
      const std::size_t ca = static_cast<std::size_t>(lat.col_a[i]);
      const std::size_t cb = static_cast<std::size_t>(lat.col_b[i]);
      const double w[4] = {wra * lat.col_wa[i], wra * lat.col_wb[i], wrb * lat.col_wa[i],
                           wrb * lat.col_wb[i]};
      const std::size_t from[4] = {ra + ca, ra + cb, rb + ca, rb + cb};
      const std::size_t k = ju * nx + i;
      double deposit = 0.0, fx = 0.0, fy = 0.0, fz = 0.0, hq = 0.0, q = 0.0;
      for (int c = 0; c < 4; ++c) {
        const std::size_t f = from[c];
        deposit += w[c] * lattice.deposit[f];
        fx += w[c] * lattice.flow[3 * f];
        fy += w[c] * lattice.flow[3 * f + 1];
        fz += w[c] * lattice.flow[3 * f + 2];
        hq += w[c] * lattice.depth_times_flow[f];
        q += w[c] * lattice.flow_magnitude[f];
      }
      grid.deposit[k] = deposit;
      grid.flow[3 * k] = fx;
      grid.flow[3 * k + 1] = fy;
      grid.flow[3 * k + 2] = fz;
      grid.depth_times_flow[k] = hq;
      grid.flow_magnitude[k] = q;
    }
  }
}

/// Eq. 27-29 for nodes [k_begin, k_end): the flow depth h = sum(h |Q|) / sum |Q| and the flow
/// velocity v = Q / (A_Flow dt), 0 where no flow. Written without branches on plain arrays
/// (Vec3 is three packed doubles), so that it vectorises: as a per-node loop with branches its
/// two square roots and three divisions ran one node at a time and were the largest part of the
/// superposition (2026-11-28 profile). The same operations in the same order as that loop; the
/// vectorised code may contract a multiply and an add differently, so a velocity can differ in
/// its last digit.
void flow_depth_and_velocity(const Sums& sums, std::size_t k_begin, std::size_t k_end, double dx,
                             double dy, double dt_s, double* __restrict flow_depth_m,
                             double* __restrict flow_velocity) {
  const double* __restrict q_sum = sums.flow_magnitude;
  const double* __restrict depth_times_flow = sums.depth_times_flow;
  const double* __restrict flow = sums.flow;
#pragma omp simd
  for (std::size_t k = k_begin; k < k_end; ++k) {
    // Every division is done on every node (by 1 where the formula would divide by 0) and its
    // result selected afterwards, so that the loop has no branches (with -fno-trapping-math,
    // CMakeLists.txt) and vectorises.
    const bool flows = q_sum[k] > 0.0;
    const double h_flowing = depth_times_flow[k] / (flows ? q_sum[k] : 1.0);
    const double h = flows ? h_flowing : 0.0;  // eq. 27
    const double qx = flow[3 * k], qy = flow[3 * k + 1], qz = flow[3 * k + 2];
    const double q_norm = std::sqrt(qx * qx + qy * qy + qz * qz);
    const bool has_direction = flows && q_norm > 0.0;
    const double norm = has_direction ? q_norm : 1.0;
    // Eq. 28 (reconstructed): the cross-section of the dx x dy x h cell perpendicular to the
    // flow direction n, taken as the norm of the face-area vector (dy h n_x, dx h n_y, dx dy
    // n_z); exact for flow along an axis (dy h for flow along x, dx dy for vertical flow).
    const double nx = qx / norm, ny = qy / norm, nz = qz / norm;
    const double ax = dy * h * nx, ay = dx * h * ny, az = dx * dy * nz;
    const double area = std::sqrt(ax * ax + ay * ay + az * az);
    const bool moves = has_direction && area > 0.0;
    const double time_area = moves ? area * dt_s : 1.0;
    const double vx = qx / time_area, vy = qy / time_area, vz = qz / time_area;  // eq. 29
    flow_depth_m[k] = h;
    flow_velocity[3 * k] = moves ? vx : 0.0;
    flow_velocity[3 * k + 1] = moves ? vy : 0.0;
    flow_velocity[3 * k + 2] = moves ? vz : 0.0;
  }
}

/// floor(length / cell) as a node count, with a margin for lengths that are whole multiples of
/// the cell up to rounding (0.06 / 0.02 is 2.9999999999999996 in doubles); 0 for length <= 0
/// and at most 1e6 (validation refuses more than 64 anyway).
int whole_cells(double length_m, double cell_m) {
  if (!(length_m > 0.0) || !(cell_m > 0.0)) return 0;
  return static_cast<int>(std::floor(std::min(length_m / cell_m + 1e-9, 1e6)));
}

}  // namespace

int cluster_nodes_on(const FlowParameters& params, double cell_m) {
  if (params.cluster_nodes != 0) return params.cluster_nodes;
  const int k = whole_cells(params.cluster_span_m, cell_m) + 1;
  return k % 2 == 1 ? k : k - 1;
}

int field_stride_on(const FlowParameters& params, double cell_m) {
  if (params.field_stride != 0) return params.field_stride;
  return std::max(1, whole_cells(params.field_spacing_m, cell_m));
}

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
  const int cluster = cluster_nodes_on(params, window.cell_size_m);
  const int stride = field_stride_on(params, window.cell_size_m);
  gather_sources(window, cluster, ws);
  const int sources = static_cast<int>(ws.sources.size());
  if (ws.fields.size() < ws.sources.size()) ws.fields.resize(ws.sources.size());
  const double reach_m = flow_reach_m(params, params.max_flow_depth_m);
  ws.offsets.build(window.cell_size_m,
                   static_cast<int>(std::ceil(reach_m / window.cell_size_m)) + 1);
  const OffsetTable& offsets = ws.offsets;
  chord_load_sign(window, ws.load_sign);
  const double* load_sign = ws.load_sign.data();
  build_lattice(window, stride, ws.lattice);
  const Lattice& lattice = ws.lattice;
  // Threads only for calls with enough work (FlowParameters::parallel_min_contributions): the
  // node contributions the fields can hold, a disc of the reach on the lattice per field.
  const double reach_nodes = reach_m / (window.cell_size_m * static_cast<double>(stride));
  const bool parallel = static_cast<double>(sources) * kPi * reach_nodes * reach_nodes >=
                        params.parallel_min_contributions;

  // Each local field on its own (assumptions 1-2: it depends on its node's state and the
  // previous states of the others only).
  std::vector<Field>& fields = ws.fields;
  const std::vector<Source>& source_list = ws.sources;
#pragma omp parallel for schedule(dynamic, 1) if (parallel && sources > 1)
  for (int s = 0; s < sources; ++s) {
    thread_local ChordSet set;
    local_field(params, window, load_sign, reach_m, offsets, lattice,
                source_list[static_cast<std::size_t>(s)], set, fields[static_cast<std::size_t>(s)]);
  }

  // Superposition (eq. 24-25 and the sums of eq. 27) and eq. 27-29, each thread on its own band
  // of rows, walking the fields in node order (bit-identical for any thread count). With stride
  // c > 1 the fields are first summed on the lattice, then (after a barrier: a band's nodes read
  // lattice rows up to c - 1 rows outside it) spread to the grid, and the degenerate fields'
  // end-node deposits are added.
  ws.depth_times_flow.resize(n);
  ws.flow_magnitude.resize(n);
  double* depth_times_flow = ws.depth_times_flow.data();
  double* flow_magnitude = ws.flow_magnitude.data();
  double* deposited = window.deposited_volume_m3.data();
  double* flow = window.volumetric_flow_W.data()->data();  // Vec3 is three packed doubles
  const Sums grid{deposited, flow, depth_times_flow, flow_magnitude};
  Sums on_lattice = grid;
  if (stride > 1) {
    ws.lattice_deposit.resize(n);
    ws.lattice_flow.resize(3 * n);
    ws.lattice_depth_times_flow.resize(n);
    ws.lattice_flow_magnitude.resize(n);
    on_lattice = {ws.lattice_deposit.data(), ws.lattice_flow.data(),
                  ws.lattice_depth_times_flow.data(), ws.lattice_flow_magnitude.data()};
  }
  const auto nx = static_cast<std::size_t>(window.nx);
  const double dx = window.cell_size_m, dy = window.cell_size_m;
#pragma omp parallel if (parallel && n >= 1024)
  {
    const int threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int row_begin = static_cast<int>(static_cast<long long>(window.ny) * thread / threads);
    const int row_end =
        static_cast<int>(static_cast<long long>(window.ny) * (thread + 1) / threads);
    const std::size_t k_begin = static_cast<std::size_t>(row_begin) * nx;
    const std::size_t k_end = static_cast<std::size_t>(row_end) * nx;
    // The sums start at 0 where fields are added to them: on the grid with stride 1, on the
    // lattice otherwise (spread_rows then assigns every grid node of the band).
    if (stride == 1) {
      std::fill(deposited + k_begin, deposited + k_end, 0.0);
      std::fill(flow + 3 * k_begin, flow + 3 * k_end, 0.0);
      std::fill(depth_times_flow + k_begin, depth_times_flow + k_end, 0.0);
      std::fill(flow_magnitude + k_begin, flow_magnitude + k_end, 0.0);
      for (int s = 0; s < sources; ++s) {
        superpose_rows(fields[static_cast<std::size_t>(s)], FieldKind::All, row_begin, row_end, nx,
                       grid);
      }
    } else {
      std::fill(on_lattice.deposit + k_begin, on_lattice.deposit + k_end, 0.0);
      std::fill(on_lattice.flow + 3 * k_begin, on_lattice.flow + 3 * k_end, 0.0);
      std::fill(on_lattice.depth_times_flow + k_begin, on_lattice.depth_times_flow + k_end, 0.0);
      std::fill(on_lattice.flow_magnitude + k_begin, on_lattice.flow_magnitude + k_end, 0.0);
      for (int s = 0; s < sources; ++s) {
        superpose_rows(fields[static_cast<std::size_t>(s)], FieldKind::ByRow, row_begin, row_end,
                       nx, on_lattice);
      }
#pragma omp barrier
      spread_rows(lattice, row_begin, row_end, nx, on_lattice, grid);
      for (int s = 0; s < sources; ++s) {
        superpose_rows(fields[static_cast<std::size_t>(s)], FieldKind::Degenerate, row_begin,
                       row_end, nx, grid);
      }
    }

    flow_depth_and_velocity(grid, k_begin, k_end, dx, dy, dt_s, window.flow_depth_m.data(),
                            window.flow_velocity_W.data()->data());
  }
}

}  // namespace talus::scm
