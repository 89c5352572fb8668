#pragma once
// The contact list of one particle step (layout and ordering: particle_contacts.hpp). Its own
// header because two owners hold one: the step's workspace writes this step's list, and the state
// keeps the last step's list, whose impulses warm-start the next step.

#include <cstdint>
#include <vector>

namespace talus::particles {

/// All contacts of one step.
struct ContactList {
  std::vector<std::int32_t> start;    ///< per particle: first slot of its row
  std::vector<std::int32_t> end;      ///< per particle: one past its row's last slot
  std::vector<std::int32_t> partner;  ///< per slot: particle j >= 0, wall_partner, body_partner
  /// Per slot, four floats (one 16-byte record, read with one access): the unit normal from the
  /// partner toward i (x, y, z) and the surface gap [m], negative when overlapping. The solver
  /// derives the target normal speed (-gap / dt when open, else 0) and the push-out speed
  /// (overlaps) from the gap.
  std::vector<float> normal_gap;
  /// Per slot, four floats: the partner's surface velocity at the contact (x, y, z) [m/s] and the
  /// Coulomb friction coefficient. Written for wall and body slots only: a particle partner's
  /// velocity is its iterate and its friction the model's particle friction.
  std::vector<float> surface;
  /// Per slot, four floats: the impulse on particle i (x, y, z) [N s], world frame, and the normal
  /// push-out pseudo-impulse p >= 0 [N s]. One record, so that the solver's write of a pair's
  /// mirror copy touches one cache line.
  std::vector<float> impulse;
  /// Per slot, four floats, with rotating grains only (ParticleModel::rotation; else empty): the
  /// rolling-resistance angular impulse on particle i (x, y, z) [N m s], perpendicular to the
  /// normal, and 0. A pair's copies hold opposite values, like `impulse`.
  std::vector<float> rolling;
  /// The slots the solver computes, written by it once per step (the other copy of each pair takes
  /// the negated impulse): slot index, its row i, its partner code and, for a particle pair, the
  /// slot of the same contact in the partner's row (the pair's other copy; -1 for walls and
  /// bodies). The solver computes each pair once, in the row of its lower index. Each solver
  /// thread's entries start at its first row's first slot; the arrays have one entry per slot.
  std::vector<std::int32_t> own_slot;
  std::vector<std::int32_t> own_row;
  std::vector<std::int32_t> own_partner;
  std::vector<std::int32_t> own_mirror;
  /// Per particle, solver scratch: the next lower-partner slot of the row to match with a pair.
  std::vector<std::int32_t> pair_cursor;
  /// Slots holding contacts (the arrays are longer: each detection chunk's region ends in a gap).
  std::int64_t used_slots = 0;
  /// The most slots one detection chunk's region needed in the detection pass that wrote this
  /// list.
  std::int64_t largest_region_slots = 0;
  /// The detection pass's chunks (detection_chunk_count of them, about equal work by this list's
  /// rows; balanced_chunks): the next step's pass hands them to its threads as they come free.
  std::vector<std::int64_t> detection_bounds;
  /// Work split for `chunk_bounds.size() - 1` threads: thread t takes the particles
  /// [chunk_bounds[t], chunk_bounds[t + 1]), chunks of about equal work (row slots plus a base
  /// per particle; balanced_chunks). Written at the end of the detection pass; the solver uses it,
  /// and so does the next step's detection pass. A bed's rows are far from uniform (a compressed
  /// column's bottom half held 65 % of the slots), so equal particle counts left one thread
  /// waiting at every barrier. The split moves work between threads, never results.
  std::vector<std::int64_t> chunk_bounds;

  std::size_t particles() const { return start.size(); }
  std::int32_t slots(std::size_t i) const { return end[i] - start[i]; }
};

}  // namespace talus::particles
