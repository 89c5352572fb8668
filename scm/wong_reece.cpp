#include "scm/wong_reece.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/units.hpp"

namespace talus::scm {

namespace {

// Simpson intervals per stress region: the integrands are smooth, so 256 keeps the quadrature
// error far below the solver tolerance (checked against closed forms in tests/test_wong_reece.cpp).
constexpr int kSimpsonIntervals = 256;

struct StressIntegrals {
  double vertical = 0.0;    // integral of (sigma cos + tau sin)
  double horizontal = 0.0;  // integral of (tau cos - sigma sin)
  double shear = 0.0;       // integral of tau
};

void check_inputs(const WongReeceWheel& wheel, const WongReeceSoil& soil, double slip) {
  auto require = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("Wong-Reece model: " + what);
  };
  require(wheel.radius_m > 0.0, fmt::format("wheel radius must be > 0 m, got {}", wheel.radius_m));
  require(wheel.width_m > 0.0, fmt::format("wheel width must be > 0 m, got {}", wheel.width_m));
  require(wheel.load_N > 0.0, fmt::format("wheel load must be > 0 N, got {}", wheel.load_N));
  require(wheel.c1 >= 0.0 && wheel.c2 >= 0.0 && wheel.c1 + wheel.c2 < 1.0,
          fmt::format("need c1, c2 >= 0 and c1 + c2 < 1 (theta_m inside the contact), got {}, {}",
                      wheel.c1, wheel.c2));
  require(wheel.c3 >= 0.0 && wheel.c3 < 1.0, fmt::format("need 0 <= c3 < 1, got {}", wheel.c3));
  require(soil.kc >= 0.0 && soil.kphi >= 0.0 && soil.kc / wheel.width_m + soil.kphi > 0.0,
          fmt::format("need kc, kphi >= 0 and kc/b + kphi > 0, got kc = {}, kphi = {}", soil.kc,
                      soil.kphi));
  require(soil.n > 0.0, fmt::format("sinkage exponent n must be > 0, got {}", soil.n));
  require(soil.cohesion_Pa >= 0.0,
          fmt::format("cohesion must be >= 0 Pa, got {}", soil.cohesion_Pa));
  require(soil.friction_angle_rad > 0.0 && soil.friction_angle_rad < 0.5 * kPi,
          fmt::format("friction angle must be in (0, 90) degrees, got {} rad",
                      soil.friction_angle_rad));
  require(soil.shear_modulus_m > 0.0,
          fmt::format("shear modulus K must be > 0 m, got {}", soil.shear_modulus_m));
  require(slip >= 0.0 && slip < 1.0, fmt::format("slip must be in [0, 1), got {}", slip));
}

}  // namespace

WongReeceResult wong_reece_at_entry_angle(const WongReeceWheel& wheel, const WongReeceSoil& soil,
                                          double slip, double entry_angle_rad) {
  check_inputs(wheel, soil, slip);
  const double r = wheel.radius_m;
  const double b = wheel.width_m;
  const double theta1 = entry_angle_rad;
  const double theta2 = -wheel.c3 * theta1;
  const double theta_m = (wheel.c1 + wheel.c2 * slip) * theta1;
  const double k_eq = soil.kc / b + soil.kphi;  // Bekker's k_c/b + k_phi [N/m^(n+2)]
  const double tan_phi = std::tan(soil.friction_angle_rad);

  // Normal stress: front region (theta_m..theta_1) straight from Bekker's pressure-sinkage law
  // with the local sinkage r (cos(theta) - cos(theta_1)); rear region (theta_2..theta_m) maps
  // theta linearly onto the front region so that the stress falls to zero at the exit angle.
  auto normal_stress = [&](double theta) {
    double equivalent = theta;
    if (theta < theta_m) {
      equivalent = theta1 - (theta - theta2) / (theta_m - theta2) * (theta1 - theta_m);
    }
    const double local_sinkage = r * (std::cos(equivalent) - std::cos(theta1));
    return local_sinkage > 0.0 ? k_eq * std::pow(local_sinkage, soil.n) : 0.0;
  };
  // Shear displacement of the soil at angle theta (Wong-Reece eq. for a rigid wheel): the
  // slip velocity integrated from the entry point.
  auto shear_displacement = [&](double theta) {
    return r * ((theta1 - theta) - (1.0 - slip) * (std::sin(theta1) - std::sin(theta)));
  };
  auto shear_stress = [&](double theta, double sigma) {
    const double j = shear_displacement(theta);
    // Janosi-Hanamoto; a negative j (soil sheared backwards) gives a negative stress.
    return (soil.cohesion_Pa + sigma * tan_phi) * (1.0 - std::exp(-j / soil.shear_modulus_m));
  };

  StressIntegrals sum;
  auto integrate = [&](double from, double to) {
    if (to <= from) return;
    const double h = (to - from) / kSimpsonIntervals;
    for (int k = 0; k <= kSimpsonIntervals; ++k) {
      const double theta = from + h * k;
      const double weight = (k == 0 || k == kSimpsonIntervals) ? 1.0 : (k % 2 == 1 ? 4.0 : 2.0);
      const double sigma = normal_stress(theta);
      const double tau = shear_stress(theta, sigma);
      const double c = std::cos(theta);
      const double s = std::sin(theta);
      sum.vertical += weight * h / 3.0 * (sigma * c + tau * s);
      sum.horizontal += weight * h / 3.0 * (tau * c - sigma * s);
      sum.shear += weight * h / 3.0 * tau;
    }
  };
  integrate(theta2, theta_m);
  integrate(theta_m, theta1);

  WongReeceResult out;
  out.slip = slip;
  out.entry_angle_rad = theta1;
  out.max_stress_angle_rad = theta_m;
  out.sinkage_m = r * (1.0 - std::cos(theta1));
  out.vertical_force_N = r * b * sum.vertical;
  out.drawbar_pull_N = r * b * sum.horizontal;
  out.torque_Nm = r * r * b * sum.shear;
  return out;
}

WongReeceResult wong_reece_at_slip(const WongReeceWheel& wheel, const WongReeceSoil& soil,
                                   double slip) {
  check_inputs(wheel, soil, slip);
  // The vertical force grows monotonically with the entry angle over (0, pi/2]; bisection on
  // theta_1 is robust and converges to machine precision in ~60 halvings.
  double lo = 0.0;
  double hi = 0.5 * kPi;
  const WongReeceResult deepest = wong_reece_at_entry_angle(wheel, soil, slip, hi);
  if (deepest.vertical_force_N < wheel.load_N) {
    throw std::runtime_error(fmt::format(
        "Wong-Reece model: the soil carries at most {:.1f} N with the wheel sunk to its axle, "
        "less than the load of {:.1f} N",
        deepest.vertical_force_N, wheel.load_N));
  }
  for (int iteration = 0; iteration < 100 && hi - lo > 1e-14; ++iteration) {
    const double mid = 0.5 * (lo + hi);
    if (wong_reece_at_entry_angle(wheel, soil, slip, mid).vertical_force_N < wheel.load_N) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return wong_reece_at_entry_angle(wheel, soil, slip, 0.5 * (lo + hi));
}

}  // namespace talus::scm
