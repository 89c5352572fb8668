#pragma once
// The particle tier's State: everything that changes while stepping, as flat float32 arrays, one
// per component (structure of arrays). The same layout serves the CPU stages and, later, CUDA
// kernels. Index i is the same particle in every array.

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/wrench.hpp"
#include "particles/contact_list.hpp"

namespace talus::particles {

struct ParticleModel;

/// Positions, velocities, radii and inverse masses of n particles, in the world frame W.
struct ParticleState {
  std::vector<float> x_m, y_m, z_m;                       ///< centre positions [m]
  std::vector<float> vx_m_per_s, vy_m_per_s, vz_m_per_s;  ///< velocities [m/s]
  /// Angular velocities [rad/s], world frame (ParticleModel::rotation; zero and unchanged
  /// without it). A sphere's orientation does not enter its contacts, so none is kept.
  std::vector<float> wx_rad_per_s, wy_rad_per_s, wz_rad_per_s;
  std::vector<float> radius_m;         ///< radii [m], > 0
  std::vector<float> inv_mass_per_kg;  ///< 1 / mass [1/kg], > 0
  /// Each particle's identity: its index in the order the particles were made (added, read from a
  /// file), carried with its values when the step keeps the particles in spatial order
  /// (ParticleModel::sort_every_steps, particle_order.hpp). Distinct. Empty: every particle is at
  /// its own index (nothing has reordered them), which is how states start.
  std::vector<std::uint32_t> id;

  double time_s = 0.0;    ///< simulated time [s]
  std::int64_t step = 0;  ///< steps taken

  /// The wrench the particles exerted on each body (ParticleModel::bodies order) during the last
  /// step, about the body's reference point R (CoupledBody::p_BR) placed by its pose: contact
  /// impulses / dt. Empty before the first step.
  std::vector<Wrench> body_wrenches;

  /// The last step's contacts with their solved impulses: the next step starts its solve from
  /// them (warm starting, ParticleModel::warm_start), so they are state, not scratch: a copy of
  /// the state continues bit for bit like the original. Empty before the first step; a state
  /// read from a file (particle_io.hpp) or resized starts cold.
  ContactList contacts;

  std::size_t size() const { return x_m.size(); }

  /// Appends a particle at p_W [m] with velocity v_W [m/s], radius [m], mass [kg] and angular
  /// velocity w_W [rad/s].
  void add(const Vec3& p_W, const Vec3& v_W, double radius_m_, double mass_kg,
           const Vec3& w_W = Vec3::Zero());
  /// Resizes every per-particle array to n (new particles are zero: set them before stepping; a
  /// reordered state's new particles get identities after its largest).
  void resize(std::size_t n);
  /// The identity of the particle at index i (id[i], or i while `id` is empty).
  std::size_t id_of(std::size_t i) const { return id.empty() ? i : id[i]; }
};

/// The eleven float arrays of one particle each (x, y, z, vx, vy, vz, radius, inverse mass, wx,
/// wy, wz: the order of a state file's arrays, particle_io.hpp), const or not following S: for
/// passes that treat every per-particle value alike (resize, reorder, save, copies in creation
/// order).
template <class S>
auto float_arrays(S& s) {
  using V = std::conditional_t<std::is_const_v<S>, const std::vector<float>, std::vector<float>>;
  return std::array<V*, 11>{&s.x_m,          &s.y_m,          &s.z_m,         &s.vx_m_per_s,
                            &s.vy_m_per_s,   &s.vz_m_per_s,   &s.radius_m,    &s.inv_mass_per_kg,
                            &s.wx_rad_per_s, &s.wy_rad_per_s, &s.wz_rad_per_s};
}

/// The indices of `state`'s particles in increasing identity (ParticleState::id): the order in
/// which the particles were made. The identity permutation while `id` is empty.
std::vector<std::uint32_t> creation_order(const ParticleState& state);

/// A copy of `state`'s particles in creation order (creation_order), with an empty `id`; time,
/// step and body wrenches copied, no contacts. Per-frame outputs use it, so that a particle keeps
/// its place in them while the step reorders the state.
ParticleState in_creation_order(const ParticleState& state);

/// `state` itself while it is in creation order (an empty `id`), else its copy in creation order,
/// made in `copy`.
const ParticleState& creation_ordered(const ParticleState& state, ParticleState& copy);

/// Mass [kg] of a solid sphere of radius_m [m] and density [kg/m^3].
double sphere_mass_kg(double radius_m, double density_kg_per_m3);

/// Total kinetic energy sum 1/2 m |v|^2 + 1/2 I |w|^2 (I = 2/5 m r^2) [J], summed in double in
/// index order (the rotational part is zero for grains that do not rotate).
double kinetic_energy_J(const ParticleState& state);

/// Moment of inertia of particle i about its centre, 2/5 m r^2 [kg m^2] (a solid sphere).
double moment_of_inertia_kg_m2(const ParticleState& state, std::size_t i);

/// Throws std::invalid_argument naming the array when the per-particle arrays differ in length
/// (`id` may also be empty), when two particles share an identity, or naming the first particle by
/// its identity ("particle 12: radius_m = -1 is not > 0") whose position, velocity, radius or
/// inverse mass is not finite, or whose radius or inverse mass is not > 0.
void validate(const ParticleState& state);

/// The checks at the edge, before a run (each error names the particle index or indices):
/// validate(model) and validate(state); every particle inside the container (a centre within one
/// radius of a wall, beyond overlap_tolerance, or on the wrong side is refused; along the periodic
/// axis the centre must lie in [lo, hi)); no pair of particles overlapping deeper than
/// overlap_tolerance times the smaller radius; the no-tunnelling bound
/// expected_speed_m_per_s * time_step_s <= smallest radius, and no particle already faster than
/// expected_speed_m_per_s. Throws std::invalid_argument.
void check_initial_state(const ParticleModel& model, const ParticleState& state);

/// The no-tunnelling bound alone (part of check_initial_state): throws std::invalid_argument
/// naming the largest time_step_s allowed when expected_speed_m_per_s * time_step_s exceeds the
/// smallest radius of `state`.
void check_no_tunnelling(const ParticleModel& model, const ParticleState& state);

}  // namespace talus::particles
