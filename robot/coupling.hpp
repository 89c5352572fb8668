#pragma once
// The coupling table: which MuJoCo bodies touch a terrain tier, and with which talus shape.
//
// A shape lives in its own frame S, fixed in the MuJoCo body B at X_BS: for a shape taken from a
// geom, S is the geom's frame (MuJoCo cylinders and capsules are along the geom's z, like talus's
// CylinderShape and CapsuleShape); for an explicit shape (a WheelShape with grousers), X_BS is
// given (identity by default, so a wheel's axis is the body's y). The tier sees frame S as "the
// body": core's CoupledBody keeps its shape in S, the motions handed to the tier are those of S,
// and the torque reference point is the MuJoCo body's centre of mass expressed in S. So core's
// CoupledBody needs no offset field.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/contact_tier.hpp"
#include "core/pose.hpp"
#include "core/shape.hpp"
#include "robot/mujoco_model.hpp"

namespace talus::robot {

/// One row of the coupling table as a user writes it. Name a body, a geom, or both (the geom must
/// then belong to the body). Without an explicit shape the shape comes from the geom; naming only a
/// body uses the body's one geom (a body with several geoms must name one).
struct CouplingEntry {
  std::string body;              ///< MuJoCo body name, or "" when `geom` is given
  std::string geom;              ///< MuJoCo geom name, or ""
  std::optional<Shape> shape;    ///< explicit shape in frame S (overrides the geom's shape)
  Pose X_BS = Pose::Identity();  ///< frame S of an explicit shape in the body frame B
  std::string where;  ///< where the entry was written ("file:line: robot.coupling[1]"), or ""
};

/// A coupling entry resolved against a model.
struct CoupledLink {
  std::string name;  ///< the name the tier sees: the body's name (the geom's when only it is named)
  int body_id = -1;  ///< MuJoCo body id
  int geom_id = -1;  ///< MuJoCo geom the shape came from; -1 for an explicit shape
  Shape shape;       ///< in frame S
  Pose X_BS = Pose::Identity();  ///< frame S in the body frame B
  Vec3 p_SCm = Vec3::Zero();     ///< the body's centre of mass in S [m] (torque reference point)
};

/// The talus shape of MuJoCo geom `geom_id`: sphere, capsule, cylinder and box map one to one
/// (MuJoCo's size[] are half sizes); a mesh becomes a signed-distance grid of its triangles (cell =
/// its largest extent / 64), refused when the mesh is not closed. Throws RobotError for other kinds
/// (plane, ellipsoid, height field) and open meshes, naming the geom and asking for an explicit
/// shape.
Shape shape_of_geom(const MujocoModel& robot, int geom_id);

/// The geom's frame in its body's frame (geom_pos, geom_quat).
Pose geom_pose_in_body(const MujocoModel& robot, int geom_id);

/// Resolves every entry: unknown names throw RobotError listing the names that exist; a body
/// coupled twice, a geom not on the named body, or an invalid explicit shape are refused.
std::vector<CoupledLink> resolve_coupling(const MujocoModel& robot,
                                          const std::vector<CouplingEntry>& entries);

/// The bodies a tier is built with, in link order: the link's name, shape in S, and reference
/// point p_SCm. Pass this to the tier's constructor.
std::vector<CoupledBody> tier_bodies(const std::vector<CoupledLink>& links);

/// Terrain surface height z [m] at world (x, y) [m], as the tier's initial terrain has it.
using SurfaceHeight = std::function<double(double x_W, double y_W)>;

/// Refuses (RobotError) a coupled body whose shape starts below the terrain by more than its
/// radius, i.e. whose centre (origin of S) lies below the surface height under it: no tier can push
/// it back out sensibly. "Radius" is the reach of the shape below its centre (a wheel's radius with
/// grousers, a box's half height as posed). Uses the robot's current configuration (runs
/// mj_forward).
void check_initial_placement(MujocoModel& robot, const std::vector<CoupledLink>& links,
                             const SurfaceHeight& surface_z);

/// The pose of each link's frame S in world at the robot's current kinematics (xpos, xquat).
Pose link_pose(const MujocoModel& robot, const CoupledLink& link);

/// The robot's inverse effective inertia A = P M^-1 P^T [1/kg, 1/(kg m), 1/(kg m^2)] on the
/// planar twist (v_x, v_z, omega_y) of the point of `link` at the origin of frame F (X_SF: F in the
/// link frame S), P the rows (x, z, omega_y) of MuJoCo's Jacobian there: how that point's twist
/// answers a planar impulse applied at it. At the robot's current configuration (runs mj_forward).
/// The wrench-space tier needs it per foot (wrench/wrench_space_tier.hpp).
Eigen::Matrix3d planar_inverse_inertia(MujocoModel& robot, const CoupledLink& link,
                                       const Pose& X_SF = Pose::Identity());

}  // namespace talus::robot
