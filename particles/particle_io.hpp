#pragma once
// Saving and loading particle states (a settled bed, the last good state before a divergence).
//
// Binary format, version 2, little-endian:
//   bytes 0-7    magic "TALUSPS\0"
//   u32          format version (2)
//   u32          number of per-particle arrays that follow (11)
//   u64          particle count n
//   f64          simulated time [s]
//   i64          steps taken
//   11 x n f32   x_m, y_m, z_m, vx_m_per_s, vy_m_per_s, vz_m_per_s, radius_m, inv_mass_per_kg,
//                wx_rad_per_s, wy_rad_per_s, wz_rad_per_s
//   u64          FNV-1a 64-bit checksum of every byte before it
// Version 1 (before rotating grains) is the same with 8 arrays, without the angular velocities:
// it loads with zero spin (its grains did not rotate), and LoadedParticleState says so.
// Body wrenches are per-step outputs, not state: they are not saved (empty after loading).
// Particles are written in creation order (ParticleState::id): a state the step kept in spatial
// order is saved as the same particles at the same indices as before it was sorted, and loads with
// every particle at its own index (an empty id).

#include <filesystem>

#include "particles/particle_state.hpp"

namespace talus::particles {

inline constexpr std::uint32_t kParticleFileVersion = 2;

/// Writes `state` to `path` (replacing it). Throws std::runtime_error naming the path when the file
/// cannot be written, std::invalid_argument when the state's arrays differ in length.
void save_particle_state(const ParticleState& state, const std::filesystem::path& path);

/// Reads a state saved by save_particle_state. Throws std::runtime_error naming the file and what
/// is wrong: cannot open, wrong magic (not a particle state file), unsupported version or array
/// count, truncated (expected and actual sizes), checksum mismatch, or a value that
/// validate(ParticleState) refuses (NaN, radius <= 0: "file: particle 12: ...").
ParticleState load_particle_state(const std::filesystem::path& path);

/// What load_particle_state_with_version read: the state and the file's format version (1: no
/// angular velocities were stored; the state's are zero).
struct LoadedParticleState {
  ParticleState state;
  std::uint32_t version = kParticleFileVersion;
};

/// load_particle_state, also returning the file's version (1 or 2).
LoadedParticleState load_particle_state_with_version(const std::filesystem::path& path);

}  // namespace talus::particles
