#pragma once
// Regressors over the contact configuration theta = (depth d [m], tilt phi [rad]) (paper 000,
// §III-B3): each predicts a vector of k outputs (e.g. the m extreme wrenches stacked) at a new
// theta from n training configurations. The paper finds RBF interpolation best under 5-fold cross
// validation; talus ships a thin-plate-spline RBF and a quadratic least-squares fit to compare.

#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace talus::wrench {

class RegressionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Common interface: fit on (n x 2 inputs, n x k outputs), then predict k outputs at a theta.
class Regressor {
 public:
  virtual ~Regressor() = default;
  virtual void fit(const Eigen::MatrixX2d& theta, const Eigen::MatrixXd& values) = 0;
  /// k outputs at theta (d, phi). Requires fit() first.
  virtual Eigen::VectorXd predict(const Eigen::Vector2d& theta) const = 0;
  virtual std::string name() const = 0;
  virtual int output_count() const = 0;
};

/// Affine map of theta to the unit square of the training data's bounding box, so that depth
/// (centimetres) and tilt (radians) count alike in distances. A constant coordinate keeps scale 1.
struct InputScaling {
  Eigen::Vector2d offset = Eigen::Vector2d::Zero();
  Eigen::Vector2d scale = Eigen::Vector2d::Ones();
  static InputScaling fit(const Eigen::MatrixX2d& theta);
  Eigen::Vector2d apply(const Eigen::Vector2d& theta) const {
    return (theta - offset).cwiseQuotient(scale);
  }
};

/// Thin-plate spline RBF with a linear polynomial tail:
///   y(x) = sum_j w_j phi(|x - x_j|) + c_0 + c_1 x_1 + c_2 x_2,   phi(r) = r^2 log r,
/// with the side conditions sum_j w_j = sum_j w_j x_j = 0 (x in scaled coordinates).
/// Why this kernel: in 2-D it is the interpolant of least bending energy; it is conditionally
/// positive definite of order 2, so with the linear tail the system is non-singular for any
/// training set that is not collinear; it has no shape parameter to tune (a Gaussian or
/// multiquadric would need one, chosen by the same cross validation that is meant to judge it);
/// and it reproduces affine data exactly. It interpolates: y(x_j) = y_j.
class ThinPlateSplineRbf final : public Regressor {
 public:
  void fit(const Eigen::MatrixX2d& theta, const Eigen::MatrixXd& values) override;
  Eigen::VectorXd predict(const Eigen::Vector2d& theta) const override;
  /// Same as predict, writing into `out` (k entries) without allocating.
  void predict_into(const Eigen::Vector2d& theta, Eigen::Ref<Eigen::VectorXd> out) const;
  std::string name() const override { return "thin-plate spline RBF"; }
  int output_count() const override { return static_cast<int>(weights_.rows()); }

 private:
  InputScaling scaling_;
  Eigen::MatrixX2d centres_;  // scaled training inputs, n x 2
  // k x n kernel weights: centre j's weights are column j, contiguous for predict_into's sum (as
  // n x k rows, its strided adds were most of the prediction's cost).
  Eigen::MatrixXd weights_;
  Eigen::Matrix3Xd poly_;  // 3 x k: constant, x_1, x_2 coefficients
};

/// Least-squares fit of a full quadratic in the scaled theta (1, x, y, x^2, xy, y^2). Smooth but
/// does not interpolate; needs at least 6 training points not on a conic.
class QuadraticLeastSquares final : public Regressor {
 public:
  void fit(const Eigen::MatrixX2d& theta, const Eigen::MatrixXd& values) override;
  Eigen::VectorXd predict(const Eigen::Vector2d& theta) const override;
  std::string name() const override { return "quadratic least squares"; }
  int output_count() const override { return static_cast<int>(coefficients_.cols()); }

 private:
  InputScaling scaling_;
  Eigen::MatrixXd coefficients_;  // 6 x k
};

using RegressorFactory = std::function<std::unique_ptr<Regressor>()>;

/// k-fold cross validation: the n points are shuffled deterministically (seed) and dealt into
/// `folds` groups; each group is predicted by a regressor fitted on the others.
struct CrossValidationError {
  int folds = 0;
  int points = 0;
  double rms = 0.0;       ///< sqrt(mean over held-out points of |prediction - truth|^2)
  double max = 0.0;       ///< worst |prediction - truth| over held-out points
  double relative = 0.0;  ///< rms / sqrt(mean |truth|^2) (0 when all truths are 0)
};

CrossValidationError cross_validate(const RegressorFactory& make, const Eigen::MatrixX2d& theta,
                                    const Eigen::MatrixXd& values, int folds = 5,
                                    unsigned seed = 1);

}  // namespace talus::wrench
