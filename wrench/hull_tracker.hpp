#pragma once
// The hull of m points in 3-D kept between calls (planar wrench sets W(theta), one per foot, whose
// predicted wrenches move a little from step to step). qhull costs ~120-140 us for a few dozen
// points, most of it set-up; the hull's combinatorial structure rarely changes between steps.
//
// update(points) keeps qhull's triangulated boundary (point-index triangles, grouped by facet) and,
// for the new points, recomputes each facet's plane from its first triangle. The planes are the
// exact hull when every point lies on the inner side of every plane and every triangle's vertices
// still lie on their facet's plane (to a tolerance 1e-9 of the points' size): a closed triangulated
// surface through the points that is convex at every edge bounds a convex polytope containing all
// points, whose vertices are points, i.e. their convex hull. Otherwise qhull runs again. The result
// is the same set as convex_hull_halfspaces(points) (one unit row per facet). Before running
// qhull again, edges where the kept surface folds inwards are flipped (the usual change: two
// triangles of a near-flat quadrilateral swap their diagonal) and the same check decides.

#include <Eigen/Dense>
#include <array>
#include <vector>

#include "wrench/wrench_hull.hpp"

namespace talus::wrench {

class HullTracker {
 public:
  /// The hull of the rows of `points` (m x 3) in half-space form. Sets that are not
  /// full-dimensional go to convex_hull_halfspaces (equality rows) and reset the tracker.
  HalfSpaces update(const Eigen::MatrixXd& points);

  long qhull_runs() const { return qhull_runs_; }  ///< calls that ran qhull
  long reuses() const { return reuses_; }          ///< calls answered from the kept triangles
  long repairs() const { return repairs_; }        ///< ... after flipping edges of them

 private:
  bool rebuild(const Eigen::MatrixXd& points);            // qhull; false when not full-dimensional
  void group_triangles(const Eigen::MatrixXd& points);    // facets = triangles with equal planes
  bool flip_reflex_edges(const Eigen::MatrixXd& points);  // true when some edge was flipped
  bool planes_from_triangles(const Eigen::MatrixXd& points, HalfSpaces& out) const;

  std::vector<std::array<int, 3>> triangles_;  // outward (counter-clockwise seen from outside)
  std::vector<int> facet_of_triangle_;         // facet index per triangle
  std::vector<int> first_triangle_;            // per facet: the triangle its plane comes from
  Eigen::Index point_count_ = -1;
  long qhull_runs_ = 0;
  long reuses_ = 0;
  long repairs_ = 0;
};

}  // namespace talus::wrench
