#include "particles/spatial_hash.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace talus::particles {

std::int32_t CellGrid::cell_of(float v_m, int axis) const {
  float c = std::floor((v_m - origin_m[axis]) * inv_edge_per_m[axis]);
  if (axis == periodic_axis) {
    // Positions are wrapped into [lo, hi); rounding can still put one on the upper edge.
    c = std::clamp(c, 0.0f, static_cast<float>(periodic_cells - 1));
  } else {
    // Far-away (or non-finite) particles all land in the outermost cells instead of overflowing.
    c = std::clamp(c, -1.0e9f, 1.0e9f);
    if (std::isnan(c)) c = 0.0f;
  }
  return static_cast<std::int32_t>(c);
}

MinimumImage::MinimumImage(const ParticleModel& model) : axis(model.periodic_axis) {
  if (axis >= 0) {
    period_m = static_cast<float>(model.container.box.hi[axis] - model.container.box.lo[axis]);
    inv_period_per_m = 1.0f / period_m;
  }
}

CellGrid make_cell_grid(const ParticleModel& model, float max_radius_m, float skin_m) {
  CellGrid grid;
  const double edge = 2.0 * double(max_radius_m) + model.contact_margin_m + double(skin_m);
  for (int a = 0; a < 3; ++a) {
    grid.origin_m[a] = model.container.kind == Container::Kind::kNone
                           ? 0.0f
                           : static_cast<float>(model.container.box.lo[a]);
    grid.inv_edge_per_m[a] = static_cast<float>(1.0 / edge);
  }
  if (model.periodic_axis >= 0) {
    const int a = model.periodic_axis;
    const double period = model.container.box.hi[a] - model.container.box.lo[a];
    const double cells = std::floor(period / edge);
    if (cells < 3.0) {
      throw std::invalid_argument(fmt::format(
          "particle model: the periodic period {} m holds fewer than 3 cells of {} m (2 x largest "
          "radius + contact margin + neighbour skin)",
          period, edge));
    }
    grid.periodic_axis = a;
    grid.periodic_cells = static_cast<std::int32_t>(cells);
    grid.inv_edge_per_m[a] = static_cast<float>(cells / period);
  }
  return grid;
}

