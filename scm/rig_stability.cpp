#include "scm/rig_stability.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

#include "core/units.hpp"

namespace talus::scm {

namespace {

// 2 (sqrt(1 + zeta^2) - zeta) / omega for stiffness k [N/m], mass m [kg], damper c [N s/m].
double semi_implicit_dt_max_s(double k, double m, double c) {
  const double omega = std::sqrt(k / m);
  const double zeta = c / (2.0 * std::sqrt(k * m));
  return 2.0 * (std::sqrt(1.0 + zeta * zeta) - zeta) / omega;
}

}  // namespace

double plate_rig_dt_max_s(const SoilParameters& soil_in, const PlateTest& t) {
  SoilParameters soil = soil_in;
  soil.contact_width_m = 2.0 * std::min(t.half_extents_m.x(), t.half_extents_m.y());
  const double area = 4.0 * t.half_extents_m.x() * t.half_extents_m.y();
  const double z = std::pow(t.load_n / (area * soil.bekker_k()), 1.0 / soil.exponent_n);
  const double k = soil.exponent_n * t.load_n / z;
  const double m = t.load_n / kGravity_m_per_s2;
  // The rig's damper: critical on the loading slope unless the scenario sets one (scm_rigs.cpp).
  const double c = t.damping_n_s_per_m > 0.0 ? t.damping_n_s_per_m : 2.0 * std::sqrt(k * m);
  return semi_implicit_dt_max_s(k, m, c);
}

double wheel_rig_dt_max_s(const SoilParameters& soil, const WheelTest& t) {
  double width = 0.0;
  if (const auto* cylinder = std::get_if<CylinderShape>(&t.shape)) {
    width = 2.0 * cylinder->half_length_m;
  } else if (const auto* wheel = std::get_if<WheelShape>(&t.shape)) {
    width = wheel->width_m;
  }
  const double n = soil.exponent_n, r = t.radius_m;
  const double z0 =
      std::pow(3.0 * t.load_n / ((3.0 - n) * (soil.kc + width * soil.kphi) * std::sqrt(2.0 * r)),
               2.0 / (2.0 * n + 1.0));
  const double k = (n + 0.5) * t.load_n / z0;
  const double m = t.load_n / kGravity_m_per_s2;
  return semi_implicit_dt_max_s(k, m, t.damping_n_s_per_m);
}

}  // namespace talus::scm
