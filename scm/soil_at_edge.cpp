#include "scm/soil_at_edge.hpp"

#include <fmt/format.h>

#include "core/run_warning.hpp"

namespace talus::scm {

void record_soil_at_edge(const std::filesystem::path& file, const std::string& extent_keys,
                         const ScmModel& m, double change_m, nlohmann::json& summary) {
  summary["soil_change_at_grid_edge_m"] = change_m;
  if (!(change_m > kSoilAtEdgeTolerance_m)) return;
  add_run_warning(
      summary,
      fmt::format("{}: the soil at the edge of the grid moved {:.1f} mm: the displaced soil "
                  "reached the boundary of the grid ({}: {:g} x {:g} m), which holds it there, "
                  "so the results depend on the grid's size; a grid wider than the soil's flow "
                  "leaves it free",
                  file.string(), 1e3 * change_m, extent_keys, (m.nx - 1) * m.cell_size_m,
                  (m.ny - 1) * m.cell_size_m));
}

}  // namespace talus::scm
