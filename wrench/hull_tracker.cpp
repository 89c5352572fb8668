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
    if (repair(points, hull)) {
      ++repairs_;
      return hull;
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

// The structure changed a little. Three local changes restore it in the usual cases, each keeping
// the surface closed and oriented: flipping an edge where the surface folds inwards (two triangles
// of a near-flat quadrilateral swapping their diagonal), removing a vertex of three triangles that
// has sunk inside their neighbours (its fan becomes one triangle) and adding a point that has come
// out through the surface (the triangles it sees become a fan from it to their horizon, the
// beneath-beyond step). Whatever they build, planes_from_triangles then checks it exactly.
bool HullTracker::repair(const Eigen::MatrixXd& points, HalfSpaces& hull) {
  for (int round = 0; round < kMaxRepairRounds; ++round) {
    const int changes = flip_reflex_edges(points);
    if (changes < 0) return false;
    if (changes == 0 && !insert_outside_point(points)) return false;
    group_triangles(points);
    if (closed_surface(points.rows()) && planes_from_triangles(points, hull)) return true;
  }
  return false;
}

int HullTracker::flip_reflex_edges(const Eigen::MatrixXd& points) {
  const double tol = kRelativeTolerance * points.cwiseAbs().maxCoeff();
  // Directed edge a -> b of triangle t (counter-clockwise), with its third vertex.
  struct Edge {
    int a, b, t, third;
  };
  std::vector<Edge> edges;
  // edge_of[a * m + b]: the first directed edge a -> b in `edges`, or -1. A table rather than a
  // search of the edge list per edge: the search made each pass quadratic in the edges, a tenth
  // of the quadruped's step (bench WrenchStepQuadruped); the table finds the same twins.
  const auto m = static_cast<size_t>(points.rows());
  std::vector<int>& edge_of = cleared_edge_table(m);
  const auto slot = [m](int a, int b) {
    return static_cast<size_t>(a) * m + static_cast<size_t>(b);
  };
  int changes = 0;
  const int max_changes = 4 * static_cast<int>(triangles_.size());
  for (; changes < max_changes; ++changes) {
    for (const Edge& e : edges) edge_of[slot(e.a, e.b)] = -1;
    edges.clear();
    for (size_t t = 0; t < triangles_.size(); ++t) {
      const std::array<int, 3>& v = triangles_[t];
      for (int k = 0; k < 3; ++k) {
        const Edge e{v[static_cast<size_t>(k)], v[static_cast<size_t>((k + 1) % 3)],
                     static_cast<int>(t), v[static_cast<size_t>((k + 2) % 3)]};
        int& first = edge_of[slot(e.a, e.b)];
        if (first < 0) first = static_cast<int>(edges.size());
        edges.push_back(e);
      }
    }
    // A reflex edge: the neighbour's third vertex d lies outside the plane of triangle (a, b, c).
    const Edge* reflex = nullptr;
    const Edge* twin = nullptr;
    for (const Edge& e : edges) {
      if (e.a > e.b) continue;  // each undirected edge once
      const int f_index = edge_of[slot(e.b, e.a)];
      if (f_index < 0) continue;
      const Edge& f = edges[static_cast<size_t>(f_index)];
      const Eigen::Vector3d n = triangle_normal(points, triangles_[static_cast<size_t>(e.t)]);
      const Eigen::Vector3d ad = (points.row(f.third) - points.row(e.a)).transpose();
      if (n.dot(ad) > tol * n.norm()) {
        reflex = &e;
        twin = &f;
        break;
      }
    }
    if (!reflex) return changes;
    const int a = reflex->a, b = reflex->b, c = reflex->third, d = twin->third;
    if (c == d) return -1;
    if (edge_of[slot(c, d)] >= 0 || edge_of[slot(d, c)] >= 0) {
      // The edge c-d exists already, so flipping would not be manifold: a or b is a vertex of
      // three triangles (a, b, c), (b, a, d) and one with c and d, sunk inside them.
      if (!remove_sunk_vertex(a, b, c, d) && !remove_sunk_vertex(b, a, c, d)) return -1;
      continue;
    }
    // Flip edge a-b to c-d: (a, b, c), (b, a, d) -> (c, a, d), (d, b, c).
    triangles_[static_cast<size_t>(reflex->t)] = {c, a, d};
    triangles_[static_cast<size_t>(twin->t)] = {d, b, c};
  }
  return -1;
}

// Vertex x (with x-y the reflex edge, c and d the third vertices of its two triangles) when its
// only triangles are those two and one through c and d: its fan (x, p_i, q_i), whose outer edges
// p_i -> q_i close a cycle, becomes the one triangle of that cycle, oriented as the fan was.
bool HullTracker::remove_sunk_vertex(int x, int y, int c, int d) {
  std::array<size_t, 4> fan{};
  size_t count = 0;
  for (size_t t = 0; t < triangles_.size(); ++t) {
    const std::array<int, 3>& v = triangles_[t];
    if (v[0] != x && v[1] != x && v[2] != x) continue;
    if (count == 3) return false;  // more than three triangles
    fan[count++] = t;
  }
  if (count != 3) return false;
  std::array<std::array<int, 2>, 3> outer{};  // p_i -> q_i
  for (size_t i = 0; i < 3; ++i) {
    const std::array<int, 3>& v = triangles_[fan[i]];
    const size_t k = v[0] == x ? 0 : v[1] == x ? 1 : 2;
    outer[i] = {v[(k + 1) % 3], v[(k + 2) % 3]};
  }
  for (const int w : {y, c, d}) {
    bool found = false;
    for (const auto& e : outer) found = found || e[0] == w;
    if (!found) return false;
  }
  // Order the cycle: the edge after p_0 -> q_0 starts at q_0.
  const auto after = [&](int from) {
    for (const auto& e : outer)
      if (e[0] == from) return e[1];
    return -1;
  };
  const int p = outer[0][0], q = outer[0][1], r = after(q);
  if (r < 0 || after(r) != p) return false;
  triangles_[fan[0]] = {p, q, r};
  // Erase the other two, the later index first.
  const size_t first = std::min(fan[1], fan[2]), second = std::max(fan[1], fan[2]);
  triangles_.erase(triangles_.begin() + static_cast<std::ptrdiff_t>(second));
  triangles_.erase(triangles_.begin() + static_cast<std::ptrdiff_t>(first));
  return true;
}

// The point farthest outside the surface, when it is no vertex of it: the triangles whose planes
// it is outside of are replaced by the fan from it to their horizon (edges a -> b of a seen
// triangle whose twin is not seen become triangles (a, b, point), keeping the orientation).
bool HullTracker::insert_outside_point(const Eigen::MatrixXd& points) {
  const double tol = kRelativeTolerance * points.cwiseAbs().maxCoeff();
  std::vector<Eigen::Vector4d> planes(triangles_.size());  // unit normal, offset
  for (size_t t = 0; t < triangles_.size(); ++t) {
    const Eigen::Vector3d n = triangle_normal(points, triangles_[t]);
    const double norm = n.norm();
    if (!(norm > 0.0)) return false;
    const Eigen::Vector3d unit = n / norm;
    // Component by component: Eigen's comma initializer copies `unit` with a 4-wide AVX load,
    // which GCC 12 at -march=znver3 reports as reading past the 3-vector (-Warray-bounds, an
    // error in CI's build).
    planes[t] = Eigen::Vector4d(unit.x(), unit.y(), unit.z(),
                                unit.dot(points.row(triangles_[t][0]).transpose()));
  }
  Eigen::Index outside = -1;
  double farthest = tol;
  for (Eigen::Index v = 0; v < points.rows(); ++v) {
    const Eigen::Vector3d p = points.row(v).transpose();
    for (const Eigen::Vector4d& plane : planes) {
      const double distance = plane.head<3>().dot(p) - plane[3];
      if (distance > farthest) {
        farthest = distance;
        outside = v;
      }
    }
  }
  if (outside < 0) return false;
  const int o = static_cast<int>(outside);
  for (const std::array<int, 3>& v : triangles_) {
    if (v[0] == o || v[1] == o || v[2] == o) return false;  // a vertex: not this change's case
  }
  const Eigen::Vector3d p = points.row(outside).transpose();
  std::vector<char> seen(triangles_.size());
  for (size_t t = 0; t < triangles_.size(); ++t) {
    seen[t] = planes[t].head<3>().dot(p) - planes[t][3] > tol;
  }
  // Directed edges of the unseen triangles: a seen triangle's edge a -> b is on the horizon when
  // its twin b -> a is one of them.
  const auto m = static_cast<size_t>(points.rows());
  std::vector<int>& unseen_edge = cleared_edge_table(m);  // >= 0: an unseen triangle's edge
  for (size_t t = 0; t < triangles_.size(); ++t) {
    if (seen[t]) continue;
    for (size_t k = 0; k < 3; ++k) {
      unseen_edge[static_cast<size_t>(triangles_[t][k]) * m +
                  static_cast<size_t>(triangles_[t][(k + 1) % 3])] = static_cast<int>(t);
    }
  }
  std::vector<std::array<int, 3>> kept;
  std::vector<std::array<int, 3>> fan;
  for (size_t t = 0; t < triangles_.size(); ++t) {
    if (!seen[t]) {
      kept.push_back(triangles_[t]);
      continue;
    }
    for (size_t k = 0; k < 3; ++k) {
      const int a = triangles_[t][k], b = triangles_[t][(k + 1) % 3];
      if (unseen_edge[static_cast<size_t>(b) * m + static_cast<size_t>(a)] >= 0)
        fan.push_back({a, b, o});
    }
  }
  if (fan.size() < 3) return false;
  kept.insert(kept.end(), fan.begin(), fan.end());
  triangles_ = std::move(kept);
  return true;
}

// Every directed edge once, with its twin: the surface is closed and consistently oriented (what
// makes "every point inside every plane" mean convex, hull_tracker.hpp). The local changes keep
// it so by construction; the insertion's fan does only when the seen triangles form a disk.
bool HullTracker::closed_surface(Eigen::Index point_count) {
  const auto m = static_cast<size_t>(point_count);
  std::vector<int>& triangle_of_edge = cleared_edge_table(m);
  for (size_t t = 0; t < triangles_.size(); ++t) {
    const std::array<int, 3>& v = triangles_[t];
    for (size_t k = 0; k < 3; ++k) {
      int& slot =
          triangle_of_edge[static_cast<size_t>(v[k]) * m + static_cast<size_t>(v[(k + 1) % 3])];
      if (slot >= 0) return false;  // a directed edge twice
      slot = static_cast<int>(t);
    }
  }
  for (const std::array<int, 3>& v : triangles_) {
    for (size_t k = 0; k < 3; ++k) {
      if (triangle_of_edge[static_cast<size_t>(v[(k + 1) % 3]) * m + static_cast<size_t>(v[k])] < 0)
        return false;  // no twin
    }
  }
  return !triangles_.empty();
}

std::vector<int>& HullTracker::cleared_edge_table(size_t point_count) {
  edge_table_.assign(point_count * point_count, -1);
  return edge_table_;
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
  // ... and every point inside every plane (the surface is convex at every edge). Per facet, a
  // branch-free pass over the points' coordinate columns (contiguous in the column-major points:
  // it vectorises) rather than the product A P^T: that product and its facets x points temporary
  // were most of this function's cost, a sixth of the quadruped's step (bench
  // WrenchStepQuadruped).
  const Eigen::Index m = points.rows();
  const double* x = points.col(0).data();
  const double* y = points.col(1).data();
  const double* z = points.col(2).data();
  for (Eigen::Index f = 0; f < facets; ++f) {
    const double nx = out.A(f, 0), ny = out.A(f, 1), nz = out.A(f, 2), offset = out.b[f] + tol;
    int outside = 0;
    for (Eigen::Index v = 0; v < m; ++v) outside |= nx * x[v] + ny * y[v] + nz * z[v] > offset;
    if (outside) return false;
  }
  return true;
}

}  // namespace talus::wrench
