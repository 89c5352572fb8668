#pragma once
// The sand-shaping tier's data (paper 003 §3): a regular grid of sand column heights.
//
// Model and state apart: HeightmapModel holds the grid geometry and material parameters and never
// changes while simulating; HeightmapState holds what does (heights, cells blocked by tools).
//
// Grid convention: nx columns along world x, ny rows along world y; cell (i, j) has its centre at
//   x_W = origin_x_m + (i + 0.5) * cell_size_m,   y_W = origin_y_m + (j + 0.5) * cell_size_m
// and is stored row-major at index j * nx + i. A height is the world z [m] of the sand surface at
// the cell's centre; the column's volume is height * cell_size_m^2 above z = 0.

#include <cstdint>
#include <vector>

namespace talus::shaping {

enum class Connectivity : int { Four = 4, Eight = 8 };

struct HeightmapModel {
  int nx = 0;                     ///< cells along x
  int ny = 0;                     ///< cells along y
  double cell_size_m = 0.0;       ///< edge length of a square cell [m]
  double origin_x_m = 0.0;        ///< world x of the grid's lower-left corner [m]
  double origin_y_m = 0.0;        ///< world y of the grid's lower-left corner [m]
  double repose_angle_rad = 0.0;  ///< angle of repose of the material, in (0, pi/2)
  Connectivity connectivity = Connectivity::Eight;
  /// Fraction of a neighbour pair's excess height difference that flows per update; 0 selects
  /// the derived default for the connectivity (docs/erosion.md).
  double flow_rate = 0.0;
  /// Erosion stops when no pair's height difference exceeds the repose limit by more than this [m].
  double tolerance_m = 1e-9;
  int max_updates = 100000;  ///< erosion gives up (and says so) after this many updates
  /// Not a model parameter (results are bit-identical either way): an erosion update uses
  /// OpenMP threads only on regions of at least this many cells; below it the fork and join cost
  /// more than they save (on a loaded machine a parallel region can wait a scheduler time slice
  /// for its second thread).
  long min_cells_for_threads = 4096;

  int cell_count() const { return nx * ny; }
  double cell_area_m2() const { return cell_size_m * cell_size_m; }
  double cell_center_x(int i) const { return origin_x_m + (i + 0.5) * cell_size_m; }
  double cell_center_y(int j) const { return origin_y_m + (j + 0.5) * cell_size_m; }
};

struct HeightmapState {
  std::vector<double> height_m;  ///< nx * ny sand surface heights [m], row-major
  std::vector<std::uint8_t>
      blocked;  ///< nx * ny; 1 where a tool occupies the cell: no flow in or out

  static HeightmapState flat(const HeightmapModel& model, double height_m) {
    HeightmapState s;
    s.height_m.assign(static_cast<std::size_t>(model.cell_count()), height_m);
    s.blocked.assign(static_cast<std::size_t>(model.cell_count()), 0);
    return s;
  }
};

/// A half-open box of cells [i0, i1) x [j0, j1); empty when i0 >= i1 or j0 >= j1.
struct CellBox {
  int i0 = 0, j0 = 0, i1 = 0, j1 = 0;
  bool empty() const { return i0 >= i1 || j0 >= j1; }
  static CellBox whole(const HeightmapModel& m) { return {0, 0, m.nx, m.ny}; }
};

}  // namespace talus::shaping
