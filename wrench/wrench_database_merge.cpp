// Merging wrench-space databases acquired in parts (a sweep's runs, one per tilt).

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "wrench/wrench_database.hpp"

namespace talus::wrench {

namespace {

void require_same(bool same, const std::string& name, const char* field, const std::string& first) {
  if (!same) {
    throw DatabaseError(
        fmt::format("{}: {} differs from {}'s: the parts are not of one "
                    "acquisition",
                    name, field, first));
  }
}

}  // namespace

WrenchDatabase merge_databases(const std::vector<WrenchDatabase>& parts,
                               const std::vector<std::string>& names) {
  if (parts.empty() || names.size() != parts.size()) {
    throw DatabaseError("merge_databases: no databases, or not one name per database");
  }
  const WrenchDatabase& first = parts.front();
  for (std::size_t p = 1; p < parts.size(); ++p) {
    const WrenchDatabase& d = parts[p];
    const MediumDescription& a = first.medium;
    const MediumDescription& b = d.medium;
    require_same(a.name == b.name && a.grain_radius_m == b.grain_radius_m &&
                     a.density_kg_m3 == b.density_kg_m3 && a.friction == b.friction,
                 names[p], "medium", names[0]);
    require_same(d.velocity_directions == first.velocity_directions, names[p],
                 "velocity_directions", names[0]);
    require_same(d.velocity_scale == first.velocity_scale, names[p], "velocity_scale", names[0]);
    require_same(d.reference_point_m == first.reference_point_m, names[p], "reference_point_m",
                 names[0]);
    require_same(d.depth_reference == first.depth_reference, names[p], "depth_reference", names[0]);
    require_same(d.foot_radius_m == first.foot_radius_m, names[p], "foot_radius_m", names[0]);
  }
  // Every configuration with the part it came from, then the acquisition's order.
  struct Entry {
    double depth_m, tilt_rad;
    std::size_t part;
    int row;
  };
  std::vector<Entry> entries;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    for (int j = 0; j < parts[p].configuration_count(); ++j) {
      entries.push_back({parts[p].configurations(j, 0), parts[p].configurations(j, 1), p, j});
    }
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.depth_m != b.depth_m ? a.depth_m > b.depth_m : a.tilt_rad < b.tilt_rad;
  });
  for (std::size_t k = 1; k < entries.size(); ++k) {
    if (entries[k].depth_m == entries[k - 1].depth_m &&
        entries[k].tilt_rad == entries[k - 1].tilt_rad) {
      throw DatabaseError(fmt::format(
          "{} and {}: both measured depth {} m, tilt {} rad: a configuration of the merged "
          "database must come from one part",
          names[entries[k - 1].part], names[entries[k].part], entries[k].depth_m,
          entries[k].tilt_rad));
    }
  }
  WrenchDatabase merged;
  merged.velocity_directions = first.velocity_directions;
  merged.velocity_scale = first.velocity_scale;
  merged.reference_point_m = first.reference_point_m;
  merged.depth_reference = first.depth_reference;
  merged.foot_radius_m = first.foot_radius_m;
  merged.medium = first.medium;
  merged.configurations.resize(static_cast<Eigen::Index>(entries.size()), 2);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    merged.configurations.row(static_cast<Eigen::Index>(k)) << entries[k].depth_m,
        entries[k].tilt_rad;
    merged.wrenches.push_back(
        parts[entries[k].part].wrenches[static_cast<std::size_t>(entries[k].row)]);
  }
  merged.validate("merged database");
  return merged;
}

}  // namespace talus::wrench
