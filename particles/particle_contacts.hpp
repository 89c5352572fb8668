#pragma once
// The stored contact list of the particle tier (paper 001 §II-D): the detection pass writes every
// contact once per step; the solver then only reads it (no searching while processing impulses).
//
// Layout: compressed rows, structure of arrays. The slots of particle i are [start[i], end[i]):
// only real contacts are stored, contiguous per particle and in particle order, so a solver sweep
// streams the arrays instead of striding over fixed, mostly empty slots per particle (~7 of 16
// used in a bed). Each detection thread fills its own region of the arrays, so a region's unused
// tail is a gap between rows (hence end[] rather than start[i + 1]). A particle-particle contact
// (i, j) is stored in both particles' rows with opposite normals. The solver computes its impulse
// once, in the lower index's row, and writes the exact negative into the other copy (`own_mirror`),
// so each particle's update sums only its own row (no atomic scatter) and momentum between
// particles is conserved to the last bit. A row is in canonical order: particle partners by
// increasing index, then walls, then bodies, so its order (and every sum over it) does not depend
// on the broadphase, the thread count or thread timing.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/contact_tier.hpp"
#include "particles/contact_list.hpp"
#include "particles/neighbour_list.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/spatial_hash.hpp"

namespace talus::particles {

/// Walls of the container as contact partners: box faces -x, +x, -y, +y, -z (floor), +z (lid),
/// then the cylinder's side.
inline constexpr std::int32_t kWallCount = 7;

/// Work of a particle with no contacts in balanced_chunks, in slot equivalents.
inline constexpr std::int64_t kChunkBaseWork = 2;

/// The detection pass's chunks per thread (one chunk with one thread): threads take the next
/// chunk as they come free, so that a chunk costlier than its slot count says (a body's
/// signed-distance queries) or a core slowed by the host does not leave the other thread waiting.
inline constexpr int kDetectionChunksPerThread = 8;

/// The detection pass's chunk count for `threads` threads.
constexpr int detection_chunk_count(int threads) {
  return threads > 1 ? kDetectionChunksPerThread * threads : 1;
}

/// The detection chunks as thread t of `team` claims them: first its own (the t-th of `team` equal
/// runs of the `parts` chunks, parts a multiple of team), front to back, then the others' from
/// their backs, so that a thread that finishes early takes the last chunks of a slower one. Each
/// chunk is claimed once (an atomic flag per chunk, false until claimed). Owning a run keeps a
/// chunk's rows on the core that solves them next (the solver's chunks are the same runs):
/// OpenMP's dynamic schedule, which hands out any free chunk, cost 6 % of Bulldozing-v0's push in
/// rows moved between the cores' caches.
struct ChunkClaims {
  std::atomic<bool>* claimed;
  int parts;
  int t;
  int team;

