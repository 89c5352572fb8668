#pragma once
// What the wrench-space step (wrench_contact_step.hpp) needs from a source of W(theta): the m
// extreme wrenches at a configuration theta = (depth d, tilt phi) in the contact frame about p_r,
// the sampled range of theta (outside it the step clamps and counts), and p_r. WrenchSpaceModel
// (learned from a database, §III-B3) is the production source; tests use synthetic sets.

#include <Eigen/Dense>

#include "wrench/hull_tracker.hpp"
#include "wrench/wrench_hull.hpp"

namespace talus::wrench {

class WrenchSetPredictor {
 public:
  virtual ~WrenchSetPredictor() = default;
  /// D: 3 for planar wrenches (f_x, f_z, tau_y), 6 for spatial ones.
  virtual int wrench_dimension() const = 0;
  /// (min, max) of the sampled depths [m] and tilts [rad].
  virtual Eigen::Vector2d depth_range() const = 0;
  virtual Eigen::Vector2d tilt_range() const = 0;
  /// p_r in the foot frame (origin at the bottom centre p_center, z along the foot's axis) [m].
  virtual Eigen::Vector3d reference_point_m() const = 0;
  /// The depth coordinate of theta for a foot whose bottom centre is `bottom_centre_depth_m`
  /// from the surface at tilt `tilt_rad` (wrench_database.hpp, DepthReference): the bottom
  /// centre's own depth unless the data measure depth at the foot's lowest point. The foot is in
  /// contact when it is < 0.
  virtual double configuration_depth(double bottom_centre_depth_m, double /*tilt_rad*/) const {
    return bottom_centre_depth_m;
  }
  /// The m predicted extreme wrenches at theta (inside the ranges), m x D, in F_r [N, N m].
  virtual Eigen::MatrixXd predict_wrenches(const Eigen::Vector2d& theta) const = 0;
  /// W(theta) in half-space form (eq. 1): the hull of predict_wrenches(theta).
  virtual HalfSpaces feasible_set(const Eigen::Vector2d& theta) const {
    return convex_hull_halfspaces(predict_wrenches(theta));
  }
  /// The same set, the hull kept in `tracker` between calls (one tracker per foot; exact, see
  /// hull_tracker.hpp). The step calls this one.
  virtual HalfSpaces tracked_feasible_set(const Eigen::Vector2d& theta,
                                          HullTracker& tracker) const {
    return tracker.update(predict_wrenches(theta));
  }
};

}  // namespace talus::wrench
