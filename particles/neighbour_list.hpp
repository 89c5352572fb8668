#pragma once
// Verlet neighbour list of the particle tier: the spatial hash (§II-B) searched with the contact
// reach plus a skin, kept while no particle has moved far enough to let an unlisted pair touch.
//
// Paper 001 searches the 27 cells of every particle at every step. In a bed at rest the same
// partners come back step after step, and that search (40 candidates per particle against ~9
// contacts) was half of a step at 50k particles. The list stores, per particle, every partner
// closer than ri + rj + contact_margin + skin at the build, in increasing index. A pair absent
// from it was at least reach + skin apart then; after every particle has moved less than skin / 2
// it is still more than reach apart, so it cannot be a contact. The detection pass tests the
// listed partners with the very expressions it applies to the hash's candidates, in the same
// (increasing) order, so the contact rows and every later bit are the same as with a search at
// every step; only the time changes. The list is rebuilt when a particle has moved skin / 2 less
// a rounding allowance since the build (measured with the periodic minimum image), when a radius
// changed or the particle count changed: positions edited between steps (Python views, a loaded
// state) are caught by the same check. Walls and bodies are not in the list: their contacts are
// evaluated at every step.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/spatial_hash.hpp"

namespace talus::particles {

struct NeighbourList {
  float skin_m = 0.0f;       ///< skin of the current list [m]
  float allowance_m = 0.0f;  ///< float rounding allowance of the staleness test [m] (1e-4 reach)
  std::vector<std::int64_t> start;    ///< per particle + 1: offsets into `partner`
  std::vector<std::int32_t> partner;  ///< listed partners of each particle, increasing
  /// Positions [m] and radii [m] at the build (the rebuild test compares against them).
  std::vector<float> x0_m, y0_m, z0_m, radius0_m;
  bool built = false;
  std::int64_t builds = 0;  ///< builds since the workspace was made (diagnostics)

  std::size_t particles() const { return built ? start.size() - 1 : 0; }
};

/// The skin [m] for `model` with largest particle radius max_radius_m: model.neighbour_skin_radii
/// times the radius, reduced where needed so that the periodic period (if any) still holds 3 cells
/// of 2 max_radius + contact_margin + skin; 0 disables the list.
float neighbour_skin_m(const ParticleModel& model, float max_radius_m);

/// True when `list` does not cover `state`: never built, another particle count or skin, a radius
/// changed, or some particle moved at least half the skin (less a float rounding allowance) from
/// its position at the build. Parallel over particles with `threads` threads; the answer does not
/// depend on the thread count.
bool neighbour_list_stale(const NeighbourList& list, const ParticleModel& model,
                          const ParticleState& state, float skin_m, int threads);

/// Rebuilds `list` from `hash` (built on the same positions with cells of at least the contact
/// reach plus skin_m): every pair closer than ri + rj + contact_margin + skin_m.
void build_neighbour_list(NeighbourList& list, const SpatialHash& hash, const ParticleModel& model,
                          const ParticleState& state, float skin_m, int threads);

}  // namespace talus::particles
