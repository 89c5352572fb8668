// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "wrench/wrench_space_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace talus::wrench {

WrenchSpaceModel::WrenchSpaceModel(WrenchDatabase database, HullOptions hull_options)
    : database_(std::move(database)), hull_options_(hull_options) {
  database_.validate("wrench-space model");
  const Eigen::MatrixX2d& theta = database_.configurations;
  depth_range_ = Eigen::Vector2d(theta.col(0).minCoeff(), theta.col(0).maxCoeff());
  tilt_range_ = Eigen::Vector2d(theta.col(1).minCoeff(), theta.col(1).maxCoeff());
  rbf_.fit(theta, stacked_values());
}

Eigen::MatrixXd WrenchSpaceModel::stacked_values() const {
  const int n = database_.configuration_count();
  const int m = direction_count();
  const int D = wrench_dimension();
  Eigen::MatrixXd values(n, m * D);
  for (int j = 0; j < n; ++j) {
    const Eigen::MatrixXd& w = database_.wrenches[static_cast<size_t>(j)];
    for (int i = 0; i < m; ++i) values.block(j, i * D, 1, D) = w.row(i);
  }
  return values;
}

Eigen::Vector2d WrenchSpaceModel::clamp(const Eigen::Vector2d& theta) const {
  const Eigen::Vector2d clamped(std::clamp(theta[0], depth_range_[0], depth_range_[1]),
                                std::clamp(theta[1], tilt_range_[0], tilt_range_[1]));
  if (clamped != theta) clamped_.fetch_add(1, std::memory_order_relaxed);
  return clamped;
}

Eigen::MatrixXd WrenchSpaceModel::predict_wrenches(const Eigen::Vector2d& theta) const {
  if (!theta.allFinite()) {
    throw RegressionError(
        fmt::format("wrench-space model: theta ({}, {}) is not finite", theta[0], theta[1]));
  }
  const int m = direction_count();
  const int D = wrench_dimension();
  Eigen::VectorXd stacked(m * D);
  rbf_.predict_into(clamp(theta), stacked);
  // stacked holds wrench i at entries i D .. i D + D - 1: a row-major m x D matrix.
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      stacked.data(), m, D);
}

HalfSpaces WrenchSpaceModel::feasible_set(const Eigen::Vector2d& theta) const {
  return convex_hull_halfspaces(predict_wrenches(theta), hull_options_);
}

CrossValidationError WrenchSpaceModel::cross_validation(int folds, unsigned seed) const {
  return cross_validate([] { return std::make_unique<ThinPlateSplineRbf>(); },
                        database_.configurations, stacked_values(), folds, seed);
}

CrossValidationError WrenchSpaceModel::cross_validation_quadratic(int folds, unsigned seed) const {
  return cross_validate([] { return std::make_unique<QuadraticLeastSquares>(); },
                        database_.configurations, stacked_values(), folds, seed);
}

ConcavitySummary WrenchSpaceModel::concavity_table(double min_magnitude) const {
  ConcavitySummary summary;
  for (int j = 0; j < database_.configuration_count(); ++j) {
    const Eigen::MatrixXd& w = database_.wrenches[static_cast<size_t>(j)];
    const HalfSpaces hull = convex_hull_halfspaces(w, hull_options_);
    ConfigurationConcavity row{database_.configurations(j, 0), database_.configurations(j, 1),
                               concavity(w, hull, min_magnitude)};
    summary.mean += row.concavity;
    summary.worst = std::max(summary.worst, row.concavity);
    summary.per_configuration.push_back(row);
  }
  summary.mean /= database_.configuration_count();
  return summary;
}

Eigen::Matrix3d planar_wrench_rotation(double slope_rad) {
  const double c = std::cos(slope_rad);
  const double s = std::sin(slope_rad);
  Eigen::Matrix3d T;
  // Columns: images of the contact frame's f_x, f_z, tau_y components.
  T << c, -s, 0.0,  //
      s, c, 0.0,    //
      0.0, 0.0, 1.0;
  return T;
}

Eigen::Matrix<double, 6, 6> spatial_wrench_rotation(const Eigen::Matrix3d& R_WC) {
  Eigen::Matrix<double, 6, 6> T = Eigen::Matrix<double, 6, 6>::Zero();
  T.topLeftCorner<3, 3>() = R_WC;
  T.bottomRightCorner<3, 3>() = R_WC;
  return T;
}

HalfSpaces rotate_halfspaces(const HalfSpaces& in_contact_frame, const Eigen::MatrixXd& T) {
  const auto D = in_contact_frame.dimension;
  if (T.rows() != D || T.cols() != D) {
    throw HullError(
        fmt::format("rotate_halfspaces: {}x{} map for a {}-D wrench set", T.rows(), T.cols(), D));
  }
  if (!(T.transpose() * T).isIdentity(1e-9)) {
    throw HullError("rotate_halfspaces: the map is not orthogonal");
  }
  HalfSpaces out = in_contact_frame;
  // w_C = T^T w_W: rows a_C^T w_C = (T a_C)^T w_W, so A_W = A_C T^T (unit norms kept).
  if (out.A.rows() > 0) out.A = in_contact_frame.A * T.transpose();
  if (out.A_eq.rows() > 0) out.A_eq = in_contact_frame.A_eq * T.transpose();
  return out;
}

nlohmann::json database_quality(const WrenchDatabase& db) {
  nlohmann::json quality = nlohmann::json::object();
  if (db.configuration_count() < 3) return quality;
  // The spline over (depth, tilt) needs configurations off one line, the quadratic three values
  // of each (a part of a split acquisition has one tilt, or a pair): say so rather than fail
  // the run whose measurements are done.
  std::set<double> depths, tilts;
  for (int j = 0; j < db.configuration_count(); ++j) {
    depths.insert(db.configurations(j, 0));
    tilts.insert(db.configurations(j, 1));
  }
  if (depths.size() < 2 || tilts.size() < 2) {
    quality["quality_not_computed"] = fmt::format(
        "the {} configurations have {} depth(s) and {} tilt(s): concavity and cross validation "
        "need at least 2 of each (a part of a split acquisition; its merged database has them)",
        db.configuration_count(), depths.size(), tilts.size());
    return quality;
  }
  const WrenchSpaceModel model(db);
  const ConcavitySummary cc = model.concavity_table();
  nlohmann::json rows = nlohmann::json::array();
  for (const ConfigurationConcavity& c : cc.per_configuration) {
    rows.push_back({{"depth_m", c.depth_m}, {"tilt_rad", c.tilt_rad}, {"concavity", c.concavity}});
  }
  quality["concavity"] = {{"mean", cc.mean}, {"worst", cc.worst}, {"per_configuration", rows}};
  if (db.configuration_count() >= 8 && depths.size() >= 3 && tilts.size() >= 3) {
    const auto cv = [](const CrossValidationError& e) {
      return nlohmann::json{{"folds", e.folds},
                            {"points", e.points},
                            {"rms", e.rms},
                            {"max", e.max},
                            {"relative_rms", e.relative}};
    };
    quality["cross_validation"] = {{"thin_plate_spline", cv(model.cross_validation(5))},
                                   {"quadratic", cv(model.cross_validation_quadratic(5))}};
  }
  return quality;
}

}  // namespace talus::wrench
