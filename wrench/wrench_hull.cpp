// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "wrench/wrench_hull.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "wrench/qhull_run.hpp"

namespace talus::wrench {

namespace {

// Facets of the hull of `coords` (m points in `dim`-D, full-dimensional) as unit-normal rows
// n^T y <= -offset (qhull's hyperplanes satisfy n^T y + offset <= 0 inside).
void qhull_facets(const Eigen::MatrixXd& coords, std::vector<Eigen::VectorXd>& normals,
                  std::vector<double>& rhs) {
  const int dim = static_cast<int>(coords.cols());
  std::string text;
  const int exitcode = run_qhull(
      coords, "qhull Qx C-0",
      [&](qhT*, facetT* facet) {
        Eigen::VectorXd normal(dim);
        for (int k = 0; k < dim; ++k) normal[k] = facet->normal[k];
        const double norm = normal.norm();
        normals.push_back(normal / norm);
        rhs.push_back(-facet->offset / norm);
      },
      text);
  if (exitcode != 0) {
    throw HullError(fmt::format("qhull failed (exit code {}) on {} points in {}-D: {}", exitcode,
                                coords.rows(), dim, text));
  }
}

}  // namespace

bool HalfSpaces::contains(const Eigen::VectorXd& w, double tol) const {
  if (w.size() != dimension) return false;
  if (A.rows() > 0 && ((A * w - b).array() > tol).any()) return false;
  if (A_eq.rows() > 0 && ((A_eq * w - b_eq).array().abs() > tol).any()) return false;
  return true;
}

double HalfSpaces::depth_inside(const Eigen::VectorXd& w) const {
  if (A.rows() == 0) return 0.0;
  return (b - A * w).minCoeff();
}

HalfSpaces convex_hull_halfspaces(const Eigen::MatrixXd& points, const HullOptions& options) {
  const int dim = static_cast<int>(points.cols());
  const int count = static_cast<int>(points.rows());
  if (count == 0 || dim == 0) {
    throw HullError(fmt::format("convex hull: no points ({}x{})", count, dim));
  }
  if (!points.allFinite()) throw HullError("convex hull: points contain NaN or infinite entries");

  // Affine span by SVD of the centred points: U_r spans the set, U_perp gets equality rows.
  const Eigen::RowVectorXd centroid = points.colwise().mean();
  const Eigen::MatrixXd centred = points.rowwise() - centroid;
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(centred, Eigen::ComputeFullV);
  const Eigen::VectorXd sigma = svd.singularValues();
  const double largest = sigma.size() > 0 ? sigma[0] : 0.0;
  int rank = 0;
  if (largest > options.point_tolerance) {
    for (Eigen::Index k = 0; k < sigma.size(); ++k) {
      if (sigma[k] > options.rank_tolerance * largest) ++rank;
    }
  }
  const Eigen::MatrixXd V = svd.matrixV();  // dim x dim, columns: principal directions
  const Eigen::MatrixXd span = V.leftCols(rank);
  const Eigen::VectorXd c = centroid.transpose();

  HalfSpaces hull;
  hull.dimension = dim;
  hull.affine_dimension = rank;
  hull.A_eq = V.rightCols(dim - rank).transpose();
  hull.b_eq = hull.A_eq * c;

  std::vector<Eigen::VectorXd> normals;
  std::vector<double> rhs;
  if (rank == 1) {
    // A segment: qhull does not do 1-D; the hull is [t_min, t_max] along the direction.
    const Eigen::VectorXd t = centred * span;
    normals.push_back(span.col(0));
    rhs.push_back(t.maxCoeff() + span.col(0).dot(c));
    normals.push_back(-span.col(0));
    rhs.push_back(-t.minCoeff() - span.col(0).dot(c));
  } else if (rank >= 2) {
    const Eigen::MatrixXd projected = centred * span;  // count x rank
    std::vector<Eigen::VectorXd> facet_normals;
    std::vector<double> facet_rhs;
    qhull_facets(projected, facet_normals, facet_rhs);
    for (size_t f = 0; f < facet_normals.size(); ++f) {
      // n_r^T U_r^T (w - c) <= r  <=>  (U_r n_r)^T w <= r + (U_r n_r)^T c.
      const Eigen::VectorXd normal = span * facet_normals[f];
      normals.push_back(normal);
      rhs.push_back(facet_rhs[f] + normal.dot(c));
    }
  }
  // Drop repeated hyperplanes (qhull's merged facets should already be distinct; this guards the
  // minimal form against facets that qhull kept apart within round-off).
  const double size = std::max(largest, 1e-300);
  std::vector<size_t> kept;
  for (size_t f = 0; f < normals.size(); ++f) {
    bool repeat = false;
    for (const size_t k : kept) {
      if ((normals[f] - normals[k]).norm() < options.duplicate_tolerance &&
          std::abs(rhs[f] - rhs[k]) < options.duplicate_tolerance * size) {
        repeat = true;
        break;
      }
    }
    if (!repeat) kept.push_back(f);
  }
  hull.A.resize(static_cast<Eigen::Index>(kept.size()), dim);
  hull.b.resize(static_cast<Eigen::Index>(kept.size()));
  for (size_t r = 0; r < kept.size(); ++r) {
    hull.A.row(static_cast<Eigen::Index>(r)) = normals[kept[r]].transpose();
    hull.b[static_cast<Eigen::Index>(r)] = rhs[kept[r]];
  }
  return hull;
}

double concavity(const Eigen::MatrixXd& points, const HalfSpaces& hull, double min_magnitude) {
  if (points.cols() != hull.dimension) {
    throw HullError(fmt::format("concavity: points have {} columns, the hull is {}-D",
                                points.cols(), hull.dimension));
  }
  double worst = 0.0;
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    const double magnitude = points.row(i).norm();
    if (magnitude < min_magnitude || magnitude == 0.0) continue;
    const double depth = hull.depth_inside(points.row(i).transpose());
    worst = std::max(worst, depth / magnitude);
  }
  return worst;
}

}  // namespace talus::wrench
