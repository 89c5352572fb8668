// Angle-of-repose erosion (paper 003 §3.1, §5.1); the rule and its constants are derived in
// docs/erosion.md. Written by hand: no packaged library does heightmap repose erosion.
//
// How an update runs. The region's rows are cut into blocks, and a thread updates a block in
// place, holding only two rows of new heights at a time: row j's new heights are written back
// once row j + 1 has been computed (row j + 1 still needs row j's old heights). The rows just
// outside a block belong to its neighbours, which may already have overwritten them, so before
// the blocks start the two rows on either side of every block boundary are copied aside and the
// blocks read those copies. Every cell is therefore computed from start-of-update heights only (a
// Jacobi update), by the same code whatever the blocks and threads: results are bit-identical for
// any thread count. Memory traffic is one read and one write of each height per update.
//
// Small regions (below ErosionParameters::min_cells_for_threads, so on one thread) take another
// route to the same numbers. A tool's erosion updates regions of about 9 x 9 cells (the stroke
// environment's mean, 2026-12-02), whose rows are too short for the vector loop: the two edge
// cells went through the scalar, branchy relax_cell and the 7 between them through the vector
// loop's scalar remainder. Such a region is copied into a buffer with a ring of blocked cells
// around it (the region's edge is a closed wall, and a blocked neighbour passes nothing), and one
// vector loop runs over the buffer as if it were a single row with the ring columns in it. The
// copy is kept from one update to the next while the region stays the same (HeldRegion), and
// written back when it changes and at the end.

#include "core/erosion.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <stdexcept>
#include <utility>

