// Tests of the regressors over theta = (depth, tilt) (wrench/rbf.hpp).

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <gtest/gtest.h>

#include <cmath>

#include "wrench/rbf.hpp"

namespace talus::wrench {
namespace {

// The paper's Beads grid (Table I): 5 depths x 7 tilts.
Eigen::MatrixX2d beads_grid() {
  const double depths[] = {0.0, -0.06, -0.12, -0.18, -0.24};
  Eigen::MatrixX2d theta(35, 2);
  int row = 0;
  for (const double d : depths) {
    for (int k = 0; k < 7; ++k) theta.row(row++) << d, 0.25 * k;
  }
  return theta;
}

// A smooth two-output field of comparable size to wrench magnitudes.
Eigen::MatrixXd smooth_values(const Eigen::MatrixX2d& theta) {
  Eigen::MatrixXd v(theta.rows(), 2);
  for (Eigen::Index j = 0; j < theta.rows(); ++j) {
    const double d = theta(j, 0);
    const double phi = theta(j, 1);
    v(j, 0) = 400.0 * d * d + 30.0 * std::sin(phi) * d;
    v(j, 1) = -50.0 * d * std::cos(phi) + 3.0 * phi;
  }
  return v;
}

TEST(WrenchSpaceRbf, ThinPlateSplineReproducesTrainingData) {
  const Eigen::MatrixX2d theta = beads_grid();
  const Eigen::MatrixXd values = smooth_values(theta);
  ThinPlateSplineRbf rbf;
  rbf.fit(theta, values);
  ASSERT_EQ(rbf.output_count(), 2);
  for (Eigen::Index j = 0; j < theta.rows(); ++j) {
    const Eigen::VectorXd y = rbf.predict(theta.row(j).transpose());
    EXPECT_NEAR(y[0], values(j, 0), 1e-9);
    EXPECT_NEAR(y[1], values(j, 1), 1e-9);
  }
}

TEST(WrenchSpaceRbf, ThinPlateSplineReproducesAffineFunctionsEverywhere) {
  const Eigen::MatrixX2d theta = beads_grid();
  Eigen::MatrixXd values(theta.rows(), 1);
  for (Eigen::Index j = 0; j < theta.rows(); ++j)
    values(j, 0) = 3.0 - 20.0 * theta(j, 0) + 0.7 * theta(j, 1);
  ThinPlateSplineRbf rbf;
  rbf.fit(theta, values);
  const Eigen::Vector2d probe{-0.1, 0.61};
  EXPECT_NEAR(rbf.predict(probe)[0], 3.0 + 2.0 + 0.7 * 0.61, 1e-9);
}

TEST(WrenchSpaceRbf, InterpolatesBetweenGridPointsWell) {
  const Eigen::MatrixX2d theta = beads_grid();
  ThinPlateSplineRbf rbf;
  rbf.fit(theta, smooth_values(theta));
  Eigen::MatrixX2d probe(1, 2);
  probe << -0.09, 0.62;
  const Eigen::MatrixXd truth = smooth_values(probe);
  const Eigen::VectorXd y = rbf.predict(probe.row(0).transpose());
  EXPECT_NEAR(y[0], truth(0, 0), 0.02 * std::abs(truth(0, 0)) + 0.05);
  EXPECT_NEAR(y[1], truth(0, 1), 0.02 * std::abs(truth(0, 1)) + 0.05);
}

TEST(WrenchSpaceRbf, QuadraticLeastSquaresIsExactForQuadratics) {
  const Eigen::MatrixX2d theta = beads_grid();
  Eigen::MatrixXd values(theta.rows(), 1);
  auto f = [](double d, double p) { return 1.0 + 2.0 * d - p + 5.0 * d * d + 0.5 * d * p + p * p; };
  for (Eigen::Index j = 0; j < theta.rows(); ++j) values(j, 0) = f(theta(j, 0), theta(j, 1));
  QuadraticLeastSquares quad;
  quad.fit(theta, values);
  EXPECT_NEAR(quad.predict(Eigen::Vector2d{-0.05, 1.1})[0], f(-0.05, 1.1), 1e-10);
}

TEST(WrenchSpaceRbf, CrossValidationRanksTheInterpolantAboveTheQuadraticOnAWigglyField) {
  const Eigen::MatrixX2d theta = beads_grid();
  Eigen::MatrixXd values(theta.rows(), 1);
  for (Eigen::Index j = 0; j < theta.rows(); ++j) {
    values(j, 0) = std::sin(3.0 * theta(j, 1)) * (1.0 - 10.0 * theta(j, 0));
  }
  const auto rbf =
      cross_validate([] { return std::make_unique<ThinPlateSplineRbf>(); }, theta, values, 5);
  const auto quad =
      cross_validate([] { return std::make_unique<QuadraticLeastSquares>(); }, theta, values, 5);
  EXPECT_EQ(rbf.folds, 5);
  EXPECT_EQ(rbf.points, 35);
  EXPECT_GT(rbf.rms, 0.0);  // held-out points are not reproduced exactly
  EXPECT_LT(rbf.rms, quad.rms);
  EXPECT_LE(rbf.rms, rbf.max);
  EXPECT_GT(rbf.relative, 0.0);
  EXPECT_LT(rbf.relative, 1.0);
}

TEST(WrenchSpaceRbf, CrossValidationIsDeterministicAndExactForAffineData) {
  const Eigen::MatrixX2d theta = beads_grid();
  Eigen::MatrixXd values(theta.rows(), 1);
  for (Eigen::Index j = 0; j < theta.rows(); ++j) values(j, 0) = 2.0 * theta(j, 0) - theta(j, 1);
  const auto make = [] { return std::make_unique<ThinPlateSplineRbf>(); };
  const auto a = cross_validate(make, theta, values, 5, 42);
  const auto b = cross_validate(make, theta, values, 5, 42);
  EXPECT_EQ(a.rms, b.rms);
  // The held-out folds can change the scaling box, but affine data stay exactly affine.
  EXPECT_LT(a.rms, 1e-9);
}

TEST(WrenchSpaceRbf, RejectsBadTrainingData) {
  ThinPlateSplineRbf rbf;
  Eigen::MatrixX2d collinear(4, 2);
  collinear << 0, 0, 1, 1, 2, 2, 3, 3;
  EXPECT_THROW(rbf.fit(collinear, Eigen::MatrixXd::Zero(4, 1)), RegressionError);
  Eigen::MatrixX2d theta = beads_grid();
  EXPECT_THROW(rbf.fit(theta, Eigen::MatrixXd::Zero(3, 1)), RegressionError);
  EXPECT_THROW(rbf.predict(Eigen::Vector2d::Zero()), RegressionError);
  EXPECT_THROW(cross_validate([] { return std::make_unique<ThinPlateSplineRbf>(); }, theta,
                              Eigen::MatrixXd::Zero(35, 1), 1),
               RegressionError);
  QuadraticLeastSquares quad;
  EXPECT_THROW(quad.fit(theta.topRows(5), Eigen::MatrixXd::Zero(5, 1)), RegressionError);
}

}  // namespace
}  // namespace talus::wrench
