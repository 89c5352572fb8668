#include "core/mesh.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fmt/format.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace talus {

std::array<Vec3, 2> TriangleMesh::bounds() const {
  if (vertices_m.empty()) throw std::invalid_argument("TriangleMesh::bounds: the mesh is empty");
  Vec3 lo = vertices_m.front();
  Vec3 hi = lo;
  for (const Vec3& v : vertices_m) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  return {lo, hi};
}

double TriangleMesh::signed_volume() const {
  double six_v = 0.0;
  for (const auto& t : triangles) {
    six_v += vertices_m[t[0]].dot(vertices_m[t[1]].cross(vertices_m[t[2]]));
  }
  return six_v / 6.0;
}

TriangleMesh load_mesh(const std::filesystem::path& path, double scale) {
  if (!std::isfinite(scale) || scale <= 0.0) {
    throw std::invalid_argument(
        fmt::format("mesh {}: scale must be finite and > 0, got {}", path.string(), scale));
  }
  if (std::filesystem::is_directory(path)) {
    throw std::runtime_error(
        fmt::format("mesh {}: is a folder, expected a mesh file (STL, OBJ, ...)", path.string()));
  }
  if (!std::filesystem::is_regular_file(path)) {
    throw std::runtime_error(fmt::format("mesh {}: no such file", path.string()));
  }
  Assimp::Importer importer;
  // Node transforms are baked into the vertices; normals are not needed. Corners are joined below
  // by exact position, not by assimp's JoinIdenticalVertices: with that step an STL
  // with a NaN corner was reported as having no triangles, where the loop below names the
  // non-finite vertex.
  const aiScene* scene =
      importer.ReadFile(path.string(), aiProcess_Triangulate | aiProcess_PreTransformVertices |
                                           aiProcess_DropNormals);
  if (scene == nullptr) {
    throw std::runtime_error(
        fmt::format("mesh {}: cannot read: {}", path.string(), importer.GetErrorString()));
  }
  TriangleMesh mesh;
  // Join across assimp's sub-meshes as well, by exact position: one index per distinct point.
  std::map<std::tuple<double, double, double>, int> index_of;
  std::size_t skipped_primitives = 0;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* am = scene->mMeshes[m];
    std::vector<int> local(am->mNumVertices);
    for (unsigned v = 0; v < am->mNumVertices; ++v) {
      const aiVector3D& p = am->mVertices[v];
      const Vec3 q = scale * Vec3(p.x, p.y, p.z);
      if (!q.allFinite()) {
        throw std::runtime_error(
            fmt::format("mesh {}: vertex {} of mesh {} is not finite", path.string(), v, m));
      }
      const auto [it, inserted] =
          index_of.try_emplace({q.x(), q.y(), q.z()}, static_cast<int>(mesh.vertices_m.size()));
      if (inserted) mesh.vertices_m.push_back(q);
      local[v] = it->second;
    }
    for (unsigned f = 0; f < am->mNumFaces; ++f) {
      const aiFace& face = am->mFaces[f];
      if (face.mNumIndices != 3) {  // points and lines carry no surface
        ++skipped_primitives;
        continue;
      }
      const std::array<int, 3> t{local[face.mIndices[0]], local[face.mIndices[1]],
                                 local[face.mIndices[2]]};
      if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;  // degenerate: no area, no edges
      mesh.triangles.push_back(t);
    }
  }
  if (mesh.triangles.empty()) {
    throw std::runtime_error(
        fmt::format("mesh {}: no triangles found ({} meshes, {} point or line primitives)",
                    path.string(), scene->mNumMeshes, skipped_primitives));
  }
  return mesh;
}

ClosednessReport check_closedness(const TriangleMesh& mesh) {
  const auto n = static_cast<int>(mesh.vertices_m.size());
  // Per undirected edge (lo, hi): uses in direction lo -> hi and hi -> lo.
  struct Uses {
    int forward = 0;
    int backward = 0;
  };
  std::unordered_map<std::uint64_t, Uses> edges;
  edges.reserve(mesh.triangles.size() * 2);
  for (std::size_t k = 0; k < mesh.triangles.size(); ++k) {
    const auto& t = mesh.triangles[k];
    for (int i = 0; i < 3; ++i) {
      const int a = t[i];
      const int b = t[(i + 1) % 3];
      if (a < 0 || a >= n || b < 0 || b >= n) {
        throw std::invalid_argument(
            fmt::format("triangle {} indexes vertex {} of a mesh with {} vertices", k,
                        a < 0 || a >= n ? a : b, n));
      }
      const auto lo = static_cast<std::uint64_t>(std::min(a, b));
      const auto hi = static_cast<std::uint64_t>(std::max(a, b));
      Uses& u = edges[(lo << 32) | hi];
      (a < b ? u.forward : u.backward) += 1;
    }
  }
  ClosednessReport report;
  // The example is the offending edge with the smallest key, so it does not depend on hashing.
  std::uint64_t example_key = ~std::uint64_t{0};
  int example_rank = 3;  // 0 boundary, 1 non-manifold, 2 misoriented
  for (const auto& [key, u] : edges) {
    const int total = u.forward + u.backward;
    int rank = 3;
    if (total == 1) {
      ++report.boundary_edges;
      rank = 0;
    } else if (total > 2) {
      ++report.non_manifold_edges;
      rank = 1;
    } else if (u.forward != 1) {
      ++report.misoriented_edges;
      rank = 2;
    }
    if (rank < example_rank || (rank == example_rank && rank < 3 && key < example_key)) {
      example_rank = rank;
      example_key = key;
    }
  }
  if (example_rank < 3) {
    report.example_edge = {mesh.vertices_m[example_key >> 32],
                           mesh.vertices_m[example_key & 0xffffffffu]};
  }
  return report;
}

void require_closed(TriangleMesh& mesh, const std::string& name) {
  if (mesh.triangles.empty()) {
    throw std::invalid_argument(fmt::format("mesh {}: has no triangles", name));
  }
  const ClosednessReport r = check_closedness(mesh);
  if (!r.closed()) {
    const Vec3& a = r.example_edge[0];
    const Vec3& b = r.example_edge[1];
    throw std::invalid_argument(fmt::format(
        "mesh {}: is not closed (every edge must be shared by exactly two triangles with opposite "
        "orientation): {} boundary edges, {} non-manifold edges, {} misoriented edges; e.g. the "
        "edge from ({:.6g}, {:.6g}, {:.6g}) to ({:.6g}, {:.6g}, {:.6g}) m",
        name, r.boundary_edges, r.non_manifold_edges, r.misoriented_edges, a.x(), a.y(), a.z(),
        b.x(), b.y(), b.z()));
  }
  const double volume = mesh.signed_volume();
  if (!(std::abs(volume) > 0.0)) {
    throw std::invalid_argument(fmt::format("mesh {}: encloses no volume", name));
  }
  if (volume < 0.0) {
    for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
  }
}

}  // namespace talus
