#pragma once
// Triangle meshes for signed-distance bodies (paper 001 §II-C): loading STL (ascii and binary) and
// OBJ through assimp, and the closedness check that makes a mesh's inside well defined.
//
// A mesh is an indexed triangle list in its body frame B, in metres. Loading welds vertices with
// identical positions (STL stores every triangle's corners separately), triangulates polygons and
// scales file units to metres. A mesh is usable as a body only when it is closed: every edge is
// shared by exactly two triangles that traverse it in opposite directions (watertight and
// consistently oriented). Then the inside is well defined and the sign of a distance is too.

#include <array>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "core/pose.hpp"

namespace talus {

/// An indexed triangle mesh in the body frame [m]. Triangles list vertex indices counter-clockwise
/// seen from outside (outward normal (b - a) x (c - a)) once the mesh passed require_closed().
struct TriangleMesh {
  std::vector<Vec3> vertices_m;
  std::vector<std::array<int, 3>> triangles;

  /// Smallest and largest vertex coordinates [m]; throws std::invalid_argument when empty.
  std::array<Vec3, 2> bounds() const;
  /// Signed enclosed volume [m^3] (divergence theorem); positive for an outward-oriented closed
  /// mesh.
  double signed_volume() const;
};

/// Reads an STL (ascii or binary) or OBJ file through assimp: all meshes of the file, with their
/// node transforms applied, polygons triangulated, vertices with identical positions joined,
/// degenerate triangles (a repeated vertex) dropped, and coordinates multiplied by `scale`
/// (file units to metres, e.g. 0.001 for a file in millimetres). Throws std::runtime_error naming
/// the file and what is wrong (missing, unreadable, no triangles, non-finite coordinates) and
/// std::invalid_argument for a scale that is not finite and positive.
TriangleMesh load_mesh(const std::filesystem::path& path, double scale = 1.0);

/// The edge census behind the closedness check.
struct ClosednessReport {
  std::size_t boundary_edges = 0;      ///< edges used by one triangle (holes)
  std::size_t non_manifold_edges = 0;  ///< edges used by three or more triangles
  std::size_t misoriented_edges = 0;   ///< edges used twice in the same direction (flipped faces)
  /// One offending edge's end positions [m], of the first kind found above (boundary first).
  std::array<Vec3, 2> example_edge{Vec3::Zero(), Vec3::Zero()};
  bool closed() const {
    return boundary_edges == 0 && non_manifold_edges == 0 && misoriented_edges == 0;
  }
};

/// Counts the edges that break closedness. Throws std::invalid_argument when a triangle indexes a
/// vertex that does not exist.
ClosednessReport check_closedness(const TriangleMesh& mesh);

/// Throws std::invalid_argument when the mesh is empty or not closed, naming `name` (the file) and
/// the counts of boundary, non-manifold and misoriented edges with one example edge's vertex
/// positions. A closed mesh whose triangles all face inward (negative volume) is turned outward in
/// place, so outward normals can be relied on afterwards.
void require_closed(TriangleMesh& mesh, const std::string& name);

}  // namespace talus
