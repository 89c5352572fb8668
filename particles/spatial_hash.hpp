#pragma once
// Broadphase of the particle tier (paper 001 §II-B): particles are binned into cubic cells of edge
// >= the largest contact distance, so every contact partner of a particle lies in its own cell or
// one of the 26 around it. Cells are hashed into a table of buckets with Teschner et al.'s rule
// (paper 001 eq. (6)):
//   h(c) = (p1 c_x) xor (p2 c_y) xor (p3 c_z) mod n_h,  p = (73856093, 19349663, 83492791),
// with c the integer cell coordinates (floor of position / cell edge from the container's lower
// corner; the paper's round(x / 2r) - q differs only by a shift of the cell lattice). Several
// cells can share a bucket, so a query keeps only members whose stored cell equals the cell asked
// for: each partner is visited exactly once.
//
// Two layouts of the buckets (ParticleModel::Broadphase):
// - kLinkedHash: paper 001 Algorithm 2. head[b] is the first particle of bucket b, next[i] the one
//   after i; built by one thread per particle pushing itself onto its bucket's list with an atomic
//   compare-and-swap on head[b] (std::atomic_ref). The reference Julia CPU code does a plain
//   read-then-write, which loses particles when two threads push onto one bucket at once.
// - kSortedCells: counting sort of the particle indices by bucket (bucket_start, sorted), members
//   of a bucket in increasing index; contiguous reads, deterministic by construction. When the
//   particles' cells fit in a box of at most kDenseCellsPerParticle x n cells (any bed in a
//   container), the "bucket" is the cell's dense linear index in that box instead of its Teschner
//   hash (`dense`): no two cells share a bucket, so a query needs no cell check, and the three
//   cells of a neighbourhood row along x are one contiguous run of `sorted`. The Teschner hash
//   clusters badly on the small cell coordinates of a bed (long buckets of foreign cells): the
//   dense index made the detection pass ~Nx faster (docs/particles.md §5).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "particles/particle_model.hpp"

namespace talus::particles {

inline constexpr std::uint32_t kHashP1 = 73856093u;
inline constexpr std::uint32_t kHashP2 = 19349663u;
inline constexpr std::uint32_t kHashP3 = 83492791u;

/// kSortedCells uses a dense cell index when the particles' cell box has at most this many cells
/// per particle.
inline constexpr std::int64_t kDenseCellsPerParticle = 8;

/// Teschner hash of integer cell coordinates into [0, table_size) (paper 001 eq. (6)); negative
/// coordinates wrap through unsigned arithmetic.
inline std::uint32_t teschner_hash(std::int32_t cx, std::int32_t cy, std::int32_t cz,
                                   std::uint32_t table_size) {
  return ((static_cast<std::uint32_t>(cx) * kHashP1) ^ (static_cast<std::uint32_t>(cy) * kHashP2) ^
          (static_cast<std::uint32_t>(cz) * kHashP3)) %
         table_size;
}

/// The cell lattice: cell of a point p is floor((p - origin) / edge) per axis; along the periodic
/// axis (if any) the edge is stretched so that `periodic_cells` cells tile the period exactly and
/// coordinates wrap modulo periodic_cells.
struct CellGrid {
  float origin_m[3] = {0.0f, 0.0f, 0.0f};
  float inv_edge_per_m[3] = {1.0f, 1.0f, 1.0f};  ///< 1 / cell edge per axis [1/m]
  int periodic_axis = -1;
  std::int32_t periodic_cells = 0;  ///< cells along the periodic axis (>= 3), else 0

  /// Integer cell coordinate of coordinate value v_m along `axis`.
  std::int32_t cell_of(float v_m, int axis) const;
  /// Wraps a neighbour's coordinate along `axis` into [0, periodic_cells) on the periodic axis.
  std::int32_t wrap(std::int32_t c, int axis) const {
    if (axis != periodic_axis) return c;
    if (c < 0) return c + periodic_cells;
    if (c >= periodic_cells) return c - periodic_cells;
    return c;
  }
};

/// The separation of two particles along the model's periodic axis (if any) reduced to its
/// minimum image, in float: the one expression the detection pass, the neighbour list and its
/// staleness test share, so that they agree to the bit on which pairs are within reach.
struct MinimumImage {
  int axis = -1;
  float period_m = 0.0f;
  float inv_period_per_m = 0.0f;

