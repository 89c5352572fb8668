#include "particles/particle_bed.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

namespace talus::particles {

ParticleState make_lattice_bed(const LatticeBed& bed) {
  if (!(std::isfinite(bed.radius_m) && bed.radius_m > 0.0)) {
    throw std::invalid_argument(fmt::format("lattice bed: radius_m = {} is not > 0", bed.radius_m));
  }
  if (!(std::isfinite(bed.density_kg_per_m3) && bed.density_kg_per_m3 > 0.0)) {
    throw std::invalid_argument(
        fmt::format("lattice bed: density_kg_per_m3 = {} is not > 0", bed.density_kg_per_m3));
  }
  if (!(std::isfinite(bed.spacing_factor) && bed.spacing_factor >= 1.0)) {
    throw std::invalid_argument(
        fmt::format("lattice bed: spacing_factor = {} is not >= 1", bed.spacing_factor));
  }
  if (!(bed.jitter >= 0.0 && bed.jitter < 1.0)) {
    throw std::invalid_argument(
        fmt::format("lattice bed: jitter = {} is not in [0, 1)", bed.jitter));
  }
  if (!bed.region.lo.allFinite() || !bed.region.hi.allFinite() ||
      !(bed.region.lo.array() <= bed.region.hi.array()).all()) {
    throw std::invalid_argument("lattice bed: region is empty (lo is not <= hi on every axis)");
  }
  const double spacing = 2.0 * bed.radius_m * bed.spacing_factor;
  const double gap = spacing - 2.0 * bed.radius_m;
  const double mass = sphere_mass_kg(bed.radius_m, bed.density_kg_per_m3);
  const Vec3 extent = bed.region.hi - bed.region.lo;
  const auto nx = static_cast<long>(std::floor(extent.x() / spacing)) + 1;
  const auto ny = static_cast<long>(std::floor(extent.y() / spacing)) + 1;
  const auto nz = static_cast<long>(std::floor(extent.z() / spacing)) + 1;
  std::mt19937_64 rng(bed.seed);
  std::uniform_real_distribution<double> jitter(-0.5 * bed.jitter * gap, 0.5 * bed.jitter * gap);
  ParticleState state;
  for (long k = 0; k < nz; ++k) {
    for (long j = 0; j < ny; ++j) {
      for (long i = 0; i < nx; ++i) {
        Vec3 p = bed.region.lo + spacing * Vec3(static_cast<double>(i), static_cast<double>(j),
                                                static_cast<double>(k));
        // Both draws happen for every lattice site, kept or not, so the jitter of a site does not
        // depend on the cylinder filter.
        const double jx = jitter(rng);
        const double jy = jitter(rng);
        if (bed.cylinder_radius_m > 0.0 &&
            (p.head<2>() - bed.cylinder_axis_xy_m).norm() > bed.cylinder_radius_m) {
          continue;
        }
        p.x() += jx;
        p.y() += jy;
        state.add(p, Vec3::Zero(), bed.radius_m, mass);
        if (bed.max_particles > 0 && state.size() >= bed.max_particles) return state;
      }
    }
  }
  return state;
}

double free_surface_z_m(const ParticleState& s) {
  if (s.size() == 0) return 0.0;
  double radius_sum = 0.0;
  for (const float r : s.radius_m) radius_sum += r;
  const double cell = 4.0 * radius_sum / static_cast<double>(s.size());
  std::map<std::pair<long, long>, double> top;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::pair<long, long> key{static_cast<long>(std::floor(s.x_m[i] / cell)),
                                    static_cast<long>(std::floor(s.y_m[i] / cell))};
    const double z = double{s.z_m[i]} + double{s.radius_m[i]};
    auto [it, inserted] = top.emplace(key, z);
    if (!inserted) it->second = std::max(it->second, z);
  }
  std::vector<double> tops;
  for (const auto& [key, z] : top) tops.push_back(z);
  std::nth_element(tops.begin(), tops.begin() + static_cast<long>(tops.size() / 2), tops.end());
  return tops[tops.size() / 2];
}

}  // namespace talus::particles