void build_spatial_hash(SpatialHash& hash, Broadphase kind, const CellGrid& grid,
                        double table_factor, const float* x, const float* y, const float* z,
                        std::size_t n, int threads) {
  hash.kind = kind;
  hash.dense = false;
  hash.grid = grid;
  hash.table_size =
      static_cast<std::uint32_t>(std::max(1.0, std::round(table_factor * static_cast<double>(n))));
  hash.cx.resize(n);
  hash.cy.resize(n);
  hash.cz.resize(n);
  hash.bucket.resize(n);
  const auto count = static_cast<std::int64_t>(n);
  const std::int64_t table = hash.table_size;

  if (kind == Broadphase::kLinkedHash) {
    hash.head.resize(hash.table_size);
    hash.next.resize(n);
    std::int32_t* head = hash.head.data();
    std::int32_t* next = hash.next.data();
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
      for (std::int64_t b = 0; b < table; ++b) head[b] = -1;
        // The loop above ends in a barrier: every head is -1 before any particle is pushed.
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < count; ++i) {
        const std::int32_t cx = grid.cell_of(x[i], 0);
        const std::int32_t cy = grid.cell_of(y[i], 1);
        const std::int32_t cz = grid.cell_of(z[i], 2);
        hash.cx[i] = cx;
        hash.cy[i] = cy;
        hash.cz[i] = cz;
        const std::uint32_t b = teschner_hash(cx, cy, cz, hash.table_size);
        hash.bucket[i] = b;
        // Paper 001 Algorithm 2 with a real compare-and-swap: link i in front of the head we saw,
        // and publish i as the head only if nobody changed it meanwhile; otherwise retry with the
        // new head. next[i] is written before the release so a reader that sees i sees its link.
        std::atomic_ref<std::int32_t> bucket_head(head[b]);
        std::int32_t seen = bucket_head.load(std::memory_order_relaxed);
        do {
          next[i] = seen;
        } while (!bucket_head.compare_exchange_weak(seen, static_cast<std::int32_t>(i),
                                                    std::memory_order_release,
                                                    std::memory_order_relaxed));
      }
    }
    return;
  }

  // kSortedCells: counting sort by bucket. Counts are atomic increments (their totals do not
  // depend on order); the scatter runs in index order, so a bucket's members are ascending.
  hash.sorted.resize(n);
  std::int32_t* cxs = hash.cx.data();
  std::int32_t* cys = hash.cy.data();
  std::int32_t* czs = hash.cz.data();
  std::int32_t lo0 = std::numeric_limits<std::int32_t>::max(), lo1 = lo0, lo2 = lo0;
  std::int32_t hi0 = std::numeric_limits<std::int32_t>::min(), hi1 = hi0, hi2 = hi0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(min              \
                                                                         : lo0, lo1, lo2) \
    reduction(max                                                                         \
              : hi0, hi1, hi2)
  for (std::int64_t i = 0; i < count; ++i) {
    cxs[i] = grid.cell_of(x[i], 0);
    cys[i] = grid.cell_of(y[i], 1);
    czs[i] = grid.cell_of(z[i], 2);
    lo0 = std::min(lo0, cxs[i]);
    hi0 = std::max(hi0, cxs[i]);
    lo1 = std::min(lo1, cys[i]);
    hi1 = std::max(hi1, cys[i]);
    lo2 = std::min(lo2, czs[i]);
    hi2 = std::max(hi2, czs[i]);
  }
  const std::int32_t lo[3] = {lo0, lo1, lo2};
  const std::int32_t hi[3] = {hi0, hi1, hi2};
  std::int64_t cells = 1;
  hash.dense = count > 0;
  for (int a = 0; a < 3 && hash.dense; ++a) {
    if (a == grid.periodic_axis) {  // all cells of the period: neighbours wrap around it
      hash.cell_lo[a] = 0;
      hash.cell_dim[a] = grid.periodic_cells;
    } else {
      hash.cell_lo[a] = lo[a];
      const std::int64_t dim = std::int64_t(hi[a]) - lo[a] + 1;
      hash.cell_dim[a] = static_cast<std::int32_t>(std::min<std::int64_t>(dim, 1 << 30));
      if (dim > (1 << 30)) hash.dense = false;
    }
    cells *= hash.cell_dim[a];
    if (cells > std::max<std::int64_t>(64, kDenseCellsPerParticle * count)) hash.dense = false;
  }
  if (hash.dense) hash.table_size = static_cast<std::uint32_t>(cells);
  const std::int64_t table_used = hash.table_size;
  hash.bucket_start.assign(hash.table_size + 1, 0);
  std::int32_t* start = hash.bucket_start.data();
  const bool dense = hash.dense;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint32_t b =
        dense ? static_cast<std::uint32_t>(
                    ((czs[i] - hash.cell_lo[2]) * hash.cell_dim[1] + (cys[i] - hash.cell_lo[1])) *
                        hash.cell_dim[0] +
                    (cxs[i] - hash.cell_lo[0]))
              : teschner_hash(cxs[i], cys[i], czs[i], hash.table_size);
    hash.bucket[i] = b;
    std::atomic_ref<std::int32_t>(start[b + 1]).fetch_add(1, std::memory_order_relaxed);
  }
  for (std::int64_t b = 0; b < table_used; ++b) start[b + 1] += start[b];
  // Scatter with a running cursor per bucket, reusing the counts' slot: cursor[b] = start[b].
  std::vector<std::int32_t>& sorted = hash.sorted;
  std::vector<std::int32_t> cursor(hash.bucket_start.begin(), hash.bucket_start.end() - 1);
  for (std::int64_t i = 0; i < count; ++i) {
    sorted[cursor[hash.bucket[i]]++] = static_cast<std::int32_t>(i);
  }
}

}  // namespace talus::particles
