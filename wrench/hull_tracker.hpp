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
// qhull again, local changes repair the kept surface, each keeping it closed and oriented: edges
// where it folds inwards are flipped (two triangles of a near-flat quadrilateral swap their
// diagonal), a vertex of three triangles that has sunk inside is removed (its fan becomes one
// triangle), and a point that has come out through it is added (the triangles it sees become a fan
// from it to their horizon, as in an incremental hull); the same check then decides. In
// QuadrupedGranular-v0's scripted trot (bench/bench_envs.py) flips alone left 19 % of the feet's
// hulls to qhull, points moving in and out of the hull; with the three changes 1.4 %.

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
  bool rebuild(const Eigen::MatrixXd& points);          // qhull; false when not full-dimensional
  void group_triangles(const Eigen::MatrixXd& points);  // facets = triangles with equal planes
  bool repair(const Eigen::MatrixXd& points, HalfSpaces& out);  // local changes, then the check
  int flip_reflex_edges(const Eigen::MatrixXd& points);  // changes made; -1: flips cannot repair
  bool remove_sunk_vertex(int x, int y, int c, int d);
  bool insert_outside_point(const Eigen::MatrixXd& points);
  bool closed_surface(Eigen::Index point_count);
  // The m x m table over directed edges a -> b (slot a * m + b) that the flips, the insertion and
  // the closedness check each index, all slots -1; one member so that its memory is kept between
  // calls rather than allocated per repair round.
  std::vector<int>& cleared_edge_table(size_t point_count);
  bool planes_from_triangles(const Eigen::MatrixXd& points, HalfSpaces& out) const;

  std::vector<std::array<int, 3>> triangles_;  // outward (counter-clockwise seen from outside)
  std::vector<int> facet_of_triangle_;         // facet index per triangle
  std::vector<int> first_triangle_;            // per facet: the triangle its plane comes from
  std::vector<int> edge_table_;                // cleared_edge_table's memory
  Eigen::Index point_count_ = -1;
  static constexpr int kMaxRepairRounds = 8;
  long qhull_runs_ = 0;
  long reuses_ = 0;
  long repairs_ = 0;
};

}  // namespace talus::wrench
