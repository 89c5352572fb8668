#pragma once
// Signed distance to a closed triangle mesh, precomputed on a regular grid (paper 001 §II-C:
// "meshes are converted to signed distance fields on a regular grid and queried by trilinear
// interpolation"). The cell size is the user's accuracy/memory trade-off (docs/meshes.md measures
// both for the gear).
//
// Build: every grid node gets the exact Euclidean distance to the triangle set (closest point on
// each triangle, searched through a bounding-volume hierarchy) with a sign from ray parity: three
// rays from the node along +x, +y and +z count the surface crossings, and the majority of the three
// parities decides inside (a ray grazing an edge or vertex could miscount; three independent axes
// outvote one such accident). Query: trilinear interpolation inside the grid box; outside it, the
// box distance combined with the boundary value (see MeshSdfGrid::distance).

#include <array>
#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "core/mesh.hpp"

namespace talus {

/// Exact unsigned distance [m] from points to a triangle set, through a bounding-volume hierarchy
/// (median split on the longest axis, leaves of up to 4 triangles). Written here because the
/// Debian packages that have one (CGAL's AABB_tree, libigl) are large template libraries for one
/// nearest-triangle query, and fcl answers mesh-mesh distance, not point-mesh.
class TriangleBvh {
 public:
  explicit TriangleBvh(const TriangleMesh& mesh);
  /// Distance [m] from p to the nearest triangle. A known upper bound of it (a neighbour's
  /// distance plus their separation) lets the search skip every box farther than that.
  double distance(const Vec3& p,
                  double upper_bound = std::numeric_limits<double>::infinity()) const;

 private:
  struct Node {
    Vec3 lo = Vec3::Zero();
    Vec3 hi = Vec3::Zero();
    int first = 0;  // leaf: first triangle in order_; inner: index of the left child
    int count = 0;  // leaf: number of triangles; inner: 0
    int right = 0;  // inner: index of the right child
  };
  int build(int first, int count, std::vector<Vec3>& centroids);
  double box_distance_sq(const Node& n, const Vec3& p) const;

  const TriangleMesh* mesh_;
  std::vector<int> order_;
  std::vector<Node> nodes_;
};

/// Closest distance [m] from p to the triangle (a, b, c) (Ericson, Real-Time Collision Detection
/// §5.1.5, Voronoi regions of the triangle's features).
double point_triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

/// The sampled signed distance of a closed mesh, in the mesh's body frame B.
class MeshSdfGrid {
 public:
  /// Builds the grid over the mesh's bounds grown by margin_m on every side (margin_m < 0 picks 2
  /// cells), nodes cell_m apart. The mesh must be closed (require_closed is applied, naming
  /// `name`). Throws std::invalid_argument for a cell size that is not positive or a grid of more
  /// than 2^28 nodes. Deterministic; parallel over grid rows.
  static std::shared_ptr<const MeshSdfGrid> build(TriangleMesh mesh, double cell_m,
                                                  double margin_m = -1.0,
                                                  const std::string& name = "mesh");

  /// Signed distance [m] at p_B, negative inside. Inside the grid box: trilinear interpolation of
  /// the node values (error of order cell^2 times the surface curvature, and up to the cell size
  /// next to sharp edges). Outside the box: sqrt(e^2 + d(q)^2) with q the nearest box point, e =
  /// |p - q| and d(q) the (positive) interpolated value at q. Since the mesh lies inside the box
  /// behind q, every mesh point m has (p - q).(m - q) <= 0, so |p - m|^2 >= e^2 + |q - m|^2: a
  /// lower bound of the true distance, continuous across the box faces.
  double distance(const Vec3& p_B) const;
  /// Unit outward normal at p_B: the normalized analytic gradient of the trilinear field (of the
  /// clamped point's field outside, plus the direction away from the box). +z where it vanishes.
  Vec3 normal(const Vec3& p_B) const;

  /// The interpolated field's gradient has components of magnitude <= 1 (differences of a
  /// 1-Lipschitz function over one cell), so its norm is at most sqrt(3): a sphere tracer must step
  /// by distance / kLipschitz to never pass the interpolated surface.
  static constexpr double kLipschitz = 1.7320508075688772;

  const TriangleMesh& mesh() const { return mesh_; }
  /// Mesh bounds in B [m] (lo, hi).
  const std::array<Vec3, 2>& mesh_bounds() const { return mesh_bounds_; }
  Vec3 grid_lo() const { return lo_; }
  Vec3 grid_hi() const { return lo_ + cell_ * (dims_.cast<double>() - Vec3::Ones()); }
  double cell_m() const { return cell_; }
  Eigen::Vector3i dims() const { return dims_; }  ///< nodes per axis
  /// Node value [m] at node (i, j, k).
  float node(int i, int j, int k) const { return values_[index(i, j, k)]; }
  std::size_t memory_bytes() const { return values_.size() * sizeof(float); }

 private:
  MeshSdfGrid() = default;
  std::size_t index(int i, int j, int k) const {
    return (static_cast<std::size_t>(k) * dims_.y() + j) * dims_.x() + i;
  }
  // Interpolated value and gradient at a point inside the grid box.
  double interpolate(const Vec3& q, Vec3* gradient) const;

  TriangleMesh mesh_;
  std::array<Vec3, 2> mesh_bounds_;
  Vec3 lo_ = Vec3::Zero();
  double cell_ = 0.0;
  Eigen::Vector3i dims_ = Eigen::Vector3i::Zero();
  std::vector<float> values_;  // x fastest, then y, then z
};

}  // namespace talus
