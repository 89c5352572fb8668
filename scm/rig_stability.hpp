#pragma once
// The time-step limit of the SCM test rigs (scm_rigs.hpp), for the warning `talus check` gives
// before a run that would blow up (issue 16). Derivation in docs/scm.md, "Rig stability".
//
// A rig's free vertical DOF is m z'' = F_soil(z) - W - c z', integrated by semi-implicit Euler
// with the soil force of the previous step. Linearised about rest, with k the soil's vertical
// stiffness there, omega^2 = k / m and zeta = c / (2 sqrt(k m)), the step is stable for
//   dt < 2 (sqrt(1 + zeta^2) - zeta) / omega        (docs/robots.md, n = 1).
// k is Bekker's loading slope dW/dz at the static sinkage: the rig approaches rest from above on
// the loading branch. (The elastic reloading stiffness K_e A is 4-10 times stiffer, but a limit
// from it was beaten by the runs: the single wheel ran stably at 4x that limit; see docs/scm.md.)

#include "scm/scm_model.hpp"
#include "scm/scm_rigs.hpp"

namespace talus::scm {

/// Largest stable step [s] of the plate rig: static sinkage z = (W / (A k))^(1/n) (Bekker,
/// b = the plate's smaller side), loading slope n W / z, contact area A = the plate's.
double plate_rig_dt_max_s(const SoilParameters& soil, const PlateTest& test);

/// Largest stable step [s] of the wheel rig: Bekker's static sinkage of a rigid wheel
/// z0 = (3 W / ((3 - n) (kc + b kphi) sqrt(2 r)))^(2 / (2 n + 1)), loading slope
/// (n + 1/2) W / z0 (W grows as z^(n + 1/2)).
double wheel_rig_dt_max_s(const SoilParameters& soil, const WheelTest& test);

}  // namespace talus::scm
