// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 kernels under -march=native (GCC bug
// 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#if defined(__GNUC__) && !defined(__clang__)  // clang has no such warning (the fuzz build)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "wrench/history_free_reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace talus::wrench {

HistoryFreeReference history_free_reference(const WrenchSpaceModel& model,
                                            const Eigen::Vector2d& theta,
                                            const Eigen::VectorXd& twist_r) {
  const WrenchDatabase& db = model.database();
  const int dim = db.wrench_dimension();
  if (twist_r.size() != dim) {
    throw std::invalid_argument("history_free_reference: the twist has " +
                                std::to_string(twist_r.size()) + " components, the database " +
                                std::to_string(dim));
  }
  if (!twist_r.allFinite() || twist_r.isZero(0.0)) {
    throw std::invalid_argument("history_free_reference: the twist must be finite and nonzero");
  }
  const Eigen::Vector2d lo(model.depth_range()[0], model.tilt_range()[0]);
  const Eigen::Vector2d hi(model.depth_range()[1], model.tilt_range()[1]);
  const Eigen::MatrixXd wrenches = model.predict_wrenches(theta.cwiseMax(lo).cwiseMin(hi));

  // The sampled directions are unit vectors of the twist divided by the per-axis scale.
  const Eigen::VectorXd scaled = twist_r.cwiseQuotient(db.velocity_scale).normalized();
  int nearest = 0;
  double best_cos = -2.0;
  int support = 0;
  double least_power = 0.0;
  for (int j = 0; j < wrenches.rows(); ++j) {
    const double cos_angle = db.velocity_directions.row(j).dot(scaled);
    if (cos_angle > best_cos) {
      best_cos = cos_angle;
      nearest = j;
    }
    // The resistance dissipates: its power w . twist is negative; the most negative wins.
    const double power = wrenches.row(j).dot(twist_r);
    if (j == 0 || power < least_power) {
      least_power = power;
      support = j;
    }
  }
  HistoryFreeReference out;
  out.measured = wrenches.row(nearest).transpose();
  out.max_dissipation = wrenches.row(support).transpose();
  out.direction_error_rad = std::acos(std::clamp(best_cos, -1.0, 1.0));
  return out;
}

}  // namespace talus::wrench