namespace talus {
namespace {

/// Each thread takes one block of rows, of at least this many rows.
constexpr int kMinRowsPerBlock = 16;

/// The largest height difference [m] a pair holds at rest, d_ab * tan(repose) (E1).
struct ReposeLimits {
  double side_m = 0.0;      ///< pair along x or y: centres one cell apart
  double diagonal_m = 0.0;  ///< diagonal pair (8-connectivity): centres sqrt(2) cells apart
};

ReposeLimits repose_limits(const HeightmapGrid& g, const ErosionParameters& p) {
  const double tan_repose = std::tan(p.repose_angle_rad);
  return {g.cell_size_m * tan_repose, (g.cell_size_m * std::numbers::sqrt2) * tan_repose};
}

struct Kernel {
  ReposeLimits limits;
  double rate = 0.0;  ///< flow rate k, dimensionless
  bool eight = false;
};

Kernel make_kernel(const HeightmapGrid& g, const ErosionParameters& p) {
  return {repose_limits(g, p), effective_flow_rate(p), p.connectivity == Connectivity::Eight};
}

/// Start-of-update heights [m] and blocked flags of grid row j (C), j - 1 (S) and j + 1 (N),
/// indexed by the region-local column c in [0, W). S and N are null at the region's edge rows.
/// Flag: std::uint8_t, the grid's own flags (non-zero = blocked), or double, the padded copy's,
/// whose bits are all ones (blocked) or all zeros (free): lanes as wide as a height's, so the
/// vector loop needs no widening (with byte flags it spilled registers and ran slower).
template <typename Flag>
struct RowsOf {
  const double* hS = nullptr;
  const double* hC = nullptr;
  const double* hN = nullptr;
  const Flag* bS = nullptr;
  const Flag* bC = nullptr;
  const Flag* bN = nullptr;
};
using Rows = RowsOf<std::uint8_t>;

/// The padded copy's flag of a grid flag: all 64 bits set where the cell is blocked.
inline double wide_flag(std::uint8_t flag) {
  return std::bit_cast<double>(std::uint64_t{0} - static_cast<std::uint64_t>(flag != 0));
}

/// `free_value` where the cell is free, `blocked_value` where it is blocked: a select, never a
/// multiply, so a blocked cell's height cannot leak in. For the grid's byte flags a ?: (the row
/// path's masked kernel is not vectorised: its byte loads would need widening, which measured
/// 8 % slower on a 512 x 512 grid with 2 % blocked cells); for the padded copy's 64-bit flags a
/// bit mask, which GCC vectorises (as a ?: it did not: "control flow in loop").
inline double select_free(std::uint8_t flag, double free_value, double blocked_value) {
  return flag != 0 ? blocked_value : free_value;
}
inline double select_free(double flag, double free_value, double blocked_value) {
  const std::uint64_t blocked = std::bit_cast<std::uint64_t>(flag);
  return std::bit_cast<double>((std::bit_cast<std::uint64_t>(free_value) & ~blocked) |
                               (std::bit_cast<std::uint64_t>(blocked_value) & blocked));
}

/// The flow of a pair [m] per unit flow rate: the part of the height difference d = h - h_n that
/// lies beyond the repose band [-limit, limit], i.e. copysign(max(|d| - limit, 0), d) (E1). Written
/// as d - clamp(d) it costs three branch-free operations, and it is exactly antisymmetric: clamp
/// is exact and rounding is sign-symmetric, so the neighbour, which computes -d exactly, gets the
/// exactly negated flow. What one column loses the other gains; volume is conserved to the
/// rounding of the per-cell sums.
inline double pair_flow(double d, double limit_m) {
  return d - std::max(-limit_m, std::min(d, limit_m));
}

/// New heights of the interior columns [c0, c1) of a row (both horizontal neighbours exist), and
/// each cell's largest pair excess. kMasked: some cell of rows S, C, N is blocked. kHasS / kHasN:
/// row S / N exists. Neighbour order (W, E, S, N, SW, SE, NW, NE) matches relax_cell so both paths
/// sum alike.
template <bool kEight, bool kMasked, bool kHasS, bool kHasN, typename Flag = std::uint8_t>
void relax_span(const RowsOf<Flag>& r, int c0, int c1, const Kernel& kr, double* out,
                double* excess_out) {
  const double ts = kr.limits.side_m;
  const double td = kr.limits.diagonal_m;
  const double k = kr.rate;
  const double* hS = r.hS;
  const double* hC = r.hC;
  const double* hN = r.hN;
  const Flag* bS = r.bS;
  const Flag* bC = r.bC;
  const Flag* bN = r.bN;
#pragma omp simd simdlen(8)
  for (int c = c0; c < c1; ++c) {
    const double h = hC[c];
    // A blocked neighbour passes nothing.
    const auto flow = [&](double hn, double limit_m, const Flag* brow, int cn) {
      const double f = pair_flow(h - hn, limit_m);
      if constexpr (kMasked) return select_free(brow[cn], f, 0.0);
      return f;
    };
    double s = flow(hC[c - 1], ts, bC, c - 1);
    double hi = s;
    double lo = s;
    const auto add = [&](double f) {
      s += f;
      hi = std::max(hi, f);
      lo = std::min(lo, f);
    };
    add(flow(hC[c + 1], ts, bC, c + 1));
    if constexpr (kHasS) add(flow(hS[c], ts, bS, c));
    if constexpr (kHasN) add(flow(hN[c], ts, bN, c));
    if constexpr (kEight && kHasS) {
      add(flow(hS[c - 1], td, bS, c - 1));
      add(flow(hS[c + 1], td, bS, c + 1));
    }
    if constexpr (kEight && kHasN) {
      add(flow(hN[c - 1], td, bN, c - 1));
      add(flow(hN[c + 1], td, bN, c + 1));
    }
    double e = std::max(hi, -lo);
    double h_new = h - k * s;
    if constexpr (kMasked) {
      // A blocked cell keeps its height and reports no excess.
      h_new = select_free(bC[c], h_new, h);
      e = select_free(bC[c], e, 0.0);
    }
    out[c] = h_new;
    excess_out[c] = e;
  }
}

using SpanFn = void (*)(const Rows&, int, int, const Kernel&, double*, double*);

template <std::size_t... I>
constexpr std::array<SpanFn, sizeof...(I)> make_span_table(std::index_sequence<I...>) {
  return {&relax_span<(I & 8U) != 0, (I & 4U) != 0, (I & 2U) != 0, (I & 1U) != 0>...};
}

constexpr auto kSpanTable = make_span_table(std::make_index_sequence<16>{});

SpanFn select_span(bool eight, bool masked, bool has_s, bool has_n) {
  return kSpanTable[(eight ? 8U : 0U) | (masked ? 4U : 0U) | (has_s ? 2U : 0U) | (has_n ? 1U : 0U)];
}

/// New height of the single cell at column c of a row W wide, with every neighbour checked: the
/// path for the region's first and last columns. Forced inline, with its pair helper: in the
/// unity build GCC 12 called both out of line, and on a 32-cell stroke bed the two edge cells of
/// each row then took a third of the erosion's time (docs/envs.md, speed of the shaping
/// environments).
[[gnu::always_inline]] inline double relax_cell(const Rows& r, int c, int W, const Kernel& kr,
                                                double& excess_out) {
  const double h = r.hC[c];
  excess_out = 0.0;
  if (r.bC[c] != 0) return h;
  const double ts = kr.limits.side_m;
  const double td = kr.limits.diagonal_m;
  const bool has_w = c > 0;
  const bool has_e = c + 1 < W;
  double s = 0.0;
  double e = 0.0;
  const auto pair = [&](const double* hrow, const std::uint8_t* brow, int cn, double limit_m)
      __attribute__((always_inline)) {
    if (brow[cn] != 0) return;
    const double f = pair_flow(h - hrow[cn], limit_m);
    s += f;
    e = std::max(e, std::abs(f));
  };
  if (has_w) pair(r.hC, r.bC, c - 1, ts);
  if (has_e) pair(r.hC, r.bC, c + 1, ts);
  if (r.hS != nullptr) pair(r.hS, r.bS, c, ts);
  if (r.hN != nullptr) pair(r.hN, r.bN, c, ts);
  if (kr.eight) {
    if (r.hS != nullptr && has_w) pair(r.hS, r.bS, c - 1, td);
    if (r.hS != nullptr && has_e) pair(r.hS, r.bS, c + 1, td);
    if (r.hN != nullptr && has_w) pair(r.hN, r.bN, c - 1, td);
    if (r.hN != nullptr && has_e) pair(r.hN, r.bN, c + 1, td);
  }
  excess_out = e;
  return h - kr.rate * s;
}

bool any_set(const std::uint8_t* flags, int n) {
  std::uint8_t acc = 0;  // a byte-wide accumulator vectorises without widening
  for (int c = 0; c < n; ++c) acc |= flags[c];
  return acc != 0;
}

/// New heights and per-cell largest excess of one row of W cells.
void relax_row(const Rows& r, int W, const Kernel& kr, double* out, double* excess) {
  out[0] = relax_cell(r, 0, W, kr, excess[0]);
  if (W == 1) return;
  if (W > 2) {
    // Rows without blocked cells (the common case) take the unmasked kernel.
    const bool masked = any_set(r.bC, W) || (r.hS != nullptr && any_set(r.bS, W)) ||
                        (r.hN != nullptr && any_set(r.bN, W));
    select_span(kr.eight, masked, r.hS != nullptr, r.hN != nullptr)(r, 1, W - 1, kr, out, excess);
  }
  out[W - 1] = relax_cell(r, W - 1, W, kr, excess[W - 1]);
}

/// The exponent bits of a double: all ones exactly when it is not finite.
constexpr std::uint64_t kExponent = 0x7ff0000000000000ULL;

/// What an update saw, merged over rows and threads with exact, order-free operations (max, min),
/// so the merge is deterministic.
struct Tally {
  double max_excess_m = 0.0;
  int c_min = INT_MAX;  ///< region-local columns of cells that took part in a flow
  int c_max = -1;
  int j_min = INT_MAX;  ///< grid rows of those cells
  int j_max = -1;
  int bad_j = INT_MAX;  ///< first non-finite start-of-update height, row-major (grid row,
  int bad_c = -1;       ///< region-local column); bad_c < 0: none

