#pragma once
// Verlet neighbour list of the particle tier: the spatial hash (§II-B) searched with the contact
// reach plus a skin, kept while no particle has moved far enough to let an unlisted pair touch.
//
// Paper 001 searches the 27 cells of every particle at every step. In a bed at rest the same
// partners come back step after step, and that search (40 candidates per particle against ~9
// contacts) was half of a step at 50k particles. The list stores, per particle, every partner
// closer than ri + rj + contact_margin + skin at its reference position, in increasing index.
// Each particle has its own reference position (x0), where its row was last searched. A pair
// absent from the list was at least reach + skin apart at the two reference positions; while
// the two largest moves since them sum to less than the skin, it is still more than reach apart,
// so it cannot be a contact. The detection pass tests the listed partners with the very
// expressions it applies to the hash's candidates, in the same (increasing) order, so the contact
// rows and every later bit are the same as with a search at every step; only the time changes.
//
// When the two largest moves reach the skin (less a rounding allowance), the list is refreshed:
// only the particles that moved a quarter of it ("movers") take their current position as
// reference and are searched again; the other rows keep their pairs among non-movers and gain or
// lose movers. So one bulldozer blade pushing a few hundred grains re-searches those grains, not
// the whole bed (which a single fast particle used to force). The refreshed list is exactly the
// list a full build would make at the reference positions (test), so the argument above holds
// unchanged. A full build (every reference = the current position) happens at the first step,
// when a radius, the particle count or the skin changed, when positions are not finite, and when
// more than half the particles are movers. Positions edited between steps (Python views, a loaded
// state) are caught by the same move test. Walls and bodies are not in the list: their contacts
// are evaluated at every step.

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
  /// Per particle: its reference position [m] (where its row was last searched; moves are
  /// measured from it) and its radius [m] at the build (a changed radius forces a build).
  std::vector<float> x0_m, y0_m, z0_m, radius0_m;
  float max_radius_m = 0.0f;  ///< the largest radius at the build [m] (its cell grid's)
  bool built = false;
  std::int64_t builds = 0;     ///< full builds since the workspace was made (diagnostics)
  std::int64_t refreshes = 0;  ///< partial refreshes since then (diagnostics)
  /// Scratch of the searches: a dense hash's particles in its `sorted` order, one record
  /// (x, y, z, r) each (kSearchRecord floats), so that a search reads its candidates in sequence.
  std::vector<float> search_records;

  std::size_t particles() const { return built ? start.size() - 1 : 0; }
};

/// The skin [m] for `model` with largest particle radius max_radius_m: model.neighbour_skin_radii
/// times the radius, reduced where needed so that the periodic period (if any) still holds 3 cells
/// of 2 max_radius + contact_margin + skin; 0 disables the list.
float neighbour_skin_m(const ParticleModel& model, float max_radius_m);

/// What `list` needs before it covers `state` (neighbour_list_need).
enum class NeighbourListNeed {
  kNothing,  ///< it covers the state: the two largest moves sum to less than the skin
  kRefresh,  ///< re-search the movers (refresh_neighbour_list)
  kBuild,    ///< build it from scratch (build_neighbour_list)
};

/// Whether `list` covers `state` and, if not, how to make it: kBuild when it was never built, the
/// particle count, skin or a radius changed, a position is not finite, or more than half the
/// particles moved a quarter of the skin (less the rounding allowance) since their reference;
/// kRefresh when the two largest moves reach that skin; else kNothing. Moves are measured with
/// the periodic minimum image. Parallel over particles with `threads` threads; the answer does
/// not depend on the thread count.
NeighbourListNeed neighbour_list_need(const NeighbourList& list, const ParticleModel& model,
                                      const ParticleState& state, float skin_m, int threads);

/// Rebuilds `list` from `hash` (built on the same positions with cells of at least the contact
/// reach plus skin_m): every pair closer than ri + rj + contact_margin + skin_m. Every particle's
/// reference position is its current one.
void build_neighbour_list(NeighbourList& list, const SpatialHash& hash, const ParticleModel& model,
                          const ParticleState& state, float skin_m, int threads);

/// Refreshes a built `list` (neighbour_list_need gave kRefresh): the movers (particles that moved
/// a quarter of skin_m, less the allowance, since their reference) take their current position as
/// reference, `hash` is rebuilt on the reference positions, and the movers' rows are searched
/// again. The result equals build_neighbour_list at the reference positions.
void refresh_neighbour_list(NeighbourList& list, SpatialHash& hash, const ParticleModel& model,
                            const ParticleState& state, float skin_m, int threads);

}  // namespace talus::particles
