#pragma once
// One step of the particle tier (paper 001 §II). The step reads top to bottom:
//
//   predict      v* = v + dt g                                  (external impulse, §II-A eq. (1))
//   broadphase   bucket the particles in the spatial hash and list each one's partners within
//                the contact reach plus a skin, when the last list no longer covers them
//                                                                (§II-B, Algorithm 2; Verlet list)
//   contacts     store every particle-particle, particle-wall and particle-body contact with its
//                normal, gap and target normal speed             (§II-C, §II-D: the detection pass)
//   solve        Projected Jacobi sweeps over the stored contacts (§II-A, Algorithm 1; no search),
//                with rotating grains also their angular velocities and rolling resistance
//                (projected_jacobi_rotating.hpp)
//   wrenches     reaction wrench on each body from its contacts' impulses / dt
//   integrate    symplectic Euler: v = v* + M^-1 lambda, x += dt (v + s) (eq. (4), (5), s the
//                split-impulse push-out pseudo-velocity), omega from the solve; wrap periodic
//   check        NaN / kinetic-energy guard; the state is replaced only when the new one is good
//   order        every sort_every_steps steps, the particles put in spatial order with their
//                identities and warm-start contacts (particle_order.hpp)
//
// Every stage is a data-parallel loop over particles: the detection pass and the solver split
// them into contiguous chunks of about equal contact work (balanced_chunks; the detection pass
// into eight per thread, which its threads claim as they come free: ChunkClaims), the other
// stages use OpenMP static schedules. A thread writes its own particles' entries, and in the solver
// each pair's mirror slot (the exact negative of the impulse its lower index computed), which no
// other thread writes; every sum runs in a fixed order. The result is bit-identical for any thread
// count. The state holds everything the next step reads (its contacts warm-start the solve); the
// workspace only scratch.

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/contact_tier.hpp"
#include "core/driver.hpp"
#include "particles/neighbour_list.hpp"
#include "particles/particle_contacts.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/spatial_hash.hpp"

namespace talus::particles {

/// Wall-clock seconds spent in each stage, summed over the steps since the last reset.
struct StageTimes {
  double broadphase_s = 0.0;  ///< binning, the neighbour list and the spatial sort
  double contacts_s = 0.0;
  double solve_s = 0.0;
  double integrate_s = 0.0;  ///< predict + wrenches + integrate + check
};

/// Working memory reused between steps (hash, neighbour list, contact list buffer, solver
/// buffers) and per-step diagnostics. Nothing in it changes results: a state may be stepped with
/// any workspace (the neighbour list is rebuilt when it no longer covers the state's particles).
struct ParticleWorkspace {
  SpatialHash hash;
  NeighbourList neighbours;  ///< Verlet list of hash partners within the skin (its `builds` count)
  ContactList contacts;  ///< buffer of the next step's contacts (the last step's: state.contacts)
  std::vector<float> vpx, vpy, vpz;  ///< predicted velocities v* [m/s]
  /// Jacobi iterate records, double-buffered: per particle kIterateStride floats (velocity
  /// iterate w, split inverse mass, split-impulse pseudo-velocity s; particle_contacts.hpp).
  std::vector<float> iterate[2];
  /// Angular iterate records of rotating grains, double-buffered: per particle kSpinStride
  /// floats (angular velocity iterate, radius; particle_contacts.hpp). Empty without rotation.
  std::vector<float> spin[2];
  std::vector<float> body_omega;  ///< per body its angular velocity (x, y, z) [rad/s], this step
  std::vector<float> new_x, new_y, new_z, new_vx, new_vy, new_vz;  ///< integrated, unchecked
  std::vector<float> new_wx, new_wy, new_wz;                       ///< rotating grains only
  std::vector<double> body_block_sums;  ///< fixed-block partial sums of body wrenches

  /// After each step: max over contacts of |lambda change| [N s] in each Jacobi sweep (the
  /// solver residual; docs/particles.md shows it falling with the sweep count).
  std::vector<double> residual_per_iteration;
  StageTimes times;
};

/// Thrown by step() when the new state would hold a NaN/infinite value or exceed the kinetic
/// energy bound; the state passed in is left as it was before the step (the last good state).
class ParticleDivergence : public std::runtime_error {
 public:
  ParticleDivergence(std::int64_t step, std::size_t particle, const std::string& what)
      : std::runtime_error(what), step_(step), particle_(particle) {}
  std::int64_t step() const { return step_; }  ///< the step that failed (state.step + 1)
  /// The first bad particle's identity (ParticleState::id; its index in an unsorted state).
  std::size_t particle() const { return particle_; }

 private:
  std::int64_t step_;
  std::size_t particle_;
};

/// Advances `state` by model.time_step_s with the bodies at `motions` (one per model.bodies entry,
/// the pose and twist at the START of the step; the twist gives the body's velocity at each contact
/// point, Twist::velocity_of_point). Writes state.body_wrenches. Assumes validate(model) passed and
/// state arrays are consistent (check_initial_state() before a run). Throws ParticleDivergence
/// (state unchanged) and std::invalid_argument when motions.size() != model.bodies.size().
void step(const ParticleModel& model, ParticleState& state, std::span<const BodyMotion> motions,
          ParticleWorkspace& workspace);

/// The poses and twists of driven bodies at time t_s [s] (pose_at / twist_at, analytic).
std::vector<BodyMotion> motions_at(std::span<const Driver> drivers, double t_s);

}  // namespace talus::particles