  void merge(const Tally& o) {
    max_excess_m = std::max(max_excess_m, o.max_excess_m);
    c_min = std::min(c_min, o.c_min);
    c_max = std::max(c_max, o.c_max);
    j_min = std::min(j_min, o.j_min);
    j_max = std::max(j_max, o.j_max);
    if (o.bad_c >= 0 && o.bad_j < bad_j) {
      bad_j = o.bad_j;
      bad_c = o.bad_c;
    }
  }
};

/// Folds row j (start-of-update heights hC, per-cell excess) into the tally. The row maximum is
/// taken on the excesses' bit patterns, which order non-negative doubles as int64 does: GCC
/// vectorises that integer reduction but not a double max (whose NaN rules forbid reordering).
/// Likewise a height is non-finite exactly when its exponent bits are all ones.
void tally_row(const double* hC, const double* excess, int W, int j, Tally& t) {
  std::int64_t row_max_bits = 0;
  std::uint64_t non_finite = 0;
  for (int c = 0; c < W; ++c) {
    row_max_bits = std::max(row_max_bits, std::bit_cast<std::int64_t>(excess[c]));
    non_finite |=
        static_cast<std::uint64_t>((std::bit_cast<std::uint64_t>(hC[c]) & kExponent) == kExponent);
  }
  if (non_finite != 0 && j < t.bad_j) {
    int bad = 0;
    while (std::isfinite(hC[bad])) ++bad;
    t.bad_j = j;
    t.bad_c = bad;
  }
  const double row_max = std::bit_cast<double>(row_max_bits);
  if (row_max > 0.0) {
    int first = 0;
    while (!(excess[first] > 0.0)) ++first;
    int last = W - 1;
    while (!(excess[last] > 0.0)) --last;
    t.max_excess_m = std::max(t.max_excess_m, row_max);
    t.c_min = std::min(t.c_min, first);
    t.c_max = std::max(t.c_max, last);
    t.j_min = std::min(t.j_min, j);
    t.j_max = std::max(t.j_max, j);
  }
}

/// The region being updated and where its rows live.
struct Sweep {
  double* h = nullptr;
  const std::uint8_t* blocked = nullptr;
  int nx = 0;
  int i0 = 0, j0 = 0, W = 0, H = 0;
  Kernel kernel;

