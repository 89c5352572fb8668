#pragma once
// Test helpers for mesh tests: paths of the files in tests/data and small meshes built in code.

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "core/mesh.hpp"

namespace talus::test_support {

inline std::filesystem::path mesh_data(const std::string& name) {
  return std::filesystem::path(TALUS_SOURCE_DIR) / "tests" / "data" / name;
}

/// An outward-oriented icosphere of the given radius [m]: the icosahedron subdivided `levels`
/// times with new vertices pushed onto the sphere.
inline TriangleMesh icosphere(double radius_m, int levels) {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  TriangleMesh m;
  for (const Vec3& v : {Vec3(-1, t, 0), Vec3(1, t, 0), Vec3(-1, -t, 0), Vec3(1, -t, 0),
                        Vec3(0, -1, t), Vec3(0, 1, t), Vec3(0, -1, -t), Vec3(0, 1, -t),
                        Vec3(t, 0, -1), Vec3(t, 0, 1), Vec3(-t, 0, -1), Vec3(-t, 0, 1)}) {
    m.vertices_m.push_back(v.normalized());
  }
  m.triangles = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                 {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                 {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                 {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      const auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      m.vertices_m.push_back((m.vertices_m[a] + m.vertices_m[b]).normalized());
      const int id = static_cast<int>(m.vertices_m.size()) - 1;
      mid.emplace(key, id);
      return id;
    };
    std::vector<std::array<int, 3>> next;
    for (const auto& tri : m.triangles) {
      const int ab = midpoint(tri[0], tri[1]);
      const int bc = midpoint(tri[1], tri[2]);
      const int ca = midpoint(tri[2], tri[0]);
      next.push_back({tri[0], ab, ca});
      next.push_back({tri[1], bc, ab});
      next.push_back({tri[2], ca, bc});
      next.push_back({ab, bc, ca});
    }
    m.triangles = std::move(next);
  }
  for (Vec3& v : m.vertices_m) v *= radius_m;
  return m;
}

}  // namespace talus::test_support
