#pragma once
// Involute helical spur gears as closed triangle meshes, for the gear tower scenario (paper 001
// §III: gears turning in a periodic particle column). The mesh goes through the same signed-
// distance grid as any loaded mesh (core/mesh_sdf.hpp).
//
// Geometry (standard full-depth teeth, zero backlash), in the transverse plane (perpendicular to
// the axis z_B):
//   pitch radius  r_p = m z / 2          (m: transverse module, z: tooth count)
//   base radius   r_b = r_p cos(alpha)   (alpha: transverse pressure angle)
//   tip radius    r_a = r_p + m          (addendum m)
//   root radius   r_f = r_p - 1.25 m     (dedendum 1.25 m)
// A tooth is bounded by two involutes of the base circle. The involute function
// inv(phi) = tan(phi) - phi gives the polar angle of the involute point at radius r, where
// cos(phi) = r_b / r; with the tooth as thick as the gap on the pitch circle (pi m / 2 each), the
// tooth's half angle at radius r is
//   h(r) = pi / (2 z) + inv(alpha) - inv(phi(r)),
// and below the base circle (when r_f < r_b) the flank continues radially at h(r_b).
// Helix: the section at axial position s is the section at 0 turned by s tan(beta) / r_p (a helix
// of angle beta on the pitch cylinder), so the twist over the face width b is b tan(beta) / r_p.

#include <vector>

#include "core/mesh.hpp"
#include "core/shape.hpp"

namespace talus {

struct GearParams {
  double module_m = 0.01;                            ///< transverse module m [m], > 0
  int teeth = 20;                                    ///< tooth count z, >= 6
  double pressure_angle_rad = 0.349065850398865915;  ///< transverse alpha, (0, 45 deg); 20 deg
  double face_width_m = 0.02;                        ///< length along the axis z_B [m], > 0
  double helix_angle_rad = 0.0;       ///< beta on the pitch cylinder, |beta| < 60 deg; + right hand
  int flank_points = 10;              ///< samples per involute flank, >= 2
  int arc_points = 3;                 ///< samples per tip and per root arc, >= 2
  double max_layer_twist_rad = 0.02;  ///< helix twist between mesh layers, at most [rad], > 0
};

/// Throws std::invalid_argument naming the field when a parameter is out of range, or when the
/// teeth would be pointed (h(r_a) <= 0) or the root gap vanish (h(r_f) >= pi / z).
void validate(const GearParams& gear);

double pitch_radius(const GearParams& gear);  ///< m z / 2 [m]
double base_radius(const GearParams& gear);   ///< r_p cos(alpha) [m]
double tip_radius(const GearParams& gear);    ///< r_p + m [m]
double root_radius(const GearParams& gear);   ///< r_p - 1.25 m [m]
/// Rotation [rad] of the section at +face_width/2 relative to -face_width/2: b tan(beta) / r_p.
double helix_twist_rad(const GearParams& gear);

/// The transverse section at the mid-plane: a closed polygon (no repeated first point),
/// counter-clockwise, tooth 0 centred on +x_B. Star-shaped about the axis.
std::vector<Vec2> gear_profile(const GearParams& gear);

/// A closed, outward-oriented triangle mesh of the gear: axis z_B, centred at the origin, the
/// section at axial position s turned by s tan(beta) / r_p. Layers are spaced so that the twist
/// between neighbours is at most max_layer_twist_rad; the end caps are fans about the axis.
TriangleMesh gear_mesh(const GearParams& gear);

/// gear_mesh sampled on a signed-distance grid of the given cell size [m].
MeshShape gear_shape(const GearParams& gear, double sdf_cell_m);

}  // namespace talus
