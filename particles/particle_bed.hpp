#pragma once
// Initial particle beds: a jittered lattice filling a region, the start of every scenario (a
// short settling run then lets it come to rest).

#include <cstdint>

#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"

namespace talus::particles {

/// Where and what to place.
struct LatticeBed {
  Aabb region;                        ///< box the particle centres fill [m] (world)
  double radius_m = 0.01;             ///< particle radius [m], > 0
  double density_kg_per_m3 = 1631.0;  ///< particle density [kg/m^3], > 0
  /// Centre spacing as a multiple of the diameter (>= 1): 1 gives touching spheres.
  double spacing_factor = 1.02;
  /// Horizontal jitter of each centre, as a fraction of the gap between neighbours (in [0, 1)):
  /// breaks the lattice's symmetry so that it settles like a random bed. Seeded, reproducible.
  double jitter = 0.5;
  std::uint64_t seed = 1;
  /// Keep only centres inside this vertical cylinder when cylinder_radius_m > 0 (the column).
  double cylinder_radius_m = 0.0;
  Vec2 cylinder_axis_xy_m = Vec2::Zero();
  std::size_t max_particles = 0;  ///< stop after this many (0: fill the region)
};

/// A simple cubic lattice of particles at rest, filled layer by layer from region.lo upwards (x
/// fastest, then y, then z). Throws std::invalid_argument for a bad radius, density, spacing or
/// jitter, or an empty region.
ParticleState make_lattice_bed(const LatticeBed& bed);

/// The free surface z [m] of a bed: the median over occupied columns (square cells of two mean
/// diameters) of the highest particle top (z + radius) in the column. The median ignores the few
/// columns at a wall or an edge that are only partly filled. 0 for an empty state.
double free_surface_z_m(const ParticleState& state);

}  // namespace talus::particles
