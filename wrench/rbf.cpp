// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "wrench/rbf.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace talus::wrench {

namespace {

// phi(r) = r^2 log r, written with r^2 to avoid the square root: 1/2 r^2 log(r^2); phi(0) = 0.
double thin_plate(double r_squared) {
  return r_squared > 0.0 ? 0.5 * r_squared * std::log(r_squared) : 0.0;
}

void check_training_data(const Eigen::MatrixX2d& theta, const Eigen::MatrixXd& values,
                         int min_points, const char* who) {
  if (theta.rows() != values.rows()) {
    throw RegressionError(fmt::format("{}: {} configurations but {} rows of values", who,
                                      theta.rows(), values.rows()));
  }
  if (theta.rows() < min_points) {
    throw RegressionError(
        fmt::format("{}: needs at least {} configurations, got {}", who, min_points, theta.rows()));
  }
  if (values.cols() == 0) throw RegressionError(fmt::format("{}: no outputs to fit", who));
  if (!theta.allFinite() || !values.allFinite()) {
    throw RegressionError(fmt::format("{}: training data contain NaN or infinite entries", who));
  }
}

}  // namespace

InputScaling InputScaling::fit(const Eigen::MatrixX2d& theta) {
  InputScaling s;
  s.offset = theta.colwise().minCoeff().transpose();
  const Eigen::Vector2d range = theta.colwise().maxCoeff().transpose() - s.offset;
  for (int i = 0; i < 2; ++i) s.scale[i] = range[i] > 0.0 ? range[i] : 1.0;
  return s;
}

void ThinPlateSplineRbf::fit(const Eigen::MatrixX2d& theta, const Eigen::MatrixXd& values) {
  check_training_data(theta, values, 3, "thin-plate spline RBF");
  const auto n = theta.rows();
  scaling_ = InputScaling::fit(theta);
  centres_.resize(n, 2);
  for (Eigen::Index j = 0; j < n; ++j) {
    centres_.row(j) = scaling_.apply(theta.row(j).transpose()).transpose();
  }
  // Saddle-point system [K P; P^T 0] [w; c] = [y; 0].
  Eigen::MatrixXd system = Eigen::MatrixXd::Zero(n + 3, n + 3);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      system(i, j) = thin_plate((centres_.row(i) - centres_.row(j)).squaredNorm());
    }
    system(i, n) = 1.0;
    system(i, n + 1) = centres_(i, 0);
    system(i, n + 2) = centres_(i, 1);
    system(n, i) = 1.0;
    system(n + 1, i) = centres_(i, 0);
    system(n + 2, i) = centres_(i, 1);
  }
  Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(n + 3, values.cols());
  rhs.topRows(n) = values;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(system);
  if (lu.rank() < n + 3) {
    throw RegressionError(fmt::format(
        "thin-plate spline RBF: the {} configurations are collinear or repeated (system rank {} "
        "of {})",
        n, lu.rank(), n + 3));
  }
  const Eigen::MatrixXd solution = lu.solve(rhs);
  weights_ = solution.topRows(n).transpose();
  poly_ = solution.bottomRows(3);
}

void ThinPlateSplineRbf::predict_into(const Eigen::Vector2d& theta,
                                      Eigen::Ref<Eigen::VectorXd> out) const {
  if (weights_.size() == 0) throw RegressionError("thin-plate spline RBF: predict before fit");
  const Eigen::Vector2d x = scaling_.apply(theta);
  out =
      poly_.row(0).transpose() + x[0] * poly_.row(1).transpose() + x[1] * poly_.row(2).transpose();
  for (Eigen::Index j = 0; j < centres_.rows(); ++j) {
    const double phi = thin_plate((centres_.row(j).transpose() - x).squaredNorm());
    if (phi != 0.0) out += phi * weights_.col(j);
  }
}

Eigen::VectorXd ThinPlateSplineRbf::predict(const Eigen::Vector2d& theta) const {
  Eigen::VectorXd out(weights_.rows());
  predict_into(theta, out);
  return out;
}

namespace {
Eigen::Matrix<double, 1, 6> quadratic_terms(const Eigen::Vector2d& x) {
  Eigen::Matrix<double, 1, 6> t;
  t << 1.0, x[0], x[1], x[0] * x[0], x[0] * x[1], x[1] * x[1];
  return t;
}
}  // namespace

void QuadraticLeastSquares::fit(const Eigen::MatrixX2d& theta, const Eigen::MatrixXd& values) {
  check_training_data(theta, values, 6, "quadratic least squares");
  scaling_ = InputScaling::fit(theta);
  Eigen::MatrixXd design(theta.rows(), 6);
  for (Eigen::Index j = 0; j < theta.rows(); ++j) {
    design.row(j) = quadratic_terms(scaling_.apply(theta.row(j).transpose()));
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(design);
  if (qr.rank() < 6) {
    throw RegressionError(fmt::format(
        "quadratic least squares: the {} configurations do not determine a quadratic (rank {} of "
        "6)",
        theta.rows(), qr.rank()));
  }
  coefficients_ = qr.solve(values);
}

Eigen::VectorXd QuadraticLeastSquares::predict(const Eigen::Vector2d& theta) const {
  if (coefficients_.size() == 0)
    throw RegressionError("quadratic least squares: predict before fit");
  return (quadratic_terms(scaling_.apply(theta)) * coefficients_).transpose();
}

CrossValidationError cross_validate(const RegressorFactory& make, const Eigen::MatrixX2d& theta,
                                    const Eigen::MatrixXd& values, int folds, unsigned seed) {
  const int n = static_cast<int>(theta.rows());
  if (theta.rows() != values.rows()) {
    throw RegressionError(fmt::format("cross validation: {} configurations but {} rows of values",
                                      theta.rows(), values.rows()));
  }
  if (folds < 2 || folds > n) {
    throw RegressionError(fmt::format(
        "cross validation: {} folds for {} configurations (need 2 <= folds <= n)", folds, n));
  }
  // Deterministic Fisher-Yates shuffle (own loop: std::shuffle differs between standard libraries).
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(seed);
  for (int i = n - 1; i > 0; --i) {
    const int j = static_cast<int>(rng() % static_cast<unsigned>(i + 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  CrossValidationError cv;
  cv.folds = folds;
  cv.points = n;
  double sum_sq = 0.0;
  double truth_sq = 0.0;
  for (int f = 0; f < folds; ++f) {
    std::vector<int> train;
    std::vector<int> test;
    for (int i = 0; i < n; ++i) {
      (i % folds == f ? test : train).push_back(order[static_cast<size_t>(i)]);
    }
    Eigen::MatrixX2d theta_train(static_cast<Eigen::Index>(train.size()), 2);
    Eigen::MatrixXd values_train(static_cast<Eigen::Index>(train.size()), values.cols());
    for (size_t r = 0; r < train.size(); ++r) {
      theta_train.row(static_cast<Eigen::Index>(r)) = theta.row(train[r]);
      values_train.row(static_cast<Eigen::Index>(r)) = values.row(train[r]);
    }
    const std::unique_ptr<Regressor> model = make();
    model->fit(theta_train, values_train);
    for (const int j : test) {
      const double err =
          (model->predict(theta.row(j).transpose()) - values.row(j).transpose()).norm();
      sum_sq += err * err;
      cv.max = std::max(cv.max, err);
      truth_sq += values.row(j).squaredNorm();
    }
  }
  cv.rms = std::sqrt(sum_sq / n);
  cv.relative = truth_sq > 0.0 ? std::sqrt(sum_sq / truth_sq) : 0.0;
  return cv;
}

}  // namespace talus::wrench
