#pragma once
// The angle of repose of a particle pile, measured from its surface profile.
//
// Method (docs/particle_scenarios.md): the pile's axis is the (x, y) centroid of the particles
// above the ground. The profile h(r) is the highest particle top (z + radius) minus the ground
// level in each ring of radial distance r (bins of width bin_m). H is the highest profile value.
// Over the flank, the bins beyond the peak whose height lies between lo_fraction * H and
// hi_fraction * H (20 % and 80 % by default: leaving out the rounded top and the scattered toe),
// a least-squares line h = a + b r is fitted; the angle is atan(-b).

#include <string>
#include <vector>

#include "particles/particle_state.hpp"

namespace talus::particles {

struct ReposeOptions {
  double ground_z_m = 0.0;   ///< level of the plane the pile stands on [m]
  double bin_m = 0.0;        ///< ring width [m]; 0: two mean particle diameters
  double lo_fraction = 0.2;  ///< flank starts at this fraction of the pile height
  double hi_fraction = 0.8;  ///< and ends at this one
};

struct ReposeMeasurement {
  double angle_deg = 0.0;    ///< atan(-slope) of the fitted flank [deg]
  double height_m = 0.0;     ///< pile height H above the ground [m]
  double slope = 0.0;        ///< fitted dh/dr [-]
  double intercept_m = 0.0;  ///< fitted h at r = 0 [m]
  int flank_bins = 0;        ///< bins in the fit
  double flank_drop_m =
      0.0;  ///< -slope x (last flank bin's r - first's): the fitted flank's fall [m]
  double mean_radius_m = 0.0;  ///< of the particles above the ground [m]
  Vec2 centre_xy_m = Vec2::Zero();
  std::vector<double> r_m;     ///< bin centres [m]
  std::vector<double> h_m;     ///< profile height of each bin above the ground (0: empty bin) [m]
  std::vector<bool> in_flank;  ///< whether each bin took part in the fit
};

/// Measures the pile formed by `state`. Throws std::invalid_argument when the options are out of
/// range, no particle lies above the ground, or fewer than 3 bins fall on the flank (the pile is
/// too small or flat to measure).
ReposeMeasurement measure_repose_angle(const ParticleState& state, const ReposeOptions& options);

/// Why `m` is not a pile's angle, or "" when it is: a flank whose fitted line falls by less than
/// one mean grain diameter over its rings is grains lying in a layer (the fit then measures the
/// one-grain steps of the profile: a spread pour gave "0.0 deg" over floor rings).
std::string why_not_a_pile(const ReposeMeasurement& m);

}  // namespace talus::particles
