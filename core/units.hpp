#pragma once
// SI units throughout talus: metres, seconds, kilograms, newtons, radians. Values read from files
// in other units (degrees, millimetres) are converted at the edge with these helpers, and a name
// that holds a non-SI quantity says so (`repose_angle_deg`).

#include <numbers>

namespace talus {

inline constexpr double kPi = std::numbers::pi;
inline constexpr double kGravity_m_per_s2 = 9.80665;

constexpr double deg_to_rad(double degrees) { return degrees * kPi / 180.0; }
constexpr double rad_to_deg(double radians) { return radians * 180.0 / kPi; }
constexpr double mm_to_m(double millimetres) { return millimetres * 1e-3; }

}  // namespace talus
