// Tests of the history-free references of a path (wrench/history_free_reference.hpp).

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "wrench/history_free_reference.hpp"
#include "wrench/velocity_directions.hpp"

namespace talus::wrench {
namespace {

// The (v_x, v_z) plane turned by 45 degrees about y; omega unchanged.
Eigen::Matrix3d turn_45() {
  const double c = std::sqrt(0.5);
  Eigen::Matrix3d R;
  R << c, -c, 0.0,  //
      c, c, 0.0,    //
      0.0, 0.0, 1.0;
  return R;
}

// A non-associated medium: the resistance to a motion v is -k R v_hat, turned 45 degrees away
// from the motion, k = 1000 N/m of depth. For a motion v the wrench that dissipates most is then
// the one measured for R^T v: -k v_hat, the resistance an associated medium would give.
WrenchDatabase turned_database() {
  AcquisitionSpec spec;
  spec.depths_m = {0.0, -0.02, -0.04};
  spec.tilts_rad = {-0.3, 0.0, 0.3};
  spec.velocity_directions = velocity_directions(26);
  spec.velocity_scale = Eigen::Vector3d(0.02, 0.02, 0.3);
  spec.medium = MediumDescription{"turned", 0.005, 2600.0, 0.6, "test"};
  spec.use_symmetry = false;  // the turned medium is not mirror symmetric
  return acquire_database(spec, [](const AcquisitionRun& run) -> Eigen::VectorXd {
    const Eigen::Vector3d v_hat = run.velocity.cwiseQuotient(Eigen::Vector3d(0.02, 0.02, 0.3));
    return -1000.0 * -run.depth_m * (turn_45() * v_hat.normalized());
  });
}

TEST(HistoryFreeReference, MeasuredIsTheMotionsOwnWrenchMaxDissipationTheSupport) {
  const WrenchSpaceModel model(turned_database());
  const Eigen::Vector3d forward(0.02, 0.0, 0.0);  // a sampled direction, scaled
  const HistoryFreeReference ref =
      history_free_reference(model, Eigen::Vector2d(-0.02, 0.0), forward);
  EXPECT_NEAR(ref.direction_error_rad, 0.0, 1e-9);
  const Eigen::Vector3d own = -20.0 * turn_45() * Eigen::Vector3d::UnitX();
  EXPECT_LT((ref.measured - own).norm(), 1e-6) << ref.measured.transpose();
  // The support for +x is the wrench measured for R^T x = (0.707, -0.707, 0): -20 N along x.
  EXPECT_LT((ref.max_dissipation - Eigen::Vector3d(-20.0, 0.0, 0.0)).norm(), 1e-6)
      << ref.max_dissipation.transpose();
  EXPECT_LT(ref.max_dissipation.dot(forward), ref.measured.dot(forward));
}

TEST(HistoryFreeReference, ReportsTheAngleToTheNearestSampledDirection) {
  const WrenchSpaceModel model(turned_database());
  // Scaled (1, 0, 0.1): 0.0997 rad from the sampled +x, farther from every other direction.
  const HistoryFreeReference ref =
      history_free_reference(model, Eigen::Vector2d(-0.02, 0.0), Eigen::Vector3d(0.02, 0.0, 0.03));
  EXPECT_NEAR(ref.direction_error_rad, std::atan(0.1), 1e-9);
  EXPECT_LT((ref.measured + 20.0 * turn_45() * Eigen::Vector3d::UnitX()).norm(), 1e-6);
}

TEST(HistoryFreeReference, ClampsIntoTheSampledRangeWithoutCountingAClampedQuery) {
  const WrenchSpaceModel model(turned_database());
  const Eigen::Vector3d down(0.0, -0.02, 0.0);
  const HistoryFreeReference deep = history_free_reference(model, Eigen::Vector2d(-0.1, 0.9), down);
  const HistoryFreeReference deepest =
      history_free_reference(model, Eigen::Vector2d(-0.04, 0.3), down);
  EXPECT_LT((deep.measured - deepest.measured).norm(), 1e-9);
  EXPECT_EQ(model.clamped_queries(), 0);
}

TEST(HistoryFreeReference, RefusesAZeroOrMisSizedTwist) {
  const WrenchSpaceModel model(turned_database());
  EXPECT_THROW(history_free_reference(model, Eigen::Vector2d(-0.02, 0.0), Eigen::Vector3d::Zero()),
               std::invalid_argument);
  EXPECT_THROW(history_free_reference(model, Eigen::Vector2d(-0.02, 0.0), Eigen::VectorXd::Ones(6)),
               std::invalid_argument);
}

}  // namespace
}  // namespace talus::wrench