  double* row(int j) const { return h + static_cast<std::size_t>(j) * nx + i0; }
  const std::uint8_t* brow(int j) const { return blocked + static_cast<std::size_t>(j) * nx + i0; }
};

/// Updates rows [ja, jb) of the region in place. halo_s / halo_n: copies of the start-of-update
/// heights of rows ja - 1 / jb when another block owns them (null: that row is outside the region,
/// or this is the only block). buf: 3 W doubles.
void relax_rows(const Sweep& sw, int ja, int jb, const double* halo_s, const double* halo_n,
                double* buf, Tally& tally) {
  const int W = sw.W;
  const int j_last = sw.j0 + sw.H - 1;
  double* excess = buf + 2 * static_cast<std::size_t>(W);
  double* pending = nullptr;  // new heights of row j - 1, written back once row j is done
  for (int j = ja; j < jb; ++j) {
    Rows r;
    r.hC = sw.row(j);
    r.bC = sw.brow(j);
    if (j > sw.j0) {
      r.hS = (j == ja && halo_s != nullptr) ? halo_s : sw.row(j - 1);
      r.bS = sw.brow(j - 1);
    }
    if (j < j_last) {
      r.hN = (j + 1 == jb && halo_n != nullptr) ? halo_n : sw.row(j + 1);
      r.bN = sw.brow(j + 1);
    }
    double* out = buf + static_cast<std::size_t>((j - ja) & 1) * W;
    relax_row(r, W, sw.kernel, out, excess);
    tally_row(r.hC, excess, W, j, tally);
    if (pending != nullptr) std::memcpy(sw.row(j - 1), pending, sizeof(double) * W);
    pending = out;
  }
  if (pending != nullptr) std::memcpy(sw.row(jb - 1), pending, sizeof(double) * W);
}

/// The tally of an update in HeldRegion's layout, equal to tally_row's over the region's
/// rows. One pass over the whole copy finds the largest excess and any non-finite height (the ring
/// holds zeros, which change neither); then only the rows between the first and the last cell with
/// an excess are searched for the changed columns, and in each only outside the columns found so
/// far.
Tally tally_padded(const double* h, const double* excess, std::size_t P, int W, int H, int j0) {
  const std::size_t end = static_cast<std::size_t>(H - 1) * P + static_cast<std::size_t>(W) + 1;
  std::int64_t max_bits = 0;
  std::uint64_t non_finite = 0;
  for (std::size_t c = 1; c < end; ++c) {
    max_bits = std::max(max_bits, std::bit_cast<std::int64_t>(excess[c]));
    non_finite |= static_cast<std::uint64_t>((std::bit_cast<std::uint64_t>(h[P + c]) & kExponent) ==
                                             kExponent);
  }
  Tally t;
  if (non_finite != 0) {  // rare: let the row tally name the first bad cell
    for (int y = 0; y < H; ++y) {
      const std::size_t row = static_cast<std::size_t>(y) * P + 1;
      tally_row(h + P + row, excess + row, W, j0 + y, t);
    }
    return t;
  }
  if (max_bits == 0) return t;
  std::size_t first = 1;
  while (!(excess[first] > 0.0)) ++first;
  std::size_t last = end - 1;
  while (!(excess[last] > 0.0)) --last;
  const int y_first = static_cast<int>((first - 1) / P);
  const int y_last = static_cast<int>((last - 1) / P);
  int c_min = static_cast<int>((first - 1) % P);
  int c_max = static_cast<int>((last - 1) % P);
  for (int y = y_first; y <= y_last; ++y) {
    const double* row = excess + static_cast<std::size_t>(y) * P + 1;
    for (int c = 0; c < c_min; ++c) {
      if (row[c] > 0.0) {
        c_min = c;
        break;
      }
    }
    for (int c = W - 1; c > c_max; --c) {
      if (row[c] > 0.0) {
        c_max = c;
        break;
      }
    }
  }
  t.max_excess_m = std::bit_cast<double>(max_bits);
  t.c_min = c_min;
  t.c_max = c_max;
  t.j_min = j0 + y_first;
  t.j_max = j0 + y_last;
  return t;
}

/// A small region held, between updates, in a copy with a ring of blocked cells (see the top of
/// the file). Cell (x, y) of a W x H region sits at (y + 1) * P + x + 1 of the copy, P = W + 2.
/// With rows S, C, N at offsets 0, P and 2 P the whole region is one span of the masked kernel,
/// written into a second copy of the same layout; the two then swap, so while the region stays
/// the same (94 % of a tool's updates, 2026-12-02) nothing is copied between updates. A ring
/// neighbour is blocked, so its pair adds exactly 0 where the row path leaves the pair out: the
/// heights are bit-identical to relax_rows' (the sign of a zero sum aside, which only a height of
/// -0 could show).
class HeldRegion {
 public:
  bool holds(const IndexBox& box) const { return held_ && box == box_; }

