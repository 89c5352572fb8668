#pragma once
// Particles kept in spatial order (issue 19, "speed that holds"). The solver gathers each
// contact partner's iterate record; when the particles lie in memory in no spatial order (a bed
// made by random insertion, a heap that has mixed) those gathers reach anywhere in the records and
// a 50k column steps 1.7 x slower than one in order (docs/particles.md §5, "Does the particles'
// order in memory matter?"). Sorting the particles along a Morton (Z-order) curve of cells about
// one contact reach wide puts a particle's partners near it in memory again.
//
// The step sorts every ParticleModel::sort_every_steps steps, after a good step (so a failed step
// still leaves the state as it was). Every per-particle array moves, and with them the identities
// (ParticleState::id: what a user, a state file and the frames name a particle by) and the
// warm-start contacts, whose rows are renumbered and put back in canonical partner order; the
// neighbour list, which is by index, is rebuilt. The sort is deterministic (ties in the curve
// are broken by index), so the run stays bit-identical for any thread count. Only the order of a
// particle's contacts within its row changes, and with it the rounding of the row's sums: a sorted
// run follows the unsorted one to rounding, not bit for bit.

#include <cstdint>
#include <span>
#include <vector>

#include "particles/contact_list.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"

namespace talus::particles {

/// The Morton key of cell (cx, cy, cz) (21 bits each, higher bits ignored): the cells' order
/// along the Z-order curve.
std::uint64_t morton_key(std::uint32_t cx, std::uint32_t cy, std::uint32_t cz);

/// The permutation that puts `state`'s particles in Morton order of cubic cells of edge cell_m
/// (> 0) counted from the particles' lowest corner; particles in one cell keep their relative
/// order. order[k] is the index of the particle that goes to index k.
std::vector<std::uint32_t> spatial_order(const ParticleState& state, float cell_m);

/// Moves particle order[k] to index k: every per-particle array, the identities (filled with the
/// particles' current indices first when `id` is empty) and the warm-start contacts of
/// state.contacts (renumbered, each row in canonical partner order; a list for another particle
/// count is dropped, as a resized state starts cold). Throws std::invalid_argument when order is
/// not a permutation of the particles.
void reorder_particles(ParticleState& state, std::span<const std::uint32_t> order);

/// Renumbers a contact list for the particle permutation `order` (as reorder_particles): row k
/// is the old row order[k], particle partners renumbered, each row in canonical partner order. The
/// rows are packed; the split hints (detection_bounds, chunk_bounds) are dropped. Throws
/// std::invalid_argument when the list, order and new_index differ in particle count.
ContactList reordered_contacts(const ContactList& contacts, std::span<const std::uint32_t> order,
                               std::span<const std::uint32_t> new_index);

/// Whether the step that brought the state to `steps_taken` steps sorts it afterwards: every
/// model.sort_every_steps steps (never when 0).
inline bool spatial_sort_due(const ParticleModel& model, std::int64_t steps_taken) {
  return model.sort_every_steps > 0 && steps_taken % model.sort_every_steps == 0;
}

}  // namespace talus::particles
