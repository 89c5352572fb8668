// Tests of the wrench hull in half-space form and the §IV-B concavity measure
// (wrench/wrench_hull.hpp).

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <gtest/gtest.h>

#include <random>

#include "wrench/wrench_hull.hpp"

namespace talus::wrench {
namespace {

Eigen::MatrixXd random_points(std::mt19937& rng, int count, int dim, double scale) {
  std::normal_distribution<double> normal(0.0, scale);
  Eigen::MatrixXd P(count, dim);
  for (int i = 0; i < count; ++i) {
    for (int k = 0; k < dim; ++k) P(i, k) = normal(rng);
  }
  return P;
}

TEST(WrenchSpaceHull, CubeHasSixMergedFacets) {
  // The 8 corners plus face centres and the centre: coplanar points must not add rows, and "Qt"
  // would have given 12 triangles.
  Eigen::MatrixXd P(15, 3);
  int row = 0;
  for (int x = -1; x <= 1; x += 2)
    for (int y = -1; y <= 1; y += 2)
      for (int z = -1; z <= 1; z += 2) P.row(row++) << x, y, z;
  P.row(row++) << 1, 0, 0;
  P.row(row++) << -1, 0, 0;
  P.row(row++) << 0, 1, 0;
  P.row(row++) << 0, -1, 0;
  P.row(row++) << 0, 0, 1;
  P.row(row++) << 0, 0, -1;
  P.row(row++) << 0, 0, 0;
  const HalfSpaces hull = convex_hull_halfspaces(P);
  EXPECT_EQ(hull.A.rows(), 6);
  EXPECT_EQ(hull.A_eq.rows(), 0);
  EXPECT_EQ(hull.affine_dimension, 3);
  for (Eigen::Index k = 0; k < hull.A.rows(); ++k) {
    EXPECT_NEAR(hull.A.row(k).norm(), 1.0, 1e-12);
    EXPECT_NEAR(hull.b[k], 1.0, 1e-12);
  }
  EXPECT_TRUE(hull.contains(Eigen::Vector3d{0.9, -0.9, 0.5}));
  EXPECT_FALSE(hull.contains(Eigen::Vector3d{1.01, 0.0, 0.0}));
  EXPECT_NEAR(hull.depth_inside(Eigen::Vector3d::Zero()), 1.0, 1e-12);
}

TEST(WrenchSpaceHull, EveryInputPointLiesInsideOrOnItsHullIn3And6D) {
  std::mt19937 rng(11);
  for (const int count : {26, 58}) {
    for (const int dim : {3, 6}) {
      const Eigen::MatrixXd P = random_points(rng, count, dim, 50.0);
      const HalfSpaces hull = convex_hull_halfspaces(P);
      EXPECT_EQ(hull.affine_dimension, dim);
      int on_boundary = 0;
      for (int i = 0; i < count; ++i) {
        const Eigen::VectorXd w = P.row(i).transpose();
        EXPECT_TRUE(hull.contains(w, 1e-9 * 50.0)) << count << " points, " << dim << "-D, " << i;
        if (hull.depth_inside(w) < 1e-9 * 50.0) ++on_boundary;
      }
      EXPECT_GT(on_boundary, dim);
      // A far point is outside.
      EXPECT_FALSE(hull.contains(Eigen::VectorXd::Constant(dim, 1000.0)));
    }
  }
}

TEST(WrenchSpaceHull, ZeroWrenchSetIsTheSinglePointZero) {
  const HalfSpaces hull = convex_hull_halfspaces(Eigen::MatrixXd::Zero(26, 6));
  EXPECT_EQ(hull.affine_dimension, 0);
  EXPECT_EQ(hull.A.rows(), 0);
  EXPECT_EQ(hull.A_eq.rows(), 6);
  EXPECT_TRUE(hull.contains(Eigen::VectorXd::Zero(6)));
  Eigen::VectorXd w = Eigen::VectorXd::Zero(6);
  w[2] = 1e-3;
  EXPECT_FALSE(hull.contains(w));
}

TEST(WrenchSpaceHull, FlatSetGetsEqualityRowsAndItsHullWithinThePlane) {
  // Square in the plane z = 2 of 3-D, rotated: 4 facets (its edges) and one equality row.
  std::mt19937 rng(5);
  Eigen::MatrixXd P(9, 3);
  int row = 0;
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y) P.row(row++) << x, y, 2.0;
  const Eigen::Matrix3d rotation =
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(1.0, 2.0, 3.0).normalized()).toRotationMatrix();
  const Eigen::MatrixXd Q = P * rotation.transpose();
  const HalfSpaces hull = convex_hull_halfspaces(Q);
  EXPECT_EQ(hull.affine_dimension, 2);
  EXPECT_EQ(hull.A.rows(), 4);
  ASSERT_EQ(hull.A_eq.rows(), 1);
  EXPECT_NEAR(std::abs(hull.A_eq.row(0).dot(rotation.col(2))), 1.0, 1e-9);
  for (int i = 0; i < 9; ++i) EXPECT_TRUE(hull.contains(Q.row(i).transpose(), 1e-9));
  EXPECT_TRUE(hull.contains(rotation * Eigen::Vector3d(0.5, -0.5, 2.0), 1e-9));
  EXPECT_FALSE(hull.contains(rotation * Eigen::Vector3d(0.5, -0.5, 2.1), 1e-9));
  EXPECT_FALSE(hull.contains(rotation * Eigen::Vector3d(1.5, 0.0, 2.0), 1e-9));
}

