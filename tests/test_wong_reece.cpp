#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "scm/wong_reece.hpp"
#include "tests/error_message.hpp"

namespace talus::scm {
namespace {

// Dry sand of the Land Locomotion Laboratory as tabulated in Wong, Theory of Ground Vehicles,
// Table 2.3 (n = 1.1, kc = 0.99 kN/m^(n+1), kphi = 1528.43 kN/m^(n+2), c = 1.04 kPa,
// phi = 28 deg), with a Janosi shear modulus K of 1 cm.
WongReeceSoil dry_sand() {
  WongReeceSoil s;
  s.kc = 0.99e3;
  s.kphi = 1528.43e3;
  s.n = 1.1;
  s.cohesion_Pa = 1.04e3;
  s.friction_angle_rad = deg_to_rad(28.0);
  s.shear_modulus_m = 0.01;
  return s;
}

// With theta_m = 0 the whole contact follows the front-region law, and with a shear modulus so
// large that no shear stress builds up, the integrals have closed forms: for n = 1,
//   W  = k b r^2 (theta_1 / 2 - sin(2 theta_1) / 4)
//   DP = -b k z0^(n+1) / (n+1)  (Bekker's compaction resistance; r sin(theta) d(theta) = dz)
TEST(WongReece, NormalStressIntegralsMatchClosedForms) {
  WongReeceWheel wheel;
  wheel.radius_m = 0.3;
  wheel.width_m = 0.15;
  wheel.c1 = 0.0;
  wheel.c2 = 0.0;
  WongReeceSoil soil = dry_sand();
  soil.n = 1.0;
  soil.cohesion_Pa = 0.0;
  soil.shear_modulus_m = 1e12;
  const double theta1 = 0.4;
  const WongReeceResult r = wong_reece_at_entry_angle(wheel, soil, 0.2, theta1);
  const double k = soil.kc / wheel.width_m + soil.kphi;
  const double rad = wheel.radius_m;
  const double w_closed =
      k * wheel.width_m * rad * rad * (theta1 / 2.0 - std::sin(2.0 * theta1) / 4.0);
  const double z0 = rad * (1.0 - std::cos(theta1));
  EXPECT_NEAR(r.vertical_force_N / w_closed, 1.0, 1e-9);
  EXPECT_NEAR(r.drawbar_pull_N / (-wheel.width_m * k * z0 * z0 / 2.0), 1.0, 1e-9);
  EXPECT_NEAR(r.sinkage_m, z0, 1e-15);

  soil.n = 0.8;  // (z0 - u)^0.8 has an unbounded derivative at the entry point: looser tolerance
  const WongReeceResult r8 = wong_reece_at_entry_angle(wheel, soil, 0.2, theta1);
  const double k8 = soil.kc / wheel.width_m + soil.kphi;
  EXPECT_NEAR(r8.drawbar_pull_N / (-wheel.width_m * k8 * std::pow(z0, 1.8) / 1.8), 1.0, 1e-3);
}

TEST(WongReece, SolvedSinkageCarriesTheLoad) {
  WongReeceWheel wheel;
  wheel.radius_m = 0.25;
  wheel.width_m = 0.2;
  wheel.load_N = 500.0;
  for (double slip : {0.0, 0.2, 0.6, 0.9}) {
    const WongReeceResult r = wong_reece_at_slip(wheel, dry_sand(), slip);
    EXPECT_NEAR(r.vertical_force_N, wheel.load_N, 1e-6 * wheel.load_N) << "slip " << slip;
    EXPECT_GT(r.sinkage_m, 0.0);
    EXPECT_LT(r.sinkage_m, wheel.radius_m);
    EXPECT_NEAR(r.max_stress_angle_rad, (wheel.c1 + wheel.c2 * slip) * r.entry_angle_rad, 1e-15);
  }
}

// Wong-Reece's known shape: pull rises steeply at small slip and saturates (it falls slightly
// past about 65 % slip, as the maximum-stress angle moves forward), torque rises monotonically,
// and with the load fixed the sinkage hardly depends on slip (the model has no soil transport,
// which is what makes real wheels dig in at high slip).
TEST(WongReece, PullSaturatesTorqueRisesSinkageNearlyConstant) {
  WongReeceWheel wheel;
  wheel.radius_m = 0.25;
  wheel.width_m = 0.2;
  wheel.load_N = 500.0;
  const WongReeceResult at_rest = wong_reece_at_slip(wheel, dry_sand(), 0.0);
  EXPECT_LT(at_rest.drawbar_pull_N, 0.0);  // a wheel rolling without slip is resisted
  WongReeceResult previous = at_rest;
  double max_pull = at_rest.drawbar_pull_N;
  for (int k = 1; k <= 9; ++k) {
    const double slip = 0.1 * k;
    const WongReeceResult r = wong_reece_at_slip(wheel, dry_sand(), slip);
    if (slip <= 0.6) {
      EXPECT_GT(r.drawbar_pull_N, previous.drawbar_pull_N) << "slip " << slip;
    }
    max_pull = std::max(max_pull, r.drawbar_pull_N);
    EXPECT_GT(r.drawbar_pull_N, 0.98 * max_pull) << "slip " << slip;
    EXPECT_GT(r.torque_Nm, previous.torque_Nm) << "slip " << slip;
    EXPECT_NEAR(r.sinkage_m / at_rest.sinkage_m, 1.0, 0.1) << "slip " << slip;
    previous = r;
  }
  // Drawbar pull cannot exceed the shear strength of the contact patch: W tan(phi) + c A.
  EXPECT_LT(max_pull, wheel.load_N * std::tan(deg_to_rad(28.0)) + 1.04e3 * 0.2 * 0.25);
}

TEST(WongReece, RefusesNonPhysicalInputAndLoadsItCannotCarry) {
  using test_support::invalid_argument_of;
  WongReeceWheel wheel;
  WongReeceSoil soil = dry_sand();
  soil.n = 0.0;
  EXPECT_NE(invalid_argument_of([&] {
              wong_reece_at_slip(wheel, soil, 0.2);
            }).find("exponent n must be > 0"),
            std::string::npos);
  soil = dry_sand();
  soil.friction_angle_rad = deg_to_rad(95.0);
  EXPECT_NE(
      invalid_argument_of([&] { wong_reece_at_slip(wheel, soil, 0.2); }).find("(0, 90) degrees"),
      std::string::npos);
  EXPECT_NE(invalid_argument_of([&] {
              wong_reece_at_slip(wheel, dry_sand(), 1.0);
            }).find("slip must be in"),
            std::string::npos);
  wheel.load_N = 1e7;
  EXPECT_THROW(wong_reece_at_slip(wheel, dry_sand(), 0.2), std::runtime_error);
}

}  // namespace
}  // namespace talus::scm
