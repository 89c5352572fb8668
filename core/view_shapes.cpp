#include "core/view_shapes.hpp"

#include <cmath>
#include <numbers>

#include "core/mesh_sdf.hpp"

namespace talus {
namespace {

// Appends a box of half extents `h` whose axes are the columns of `R`, centred at `c`.
void append_box(TriangleMesh& mesh, const Vec3& c, const Mat3& R, const Vec3& h) {
  const int base = static_cast<int>(mesh.vertices_m.size());
  for (int k = 0; k < 8; ++k) {
    const Vec3 corner((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z());
    mesh.vertices_m.push_back(c + R * corner);
  }
  // Each face's corners listed counter-clockwise seen from outside (for a right-handed R).
  const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                           {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& f : faces) {
    mesh.triangles.push_back({base + f[0], base + f[1], base + f[2]});
    mesh.triangles.push_back({base + f[0], base + f[2], base + f[3]});
  }
}

}  // namespace

nlohmann::json view_mesh(const TriangleMesh& mesh) {
  std::vector<float> vertices;
  vertices.reserve(3 * mesh.vertices_m.size());
  for (const Vec3& v : mesh.vertices_m) {
    for (int a = 0; a < 3; ++a) vertices.push_back(static_cast<float>(v[a]));
  }
  std::vector<int> triangles;
  triangles.reserve(3 * mesh.triangles.size());
  for (const auto& t : mesh.triangles) triangles.insert(triangles.end(), t.begin(), t.end());
  return {{"kind", "mesh"}, {"vertices_m", vertices}, {"triangles", triangles}};
}

TriangleMesh wheel_triangles(const WheelShape& wheel, int segments) {
  TriangleMesh mesh;
  const double half_width = 0.5 * wheel.width_m;
  // The rim: two rings of vertices at y = -w/2 and +w/2 and a centre vertex on each side.
  for (int k = 0; k < segments; ++k) {
    const double a = 2.0 * std::numbers::pi * k / segments;
    const double x = wheel.radius_m * std::cos(a), z = wheel.radius_m * std::sin(a);
    mesh.vertices_m.push_back(Vec3(x, -half_width, z));
    mesh.vertices_m.push_back(Vec3(x, half_width, z));
  }
  const int centre_minus = static_cast<int>(mesh.vertices_m.size());
  mesh.vertices_m.push_back(Vec3(0.0, -half_width, 0.0));
  mesh.vertices_m.push_back(Vec3(0.0, half_width, 0.0));
  for (int k = 0; k < segments; ++k) {
    const int a0 = 2 * k, a1 = 2 * k + 1, b0 = 2 * ((k + 1) % segments), b1 = b0 + 1;
    mesh.triangles.push_back({a0, a1, b1});
    mesh.triangles.push_back({a0, b1, b0});
    mesh.triangles.push_back({centre_minus, b0, a0});
    mesh.triangles.push_back({centre_minus + 1, a1, b1});
  }
  // Grouser k points along (-sin theta_k, 0, -cos theta_k) (core/shape.hpp, WheelShape).
  for (int k = 0; k < wheel.grouser_count; ++k) {
    const double theta = 2.0 * std::numbers::pi * k / wheel.grouser_count;
    const Vec3 radial(-std::sin(theta), 0.0, -std::cos(theta));
    const Vec3 tangent(radial.z(), 0.0, -radial.x());
    Mat3 R;
    R.col(0) = tangent;
    R.col(1) = Vec3::UnitY();
    R.col(2) = radial;
    const Vec3 centre = radial * (wheel.radius_m + 0.5 * wheel.grouser_height_m);
    append_box(mesh, centre, R,
               Vec3(0.5 * wheel.grouser_thickness_m, half_width, 0.5 * wheel.grouser_height_m));
  }
  return mesh;
}

nlohmann::json view_shape(const Shape& shape, double plane_size_m) {
  if (std::holds_alternative<PlaneShape>(shape)) {
    return {{"kind", "plane"}, {"size_m", {plane_size_m, plane_size_m}}};
  }
  if (const auto* box = std::get_if<BoxShape>(&shape)) {
    const Vec3 size = 2.0 * box->half_extents_m;
    return {{"kind", "box"}, {"size_m", {size.x(), size.y(), size.z()}}};
  }
  if (const auto* sphere = std::get_if<SphereShape>(&shape)) {
    return {{"kind", "sphere"}, {"radius_m", sphere->radius_m}};
  }
  if (const auto* cylinder = std::get_if<CylinderShape>(&shape)) {
    return {{"kind", "cylinder"},
            {"radius_m", cylinder->radius_m},
            {"length_m", 2.0 * cylinder->half_length_m}};
  }
  if (const auto* capsule = std::get_if<CapsuleShape>(&shape)) {
    return {{"kind", "capsule"},
            {"radius_m", capsule->radius_m},
            {"length_m", 2.0 * capsule->half_length_m}};
  }
  if (const auto* wheel = std::get_if<WheelShape>(&shape))
    return view_mesh(wheel_triangles(*wheel));
  return view_mesh(std::get<MeshShape>(shape).sdf->mesh());
}

}  // namespace talus
