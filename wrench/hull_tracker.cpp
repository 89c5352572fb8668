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

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

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
  if (points.rows() == point_count_ && planes_from_triangles(points, hull)) {
    ++reuses_;
    return hull;
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
  const int count = static_cast<int>(points.rows());
  std::vector<coordT> flat(3 * static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    for (int k = 0; k < 3; ++k) flat[static_cast<size_t>(3 * i + k)] = points(i, k);
  }
  char* message = nullptr;
  size_t message_size = 0;
  FILE* errfile = open_memstream(&message, &message_size);
  qhT qh_storage;
  qhT* qh = &qh_storage;
  qh_zero(qh, errfile);
  // Qt: triangulated output (merged coplanar facets split into triangles that share the plane).
  char options[] = "qhull Qt C-0";
  const int exitcode = qh_new_qhull(qh, 3, count, flat.data(), False, options, nullptr, errfile);
  std::vector<Eigen::Vector4d> planes;  // per triangle: qhull's outward normal and offset
  std::vector<double> areas;            // per triangle: |cross| (twice the area)
  if (exitcode == 0) {
    facetT* facet = nullptr;
    FORALLfacets {
      if (qh_setsize(qh, facet->vertices) != 3) continue;
      std::array<int, 3> tri{};
      int k = 0;
      vertexT* vertex = nullptr;
      vertexT** vertexp = nullptr;
      FOREACHvertex_(facet->vertices) tri[static_cast<size_t>(k++)] = qh_pointid(qh, vertex->point);
      const Eigen::Vector3d n(facet->normal[0], facet->normal[1], facet->normal[2]);
      const Eigen::Vector3d cross = triangle_normal(points, tri);
      if (cross.dot(n) < 0.0) std::swap(tri[1], tri[2]);
      triangles_.push_back(tri);
      areas.push_back(cross.norm());
      planes.emplace_back(n.x(), n.y(), n.z(), facet->offset);
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0;
  int totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(errfile);
  std::free(message);
  if (exitcode != 0 || triangles_.empty()) {
    triangles_.clear();
    return false;
  }
  // Group the triangles by facet (equal planes), once per qhull run.
  const double size = points.cwiseAbs().maxCoeff();
  for (size_t t = 0; t < triangles_.size(); ++t) {
    int facet = -1;
    for (size_t f = 0; f < first_triangle_.size(); ++f) {
      const Eigen::Vector4d& p = planes[static_cast<size_t>(first_triangle_[f])];
      if ((p.head<3>() - planes[t].head<3>()).norm() < kRelativeTolerance &&
          std::abs(p[3] - planes[t][3]) < kRelativeTolerance * (1.0 + size)) {
        facet = static_cast<int>(f);
        break;
      }
    }
    if (facet < 0) {
      facet = static_cast<int>(first_triangle_.size());
      first_triangle_.push_back(static_cast<int>(t));
    } else if (areas[t] > areas[static_cast<size_t>(first_triangle_[static_cast<size_t>(facet)])]) {
      first_triangle_[static_cast<size_t>(facet)] = static_cast<int>(t);  // the best-shaped one
    }
    facet_of_triangle_.push_back(facet);
  }
  point_count_ = points.rows();
  return true;
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
    for (const int v : triangles_[t]) {
      if (std::abs(out.A.row(f).dot(points.row(v)) - out.b[f]) > tol) return false;
    }
  }
  // ... and every point inside every plane (the surface is convex at every edge).
  return ((out.A * points.transpose()).colwise() - out.b).maxCoeff() <= tol;
}

}  // namespace talus::wrench
