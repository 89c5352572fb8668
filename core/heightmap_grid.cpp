#include "core/heightmap_grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>

namespace talus {

IndexBox united(const IndexBox& a, const IndexBox& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.i0, b.i0), std::min(a.j0, b.j0), std::max(a.i1, b.i1), std::max(a.j1, b.j1)};
}

IndexBox grown(const IndexBox& b, int by) { return {b.i0 - by, b.j0 - by, b.i1 + by, b.j1 + by}; }

int HeightmapGrid::nearest_i(double x_W) const { return static_cast<int>(std::lround(u(x_W))); }

int HeightmapGrid::nearest_j(double y_W) const { return static_cast<int>(std::lround(v(y_W))); }

IndexBox HeightmapGrid::clamped(const IndexBox& b) const {
  return {std::max(b.i0, 0), std::max(b.j0, 0), std::min(b.i1, nx), std::min(b.j1, ny)};
}

IndexBox HeightmapGrid::samples_within(double x_lo_W, double y_lo_W, double x_hi_W,
                                       double y_hi_W) const {
  // The first sample at or after lo and one past the last at or before hi (half-open).
  return {static_cast<int>(std::ceil(u(x_lo_W))), static_cast<int>(std::ceil(v(y_lo_W))),
          static_cast<int>(std::floor(u(x_hi_W))) + 1, static_cast<int>(std::floor(v(y_hi_W))) + 1};
}

HeightmapGrid grid_of_cells(double lo_x_m, double lo_y_m, int nx, int ny, double cell_size_m) {
  return {nx, ny, cell_size_m, lo_x_m + 0.5 * cell_size_m, lo_y_m + 0.5 * cell_size_m};
}

void validate(const HeightmapGrid& g) {
  const auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
  if (g.nx < 1) fail(fmt::format("HeightmapGrid.nx must be >= 1, got {}", g.nx));
  if (g.ny < 1) fail(fmt::format("HeightmapGrid.ny must be >= 1, got {}", g.ny));
  if (static_cast<long long>(g.nx) * g.ny > INT_MAX) {
    fail(fmt::format("HeightmapGrid.nx * ny must be <= {}, got {} * {}", INT_MAX, g.nx, g.ny));
  }
  if (!(g.cell_size_m > 0.0 && std::isfinite(g.cell_size_m))) {
    fail(
        fmt::format("HeightmapGrid.cell_size_m must be > 0 and finite [m], got {}", g.cell_size_m));
  }
  if (!std::isfinite(g.x0_m)) {
    fail(fmt::format("HeightmapGrid.x0_m must be a finite coordinate [m], got {}", g.x0_m));
  }
  if (!std::isfinite(g.y0_m)) {
    fail(fmt::format("HeightmapGrid.y0_m must be a finite coordinate [m], got {}", g.y0_m));
  }
}

}  // namespace talus
