#pragma once
// The contact solver of the particle tier: Projected Jacobi (paper 001 §II-A, Algorithm 1) with
// accumulated impulses and mass splitting, over a stored contact list.
//
// One sweep, for every particle i in parallel, for each of its contact slots c (partner j, normal
// n from j to i, target normal speed t, impulse lambda_c on i) using the velocity iterates w of
// the previous sweep:
//   u     = w_i - w_j                 (or w_i - u_body for walls and bodies)
//   m_c   = 1 / (k_i / m_i + k_j / m_j)      k = contact count (mass splitting; 1/m_j = 0 for
//   walls) l_n   = max(0, lambda_c.n + omega m_c (t - u.n))                 normal, clamped at zero
//   l_t   = (lambda_c - (lambda_c.n) n) - omega m_c (u - (u.n) n)   tangential
//   l_t  *= min(1, mu l_n / |l_t|)                                    onto the Coulomb cone (3)
//   lambda_c = l_n n + l_t
// then w_i = v*_i + (1/m_i) sum_c lambda_c. As implemented, a sweep is two passes with a barrier
// between: each particle pair's impulse is computed once, in the row of its lower index, and
// written negated into the partner's copy (ContactList::own_mirror), 8 slots at a time in SIMD
// lanes where the build has AVX2 (projected_jacobi_slots.hpp); then every particle sums its row.
// Row j would have computed exactly that negated value, so the results are those of the per-row
// update at half the arithmetic. Threads take chunks of equal contact work
// (ContactList::chunk_bounds); the bits do not depend on the split (docs/particles.md §3).
//
// Penetration is removed by a split impulse (Catto's "split impulses", Box2D): paper 001 adds the
// Baumgarte speed alpha psi / dt to the normal target of the velocity solve (Alg. 1, l.5), which
// turns every push-out into real velocity and so into energy (a dropped ball of particles gained
// up to 4 % energy per step on impact in our test). Here the same push-out speed is the target of
// a second, normal-only pseudo-impulse p_c >= 0 solved in the same sweep with the same effective
// masses on pseudo-velocities s (starting at 0):
//   p_c = max(0, p_c + omega m_c (pushout_c - (s_i - s_j).n)),   s_i = (1/m_i) sum_c p_c n_c
// and integration moves positions by dt (v + s) while keeping v: penetration is undone at the
// Baumgarte rate without adding kinetic energy. Splitting each particle's mass among its k contacts
// and averaging its k sub-velocities (Tonge, Benevolenski and Voroshilov 2012) is what makes the
// simultaneous (Jacobi) update converge where the plain one overshoots; omega < 1 damps further.

#include <vector>

#include "particles/particle_contacts.hpp"

namespace talus::particles {

/// The angular part of the solve, for rotating grains (ParticleModel::rotation;
/// projected_jacobi_rotating.hpp): ping-ponged angular iterate records (kSpinStride floats per
/// particle: omega, radius; iterate[0] written by the detection pass), the angular velocities
/// before contact impulses omega* [rad/s], each body's angular velocity (3 floats per body, world
/// frame) [rad/s] and the rolling friction coefficient.
struct SpinSolve {
  float* iterate[2];
  const float* wx;
  const float* wy;
  const float* wz;
  const float* body_omega;
  float rolling_friction;
};

/// Runs `iterations` sweeps, ping-ponging the per-particle iterate records (kIterateStride floats:
/// velocity w, split inverse mass, pseudo-velocity s; particle_contacts.hpp) between iterate[0]
/// (the start, with s = 0) and iterate[1]; returns the index (0 or 1) of the buffer holding the
/// final values. Appends to `residual` the largest |change of a contact impulse| [N s] of each
/// sweep. All sweeps run in one OpenMP parallel region (a barrier between sweeps instead of a
/// fork and join per sweep). With `spin` (rotating grains) the sweeps also update the rolling
/// impulses and the angular iterates, whose final values are in spin->iterate[returned index].
int solve_projected_jacobi(const ParticleModel& model, const float* inv_mass, const float* vpx,
                           const float* vpy, const float* vpz, std::vector<float> (&iterate)[2],
                           ContactList& contacts, std::size_t n, int iterations, double relaxation,
                           std::vector<double>& residual, int threads,
                           const SpinSolve* spin = nullptr);

}  // namespace talus::particles