  /// Copies the region of `sw` (W x H cells) out of the grid; scratch provides the memory.
  void load(const Sweep& sw, std::vector<double>& scratch) {
    const double kBlocked = wide_flag(1);
    sw_ = sw;
    box_ = {sw.i0, sw.j0, sw.i0 + sw.W, sw.j0 + sw.H};
    W_ = static_cast<std::size_t>(sw.W);
    H_ = static_cast<std::size_t>(sw.H);
    P_ = W_ + 2;
    const std::size_t padded = (H_ + 2) * P_;
    if (scratch.size() < 3 * padded + H_ * P_) scratch.resize(3 * padded + H_ * P_);
    cur_ = scratch.data();
    next_ = cur_ + padded;
    flags_ = next_ + padded;  // kBlocked or 0.0, compared only through bit_cast
    excess_ = flags_ + padded;
    std::fill_n(cur_, padded, 0.0);
    std::fill_n(next_, padded, 0.0);  // the ring cells the kernel does not write
    std::fill_n(flags_, padded, kBlocked);
    for (std::size_t y = 0; y < H_; ++y) {
      const int j = sw.j0 + static_cast<int>(y);
      std::memcpy(cur_ + (y + 1) * P_ + 1, sw.row(j), sizeof(double) * W_);
      const std::uint8_t* grid_flags = sw.brow(j);
      double* flags = flags_ + (y + 1) * P_ + 1;
      for (std::size_t x = 0; x < W_; ++x) flags[x] = wide_flag(grid_flags[x]);  // vectorises
    }
    held_ = true;
    changed_ = false;
  }

  /// One update of the held region.
  Tally update() {
    const RowsOf<double> r{cur_, cur_ + P_, cur_ + 2 * P_, flags_, flags_ + P_, flags_ + 2 * P_};
    const int end = static_cast<int>((H_ - 1) * P_ + W_ + 1);
    if (sw_.kernel.eight) {
      relax_span<true, true, true, true>(r, 1, end, sw_.kernel, next_ + P_, excess_);
    } else {
      relax_span<false, true, true, true>(r, 1, end, sw_.kernel, next_ + P_, excess_);
    }
    const Tally t = tally_padded(cur_, excess_, P_, sw_.W, sw_.H, sw_.j0);
    std::swap(cur_, next_);
    changed_ = true;
    return t;
  }