TEST(WrenchSpaceHull, CollinearSetIsASegment) {
  Eigen::MatrixXd P(5, 6);
  const Eigen::VectorXd u = (Eigen::VectorXd(6) << 1, 2, 0, -1, 0, 3).finished().normalized();
  for (int i = 0; i < 5; ++i) P.row(i) = (static_cast<double>(i) - 1.0) * u.transpose();
  const HalfSpaces hull = convex_hull_halfspaces(P);
  EXPECT_EQ(hull.affine_dimension, 1);
  EXPECT_EQ(hull.A.rows(), 2);
  EXPECT_EQ(hull.A_eq.rows(), 5);
  EXPECT_TRUE(hull.contains(2.9 * u));
  EXPECT_TRUE(hull.contains(-1.0 * u));
  EXPECT_FALSE(hull.contains(3.1 * u));
  EXPECT_FALSE(hull.contains(-1.1 * u));
}

TEST(WrenchSpaceHull, ConcavityIsZeroForConvexDataAndMeasuresAnInnerPoint) {
  // Square of half-size 10 in the plane (2-D wrench space for clarity).
  Eigen::MatrixXd P(5, 2);
  P << 10, 10, -10, 10, -10, -10, 10, -10, 4, 0;
  const HalfSpaces square = convex_hull_halfspaces(P.topRows(4));
  EXPECT_EQ(concavity(P.topRows(4), square), 0.0);
  // The inner point (4, 0) lies 6 from the nearest edge, relative to its magnitude 4: 1.5.
  const HalfSpaces hull = convex_hull_halfspaces(P);
  EXPECT_NEAR(concavity(P, hull), 6.0 / 4.0, 1e-12);
  // Points below the magnitude threshold are excluded, as in the paper.
  EXPECT_EQ(concavity(P, hull, 5.0), 0.0);
  // Zero depth: all-zero wrenches give 0.
  const Eigen::MatrixXd zeros = Eigen::MatrixXd::Zero(8, 3);
  EXPECT_EQ(concavity(zeros, convex_hull_halfspaces(zeros)), 0.0);
}

TEST(WrenchSpaceHull, RejectsBadInput) {
  EXPECT_THROW(convex_hull_halfspaces(Eigen::MatrixXd(0, 3)), HullError);
  Eigen::MatrixXd P = Eigen::MatrixXd::Ones(4, 3);
  P(1, 1) = std::nan("");
  EXPECT_THROW(convex_hull_halfspaces(P), HullError);
  const HalfSpaces hull = convex_hull_halfspaces(Eigen::MatrixXd::Identity(4, 3));
  EXPECT_THROW(concavity(Eigen::MatrixXd::Ones(2, 4), hull), HullError);
}

}  // namespace
}  // namespace talus::wrench
