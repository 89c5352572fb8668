#pragma once
// Signed-distance shapes: the geometry half of a body (ARCHITECTURE.md, principle 3). Each shape
// is a plain struct in its body frame B, in metres; a body's pose X_WB places it in the world.
//
// Signed distance is negative inside. Primitives give the exact Euclidean distance; the wheel (a
// union of a rim cylinder and grouser plates) gives the minimum of its parts' exact distances,
// which is exact outside and under-estimates the depth inside; it stays 1-Lipschitz, so marching
// along a ray by the returned distance never steps over a surface (sphere tracing, Hart 1996).
// Paper 001 §II-C uses the same representation for the particle tier's driven bodies.
//
// Functions taking a Shape assume it passed validate(); the hot queries do not re-check.

#include <memory>
#include <string>
#include <variant>

#include "core/pose.hpp"

namespace talus {

/// Half-space z_B <= 0: the solid lies below the body's x-y plane, outward normal +z_B.
struct PlaneShape {};

/// Box centred at the body origin, edges along the body axes.
struct BoxShape {
  Vec3 half_extents_m = Vec3::Constant(0.5);  ///< half edge lengths along x_B, y_B, z_B [m], > 0
};

/// Ball centred at the body origin.
struct SphereShape {
  double radius_m = 0.5;  ///< [m], > 0
};

/// Solid circular cylinder with its axis along z_B, centred at the origin (MuJoCo's convention).
struct CylinderShape {
  double radius_m = 0.5;       ///< [m], > 0
  double half_length_m = 0.5;  ///< half the length along z_B [m], > 0
};

/// All points within radius_m of the segment from (0, 0, -half_length_m) to (0, 0, +half_length_m).
struct CapsuleShape {
  double radius_m = 0.5;       ///< [m], > 0
  double half_length_m = 0.5;  ///< half the segment length [m], >= 0 (0 gives a ball)
};

/// A wheel: a solid rim cylinder about y_B (so with the identity pose it rolls along x_W) of width
/// width_m centred at the origin, plus grouser_count full-width plates standing radially on the
/// rim.
///
/// Grouser k (k = 0 .. count-1) sits at angle theta_k = 2 pi k / count about +y_B, measured from
/// straight down: its outward direction is (-sin theta_k, 0, -cos theta_k) in B, so grouser 0
/// points along -z_B and a positive rotation about +y_B carries it toward -x_B. A plate reaches
/// from the rim out to radius_m + grouser_height_m (its outer face is flat, perpendicular to the
/// radial direction) and is grouser_thickness_m thick tangentially.
struct WheelShape {
  double radius_m = 0.1;               ///< rim radius, without grousers [m], > 0
  double width_m = 0.05;               ///< extent along y_B [m], > 0
  int grouser_count = 0;               ///< number of plates, >= 0
  double grouser_height_m = 0.0;       ///< radial height above the rim [m], > 0 if count > 0
  double grouser_thickness_m = 0.005;  ///< tangential thickness [m], > 0 if count > 0
};

class MeshSdfGrid;  // core/mesh_sdf.hpp

/// A closed triangle mesh in the body frame, as its signed distance sampled on a regular grid
/// (core/mesh_sdf.hpp; docs/meshes.md). The grid is shared, so copying the shape is cheap. Its
/// signed distance is the grid's trilinear interpolation: within about a cell of the true mesh
/// distance, and 1-Lipschitz per axis (sqrt(3)-Lipschitz overall, which the sphere traces allow
/// for).
struct MeshShape {
  std::shared_ptr<const MeshSdfGrid> sdf;  ///< not null
  std::string source;                      ///< where the mesh came from (a file), for messages
};

using Shape = std::variant<PlaneShape, BoxShape, SphereShape, CylinderShape, CapsuleShape,
                           WheelShape, MeshShape>;

/// Axis-aligned box in the world frame [m]: lo <= hi componentwise.
struct Aabb {
  Vec3 lo = Vec3::Zero();
  Vec3 hi = Vec3::Zero();
  /// True when p_W lies in the closed box.
  bool contains(const Vec3& p_W) const {
    return (p_W.array() >= lo.array()).all() && (p_W.array() <= hi.array()).all();
  }
};

/// Throws std::invalid_argument naming the field and what was expected when the shape's
/// dimensions are not finite and positive, or when a wheel's grousers would overlap outside the rim
/// (thickness >= 2 radius sin(pi / count)).
void validate(const Shape& shape);

/// Lower-case name of the shape's kind: "plane", "box", "sphere", "cylinder", "capsule", "wheel",
/// "mesh".
std::string shape_kind(const Shape& shape);

/// Signed distance [m] from point p_B (body frame, metres) to the shape's surface; negative inside.
/// Exact for the primitives; for the wheel exact outside, and inside its magnitude never exceeds
/// the true depth. 1-Lipschitz for every kind.
double signed_distance(const Shape& shape, const Vec3& p_B);

/// Unit outward normal of the shape, in B, at the surface point nearest p_B (the gradient of
/// signed_distance). Analytic for every kind; where the gradient is not unique (a ball's centre, a
/// box's medial planes) a deterministic choice among the candidates is returned.
Vec3 outward_normal(const Shape& shape, const Vec3& p_B);

/// World-frame axis-aligned bounds [m] of the shape at pose X_WB: exact for box, sphere, cylinder
/// and capsule; for a wheel with grousers, the bounds of the rim cylinder widened to the grouser
/// corners' radius; for a mesh, the bounds of its vertices' box (in B) at the pose. Throws
/// std::invalid_argument for a plane (unbounded).
Aabb world_bounds(const Shape& shape, const Pose& X_WB);

/// A bound L on how fast signed_distance can fall along any line (|f(p) - f(q)| <= L |p - q|): 1
/// for the analytic kinds, sqrt(3) for a mesh grid. A sphere tracer stepping by f / L never passes
/// the surface.
double lipschitz_bound(const Shape& shape);

/// Area share [-] of the annulus radius_m <= r <= radius_m + grouser_height_m (in the wheel's
/// cross-section) that the grousers occupy; 0 without grousers. Paper 003 Table 1 lists 0.1 for its
/// 48 mm wheel with 5 mm grousers. Throws like validate() for an invalid wheel.
double grouser_volume_fraction(const WheelShape& wheel);

/// A wheel whose grouser thickness is solved so that grouser_volume_fraction equals `fraction`.
/// Lengths in metres. Throws std::invalid_argument when an argument is out of range or the fraction
/// is not reachable without adjacent grousers overlapping.
WheelShape wheel_with_grouser_fraction(double radius_m, double width_m, int grouser_count,
                                       double grouser_height_m, double fraction);

/// World z [m] of the lowest point of the shape (at pose X_WB) on the vertical line through
/// (x_W, y_W) [m]; +infinity when the line misses the shape. The heightmap tier's hot query.
///
/// Box, sphere, cylinder and capsule are intersected exactly with the line mapped into B; the
/// wheel and the mesh are sphere traced (see lowest_point_z_traced; a mesh's answer is the
/// crossing of its interpolated grid surface, so within the grid's accuracy of the true mesh). A
/// plane returns the height where the line crosses it when its solid side faces down (normal with
/// negative world z), -infinity when its solid side reaches down to -infinity (normal with positive
/// world z, or a vertical plane whose solid side holds the line) and +infinity for a vertical plane
/// whose solid side misses the line.
double lowest_point_z(const Shape& shape, const Pose& X_WB, double x_W, double y_W);

/// The general method behind lowest_point_z, usable for any shape: march up the vertical line from
/// just below the shape's bounds by steps of signed_distance until within 1e-7 m of the surface,
/// then creep in 1e-7 m steps and refine the crossing by bracketing to 1e-10 m. Because
/// signed_distance is a lower bound outside, no part thicker than 1e-7 m along the line is stepped
/// over. A line that runs along the surface without entering it (a face parallel to the line,
/// within 1e-7 m for 64 creeping steps or within 1e-5 m for 1000 steps) counts as touching where
/// that run began, which bounds the work per query; the answer is then at most 1e-5 m from the
/// surface sideways and never above the true lowest point. A plane is answered exactly as by
/// lowest_point_z.
double lowest_point_z_traced(const Shape& shape, const Pose& X_WB, double x_W, double y_W);

}  // namespace talus
