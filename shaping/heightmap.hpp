#pragma once
// The sand-shaping tier's data (paper 003 §3): a regular grid of sand column heights.
//
// Model and state apart: HeightmapModel holds the grid geometry and material parameters and never
// changes while simulating; HeightmapState holds what does (heights, cells blocked by tools).
//
// The grid is core/heightmap_grid.hpp's, shared with SCM: sample (i, j) lies at the centre of its
// cell, (x0_m + i * cell_size_m, y0_m + j * cell_size_m), stored row-major at j * nx + i. A height
// is the world z [m] of the sand surface at the cell's centre; the column's volume is
// height * cell_size_m^2 above z = 0.

#include <cstdint>
#include <vector>

#include "core/erosion.hpp"
#include "core/heightmap_grid.hpp"

namespace talus::shaping {

/// The grid (HeightmapGrid's fields: nx, ny, cell_size_m, x0_m, y0_m) and how its sand erodes.
struct HeightmapModel : HeightmapGrid {
  ErosionParameters erosion;
};

/// Throws std::invalid_argument naming the field and the expected range for a bad grid or
/// erosion parameters (validate(ErosionParameters, HeightmapGrid)).
inline void validate(const HeightmapModel& model) { validate(model.erosion, model); }

struct HeightmapState {
  std::vector<double> height_m;  ///< nx * ny sand surface heights [m], row-major
  std::vector<std::uint8_t>
      blocked;  ///< nx * ny; 1 where a tool occupies the cell: no flow in or out

  static HeightmapState flat(const HeightmapModel& model, double height_m) {
    HeightmapState s;
    s.height_m.assign(static_cast<std::size_t>(model.sample_count()), height_m);
    s.blocked.assign(static_cast<std::size_t>(model.sample_count()), 0);
    return s;
  }
};

}  // namespace talus::shaping
