#pragma once
// The stored contact list of the particle tier (paper 001 §II-D): the detection pass writes every
// contact once per step; the solver then only reads it (no searching while processing impulses).
//
// Layout: `capacity` slots per particle (slot s of particle i is i * capacity + s), structure of
// arrays. A particle-particle contact (i, j) is stored in both particles' slots with opposite
// normals, and both copies are computed with the same arithmetic so that their impulses are exact
// negatives: each particle's solver update then gathers only its own slots (no atomic scatter),
// and momentum between particles is conserved to the last bit. A particle's slots are in
// canonical order: particle partners by increasing index, then walls, then bodies, so the order
// (and every sum over it) does not depend on the broadphase or thread timing.

#include <cstdint>
#include <span>
#include <vector>

#include "core/contact_tier.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/spatial_hash.hpp"

namespace talus::particles {

/// Walls of the container as contact partners: box faces -x, +x, -y, +y, -z (floor), +z (lid),
/// then the cylinder's side.
inline constexpr std::int32_t kWallCount = 7;

/// Partner code of wall w (0 .. kWallCount-1): negative, so particle partners stay >= 0.
constexpr std::int32_t wall_partner(std::int32_t w) { return -1 - w; }
/// Partner code of body b (index in ParticleModel::bodies).
constexpr std::int32_t body_partner(std::int32_t b) { return -1 - kWallCount - b; }
/// Body index of a partner code, or -1 for a particle or wall.
constexpr std::int32_t partner_body(std::int32_t p) {
  return p <= -1 - kWallCount ? -1 - kWallCount - p : -1;
}

/// All contacts of one step.
struct ContactList {
  std::int32_t capacity = 16;          ///< slots per particle (grown when a particle needs more)
  std::vector<std::int32_t> count;     ///< per particle: slots in use
  std::vector<std::int32_t> partner;   ///< per slot: particle j >= 0, wall_partner, body_partner
  std::vector<float> nx, ny, nz;       ///< per slot: unit normal, from the partner toward i
  std::vector<float> target_m_per_s;   ///< per slot: least normal separation speed allowed [m/s]
  std::vector<float> pushout_m_per_s;  ///< per slot: Baumgarte push-out speed (split impulse) [m/s]
  std::vector<float> ux, uy, uz;       ///< per slot: wall/body velocity at the contact [m/s]
  std::vector<float> mu;               ///< per slot: Coulomb friction coefficient
  std::vector<float> lx, ly, lz;       ///< per slot: impulse on particle i [N s], world frame
  std::vector<float> push;             ///< per slot: normal push-out pseudo-impulse [N s], >= 0
  /// Per particle: inverse mass times contact count, the split inverse mass of the Jacobi
  /// mass-splitting average (docs/particles.md §2) [1/kg].
  std::vector<float> split_inv_mass;
};

/// The detection pass. Fills `contacts` with every pair of particles closer than the sum of radii
/// plus contact_margin_m (found through `hash`, which must be built on the same positions),
/// every particle within that distance of a container wall, and every particle within it of a
/// body (signed_distance of the body's shape at the particle centre mapped into B, minus the
/// radius; normal from outward_normal; the body's velocity at the surface point from its twist).
/// The target normal speed of a contact with gap g is -g / dt for g > 0 (speculative: the pair may
/// close the gap in one step) and 0 for g <= 0; a penetration -g > 0 is removed by the push-out
/// speed min(baumgarte (-g) / dt, max_pushout_speed), paper 001's Baumgarte term (§II-A), solved
/// as a split impulse (projected_jacobi.hpp) so that it moves positions without adding energy. With
/// warm starting, each impulse starts from the impulse of the same (particle, partner) slot in
/// `previous` (re-projected onto the new normal and friction cone), else zero. Also writes the
/// initial Jacobi velocity iterate w = v* + M^-1 sum(lambda) from the predicted velocities vp.
void detect_contacts(const ParticleModel& model, const ParticleState& state,
                     std::span<const BodyMotion> motions, const SpatialHash& hash,
                     const ContactList* previous, const float* vpx, const float* vpy,
                     const float* vpz, float* wx, float* wy, float* wz, ContactList& contacts,
                     int threads);

/// Number of distinct contacts (each particle pair once, plus wall and body contacts).
std::size_t distinct_contact_count(const ContactList& contacts);

}  // namespace talus::particles
