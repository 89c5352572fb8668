#pragma once
// The learned feasible wrench set W(theta) of paper 000 (§III-B3): from a WrenchDatabase, one
// thin-plate-spline RBF per extreme wrench w_i(theta) (all m x D outputs share one kernel system,
// which is the same as m separate interpolants over the same configurations); at a new theta the
// m predicted wrenches' convex hull in half-space form A(theta) w <= b(theta) (eq. 1).

#include <Eigen/Dense>
#include <atomic>
#include <nlohmann/json.hpp>
#include <vector>

#include "wrench/rbf.hpp"
#include "wrench/wrench_database.hpp"
#include "wrench/wrench_hull.hpp"
#include "wrench/wrench_set_predictor.hpp"

namespace talus::wrench {

/// Concavity (§IV-B) of one database configuration's measured wrenches.
struct ConfigurationConcavity {
  double depth_m = 0.0;
  double tilt_rad = 0.0;
  double concavity = 0.0;
};

struct ConcavitySummary {
  double mean = 0.0;   ///< over all configurations (zero-depth ones count as 0, as in Table II)
  double worst = 0.0;  ///< largest
  std::vector<ConfigurationConcavity> per_configuration;
};

class WrenchSpaceModel : public WrenchSetPredictor {
 public:
  /// Fits the interpolants; throws DatabaseError/RegressionError for unusable data (validated
  /// first; the configurations must not be collinear).
  explicit WrenchSpaceModel(WrenchDatabase database, HullOptions hull_options = {});
  WrenchSpaceModel(const WrenchSpaceModel&) = delete;
  WrenchSpaceModel& operator=(const WrenchSpaceModel&) = delete;

  const WrenchDatabase& database() const { return database_; }
  int direction_count() const { return database_.direction_count(); }
  int wrench_dimension() const override { return database_.wrench_dimension(); }
  /// Sampled range: (min, max) of depth and of tilt over the database's configurations.
  Eigen::Vector2d depth_range() const override { return depth_range_; }
  Eigen::Vector2d tilt_range() const override { return tilt_range_; }
  Eigen::Vector3d reference_point_m() const override { return database_.reference_point_m; }
  /// At the database's depth reference (its foot radius for the lowest point).
  double configuration_depth(double bottom_centre_depth_m, double tilt_rad) const override {
    return wrench::configuration_depth(database_.depth_reference, database_.foot_radius_m,
                                       bottom_centre_depth_m, tilt_rad);
  }

  /// theta clamped into the sampled box; counts the call in clamped_queries() when it moved.
  Eigen::Vector2d clamp(const Eigen::Vector2d& theta) const;
  /// How many predictions had theta outside the sampled range (thread-safe counter).
  long clamped_queries() const { return clamped_.load(std::memory_order_relaxed); }
  void reset_clamped_queries() { clamped_.store(0, std::memory_order_relaxed); }

  /// The m predicted extreme wrenches at (clamped) theta, m x D, in F_r.
  Eigen::MatrixXd predict_wrenches(const Eigen::Vector2d& theta) const override;
  /// W(theta) in half-space form (eq. 1), in F_r.
  HalfSpaces feasible_set(const Eigen::Vector2d& theta) const override;

  /// 5-fold (or `folds`) cross validation of the interpolant over the database (error per
  /// configuration = norm of all its m x D wrench components), and of the quadratic comparison.
  CrossValidationError cross_validation(int folds = 5, unsigned seed = 1) const;
  CrossValidationError cross_validation_quadratic(int folds = 5, unsigned seed = 1) const;

  /// §IV-B concavity of each configuration's measured wrench set, with mean and worst.
  ConcavitySummary concavity_table(double min_magnitude = 1.0) const;

 private:
  Eigen::MatrixXd stacked_values() const;  // n x (m D), row-major per configuration

  WrenchDatabase database_;
  HullOptions hull_options_;
  ThinPlateSplineRbf rbf_;
  Eigen::Vector2d depth_range_;
  Eigen::Vector2d tilt_range_;
  mutable std::atomic<long> clamped_{0};
};

/// Orthogonal D x D map of wrench components from the contact frame to the world frame,
/// w_W = T w_C. Planar (D = 3, components f_x, f_z, tau_y): the surface tangent x_c makes the
/// angle slope_rad with world +x, turning towards +z, so x_c = (cos a, sin a), z_c = (-sin a, cos
/// a) in world (x, z); tau_y is unchanged (the rotation is about y).
Eigen::Matrix3d planar_wrench_rotation(double slope_rad);
/// Spatial (D = 6): blockdiag(R_WC, R_WC) (force and torque rotate alike; the torque's reference
/// point p_r does not move).
Eigen::Matrix<double, 6, 6> spatial_wrench_rotation(const Eigen::Matrix3d& R_WC);
/// W in the world frame: { w_W : A T^T w_W <= b, A_eq T^T w_W = b_eq } for orthogonal T.
HalfSpaces rotate_halfspaces(const HalfSpaces& in_contact_frame, const Eigen::MatrixXd& T);

/// A database's quality figures for a run's summary (paper 000 Table II and §IV-B): with 3 or
/// more configurations {"concavity": {mean, worst, per_configuration}}, and with 8 or more (the
/// quadratic fit needs 6 configurations in each fold's training set) {"cross_validation":
/// {thin_plate_spline, quadratic}} of a 5-fold cross validation (with 3 depths and 3 tilts at
/// least); empty below 3 configurations, {"quality_not_computed": why} when they lie on a line.
nlohmann::json database_quality(const WrenchDatabase& db);

}  // namespace talus::wrench