  /// The next chunk this thread takes, or -1 when every chunk is claimed.
  int next() const;
};

/// Partner code of wall w (0 .. kWallCount-1): negative, so particle partners stay >= 0.
constexpr std::int32_t wall_partner(std::int32_t w) { return -1 - w; }
/// Partner code of body b (index in ParticleModel::bodies).
constexpr std::int32_t body_partner(std::int32_t b) { return -1 - kWallCount - b; }
/// Sort key of a partner code in canonical slot order: particles ascending, then walls, then
/// bodies (both in generation order). Every row of a ContactList is in this order.
constexpr std::uint32_t partner_key(std::int32_t p) {
  return p >= 0 ? static_cast<std::uint32_t>(p) : 0x80000000u + static_cast<std::uint32_t>(-1 - p);
}
/// Body index of a partner code, or -1 for a particle or wall.
constexpr std::int32_t partner_body(std::int32_t p) {
  return p <= -1 - kWallCount ? -1 - kWallCount - p : -1;
}

/// The per-particle record of the Jacobi iterates (kIterateStride floats, two 16-byte halves):
/// velocity iterate w (3 floats) [m/s], split inverse mass k / m (mass splitting,
/// docs/particles.md §2) [1/kg], split-impulse pseudo-velocity s (3 floats) [m/s], unused. One
/// record per particle instead of seven arrays: a sweep gathers each neighbour's values with one
/// cache-line access.
inline constexpr std::size_t kIterateStride = 8;
inline constexpr std::size_t kIterW = 0;      ///< offset of w (x, y, z)
inline constexpr std::size_t kIterSplit = 3;  ///< offset of the split inverse mass
inline constexpr std::size_t kIterS = 4;      ///< offset of s (x, y, z)

/// Floats per slot record of ContactList::normal_gap, surface, impulse and rolling.
inline constexpr std::size_t kSlotStride = 4;

/// With rotating grains, the per-particle record of the angular Jacobi iterate (kSpinStride
/// floats): angular velocity iterate (3 floats) [rad/s] and the particle's radius [m], which the
/// contact-point velocities and the inverse inertia 5 / (2 m r^2) need.
inline constexpr std::size_t kSpinStride = 4;
inline constexpr std::size_t kSpinRadius = 3;  ///< offset of the radius

/// The lever arm from a rotating particle of radius r [m] to its contact point with gap g [m]:
/// r + g/2 with another particle, r + g with a wall or body (projected_jacobi_rotating.hpp).
inline float contact_lever(float radius, float gap, bool particle_partner) {
  return radius + (particle_partner ? 0.5f * gap : gap);
}

/// The inverse moment of inertia of a solid sphere, 1 / (2/5 m r^2) [1/(kg m^2)], from its
/// inverse mass [1/kg] and radius [m].
inline float inverse_inertia(float inv_mass, float radius) {
  return 2.5f * inv_mass / (radius * radius);
}

/// The detection pass. Fills `contacts` with every pair of particles closer than the sum of radii
/// plus contact_margin_m (candidates from `neighbours` when given, a list that covers the current
/// positions (neighbour_list_need() gives kNothing), else from `hash`, which must then be built on
/// the current positions; both give the same rows), every particle within that distance of a
/// container wall, and every particle within it of a body (signed_distance of the body's shape at
/// the particle centre mapped into B, minus the radius; normal from outward_normal; the body's
/// velocity at the surface point from its twist). The target normal speed of a contact with gap g
/// is -g / dt for g > 0 (speculative: the pair may close the gap in one step) and 0 for g <= 0; a
/// penetration -g > 0 is removed by the push-out speed min(baumgarte (-g) / dt, max_pushout_speed),
/// paper 001's Baumgarte term (§II-A), solved as a split impulse (projected_jacobi.hpp) so that it
/// moves positions without adding energy. With warm starting, each impulse starts from the impulse
/// of the same (particle, partner) slot in `previous` (re-projected onto the new normal and
/// friction cone), else zero. Also writes the initial Jacobi iterate record of every particle
/// (kIterateStride floats each): w = v* + M^-1 sum(lambda) from the predicted velocities vp, the
/// split inverse mass, s = 0. With model.rotation, also warm-starts each slot's rolling impulse
/// (ContactList::rolling, projected off the new normal and onto the rolling cone) and writes each
/// particle's angular iterate record into `spin` (kSpinStride floats): omega + I^-1 sum(-r n x
/// lambda + rolling), and its radius.
void detect_contacts(const ParticleModel& model, const ParticleState& state,
                     std::span<const BodyMotion> motions, const SpatialHash& hash,
                     const NeighbourList* neighbours, const ContactList* previous, const float* vpx,
                     const float* vpy, const float* vpz, float* iterate, float* spin,
                     ContactList& contacts, int threads);

/// Splits the particles of `rows` into `parts` contiguous chunks of about equal work, counting a
/// particle's work as its row's slot count plus kChunkBaseWork (the candidate search and the
/// per-particle record cost something without contacts). `bounds` gets parts + 1 entries, from 0
/// to rows.particles(). Serial, O(particles).
void balanced_chunks(const ContactList& rows, int parts, std::vector<std::int64_t>& bounds);

/// The chunk bounds for `parts` threads over n particles: `rows.chunk_bounds` when it was made for
/// that many threads and particles, else equal particle counts.
std::span<const std::int64_t> chunks_for(const ContactList* rows, std::size_t n, int parts,
                                         std::vector<std::int64_t>& uniform);

/// Number of distinct contacts (each particle pair once, plus wall and body contacts).
std::size_t distinct_contact_count(const ContactList& contacts);

}  // namespace talus::particles
