// Tests of the learned W(theta) model (wrench/wrench_space_model.hpp).

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/units.hpp"
#include "wrench/velocity_directions.hpp"
#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {
namespace {

// A synthetic medium: the wrench set at (d, phi) is an ellipsoid-like limit surface whose size
// grows with depth; w_i = -K(d, phi) v_i / |v_i|_K, i.e. points on the boundary of a convex set.
Eigen::VectorXd synthetic_wrench(const AcquisitionRun& run) {
  const double depth = -run.depth_m;
  const double c = std::cos(run.tilt_rad);
  const double s = std::sin(run.tilt_rad);
  Eigen::Matrix3d K;
  K << 2000.0 * depth * (1.0 + 0.5 * c), 300.0 * depth * s, 0.0,  //
      300.0 * depth * s, 6000.0 * depth, 0.0,                     //
      0.0, 0.0, 150.0 * depth * (1.0 + 0.2 * c);
  const Eigen::Vector3d v = run.velocity.normalized();
  return -(K * v);
}

WrenchDatabase synthetic_database(int m) {
  AcquisitionSpec spec;
  spec.depths_m = {0.0, -0.015, -0.03, -0.045};
  spec.tilts_rad = {-0.9, -0.6, -0.3, 0.0, 0.3, 0.6, 0.9};
  spec.velocity_directions = velocity_directions(m);
  spec.velocity_scale = Eigen::Vector3d(0.02, 0.02, 0.3);
  spec.medium = MediumDescription{"synthetic", 0.005, 2600.0, 0.6, "test_wrench_space_model"};
  return acquire_database(spec, synthetic_wrench);
}

TEST(WrenchSpaceModel, ReproducesTrainingWrenchesAndEachLiesInItsHull) {
  const WrenchSpaceModel model(synthetic_database(26));
  const WrenchDatabase& db = model.database();
  for (int j = 0; j < db.configuration_count(); ++j) {
    const Eigen::Vector2d theta = db.configurations.row(j).transpose();
    const Eigen::MatrixXd predicted = model.predict_wrenches(theta);
    const Eigen::MatrixXd& truth = db.wrenches[static_cast<size_t>(j)];
    EXPECT_LT((predicted - truth).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + truth.norm()))
        << "configuration " << j;
    const HalfSpaces hull = model.feasible_set(theta);
    for (int i = 0; i < truth.rows(); ++i) {
      EXPECT_TRUE(hull.contains(truth.row(i).transpose(), 1e-6 * (1.0 + truth.norm())))
          << "configuration " << j << " wrench " << i;
    }
  }
  EXPECT_EQ(model.clamped_queries(), 0);
}

TEST(WrenchSpaceModel, ZeroDepthGivesTheZeroWrenchOnly) {
  const WrenchSpaceModel model(synthetic_database(26));
  const HalfSpaces hull = model.feasible_set(Eigen::Vector2d(0.0, 0.3));
  EXPECT_EQ(hull.affine_dimension, 0);
  EXPECT_TRUE(hull.contains(Eigen::Vector3d::Zero(), 1e-9));
  EXPECT_FALSE(hull.contains(Eigen::Vector3d(1.0, 0.0, 0.0), 1e-9));
}

TEST(WrenchSpaceModel, DeeperFeetResistMoreBetweenSamples) {
  const WrenchSpaceModel model(synthetic_database(58));
  const Eigen::Vector3d weight(0.0, 60.0, 0.0);  // upward support of ~6 kg
  // Between samples: at 0.5 cm the synthetic medium holds up to ~30 N upward, at 4 cm ~240 N.
  EXPECT_FALSE(model.feasible_set(Eigen::Vector2d(-0.005, 0.45)).contains(weight, 1e-9));
  EXPECT_TRUE(model.feasible_set(Eigen::Vector2d(-0.04, 0.45)).contains(weight, 1e-9));
}

