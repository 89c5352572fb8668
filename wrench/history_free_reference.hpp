#pragma once
// What a history-free model can at best say about a path (docs/wrench_space.md §8, the foot
// accuracy's error split). Paper 000's model gives the resistance as a function of the
// configuration theta = (d, phi) and the motion's direction only; along a path the particle
// tier's resistance also depends on what the foot did before (the bow wave it pushed ahead, the
// grains it compacted). Two references at the path's own configuration and twist separate the
// error sources:
//  - measured: the database's wrench for the sampled direction nearest the path's motion (the
//    interpolant in theta): the particle tier's resistance to this motion in a fresh bed. Its
//    difference to the particle tier along the path is the memory effect, which no function of
//    (theta, direction) can remove.
//  - max_dissipation: the wrench of W(theta) that dissipates most for the path's twist (the
//    support point; eq. 2's limit without the robot's dynamics): what the model picks. Its
//    difference to `measured` is the price of the maximum-dissipation principle on measured sets
//    whose outward normals are not the motions that produced them (granular flow is not
//    associated).

#include <Eigen/Core>

#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {

struct HistoryFreeReference {
  Eigen::VectorXd measured;         ///< D components in F_r
  Eigen::VectorXd max_dissipation;  ///< D components in F_r
  /// Angle between the twist (divided by the database's velocity scale, then normalised) and
  /// the nearest sampled direction [rad]: how well the database sampled this motion.
  double direction_error_rad = 0.0;
};

/// Both references at theta (clamped into the sampled range without counting a clamped query:
/// the references must not change the step's figures) for the twist of p_r (v_x, v_z, omega_y
/// planar; v, omega spatial) in F_r axes, [m/s, rad/s]. Throws std::invalid_argument for a zero
/// or non-finite twist or a dimension other than the database's.
HistoryFreeReference history_free_reference(const WrenchSpaceModel& model,
                                            const Eigen::Vector2d& theta,
                                            const Eigen::VectorXd& twist_r);

}  // namespace talus::wrench
