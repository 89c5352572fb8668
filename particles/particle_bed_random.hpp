#pragma once
// Random particle beds and settling. A random bed places particles one at a time at uniformly drawn
// positions in a region, keeping only those that overlap no particle placed before (random
// sequential insertion): a loose, isotropic packing (at most about 38 % solid) that then settles
// under gravity to a random close packing. settle() steps a model until the bed is at rest.

#include <cstdint>
#include <span>

#include "core/progress.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/particle_step.hpp"

namespace talus::particles {

/// Where and what to place at random.
struct RandomBed {
  Aabb region;               ///< box the particle centres lie in [m] (world)
  std::size_t count = 1000;  ///< particles to place, >= 1
  double radius_m = 0.01;    ///< mean particle radius [m], > 0
  /// Radii are uniform in radius_m * [1 - radius_spread, 1 + radius_spread]; in [0, 0.5].
  double radius_spread = 0.0;
  double density_kg_per_m3 = 1631.0;  ///< [kg/m^3], > 0
  double clearance_m = 0.0;           ///< smallest surface-to-surface gap between particles, >= 0
  /// Keep centres inside this vertical cylinder when cylinder_radius_m > 0 (centre at least one
  /// radius inside its wall).
  double cylinder_radius_m = 0.0;
  Vec2 cylinder_axis_xy_m = Vec2::Zero();
  std::uint64_t seed = 1;
  /// Give up after this many rejected draws in a row (the region is full).
  std::size_t max_attempts = 100000;
};

/// Random sequential insertion of bed.count particles at rest, returned in spatial (Morton) order
/// of cells one largest diameter wide (particle_order.hpp), not in insertion order. Deterministic
/// for a seed (its own 64-bit generator and conversions, no std:: distributions, whose output
/// differs between standard libraries). Throws std::invalid_argument for bad parameters, or when
/// the region is too small to hold `count` particles (naming how many fitted).
ParticleState make_random_bed(const RandomBed& bed);

/// When settle() stops.
struct SettleOptions {
  /// Rest: mean kinetic energy per particle below this [J], > 0.
  double kinetic_energy_per_particle_J = 1e-7;
  long min_steps = 0;      ///< always take at least this many steps
  long max_steps = 10000;  ///< never take more (>= min_steps)
  long check_every = 10;   ///< test the energy every this many steps, >= 1
};

struct SettleResult {
  long steps = 0;                              ///< steps taken
  double kinetic_energy_per_particle_J = 0.0;  ///< at the end
  bool at_rest = false;                        ///< the bound was met (else max_steps ran out)
};

/// Steps `state` with the bodies held at `motions` until the kinetic energy per particle falls
/// below the bound (checked every check_every steps, after min_steps), or max_steps. Calls
/// progress(steps_done, max_steps, time) after each step. ParticleDivergence passes through.
SettleResult settle(const ParticleModel& model, ParticleState& state,
                    std::span<const BodyMotion> motions, ParticleWorkspace& workspace,
                    const SettleOptions& options, const RunProgress& progress = {});

}  // namespace talus::particles
