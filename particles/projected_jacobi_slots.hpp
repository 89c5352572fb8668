#pragma once
// One Projected Jacobi sweep's pass 1 over a list of contact slots (projected_jacobi.hpp has the
// update): a scalar form and, where the compiler targets AVX2, an 8-lane form. Both evaluate the
// same IEEE operations in the same order on each slot (projected_jacobi_slots.cpp is compiled
// with -ffp-contract=off, so no multiply-add is fused in one form and not the other;
// std::max(a, b) is _mm256_max_ps(b, a) and std::min(a, b) is _mm256_min_ps(b, a) for every
// input, NaN and signed zeros included), so a slot's bits do not depend on which form computed it,
// and the split of the list between the forms (which depends on the thread count) changes nothing.
//
// Why hand-written lanes: one slot is a ~25-operation dependency chain with a square root and a
// division; as a scalar loop the core waits on that latency. GCC 12 does not vectorise the loop
// itself (the iterate records are gathered by index, and its tuning for this CPU turns gathers
// off), so the 8-lane form loads each lane's 16-byte record halves and transposes them in
// registers, which is also faster than hardware gathers.

#include <cstdint>

#include "particles/particle_contacts.hpp"

namespace talus::particles {

/// What pass 1 reads and writes: the iterate records of the previous sweep (`a`), the slot
/// records, and the list of slots to compute (slot, row i, partner code, mirror slot).
struct SlotPass {
  const float* a;
  const float* normal_gap;
  const float* surface;
  float* impulse;
  const std::int32_t* slot;
  const std::int32_t* row;
  const std::int32_t* partner;
  const std::int32_t* mirror;
  float omega;        ///< relaxation
  float inv_dt;       ///< 1 / dt [1/s]
  float alpha;        ///< Baumgarte factor
  float max_pushout;  ///< push-out speed cap [m/s]
  float mu_particle;  ///< particle-particle friction
};

/// Updates list entry q's impulse (and its mirror's) in the scalar form; returns the largest
/// change of an impulse component [N s].
float solve_slot(const SlotPass& p, std::int64_t q);

/// Entries solve_slots computes at once: 8 where the library was built for AVX2, else 1.
int slot_lanes();

/// Pass 1 over list entries [begin, end): every slot's new impulse, 8 entries at a time where the
/// build targets AVX2 and the rest in the scalar form; returns the largest change [N s].
float solve_slots(const SlotPass& p, std::int64_t begin, std::int64_t end);

}  // namespace talus::particles