  /// Writes the held heights back into the grid (a no-op when they have not changed).
  void store() {
    if (!changed_) return;
    for (std::size_t y = 0; y < H_; ++y) {
      std::memcpy(sw_.row(sw_.j0 + static_cast<int>(y)), cur_ + (y + 1) * P_ + 1,
                  sizeof(double) * W_);
    }
    changed_ = false;
  }

  /// Stores and lets go: the scratch is free for other use.
  void release() {
    store();
    held_ = false;
  }

 private:
  Sweep sw_;
  IndexBox box_;
  std::size_t W_ = 0, H_ = 0, P_ = 0;
  double* cur_ = nullptr;
  double* next_ = nullptr;
  double* flags_ = nullptr;
  double* excess_ = nullptr;
  bool held_ = false;
  bool changed_ = false;
};

/// One update of a region through its rows, in place, on the OpenMP threads (see the top of the
/// file).
Tally update_rows(const Sweep& sw, std::vector<double>& scratch) {
  const std::size_t W = static_cast<std::size_t>(sw.W);
  const int threads = omp_get_max_threads();
  const int blocks = threads == 1 ? 1 : std::clamp(sw.H / kMinRowsPerBlock, 1, threads);
  // Layout: 3 working rows per thread, then 2 halo rows per block boundary.
  const std::size_t needed = (3 * static_cast<std::size_t>(threads) + 2 * (blocks - 1)) * W;
  if (scratch.size() < needed) scratch.resize(needed);

  Tally tally;
  if (blocks == 1) {
    relax_rows(sw, sw.j0, sw.j0 + sw.H, nullptr, nullptr, scratch.data(), tally);
    return tally;
  }
  const auto block_start = [&](int b) {
    return sw.j0 + static_cast<int>(static_cast<long>(sw.H) * b / blocks);
  };
  // Before anything is overwritten, keep the start-of-update heights of the two rows on either
  // side of every block boundary: each block reads its neighbours' edge rows from these copies,
  // so blocks can run in any order, on any thread, without waiting for one another.
  double* halos = scratch.data() + 3 * static_cast<std::size_t>(threads) * W;
  const auto halo_last = [&](int b) { return halos + (2 * static_cast<std::size_t>(b)) * W; };
  const auto halo_first = [&](int b) { return halos + (2 * static_cast<std::size_t>(b) - 1) * W; };
  for (int b = 0; b + 1 < blocks; ++b) {
    std::memcpy(halo_last(b), sw.row(block_start(b + 1) - 1), sizeof(double) * W);
    std::memcpy(halo_first(b + 1), sw.row(block_start(b + 1)), sizeof(double) * W);
  }
  // The merge is order-free, so the result does not depend on which thread ran which block (a
  // team smaller than asked for simply runs several blocks per thread).
#pragma omp parallel num_threads(blocks)
  {
    double* buf = scratch.data() + 3 * static_cast<std::size_t>(omp_get_thread_num()) * W;
    Tally local;
#pragma omp for schedule(static) nowait
    for (int b = 0; b < blocks; ++b) {
      relax_rows(sw, block_start(b), block_start(b + 1), b > 0 ? halo_last(b - 1) : nullptr,
                 b + 1 < blocks ? halo_first(b + 1) : nullptr, buf, local);
    }
#pragma omp critical(talus_erosion_tally)
    tally.merge(local);
  }
  return tally;
}

/// The updates of one call of the public functions on one grid. A region below
/// ErosionParameters::min_cells_for_threads is held (HeldRegion) from one update to the next while
/// it stays the same; the grid is brought up to date before another region is updated and by
/// store() at the end. Larger regions are updated through their rows, on threads.
class RegionUpdater {
 public:
  RegionUpdater(const HeightmapGrid& g, const ErosionParameters& p, std::span<double> height_m,
                std::span<const std::uint8_t> blocked, std::vector<double>& scratch)
      : p_(p), scratch_(scratch) {
    base_.h = height_m.data();
    base_.blocked = blocked.data();
    base_.nx = g.nx;
    base_.kernel = make_kernel(g, p);  // once per call: it takes a tangent
  }