TEST(WrenchSpaceModel, ClampsThetaOutsideTheSampledRangeAndCounts) {
  const WrenchSpaceModel model(synthetic_database(26));
  EXPECT_EQ(model.depth_range(), Eigen::Vector2d(-0.045, 0.0));
  EXPECT_EQ(model.tilt_range(), Eigen::Vector2d(-0.9, 0.9));
  const Eigen::MatrixXd deep = model.predict_wrenches(Eigen::Vector2d(-0.2, 1.4));
  const Eigen::MatrixXd edge = model.predict_wrenches(Eigen::Vector2d(-0.045, 0.9));
  EXPECT_EQ(deep, edge);
  EXPECT_EQ(model.clamped_queries(), 1);
  model.predict_wrenches(Eigen::Vector2d(0.01, 0.0));  // above the surface
  EXPECT_EQ(model.clamped_queries(), 2);
  EXPECT_THROW(model.predict_wrenches(Eigen::Vector2d(std::nan(""), 0.0)), RegressionError);
}

TEST(WrenchSpaceModel, CrossValidationAndConcavityTable) {
  const WrenchSpaceModel model(synthetic_database(26));
  const CrossValidationError rbf = model.cross_validation(5);
  const CrossValidationError quad = model.cross_validation_quadratic(5);
  EXPECT_EQ(rbf.points, 28);
  EXPECT_GT(rbf.rms, 0.0);
  EXPECT_LT(rbf.relative, 0.5);
  EXPECT_GT(quad.rms, 0.0);
  // The synthetic sets are convex by construction: concavity 0 everywhere (to round-off).
  const ConcavitySummary table = model.concavity_table();
  ASSERT_EQ(table.per_configuration.size(), 28u);
  EXPECT_LT(table.worst, 1e-9);
  EXPECT_LE(table.mean, table.worst);
}

TEST(WrenchSpaceModel, ConcavityTableSeesAnInnerPoint) {
  WrenchDatabase db = synthetic_database(26);
  // Pull one wrench of one configuration halfway to the centre: a concave measurement.
  const size_t j = 10;
  db.wrenches[j].row(3) *= 0.5;
  const WrenchSpaceModel model(std::move(db));
  const ConcavitySummary table = model.concavity_table();
  EXPECT_GT(table.per_configuration[j].concavity, 0.05);
  EXPECT_EQ(table.worst, table.per_configuration[j].concavity);
  EXPECT_GT(table.mean, 0.0);
}

TEST(WrenchSpaceModel, RotationIntoTheWorldFrameOnASlope) {
  const WrenchSpaceModel model(synthetic_database(26));
  const HalfSpaces W_C = model.feasible_set(Eigen::Vector2d(-0.03, 0.0));
  const double slope = 0.3;
  const Eigen::Matrix3d T = planar_wrench_rotation(slope);
  const HalfSpaces W_W = rotate_halfspaces(W_C, T);
  // A wrench inside in the contact frame is inside after rotating both.
  const Eigen::Vector3d w_C(10.0, 80.0, 1.0);
  ASSERT_TRUE(W_C.contains(w_C));
  EXPECT_TRUE(W_W.contains(T * w_C));
  // The contact normal points along world (-sin a, cos a) in (x, z).
  EXPECT_NEAR(
      (T * Eigen::Vector3d(0, 1, 0) - Eigen::Vector3d(-std::sin(slope), std::cos(slope), 0)).norm(),
      0.0, 1e-15);
  // Membership is preserved for arbitrary wrenches across the boundary.
  std::mt19937 rng(8);
  std::normal_distribution<double> normal(0.0, 100.0);
  int inside = 0;
  for (int k = 0; k < 300; ++k) {
    const Eigen::Vector3d w(normal(rng), normal(rng), 0.1 * normal(rng));
    const bool in_C = W_C.contains(w, 1e-9);
    EXPECT_EQ(W_W.contains(T * w, 1e-9), in_C);
    inside += in_C ? 1 : 0;
  }
  EXPECT_GT(inside, 10);
  EXPECT_LT(inside, 290);
  // Spatial: blockdiag(R, R) is orthogonal; wrong sizes are rejected.
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitY()).toRotationMatrix();
  EXPECT_TRUE(
      (spatial_wrench_rotation(R).transpose() * spatial_wrench_rotation(R)).isIdentity(1e-12));
  EXPECT_THROW(rotate_halfspaces(W_C, spatial_wrench_rotation(R)), HullError);
  EXPECT_THROW(rotate_halfspaces(W_C, 2.0 * T), HullError);
}

}  // namespace
}  // namespace talus::wrench
