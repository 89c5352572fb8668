#pragma once
// The Wong-Reece rigid-wheel model: the classical analytic reference for a rigid wheel driven at
// a slip on deformable soil, against which the SCM tier's single-wheel results are plotted.
//
// Sources: J. Y. Wong and A. R. Reece, "Prediction of rigid wheel performance based on the
// analysis of soil-wheel stresses, Part I", Journal of Terramechanics 4(1), 81-98, 1967; J. Y.
// Wong, Theory of Ground Vehicles, 4th ed., Wiley 2008, §2.4 and §4.2. The equations as
// implemented are written out in docs/wong_reece.md.

namespace talus::scm {

/// Soil as the Wong-Reece model needs it (Bekker pressure-sinkage and Mohr-Coulomb/Janosi shear).
struct WongReeceSoil {
  double kc = 0.0;                  ///< cohesive modulus [N/m^(n+1)]
  double kphi = 0.0;                ///< frictional modulus [N/m^(n+2)]
  double n = 1.0;                   ///< sinkage exponent [-]
  double cohesion_Pa = 0.0;         ///< c [Pa]
  double friction_angle_rad = 0.5;  ///< phi [rad]
  double shear_modulus_m = 0.01;    ///< Janosi-Hanamoto K [m]
};

/// A rigid wheel under a vertical load, and the model's stress-distribution constants.
struct WongReeceWheel {
  double radius_m = 0.25;
  double width_m = 0.2;
  double load_N = 500.0;  ///< vertical load the soil must carry [N]
  /// Angle of maximum normal stress theta_m = (c1 + c2 * slip) * theta_1 (Wong-Reece's
  /// coefficients; 0.4 and 0.15 are Wong's values for sand, Theory of Ground Vehicles §4.2).
  double c1 = 0.4;
  double c2 = 0.15;
  /// Rear (exit) contact angle theta_2 = -c3 * theta_1 (soil rebound behind the wheel; 0 = none).
  double c3 = 0.0;
};

/// The wheel's steady state at one slip.
struct WongReeceResult {
  double slip = 0.0;                  ///< i = 1 - v / (r omega) [-]
  double sinkage_m = 0.0;             ///< z0 = r (1 - cos theta_1)
  double entry_angle_rad = 0.0;       ///< theta_1
  double max_stress_angle_rad = 0.0;  ///< theta_m
  double vertical_force_N = 0.0;      ///< W, equals the load to the solver's tolerance
  double drawbar_pull_N = 0.0;        ///< DP, positive = net forward thrust
  double torque_Nm = 0.0;             ///< T, the driving torque the soil resists
};

/// Forces on the wheel for a given entry angle theta_1 [rad] (no load balance): the building
/// block that at_slip() solves with. Integrals by composite Simpson's rule on each stress region.
WongReeceResult wong_reece_at_entry_angle(const WongReeceWheel& wheel, const WongReeceSoil& soil,
                                          double slip, double entry_angle_rad);

/// Steady state at `slip` in [0, 1): the entry angle (hence sinkage) at which the vertical
/// force equals the load, found by bisection. Throws std::invalid_argument for non-physical
/// input and std::runtime_error when the soil cannot carry the load with the wheel sunk to its
/// axle (theta_1 = 90 degrees).
WongReeceResult wong_reece_at_slip(const WongReeceWheel& wheel, const WongReeceSoil& soil,
                                   double slip);

}  // namespace talus::scm