  /// One update of a non-empty region inside the grid.
  Tally update(const IndexBox& region) {
    if (held_.holds(region)) return held_.update();
    held_.release();
    Sweep sw = base_;
    sw.i0 = region.i0;
    sw.j0 = region.j0;
    sw.W = region.i1 - region.i0;
    sw.H = region.j1 - region.j0;
    if (static_cast<long>(sw.W) * sw.H >= p_.min_cells_for_threads)
      return update_rows(sw, scratch_);
    held_.load(sw, scratch_);
    return held_.update();
  }

  /// Brings the grid up to date.
  void store() { held_.store(); }

 private:
  const ErosionParameters& p_;
  std::vector<double>& scratch_;
  Sweep base_;
  HeldRegion held_;
};

IndexBox changed_box(const Tally& t, int i0) {
  if (t.j_max < 0) return {};
  return {i0 + t.c_min, t.j_min, i0 + t.c_max + 1, t.j_max + 1};
}

[[noreturn]] void throw_invalid(const std::string& what) { throw std::invalid_argument(what); }

void validate_surface(const HeightmapGrid& g, const ErosionParameters& p, std::size_t heights,
                      std::size_t blocked) {
  validate(p, g);
  const auto n = static_cast<std::size_t>(g.sample_count());
  if (heights != n) {
    throw_invalid(
        fmt::format("erosion: height_m must hold nx * ny = {} values, got {}", n, heights));
  }
  if (blocked != n) {
    throw_invalid(
        fmt::format("erosion: blocked must hold nx * ny = {} values, got {}", n, blocked));
  }
}

}  // namespace

double default_flow_rate(Connectivity connectivity) {
  switch (connectivity) {
    case Connectivity::Four:
      return 1.0 / 5.0;
    case Connectivity::Eight:
      return 1.0 / 9.0;
  }
  throw_invalid(
      fmt::format("connectivity must be Connectivity::Four or Connectivity::Eight, got {}",
                  static_cast<int>(connectivity)));
}

double max_flow_rate(const HeightmapGrid& grid, Connectivity connectivity) {
  if (grid.nx == 1 || grid.ny == 1) return 0.5;  // a line of cells: at most 2 neighbours
  return connectivity == Connectivity::Four ? 0.25 : 0.125;
}

double effective_flow_rate(const ErosionParameters& p) {
  return p.flow_rate == 0.0 ? default_flow_rate(p.connectivity) : p.flow_rate;
}

void validate(const ErosionParameters& p, const HeightmapGrid& g) {
  validate(g);
  if (!(p.repose_angle_rad > 0.0 && p.repose_angle_rad < std::numbers::pi / 2)) {
    throw_invalid(
        fmt::format("ErosionParameters.repose_angle_rad must be in (0, pi/2) [rad], got {}",
                    p.repose_angle_rad));
  }
  if (p.connectivity != Connectivity::Four && p.connectivity != Connectivity::Eight) {
    throw_invalid(
        fmt::format("ErosionParameters.connectivity must be Four (4) or Eight (8), got {}",
                    static_cast<int>(p.connectivity)));
  }
  const double k_max = max_flow_rate(g, p.connectivity);
  if (!(p.flow_rate == 0.0 || (p.flow_rate > 0.0 && p.flow_rate <= k_max))) {
    throw_invalid(fmt::format(
        "ErosionParameters.flow_rate must be 0 (derived default) or in (0, {}] for this grid and "
        "connectivity (stability bound, docs/erosion.md), got {}",
        k_max, p.flow_rate));
  }
  if (!(p.tolerance_m > 0.0 && std::isfinite(p.tolerance_m))) {
    throw_invalid(fmt::format("ErosionParameters.tolerance_m must be > 0 and finite [m], got {}",
                              p.tolerance_m));
  }
  if (p.max_updates < 1) {
    throw_invalid(fmt::format("ErosionParameters.max_updates must be >= 1, got {}", p.max_updates));
  }
}

ErosionUpdate erosion_update(const HeightmapGrid& grid, const ErosionParameters& p,
                             std::span<double> height_m, std::span<const std::uint8_t> blocked,
                             const IndexBox& region, std::vector<double>& scratch) {
  validate_surface(grid, p, height_m.size(), blocked.size());
  if (region.empty()) return {};
  if (!grid.whole().contains(region)) {
    throw_invalid(
        fmt::format("erosion_update: region must lie inside the grid, 0 <= i0 < i1 <= nx = {} and "
                    "0 <= j0 < j1 <= ny = {}; got [{}, {}) x [{}, {})",
                    grid.nx, grid.ny, region.i0, region.i1, region.j0, region.j1));
  }
  RegionUpdater updater(grid, p, height_m, blocked, scratch);
  const Tally t = updater.update(region);
  updater.store();
  if (t.bad_c >= 0) {
    // The start-of-update value is gone; the cell still holds a non-finite value (it cannot heal).
    const int i = region.i0 + t.bad_c;
    throw std::runtime_error(fmt::format(
        "erosion_update: height_m at cell (i, j) = ({}, {}) was not finite at the start of the "
        "update (now {})",
        i, t.bad_j, height_m[grid.index(i, t.bad_j)]));
  }
  return {changed_box(t, region.i0), t.max_excess_m};
}

ErosionResult erode_to_steady_state(const HeightmapGrid& grid, const ErosionParameters& p,
                                    std::span<double> height_m,
                                    std::span<const std::uint8_t> blocked, IndexBox active,
                                    std::vector<double>& scratch) {
  validate_surface(grid, p, height_m.size(), blocked.size());
  ErosionResult result;
  active = grid.clamped(active);
  if (active.empty()) {
    result.converged = true;
    return result;
  }
  // Cells of `active` changed, so the first update must also let their neighbours take sand.
  IndexBox region = grid.clamped(grown(active, 1));
  IndexBox last_changed;
  RegionUpdater updater(grid, p, height_m, blocked, scratch);
  for (int n = 1; n <= p.max_updates; ++n) {
    const Tally t = updater.update(region);
    result.updates = n;
    result.cells_updated += region.count();
    result.max_excess_m = t.max_excess_m;
    if (t.bad_c >= 0) {
      updater.store();
      const int i = region.i0 + t.bad_c;
      throw std::runtime_error(
          fmt::format("erode_to_steady_state: height_m at cell (i, j) = ({}, {}) was not finite at "
                      "the start of "
                      "update {} (now {})",
                      i, t.bad_j, n, height_m[grid.index(i, t.bad_j)]));
    }
    last_changed = changed_box(t, region.i0);
    if (t.max_excess_m <= p.tolerance_m) {
      result.converged = true;
      break;
    }
    region = grid.clamped(grown(last_changed, 1));
  }
  updater.store();
  // Every height an update wrote was checked at the start of the next one, except the last's.
  for (int j = last_changed.j0; j < last_changed.j1; ++j) {
    for (int i = last_changed.i0; i < last_changed.i1; ++i) {
      const double h = height_m[grid.index(i, j)];
      if (!std::isfinite(h)) {
        throw std::runtime_error(fmt::format(
            "erode_to_steady_state: height_m at cell (i, j) = ({}, {}) is {} after update {}", i, j,
            h, result.updates));
      }
    }
  }
  return result;
}

double max_repose_excess(const HeightmapGrid& grid, const ErosionParameters& p,
                         std::span<const double> height_m, std::span<const std::uint8_t> blocked) {
  validate_surface(grid, p, height_m.size(), blocked.size());
  const ReposeLimits lim = repose_limits(grid, p);
  const bool eight = p.connectivity == Connectivity::Eight;
  double worst = 0.0;
  // Each pair once: from every cell to its E, N, NE and NW neighbours.
  const std::array<std::array<int, 2>, 4> forward = {{{1, 0}, {0, 1}, {1, 1}, {-1, 1}}};
  for (int j = 0; j < grid.ny; ++j) {
    for (int i = 0; i < grid.nx; ++i) {
      if (blocked[grid.index(i, j)] != 0) continue;
      const double h = height_m[grid.index(i, j)];
      for (int n = 0; n < (eight ? 4 : 2); ++n) {
        const int in = i + forward[n][0];
        const int jn = j + forward[n][1];
        if (in < 0 || in >= grid.nx || jn >= grid.ny) continue;
        if (blocked[grid.index(in, jn)] != 0) continue;
        const double d = h - height_m[grid.index(in, jn)];
        if (std::isnan(d)) return d;
        worst = std::max(worst, std::abs(d) - (n < 2 ? lim.side_m : lim.diagonal_m));
      }
    }
  }
  return worst;
}

}  // namespace talus
