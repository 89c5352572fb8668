#pragma once
// Pass 1 of a Projected Jacobi sweep for rotating grains (ParticleModel::rotation; the update of
// projected_jacobi.hpp extended to angular velocities, docs/particles.md §7). Per contact slot of
// particle i (partner j, normal n from j toward i, radii r_i, r_j):
//
//   u     = w_i - w_j - (l_i om_i + l_j om_j) x n      velocity of i's contact point relative
//                                                      to j's (i's point is at -l_i n from its
//                                                      centre, j's at +l_j n); for a wall or
//                                                      body, w_j - l_j om_j x n is its surface
//                                                      velocity at the contact
//
// The lever arms l put both partners' contact points at one point: l = r + g/2 for a particle
// pair with gap g (the middle of the gap or overlap: l_i + l_j is the centre distance), l_i =
// r_i + g for a wall or body (its nearest surface point). Lever arms of r_i and r_j instead would
// leave (g n) x lambda of angular momentum unbalanced per contact; with these a pair's torques
// about any point cancel exactly, and so do a body's and its particles' (contact_lever).
//   normal        as without rotation (a normal impulse exerts no torque on a sphere)
//   tangential    l_t = (lambda_c - (lambda_c.n) n) - omega m_t (u - (u.n) n), onto the Coulomb
//                 cone, with m_t = m_c * 2/7: a tangential impulse t at the contact point changes
//                 that point's velocity by (1/m + r^2/I) t = (7/2) t / m for a solid sphere
//                 (I = 2/5 m r^2), the same factor for every radius, so the split effective mass
//                 1 / (k_i/m_i + k_j/m_j) is scaled by 2/7 for particle pairs, walls and bodies
//   rolling       eta_c = (eta_c - (eta_c.n) n) - omega m_r (om_i - om_j)_t, projected onto the
//                 cone |eta_c| <= mu_r R_eff l_n, with m_r = 1 / (k_i/I_i + k_j/I_j) and
//                 (.)_t the part perpendicular to n: the implicit form of LIGGGHTS's constant
//                 directional torque model (`rolling_friction cdt`): a rolling torque of at most
//                 mu_r R_eff f_n against the relative rolling velocity, which holds a grain at
//                 rest instead of chattering about zero. R_eff = r_i r_j / (r_i + r_j), r_i
//                 against walls and bodies; om_j = 0 for walls, the body's angular velocity for
//                 bodies.
//
// Each pair is computed once, in its lower index's row; the partner's copy takes -lambda, the same
// push-out p and -eta: row j's own evaluation (n -> -n, i <-> j) negates u, om_i - om_j and so
// lambda and eta. The row sums (projected_jacobi.cpp) then give
//   om_i = om_i* + I_i^-1 sum_c (eta_c - l_i n_c x lambda_c).
// Like paper 001's pass, an 8-lane form where the build targets AVX2 and a scalar form, with the
// same operations in the same order (docs/particles.md §7).

#include <cstdint>

#include "particles/projected_jacobi_slots.hpp"

namespace talus::particles {

/// What pass 1 reads and writes besides SlotPass, for rotating grains.
struct SpinPass {
  const float* a;           ///< angular iterate records of the previous sweep (kSpinStride)
  float* rolling;           ///< slot rolling impulses (ContactList::rolling)
  const float* body_omega;  ///< per body, its angular velocity (x, y, z) [rad/s], world frame
  float mu_roll;            ///< rolling friction coefficient
};

/// Updates list entry q's impulse and rolling impulse (and its mirror's) in the scalar form;
/// returns the largest change of an impulse component [N s].
float solve_slot_rotating(const SlotPass& p, const SpinPass& r, std::int64_t q);

/// Pass 1 over list entries [begin, end) for rotating grains, 8 entries at a time where the build
/// targets AVX2 (the same bits as the scalar form: projected_jacobi_slots.hpp explains why that
/// matters) and the rest in the scalar form: every slot's new impulse and
/// rolling impulse (and their mirrors); returns the largest change of an impulse component [N s].
float solve_slots_rotating(const SlotPass& p, const SpinPass& r, std::int64_t begin,
                           std::int64_t end);

}  // namespace talus::particles
