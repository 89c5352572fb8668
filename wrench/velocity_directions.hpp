#pragma once
// Velocity directions for wrench-space data acquisition (paper 000, §III-B2 and §IV-A) and the
// mirror symmetry in the tilt phi that halves the runs.
//
// Component order. Planar (the paper's case, D = 3): twist (v_x, v_z, omega_y), wrench
// (f_x, f_z, tau_y), both in F_r (x along the surface, z along its outward normal, y = z cross x).
// Spatial (D = 6): twist (v_x, v_y, v_z, omega_x, omega_y, omega_z), wrench
// (f_x, f_y, f_z, tau_x, tau_y, tau_z).

#include <Eigen/Dense>

namespace talus::wrench {

/// The 26 directions from a cube's centre to its 6 face centres, 12 edge midpoints and 8 corners,
/// normalised: the 3x3x3 grid {-1,0,1}^3 without the origin. Rows, ordered lexicographically.
Eigen::MatrixXd cube_directions();

/// A grid in spherical coordinates, as the paper samples "a uniform grid of m velocities on the
/// 3D unit sphere using spherical coordinates": the two poles plus `rings` circles of latitude at
/// polar angles pi k/(rings+1), k = 1..rings, each with `longitudes` points at azimuths
/// 2 pi l/longitudes. m = 2 + rings * longitudes: 3 x 8 -> 26, 7 x 8 -> 58. Rows in
/// (v_x, v_z, omega_y) order with the polar axis along v_z and azimuth 0 along v_x:
/// (sin t cos l, cos t, sin t sin l). With an even number of longitudes the set is closed under
/// mirror_x (the mirror maps azimuth l to l + pi).
Eigen::MatrixXd spherical_grid_directions(int rings, int longitudes);

/// The direction sets talus supports (3-D, in (v_x, v_z, omega_y) order):
///   m = 26: cube_directions() (face, edge and corner directions);
///   m = 58: spherical_grid_directions(7, 8).
/// The paper gives no closed form for its 58; 2 + 7 x 8 is the spherical grid with that count, and
/// its 26 counterpart (3 x 8) differs from the cube's only by where the diagonals sit. Throws
/// std::invalid_argument for other m.
Eigen::MatrixXd velocity_directions(int m);

/// Per-axis scaling of unit directions into velocities (paper §IV-A: e.g. (0.2 m/s, 0.2 m/s,
/// 0.6 rad/s) for Beads, (0.02, 0.02, 0.3) for Pebbles and Sand). Row i -> directions.row(i) .*
/// scale.
Eigen::MatrixXd scaled_velocities(const Eigen::MatrixXd& directions, const Eigen::VectorXd& scale);

/// The mirror x -> -x (reflection in the y-z plane of F_r), which maps the configuration
/// (d, phi) to (d, -phi) for a foot symmetric about that plane. Forces and linear velocities are
/// polar vectors: v -> S v with S = diag(-1, 1, 1). Torques and angular velocities are axial:
/// they pick up det(S) = -1, tau -> -S tau. Hence
///   planar (f_x, f_z, tau_y)              -> (-f_x, f_z, -tau_y)       (the paper: "force in x
///                                                                        and torque flipped")
///   spatial (f_x,f_y,f_z,tau_x,tau_y,tau_z) -> (-f_x, f_y, f_z, tau_x, -tau_y, -tau_z).
/// Twists transform the same way. Works for D = 3 or 6; throws std::invalid_argument otherwise.
Eigen::VectorXd mirror_x(const Eigen::VectorXd& wrench_or_twist);

/// For each row i of `directions`, the row j with directions.row(j) = mirror_x(directions.row(i))
/// (to 1e-9); throws std::invalid_argument naming the row when the set is not closed under the
/// mirror (the symmetry shortcut then cannot be used).
Eigen::VectorXi mirror_partners(const Eigen::MatrixXd& directions);

}  // namespace talus::wrench
