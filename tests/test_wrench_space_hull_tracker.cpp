// The hull kept between calls (wrench/hull_tracker.hpp): the same half-spaces as a fresh qhull
// hull for points that move a little (reused triangles) or a lot (qhull again), flat facets
// that tilt, and sets that are not full-dimensional.

// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 kernels under -march=native (GCC
// bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "wrench/hull_tracker.hpp"

namespace talus::wrench {
namespace {

// Same set: every row of one matches a row of the other (normal and offset) and the counts agree.
void expect_same_halfspaces(const HalfSpaces& a, const HalfSpaces& b, double scale, int trial) {
  ASSERT_EQ(a.A.rows(), b.A.rows()) << "trial " << trial;
  ASSERT_EQ(a.A_eq.rows(), b.A_eq.rows()) << "trial " << trial;
  for (Eigen::Index i = 0; i < a.A.rows(); ++i) {
    double best = 1e300;
    for (Eigen::Index j = 0; j < b.A.rows(); ++j) {
      best = std::min(best, (a.A.row(i) - b.A.row(j)).norm() + std::abs(a.b[i] - b.b[j]) / scale);
    }
    EXPECT_LT(best, 1e-9) << "trial " << trial << " row " << i;
  }
}

Eigen::MatrixXd ellipsoid_points(std::mt19937& rng, int m) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd P(m, 3);
  for (int i = 0; i < m; ++i) {
    Eigen::Vector3d v(normal(rng), normal(rng), normal(rng));
    P.row(i) =
        (v.normalized().cwiseProduct(Eigen::Vector3d(100, 150, 10)) + Eigen::Vector3d(0, 30, 0))
            .transpose();
  }
  return P;
}

TEST(WrenchSpaceHullTracker, MatchesFreshHullsWhilePointsMove) {
  std::mt19937 rng(4);
  std::normal_distribution<double> normal(0.0, 1.0);
  HullTracker tracker;
  Eigen::MatrixXd P = ellipsoid_points(rng, 26);
  for (int trial = 0; trial < 400; ++trial) {
    // Mostly small moves (the step's case), sometimes a large one that changes the structure.
    const double move = trial % 50 == 49 ? 30.0 : 0.05;
    for (Eigen::Index i = 0; i < P.rows(); ++i)
      for (int k = 0; k < 3; ++k) P(i, k) += move * normal(rng);
    P *= 1.0 + 0.001 * normal(rng);
    expect_same_halfspaces(tracker.update(P), convex_hull_halfspaces(P), 100.0, trial);
  }
  EXPECT_GT(tracker.reuses() + tracker.repairs(), 300);
  EXPECT_GT(tracker.repairs(), 8);     // small moves swapped diagonals; large ones moved vertices
  EXPECT_GE(tracker.qhull_runs(), 1);  // the first call
  EXPECT_EQ(tracker.reuses() + tracker.repairs() + tracker.qhull_runs(), 400);
  std::printf("hull tracker: %ld reused, %ld repaired by local changes, %ld qhull runs\n",
              tracker.reuses(), tracker.repairs(), tracker.qhull_runs());
}

TEST(WrenchSpaceHullTracker, FlatFacetsThatTiltAreCaught) {
  // A box: each face is a flat facet of 4 points (2 triangles). Tilting one corner makes its
  // faces non-planar: the kept triangles fail the check as they are, and either edge flips
  // restore a convex surface or qhull runs again; both must give the fresh hull.
  Eigen::MatrixXd box(8, 3);
  for (int c = 0; c < 8; ++c)
    for (int a = 0; a < 3; ++a) box(c, a) = (c >> a) & 1 ? 50.0 : -50.0;
  HullTracker tracker;
  expect_same_halfspaces(tracker.update(box), convex_hull_halfspaces(box), 50.0, 0);
  Eigen::MatrixXd scaled = 1.1 * box;  // same structure
  expect_same_halfspaces(tracker.update(scaled), convex_hull_halfspaces(scaled), 50.0, 1);
  EXPECT_EQ(tracker.reuses(), 1);
  Eigen::MatrixXd bent = box;
  bent(7, 0) += 5.0;  // corner (+,+,+) moves out in x: three faces are no longer flat
  const HalfSpaces fresh = convex_hull_halfspaces(bent);
  expect_same_halfspaces(tracker.update(bent), fresh, 50.0, 2);
  EXPECT_GT(fresh.A.rows(), 6);
  EXPECT_EQ(tracker.reuses(), 1);  // not taken as it was
  EXPECT_EQ(tracker.qhull_runs() + tracker.repairs(), 2);
  bent(7, 0) -= 10.0;  // now inward: the corner is still a vertex, the faces bend the other way
  expect_same_halfspaces(tracker.update(bent), convex_hull_halfspaces(bent), 50.0, 3);
  EXPECT_EQ(tracker.reuses(), 1);
}

TEST(WrenchSpaceHullTracker, APointComingOutAndAVertexSinkingInAreRepairedWithoutQhull) {
  // An octahedron of radius 50 and a seventh point inside it. The point moves out through the face
  // x + y + z = 50 (it becomes a vertex: the face it sees is replaced by a fan of three triangles
  // from it), then back inside (the vertex of three triangles sinks in and is removed).
  Eigen::MatrixXd P(7, 3);
  P << 50, 0, 0, -50, 0, 0, 0, 50, 0, 0, -50, 0, 0, 0, 50, 0, 0, -50, 1, 2, 3;
  HullTracker tracker;
  expect_same_halfspaces(tracker.update(P), convex_hull_halfspaces(P), 50.0, 0);
  EXPECT_EQ(tracker.update(P).A.rows(), 8);
  ASSERT_EQ(tracker.qhull_runs(), 1);
  P.row(6) << 20, 20, 20;  // outside that face only
  const HalfSpaces out = tracker.update(P);
  expect_same_halfspaces(out, convex_hull_halfspaces(P), 50.0, 1);
  EXPECT_EQ(out.A.rows(), 10);  // the face became three
  EXPECT_EQ(tracker.repairs(), 1);
  P.row(6) << 10, 10, 10;  // inside again
  const HalfSpaces in = tracker.update(P);
  expect_same_halfspaces(in, convex_hull_halfspaces(P), 50.0, 2);
  EXPECT_EQ(in.A.rows(), 8);
  EXPECT_EQ(tracker.repairs(), 2);
  EXPECT_EQ(tracker.qhull_runs(), 1);
  // Another number of points: qhull again.
  expect_same_halfspaces(tracker.update(P.topRows(6)), convex_hull_halfspaces(P.topRows(6)), 50.0,
                         3);
  EXPECT_EQ(tracker.qhull_runs(), 2);
}

TEST(WrenchSpaceHullTracker, FlatSetsGoToTheGeneralPath) {
  HullTracker tracker;
  const HalfSpaces zero = tracker.update(Eigen::MatrixXd::Zero(26, 3));
  EXPECT_EQ(zero.affine_dimension, 0);
  EXPECT_EQ(zero.A_eq.rows(), 3);
  Eigen::MatrixXd planar(5, 3);
  planar << 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.5, 0;
  const HalfSpaces flat = tracker.update(planar);
  EXPECT_EQ(flat.affine_dimension, 2);
  EXPECT_EQ(flat.A_eq.rows(), 1);
}

}  // namespace
}  // namespace talus::wrench
