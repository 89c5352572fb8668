#pragma once
// The shapes `talus view` draws (docs/viewer.md, "Bodies"): a talus Shape as the manifest's shape
// object. The viewer knows box, sphere, cylinder and capsule (axis z_B), plane and triangle mesh;
// a wheel (axis y_B, with grousers) and a signed-distance mesh body are sent as triangles.

#include <nlohmann/json.hpp>

#include "core/mesh.hpp"
#include "core/shape.hpp"

namespace talus {

/// The manifest's shape object for `shape` in its body frame. A plane is drawn as a square of
/// `plane_size_m` on a side, centred at the body origin.
nlohmann::json view_shape(const Shape& shape, double plane_size_m);

/// A triangle mesh as the manifest's {"kind": "mesh", "vertices_m": [...], "triangles": [...]}.
nlohmann::json view_mesh(const TriangleMesh& mesh);

/// The wheel's rim (a cylinder about y_B in `segments` facets) and its grousers, as triangles.
TriangleMesh wheel_triangles(const WheelShape& wheel, int segments = 48);

}  // namespace talus
