#pragma once
// The feasible wrench set W(theta) as the convex hull of m predicted extreme wrenches, in the
// minimal half-space form of paper 000 eq. 1, A(theta) w <= b(theta), plus equality rows when the
// wrenches span less than the full space (e.g. all zero at zero depth). Works in any dimension:
// 3 for the paper's planar wrenches (f_x, f_z, tau_y), 6 for spatial ones.

#include <Eigen/Dense>
#include <stdexcept>

namespace talus::wrench {

class HullError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// { w : A w <= b, A_eq w = b_eq }. Every row of A has unit norm, so b - A w is a distance.
struct HalfSpaces {
  Eigen::MatrixXd A;     ///< facets x dim, unit outward normals
  Eigen::VectorXd b;     ///< facets
  Eigen::MatrixXd A_eq;  ///< (dim - affine dimension) x dim, orthonormal rows
  Eigen::VectorXd b_eq;
  int dimension = 0;         ///< ambient dimension
  int affine_dimension = 0;  ///< dimension of the hull's affine span (0 for a single point)

  /// Inside or on the boundary, to an absolute tolerance `tol` (in the wrench's units).
  bool contains(const Eigen::VectorXd& w, double tol = 1e-9) const;
  /// Distance from w to the hull's relative boundary when w is inside (min_k b_k - A_k w); negative
  /// when w violates a facet. Ignores the equality rows; 0 for a single point (no facets).
  double depth_inside(const Eigen::VectorXd& w) const;
};

struct HullOptions {
  /// Singular values of the centred points below rank_tolerance * (largest singular value) count
  /// as zero: the set is flat in those directions and gets equality rows.
  double rank_tolerance = 1e-9;
  /// Points whose largest singular value is below this (absolute) form a single point.
  double point_tolerance = 1e-12;
  /// Rows whose unit normals differ by less than this and offsets by less than this (relative to
  /// the set's size) are the same facet and kept once.
  double duplicate_tolerance = 1e-9;
};

/// Convex hull of the rows of `points` (m x dim) via qhull (reentrant libqhull_r) with options
/// "Qx C-0": facets are merged where coplanar (no "Qt", which would split each facet into
/// simplices sharing one hyperplane and so repeat rows), giving the minimal half-space form.
/// Throws HullError for no points, non-finite coordinates or a qhull failure (with its message).
HalfSpaces convex_hull_halfspaces(const Eigen::MatrixXd& points, const HullOptions& options = {});

/// Concavity of one configuration's wrench set, paper 000 §IV-B:
///   Concavity_j = max_i ( (b(theta_j) - A(theta_j) w_ij) / |w_ij| ),
/// read with unit-normal rows as: for each measured wrench w_i, its distance to the hull surface
/// (the smallest b_k - A_k w_i over facets k; 0 for points on the hull) relative to its magnitude;
/// the measure is the largest such ratio, i.e. how deep the innermost measured point lies inside
/// the convex hull, relative to its size. As in the paper, wrenches with |w_i| < min_magnitude are
/// left out (the paper uses 1 in SI units), and the measure is 0 when none is left (e.g. depth 0).
double concavity(const Eigen::MatrixXd& points, const HalfSpaces& hull, double min_magnitude = 1.0);

}  // namespace talus::wrench
