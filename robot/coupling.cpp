#include "robot/coupling.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string_view>

#include "core/mesh.hpp"
#include "core/mesh_sdf.hpp"

namespace talus::robot {

namespace {

Pose pose_from(const mjtNum* pos, const mjtNum* quat_wxyz) {
  Pose X = Pose::Identity();
  X.linear() =
      Quat(quat_wxyz[0], quat_wxyz[1], quat_wxyz[2], quat_wxyz[3]).normalized().toRotationMatrix();
  X.translation() = Vec3(pos[0], pos[1], pos[2]);
  return X;
}

const char* geom_kind(int type) {
  switch (type) {
    case mjGEOM_PLANE:
      return "plane";
    case mjGEOM_HFIELD:
      return "hfield";
    case mjGEOM_SPHERE:
      return "sphere";
    case mjGEOM_CAPSULE:
      return "capsule";
    case mjGEOM_ELLIPSOID:
      return "ellipsoid";
    case mjGEOM_CYLINDER:
      return "cylinder";
    case mjGEOM_BOX:
      return "box";
    case mjGEOM_MESH:
      return "mesh";
    default:
      return "unknown";
  }
}

std::string geom_label(const MujocoModel& robot, int geom_id) {
  const char* n = mj_id2name(robot.model(), mjOBJ_GEOM, geom_id);
  return n && *n ? fmt::format("geom '{}'", n) : fmt::format("geom #{}", geom_id);
}

std::string prefix(const CouplingEntry& e, const MujocoModel& robot) {
  return e.where.empty() ? robot.file().string() + ": coupling" : e.where;
}

}  // namespace

namespace {

// A mesh geom as a signed-distance grid (core/mesh_sdf.hpp). MuJoCo keeps each mesh's vertices in
// the geom's frame (it moves them to the mesh's inertial frame and puts that frame in geom_pos /
// geom_quat), so the triangles are taken as they are. The mesh must be closed for its inside to be
// defined (require_closed names the geom otherwise). Grid cell: the mesh's largest extent / 64, a
// fixed resolution-memory trade-off (about 1.5 % of the body's size; 66^3 nodes at most).
Shape mesh_shape_of_geom(const MujocoModel& robot, int geom_id) {
  const mjModel* m = robot.model();
  const int mesh = m->geom_dataid[geom_id];
  const std::string label = robot.file().string() + ": " + geom_label(robot, geom_id);
  TriangleMesh tm;
  const int v0 = m->mesh_vertadr[mesh], nv = m->mesh_vertnum[mesh];
  for (int v = v0; v < v0 + nv; ++v) {
    tm.vertices_m.emplace_back(m->mesh_vert[3 * v], m->mesh_vert[3 * v + 1],
                               m->mesh_vert[3 * v + 2]);
  }
  const int f0 = m->mesh_faceadr[mesh], nf = m->mesh_facenum[mesh];
  for (int f = f0; f < f0 + nf; ++f) {
    tm.triangles.push_back({m->mesh_face[3 * f], m->mesh_face[3 * f + 1], m->mesh_face[3 * f + 2]});
  }
  try {
    require_closed(tm, label);
  } catch (const std::invalid_argument& e) {
    throw RobotError(fmt::format("{}; give the coupling entry an explicit shape", e.what()));
  }
  const auto [lo, hi] = tm.bounds();
  const double cell_m = (hi - lo).maxCoeff() / 64.0;
  return MeshShape{MeshSdfGrid::build(std::move(tm), cell_m, -1.0, label), label};
}

}  // namespace

Shape shape_of_geom(const MujocoModel& robot, int geom_id) {
  const mjModel* m = robot.model();
  const mjtNum* size = m->geom_size + 3 * geom_id;
  switch (m->geom_type[geom_id]) {
    case mjGEOM_SPHERE:
      return SphereShape{size[0]};
    case mjGEOM_CAPSULE:
      return CapsuleShape{size[0], size[1]};
    case mjGEOM_CYLINDER:
      return CylinderShape{size[0], size[1]};
    case mjGEOM_BOX:
      return BoxShape{Vec3(size[0], size[1], size[2])};
    case mjGEOM_MESH:
      return mesh_shape_of_geom(robot, geom_id);
    default:
      throw RobotError(fmt::format(
          "{}: {} has type {}, which talus cannot take from MuJoCo (sphere, capsule, cylinder, "
          "box and mesh can); give the coupling entry an explicit shape",
          robot.file().string(), geom_label(robot, geom_id), geom_kind(m->geom_type[geom_id])));
  }
}

Pose geom_pose_in_body(const MujocoModel& robot, int geom_id) {
  const mjModel* m = robot.model();
  return pose_from(m->geom_pos + 3 * geom_id, m->geom_quat + 4 * geom_id);
}

std::vector<CoupledLink> resolve_coupling(const MujocoModel& robot,
                                          const std::vector<CouplingEntry>& entries) {
  const mjModel* m = robot.model();
  std::vector<CoupledLink> links;
  std::set<std::string> seen;
  for (const CouplingEntry& e : entries) {
    const std::string where = prefix(e, robot);
    auto fail = [&](const std::string& what) { throw RobotError(where + ": " + what); };
    // Lookups: RobotError's own message lists the names; put the entry's place in front, in
    // place of the model file's path it starts with (the place names the file already).
    auto lookup = [&](auto&& f) {
      try {
        return f();
      } catch (const RobotError& err) {
        std::string_view message = err.what();
        const std::string file = robot.file().string() + ": ";
        if (message.starts_with(file)) message.remove_prefix(file.size());
        throw RobotError(where + ": " + std::string(message));
      }
    };
    if (e.body.empty() && e.geom.empty()) fail("name a body or a geom to couple");
    CoupledLink link;
    link.geom_id = e.geom.empty() ? -1 : lookup([&] { return robot.geom_id(e.geom); });
    if (!e.body.empty()) {
      link.body_id = lookup([&] { return robot.body_id(e.body); });
      if (link.body_id == 0) fail("the world body cannot be coupled; name a moving body");
      if (link.geom_id >= 0 && m->geom_bodyid[link.geom_id] != link.body_id) {
        fail(fmt::format("geom '{}' belongs to body '{}', not to body '{}'", e.geom,
                         mj_id2name(m, mjOBJ_BODY, m->geom_bodyid[link.geom_id]), e.body));
      }
    } else {
      link.body_id = m->geom_bodyid[link.geom_id];
      if (link.body_id == 0) fail(fmt::format("geom '{}' is on the world body", e.geom));
    }
    if (e.shape) {
      try {
        validate(*e.shape);
      } catch (const std::invalid_argument& err) {
        fail(std::string("explicit shape: ") + err.what());
      }
      link.shape = *e.shape;
      link.X_BS = e.X_BS;
    } else {
      if (link.geom_id < 0) {
        const int count = m->body_geomnum[link.body_id];
        if (count != 1) {
          std::vector<std::string> names;
          for (int g = 0; g < count; ++g) {
            const char* n = mj_id2name(m, mjOBJ_GEOM, m->body_geomadr[link.body_id] + g);
            names.emplace_back(n ? n : "");
          }
          fail(
              fmt::format("body '{}' has {} geoms; name the one to couple (geom = ...) or give "
                          "an explicit shape; its geoms are: {}",
                          e.body, count, join_names(names)));
        }
        link.geom_id = m->body_geomadr[link.body_id];
      }
      link.shape = lookup([&] { return shape_of_geom(robot, link.geom_id); });
      link.X_BS = geom_pose_in_body(robot, link.geom_id);
    }
    link.name = e.body.empty() ? e.geom : e.body;
    if (!seen.insert(link.name).second) fail(fmt::format("'{}' is coupled twice", link.name));
    const Vec3 p_BCm(m->body_ipos[3 * link.body_id], m->body_ipos[3 * link.body_id + 1],
                     m->body_ipos[3 * link.body_id + 2]);
    link.p_SCm = link.X_BS.inverse() * p_BCm;
    links.push_back(std::move(link));
  }
  return links;
}

std::vector<CoupledBody> tier_bodies(const std::vector<CoupledLink>& links) {
  std::vector<CoupledBody> bodies;
  bodies.reserve(links.size());
  for (const CoupledLink& l : links) bodies.push_back(CoupledBody{l.name, l.shape, l.p_SCm});
  return bodies;
}

Pose link_pose(const MujocoModel& robot, const CoupledLink& link) {
  const mjData* d = robot.data();
  return pose_from(d->xpos + 3 * link.body_id, d->xquat + 4 * link.body_id) * link.X_BS;
}

void check_initial_placement(MujocoModel& robot, const std::vector<CoupledLink>& links,
                             const SurfaceHeight& surface_z) {
  mj_forward(robot.model(), robot.data());
  for (const CoupledLink& link : links) {
    const Pose X_WS = link_pose(robot, link);
    const Vec3 c = X_WS.translation();
    const double reach_m = c.z() - world_bounds(link.shape, X_WS).lo.z();
    const double surface_m = surface_z(c.x(), c.y());
    const double depth_m = surface_m - (c.z() - reach_m);
    if (depth_m > reach_m) {
      throw RobotError(fmt::format(
          "{}: coupled body '{}' starts {:.4g} m below the terrain surface (surface z = {:.4g} m "
          "at x = {:.4g}, y = {:.4g}; its centre is at z = {:.4g} m), more than its radius "
          "{:.4g} m; raise the robot so that it starts at most one radius deep",
          robot.file().string(), link.name, depth_m, surface_m, c.x(), c.y(), c.z(), reach_m));
    }
  }
}

Eigen::Matrix3d planar_inverse_inertia(MujocoModel& robot, const CoupledLink& link,
                                       const Pose& X_SF) {
  const mjModel* m = robot.model();
  mjData* d = robot.data();
  mj_forward(m, d);  // kinematics and the factor of M
  const Vec3 p = (link_pose(robot, link) * X_SF).translation();
  const int nv = m->nv;
  std::vector<mjtNum> jacp(3 * static_cast<std::size_t>(nv)), jacr(jacp.size());
  mj_jac(m, d, jacp.data(), jacr.data(), p.data(), link.body_id);
  using RowMatrix = Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor>;
  RowMatrix P(3, nv), PMinv(3, nv);
  for (int c = 0; c < nv; ++c) {
    P(0, c) = jacp[static_cast<std::size_t>(c)];
    P(1, c) = jacp[static_cast<std::size_t>(2 * nv + c)];
    P(2, c) = jacr[static_cast<std::size_t>(nv + c)];
  }
  mj_solveM(m, d, PMinv.data(), P.data(), 3);  // rows of P M^-1 (M symmetric)
  // (P M^-1) P^T by plain loops: Eigen's product kernel for this shape trips GCC 12's
  // -Wmaybe-uninitialized under -march=native (GCC bug 105593).
  Eigen::Matrix3d a = Eigen::Matrix3d::Zero();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < nv; ++k) a(r, c) += PMinv(r, k) * P(c, k);
    }
  }
  return 0.5 * (a + a.transpose());
}

}  // namespace talus::robot
