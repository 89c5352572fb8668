#include "robot/mujoco_view.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <numbers>

#include "core/view_shapes.hpp"

namespace talus::robot {
namespace {

// An ellipsoid of semi-axes (a, b, c) as a latitude-longitude triangle mesh (the viewer has no
// ellipsoid; MuJoCo models use them for feet and visual shells).
TriangleMesh ellipsoid_triangles(const double* semi_axes_m, int rings = 12, int sectors = 24) {
  TriangleMesh mesh;
  for (int r = 0; r <= rings; ++r) {
    const double polar = std::numbers::pi * r / rings;
    for (int s = 0; s < sectors; ++s) {
      const double azimuth = 2.0 * std::numbers::pi * s / sectors;
      mesh.vertices_m.push_back(Vec3(semi_axes_m[0] * std::sin(polar) * std::cos(azimuth),
                                     semi_axes_m[1] * std::sin(polar) * std::sin(azimuth),
                                     semi_axes_m[2] * std::cos(polar)));
    }
  }
  for (int r = 0; r < rings; ++r) {
    for (int s = 0; s < sectors; ++s) {
      const int a = r * sectors + s, b = r * sectors + (s + 1) % sectors;
      mesh.triangles.push_back({a, a + sectors, b + sectors});
      mesh.triangles.push_back({a, b + sectors, b});
    }
  }
  return mesh;
}

TriangleMesh mujoco_mesh_triangles(const mjModel* m, int mesh_id) {
  TriangleMesh mesh;
  const int v0 = m->mesh_vertadr[mesh_id], nv = m->mesh_vertnum[mesh_id];
  for (int v = 0; v < nv; ++v) {
    const float* p = m->mesh_vert + 3 * (v0 + v);
    mesh.vertices_m.push_back(Vec3(p[0], p[1], p[2]));
  }
  const int f0 = m->mesh_faceadr[mesh_id], nf = m->mesh_facenum[mesh_id];
  for (int f = 0; f < nf; ++f) {
    const int* t = m->mesh_face + 3 * (f0 + f);
    mesh.triangles.push_back({t[0], t[1], t[2]});
  }
  return mesh;
}

// The geom's shape in its own frame; null for kinds the viewer does not draw (height fields,
// signed-distance plugins).
nlohmann::json geom_shape(const mjModel* m, int g, double plane_size_m) {
  const double* size = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
    case mjGEOM_PLANE:
      return {
          {"kind", "plane"},
          {"size_m",
           {size[0] > 0 ? 2 * size[0] : plane_size_m, size[1] > 0 ? 2 * size[1] : plane_size_m}}};
    case mjGEOM_SPHERE:
      return {{"kind", "sphere"}, {"radius_m", size[0]}};
    case mjGEOM_CAPSULE:
      return {{"kind", "capsule"}, {"radius_m", size[0]}, {"length_m", 2 * size[1]}};
    case mjGEOM_CYLINDER:
      return {{"kind", "cylinder"}, {"radius_m", size[0]}, {"length_m", 2 * size[1]}};
    case mjGEOM_BOX:
      return {{"kind", "box"}, {"size_m", {2 * size[0], 2 * size[1], 2 * size[2]}}};
    case mjGEOM_ELLIPSOID:
      return view_mesh(ellipsoid_triangles(size));
    case mjGEOM_MESH:
      return view_mesh(mujoco_mesh_triangles(m, m->geom_dataid[g]));
    default:
      return nullptr;
  }
}

std::string geom_name(const mjModel* m, int g) {
  const char* body = mj_id2name(m, mjOBJ_BODY, m->geom_bodyid[g]);
  const char* geom = mj_id2name(m, mjOBJ_GEOM, g);
  return fmt::format("{}/{}", body ? body : "world",
                     geom ? std::string(geom) : fmt::format("#{}", g));
}

}  // namespace

RobotView robot_view(const MujocoModel& model, double plane_size_m) {
  const mjModel* m = model.model();
  RobotView view;
  for (int g = 0; g < m->ngeom; ++g) {
    const float* rgba = m->geom_rgba + 4 * g;
    if (rgba[3] <= 0.0f || m->geom_group[g] > 2) continue;
    nlohmann::json shape = geom_shape(m, g, plane_size_m);
    if (shape.is_null()) continue;
    view.geom_ids.push_back(g);
    view.bodies.push_back(ViewBody{geom_name(m, g), {rgba[0], rgba[1], rgba[2]}, std::move(shape)});
  }
  return view;
}

void robot_view_poses(const MujocoModel& model, const RobotView& view, std::vector<Pose>& X_WG) {
  const mjData* d = model.data();
  X_WG.resize(view.geom_ids.size());
  for (std::size_t k = 0; k < view.geom_ids.size(); ++k) {
    const int g = view.geom_ids[k];
    Mat3 R;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) R(r, c) = d->geom_xmat[9 * g + 3 * r + c];
    }
    X_WG[k].setIdentity();
    X_WG[k].linear() = R;
    X_WG[k].translation() =
        Vec3(d->geom_xpos[3 * g], d->geom_xpos[3 * g + 1], d->geom_xpos[3 * g + 2]);
  }
}

}  // namespace talus::robot
