#pragma once
// One regular grid of height samples for every tier that keeps a height field: the sand-shaping
// tier's heightmap (shaping/heightmap.hpp) and SCM's node grid (scm/scm_model.hpp). Where a
// sample lies, how a world coordinate maps to indices and how boxes of indices behave are written
// here once, so the tiers cannot drift apart by half a cell.
//
// Convention. Sample (i, j), 0 <= i < nx, 0 <= j < ny, lies at
//   x_W = x0_m + i * cell_size_m,   y_W = y0_m + j * cell_size_m
// and stands for the square cell of side cell_size_m centred on it (area cell_size_m^2). Samples
// are stored row-major at j * nx + i. The cells together cover [x0_m - h/2, x0_m + (nx - 1/2) h]
// along x (h = cell_size_m), likewise along y; grid_of_cells() builds a grid from that extent.
//
// Index boxes are half-open, [i0, i1) x [j0, j1), in every tier.

#include <cstddef>

namespace talus {

/// A half-open box of sample indices [i0, i1) x [j0, j1); empty when i0 >= i1 or j0 >= j1.
struct IndexBox {
  int i0 = 0, j0 = 0, i1 = 0, j1 = 0;

  bool operator==(const IndexBox&) const = default;

  bool empty() const { return i0 >= i1 || j0 >= j1; }
  int width() const { return i1 - i0; }
  int height() const { return j1 - j0; }
  /// Samples in the box (0 when empty).
  long long count() const {
    return empty() ? 0 : static_cast<long long>(width()) * static_cast<long long>(height());
  }
  bool contains(int i, int j) const { return i >= i0 && i < i1 && j >= j0 && j < j1; }
  /// True when `inner` is not empty and lies inside this box.
  bool contains(const IndexBox& inner) const {
    return !inner.empty() && i0 <= inner.i0 && inner.i1 <= i1 && j0 <= inner.j0 && inner.j1 <= j1;
  }
  /// True when both boxes are non-empty and share a sample.
  bool overlaps(const IndexBox& o) const {
    return !empty() && !o.empty() && i0 < o.i1 && o.i0 < i1 && j0 < o.j1 && o.j0 < j1;
  }
};

/// The smallest box holding both (an empty box adds nothing).
IndexBox united(const IndexBox& a, const IndexBox& b);
/// `b` with `by` more samples on every side (not clamped to any grid).
IndexBox grown(const IndexBox& b, int by);

struct HeightmapGrid {
  int nx = 0;                ///< samples along x
  int ny = 0;                ///< samples along y
  double cell_size_m = 0.0;  ///< spacing of the samples, the edge of the cell each stands for [m]
  double x0_m = 0.0;         ///< world x of sample (0, 0) [m]
  double y0_m = 0.0;         ///< world y of sample (0, 0) [m]

  int sample_count() const { return nx * ny; }
  double cell_area_m2() const { return cell_size_m * cell_size_m; }
  double x(int i) const { return x0_m + i * cell_size_m; }
  double y(int j) const { return y0_m + j * cell_size_m; }
  /// World x and y of the cells' lower edges: half a cell before sample 0.
  double lo_x_m() const { return x0_m - 0.5 * cell_size_m; }
  double lo_y_m() const { return y0_m - 0.5 * cell_size_m; }
  std::size_t index(int i, int j) const {
    return static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) + static_cast<std::size_t>(i);
  }

  /// The continuous index of world x (or y): u(x(i)) = i, fractional between samples.
  double u(double x_W) const { return (x_W - x0_m) / cell_size_m; }
  double v(double y_W) const { return (y_W - y0_m) / cell_size_m; }
  /// The sample nearest to world x (or y), i.e. the cell that holds it (a tie goes away from
  /// sample 0's side of zero, as std::lround). Not clamped: it may lie outside the grid.
  int nearest_i(double x_W) const;
  int nearest_j(double y_W) const;

  IndexBox whole() const { return {0, 0, nx, ny}; }
  /// `b` cut to the grid.
  IndexBox clamped(const IndexBox& b) const;
  /// The samples whose positions lie in the closed rectangle [x_lo, x_hi] x [y_lo, y_hi]: i from
  /// ceil(u(x_lo)) to floor(u(x_hi)), likewise j. Not clamped to the grid.
  IndexBox samples_within(double x_lo_W, double y_lo_W, double x_hi_W, double y_hi_W) const;
};

/// The grid of nx x ny cells of edge cell_size_m whose lower-left cell corner (not its first
/// sample) is (lo_x_m, lo_y_m): samples at the cells' centres, x0_m = lo_x_m + cell_size_m / 2.
HeightmapGrid grid_of_cells(double lo_x_m, double lo_y_m, int nx, int ny, double cell_size_m);

/// Throws std::invalid_argument naming the field and the expected range unless nx, ny >= 1,
/// nx * ny fits an int, cell_size_m > 0 and finite, and x0_m, y0_m are finite.
void validate(const HeightmapGrid& grid);

}  // namespace talus
