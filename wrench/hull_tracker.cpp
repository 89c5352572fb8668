// Hull of 3-D points kept between calls: see hull_tracker.hpp for why the check makes it exact.

// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "wrench/hull_tracker.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "wrench/qhull_run.hpp"

namespace talus::wrench {

namespace {

// Relative tolerance (of the points' largest coordinate) for "on the plane" and "inside".
constexpr double kRelativeTolerance = 1e-9;

// (b - a) x (c - a) for the triangle's points a, b, c: twice its area along its normal.
Eigen::Vector3d triangle_normal(const Eigen::MatrixXd& points, const std::array<int, 3>& tri) {
  const Eigen::Vector3d a = points.row(tri[0]).transpose();
  const Eigen::Vector3d b = points.row(tri[1]).transpose();
  const Eigen::Vector3d c = points.row(tri[2]).transpose();
  return (b - a).cross(c - a);
}

}  // namespace

HalfSpaces HullTracker::update(const Eigen::MatrixXd& points) {
  if (points.cols() != 3 || points.rows() < 4 || !points.allFinite()) {
    triangles_.clear();
    point_count_ = -1;
    return convex_hull_halfspaces(points);
  }
  HalfSpaces hull;
  if (points.rows() == point_count_) {
    if (planes_from_triangles(points, hull)) {
      ++reuses_;
      return hull;
    }
    // The structure changed a little: flipping the edges where the surface folds inwards (two
    // triangles of a near-flat quadrilateral swapping their diagonal) often restores it.
    if (flip_reflex_edges(points)) {
      group_triangles(points);
      if (planes_from_triangles(points, hull)) {
        ++repairs_;
        return hull;
      }
    }
  }
  if (rebuild(points) && planes_from_triangles(points, hull)) return hull;
  // Not full-dimensional (or qhull's triangles fail the check at this tolerance): the general path.
  triangles_.clear();
  point_count_ = -1;
  return convex_hull_halfspaces(points);
}

bool HullTracker::rebuild(const Eigen::MatrixXd& points) {
  ++qhull_runs_;
  triangles_.clear();
  facet_of_triangle_.clear();
  first_triangle_.clear();
  point_count_ = -1;
  std::string messages;
  // Qt: triangulated output (merged coplanar facets split into triangles that share the plane).
  const int exitcode = run_qhull(
      points, "qhull Qt C-0",
      [&](qhT* qh, facetT* facet) {
        if (qh_setsize(qh, facet->vertices) != 3) return;
        std::array<int, 3> tri{};
        int k = 0;
        vertexT* vertex = nullptr;
        vertexT** vertexp = nullptr;
        FOREACHvertex_(facet->vertices) tri[static_cast<size_t>(k++)] =
            qh_pointid(qh, vertex->point);
        const Eigen::Vector3d n(facet->normal[0], facet->normal[1], facet->normal[2]);
        const Eigen::Vector3d cross = triangle_normal(points, tri);
        if (cross.dot(n) < 0.0) std::swap(tri[1], tri[2]);
        triangles_.push_back(tri);
      },
      messages);
  if (exitcode != 0 || triangles_.empty()) {
    triangles_.clear();
    return false;
  }
  group_triangles(points);
  point_count_ = points.rows();
  return true;
}

void HullTracker::group_triangles(const Eigen::MatrixXd& points) {
  const double size = points.cwiseAbs().maxCoeff();
  const double tol = kRelativeTolerance * (1.0 + size);
  facet_of_triangle_.assign(triangles_.size(), -1);
  first_triangle_.clear();
  std::vector<Eigen::Vector4d> planes;  // per facet: unit normal and offset
  std::vector<double> best_area;
  for (size_t t = 0; t < triangles_.size(); ++t) {
    const Eigen::Vector3d n = triangle_normal(points, triangles_[t]);
    const double area = n.norm();
    // A collapsed triangle (qhull's "Qt" can leave zero-area ones in flat facets) has no plane of
    // its own; its vertices are still checked against every plane.
    if (!(area > tol * tol)) continue;
    const Eigen::Vector3d unit = n / area;
    const double offset = unit.dot(points.row(triangles_[t][0]).transpose());
    int facet = -1;
    for (size_t f = 0; f < planes.size(); ++f) {
      if ((planes[f].head<3>() - unit).norm() < kRelativeTolerance &&
          std::abs(planes[f][3] - offset) < tol) {
        facet = static_cast<int>(f);
        break;
      }
    }
    if (facet < 0) {
      facet = static_cast<int>(planes.size());
      planes.emplace_back(unit.x(), unit.y(), unit.z(), offset);
      first_triangle_.push_back(static_cast<int>(t));
      best_area.push_back(area);
    } else if (area > best_area[static_cast<size_t>(facet)]) {
      first_triangle_[static_cast<size_t>(facet)] = static_cast<int>(t);  // the best-shaped one
      best_area[static_cast<size_t>(facet)] = area;
    }
    facet_of_triangle_[t] = facet;
  }
}

bool HullTracker::flip_reflex_edges(const Eigen::MatrixXd& points) {
  const double tol = kRelativeTolerance * points.cwiseAbs().maxCoeff();
  // Directed edge a -> b of triangle t (counter-clockwise), with its third vertex.
  struct Edge {
    int a, b, t, third;
  };
  std::vector<Edge> edges;
  bool flipped = false;
  const int max_flips = 4 * static_cast<int>(triangles_.size());
  for (int flip = 0; flip < max_flips; ++flip) {
    edges.clear();
    for (size_t t = 0; t < triangles_.size(); ++t) {
      const std::array<int, 3>& v = triangles_[t];
      for (int k = 0; k < 3; ++k) {
        edges.push_back(Edge{v[static_cast<size_t>(k)], v[static_cast<size_t>((k + 1) % 3)],
                             static_cast<int>(t), v[static_cast<size_t>((k + 2) % 3)]});
      }
    }
    // A reflex edge: the neighbour's third vertex d lies outside the plane of triangle (a, b, c).
    const Edge* reflex = nullptr;
    const Edge* twin = nullptr;
    for (const Edge& e : edges) {
      if (e.a > e.b) continue;  // each undirected edge once
      for (const Edge& f : edges) {
        if (f.a != e.b || f.b != e.a) continue;
        const Eigen::Vector3d n = triangle_normal(points, triangles_[static_cast<size_t>(e.t)]);
        const Eigen::Vector3d ad = (points.row(f.third) - points.row(e.a)).transpose();
        if (n.dot(ad) > tol * n.norm()) {
          reflex = &e;
          twin = &f;
        }
        break;
      }
      if (reflex) break;
    }
    if (!reflex) return flipped;
    const int a = reflex->a, b = reflex->b, c = reflex->third, d = twin->third;
    if (c == d) return false;
    for (const Edge& e : edges) {
      if ((e.a == c && e.b == d) || (e.a == d && e.b == c)) return false;  // would not be manifold
    }
    // Flip edge a-b to c-d: (a, b, c), (b, a, d) -> (c, a, d), (d, b, c).
    triangles_[static_cast<size_t>(reflex->t)] = {c, a, d};
    triangles_[static_cast<size_t>(twin->t)] = {d, b, c};
    flipped = true;
  }
  return false;
}

bool HullTracker::planes_from_triangles(const Eigen::MatrixXd& points, HalfSpaces& out) const {
  const double tol = kRelativeTolerance * points.cwiseAbs().maxCoeff();
  const auto facets = static_cast<Eigen::Index>(first_triangle_.size());
  out.dimension = 3;
  out.affine_dimension = 3;
  out.A.resize(facets, 3);
  out.b.resize(facets);
  out.A_eq.resize(0, 3);
  out.b_eq.resize(0);
  for (Eigen::Index f = 0; f < facets; ++f) {
    const std::array<int, 3>& tri = triangles_[static_cast<size_t>(first_triangle_[f])];
    const Eigen::Vector3d a = points.row(tri[0]).transpose();
    const Eigen::Vector3d n = triangle_normal(points, tri);
    const double norm = n.norm();
    if (!(norm > tol * tol * 1e6)) return false;  // degenerate: the triangle collapsed
    out.A.row(f) = n.transpose() / norm;
    out.b[f] = out.A.row(f).dot(a);
  }
  // Every triangle's vertices on its facet's plane (the facet is still flat)...
  for (size_t t = 0; t < triangles_.size(); ++t) {
    const Eigen::Index f = facet_of_triangle_[t];
    if (f < 0) continue;  // collapsed triangle
    for (const int v : triangles_[t]) {
      if (std::abs(out.A.row(f).dot(points.row(v)) - out.b[f]) > tol) return false;
    }
  }
  // ... and every point inside every plane (the surface is convex at every edge).
  return ((out.A * points.transpose()).colwise() - out.b).maxCoeff() <= tol;
}

}  // namespace talus::wrench
