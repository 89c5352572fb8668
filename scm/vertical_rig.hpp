#pragma once
// A test rig's free vertical degree of freedom (paper 002 §4.2: forward speed and spin prescribed,
// vertical motion free under the load): m z'' = F_soil,z - W(t) - c z', integrated by
// semi-implicit Euler (velocity first, then position with the new velocity).

namespace talus::scm {

struct VerticalRig {
  double mass_kg = 1.0;            ///< moving mass, W / g for a dead load
  double damping_n_s_per_m = 0.0;  ///< viscous damper of the rig c
  double z_m = 0.0;                ///< height of the body's reference point [m]
  double vz_m_per_s = 0.0;         ///< its vertical velocity [m/s]

  /// Advances by dt_s under the soil's vertical force and the downward load [N].
  void advance(double soil_force_z_n, double load_n, double dt_s) {
    vz_m_per_s += dt_s * (soil_force_z_n - load_n - damping_n_s_per_m * vz_m_per_s) / mass_kg;
    z_m += dt_s * vz_m_per_s;
  }
};

}  // namespace talus::scm