  explicit MinimumImage(const ParticleModel& model);
  /// Shifts d[axis] [m] by whole periods into [-period / 2, period / 2].
  void apply(float (&d)[3]) const {
    if (axis >= 0) d[axis] -= period_m * std::rint(d[axis] * inv_period_per_m);
  }
};

/// The cell grid for a model whose largest particle radius is max_radius_m [m]: edge
/// 2 max_radius + contact_margin + skin_m (the neighbour list's skin, neighbour_list.hpp), origin
/// at the container's lower corner (world origin without a container). Throws
/// std::invalid_argument when the periodic period holds fewer than 3 cells.
CellGrid make_cell_grid(const ParticleModel& model, float max_radius_m, float skin_m = 0.0f);

/// Buckets of particles by cell. Rebuilt by build_spatial_hash at every step, or with the
/// neighbour list when that is stale; memory is reused.
struct SpatialHash {
  Broadphase kind = Broadphase::kSortedCells;
  CellGrid grid;
  std::uint32_t table_size = 1;
  std::vector<std::int32_t> cx, cy, cz;  ///< per particle: integer cell coordinates
  std::vector<std::uint32_t> bucket;     ///< per particle: its bucket
  // kLinkedHash
  std::vector<std::int32_t> head;  ///< per bucket: first particle or -1
  std::vector<std::int32_t> next;  ///< per particle: next particle in its bucket or -1
  // kSortedCells
  std::vector<std::int32_t> bucket_start;  ///< per bucket + 1: offsets into `sorted`
  std::vector<std::int32_t> sorted;        ///< particle indices grouped by bucket
  bool dense = false;                      ///< buckets are dense cell indices (see above)
  std::int32_t cell_lo[3] = {0, 0, 0};     ///< dense: lowest cell coordinate per axis
  std::int32_t cell_dim[3] = {1, 1, 1};    ///< dense: cells per axis

  /// Calls f(j) once for every particle j (i included) in the 27 cells around cell (x, y, z).
  template <class F>
  void for_each_in_neighbourhood(std::int32_t x, std::int32_t y, std::int32_t z, F&& f) const;
  /// A dense hash only: calls f(k0, k1) for runs of `sorted` that together hold every particle of
  /// the 27 cells around cell (x, y, z) once (one run per row of three cells along x, or per cell
  /// when x is the periodic axis).
  template <class F>
  void for_each_run_in_neighbourhood(std::int32_t x, std::int32_t y, std::int32_t z, F&& f) const;
};

/// Bins the n particles at (x, y, z) [m] into `hash` with layout `kind`, table size
/// max(1, round(table_factor * n)) buckets, using `threads` OpenMP threads (>= 1).
void build_spatial_hash(SpatialHash& hash, Broadphase kind, const CellGrid& grid,
                        double table_factor, const float* x, const float* y, const float* z,
                        std::size_t n, int threads);

template <class F>
void SpatialHash::for_each_in_neighbourhood(std::int32_t x, std::int32_t y, std::int32_t z,
                                            F&& f) const {
  if (dense) {
    for_each_run_in_neighbourhood(x, y, z, [&](std::int32_t k0, std::int32_t k1) {
      for (std::int32_t k = k0; k < k1; ++k) f(sorted[k]);
    });
    return;
  }
  for (std::int32_t dz = -1; dz <= 1; ++dz) {
    const std::int32_t qz = grid.wrap(z + dz, 2);
    for (std::int32_t dy = -1; dy <= 1; ++dy) {
      const std::int32_t qy = grid.wrap(y + dy, 1);
      for (std::int32_t dx = -1; dx <= 1; ++dx) {
        const std::int32_t qx = grid.wrap(x + dx, 0);
        const std::uint32_t b = teschner_hash(qx, qy, qz, table_size);
        if (kind == Broadphase::kLinkedHash) {
          for (std::int32_t j = head[b]; j >= 0; j = next[j]) {
            if (cx[j] == qx && cy[j] == qy && cz[j] == qz) f(j);
          }
        } else {
          for (std::int32_t k = bucket_start[b]; k < bucket_start[b + 1]; ++k) {
            const std::int32_t j = sorted[k];
            if (cx[j] == qx && cy[j] == qy && cz[j] == qz) f(j);
          }
        }
      }
    }
  }
}

template <class F>
void SpatialHash::for_each_run_in_neighbourhood(std::int32_t x, std::int32_t y, std::int32_t z,
                                                F&& f) const {
  // Along x the cells of a row are consecutive dense indices: one run of `sorted` per row,
  // unless x is the periodic axis (then the row may wrap: one run per cell).
  const bool x_runs = grid.periodic_axis != 0;
  for (std::int32_t dz = -1; dz <= 1; ++dz) {
    const std::int32_t lz = grid.wrap(z + dz, 2) - cell_lo[2];
    if (lz < 0 || lz >= cell_dim[2]) continue;
    for (std::int32_t dy = -1; dy <= 1; ++dy) {
      const std::int32_t ly = grid.wrap(y + dy, 1) - cell_lo[1];
      if (ly < 0 || ly >= cell_dim[1]) continue;
      const std::int32_t row = (lz * cell_dim[1] + ly) * cell_dim[0];
      if (x_runs) {
        const std::int32_t x0 = std::max(x - 1 - cell_lo[0], 0);
        const std::int32_t x1 = std::min(x + 1 - cell_lo[0], cell_dim[0] - 1);
        if (x0 <= x1) f(bucket_start[row + x0], bucket_start[row + x1 + 1]);
      } else {
        for (std::int32_t dx = -1; dx <= 1; ++dx) {
          const std::int32_t lx = grid.wrap(x + dx, 0) - cell_lo[0];
          if (lx < 0 || lx >= cell_dim[0]) continue;
          f(bucket_start[row + lx], bucket_start[row + lx + 1]);
        }
      }
    }
  }
}

}  // namespace talus::particles
