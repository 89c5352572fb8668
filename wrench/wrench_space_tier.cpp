// The wrench-space tier as a coupling partner: per foot, eq. 2 of paper 000 with the robot's
// inverse effective inertia at the foot (wrench_space_tier.hpp; docs/wrench_space.md §9).

// GCC 12 reports -Wmaybe-uninitialized and -Warray-bounds inside Eigen's AVX-512 kernels for
// 3 x 3 products under -march=native (GCC bug 105593, false positives in <avx512fintrin.h>);
// silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include "wrench/wrench_space_tier.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {

namespace {

constexpr int kD = 3;  // planar wrenches (f_x, f_z, tau_y)

bool symmetric(const Eigen::Matrix3d& m) {
  return m.allFinite() &&
         (m - m.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * m.cwiseAbs().maxCoeff();
}

void check_foot(const WrenchTierFoot& foot) {
  const Eigen::Matrix3d& mg = foot.granular_inertia;
  if (!symmetric(mg) || mg.ldlt().vectorD().minCoeff() < 0.0) {
    throw std::invalid_argument(
        fmt::format("foot '{}': the granular inertia M_g must be symmetric positive semi-definite",
                    foot.body.name));
  }
  const Eigen::Matrix3d& a = foot.inverse_inertia;
  if (!symmetric(a) || a.llt().info() != Eigen::Success) {
    throw std::invalid_argument(fmt::format(
        "foot '{}': the inverse inertia A = P M^-1 P^T must be symmetric positive definite (a "
        "foot that cannot move along x, z or turn about y has no finite effective inertia there)",
        foot.body.name));
  }
}

// The planar twist transform from p_center to p_r: (v_x, v_z, omega_y) at p_r = Q times that at
// p_center, with r = p_r - p_center: v_r = v_c + omega_y y x r = v_c + omega_y (r_z, -r_x).
Eigen::Matrix3d center_to_reference(const FootContact& foot) {
  const Eigen::Vector2d r = foot.p_WR - foot.p_WCenter;
  Eigen::Matrix3d q = Eigen::Matrix3d::Identity();
  q(0, 2) = r.y();
  q(1, 2) = -r.x();
  return q;
}

}  // namespace

WrenchSpaceTier::WrenchSpaceTier(const WrenchSetPredictor& predictor, WrenchTierModel model)
    : predictor_(predictor),
      model_(std::move(model)),
      depth_beyond_data_m_(depth_beyond_data_limit_m(predictor_, model_.depth_beyond_data_m)) {
  if (predictor_.wrench_dimension() != kD) {
    throw std::invalid_argument(fmt::format(
        "the wrench-space tier is planar (wrenches f_x, f_z, tau_y; D = 3), the wrench sets have "
        "D = {}",
        predictor_.wrench_dimension()));
  }
  if (model_.feet.empty()) throw std::invalid_argument("the wrench-space tier has no feet");
  for (WrenchTierFoot& foot : model_.feet) {
    check_foot(foot);
    foot.body.p_BR = foot.X_BF * predictor_.reference_point_m();
    bodies_.push_back(foot.body);
  }
  const std::size_t n = model_.feet.size();
  state_.feet.resize(n);
  state_.warm_rows.resize(n);
  state_.hulls.resize(n);
  state_.last_twist.assign(n, Eigen::Vector3d::Zero());
  state_.last_contact_dv.assign(n, Eigen::Vector3d::Zero());
}

void WrenchSpaceTier::step(double dt_s, std::span<const BodyMotion> motions,
                           std::span<Wrench> wrenches) {
  if (motions.size() != model_.feet.size() || wrenches.size() != model_.feet.size()) {
    throw std::invalid_argument(fmt::format("wrench-space tier: {} feet, {} motions, {} wrenches",
                                            model_.feet.size(), motions.size(), wrenches.size()));
  }
  for (std::size_t f = 0; f < motions.size(); ++f) {
    const BodyMotion& m = motions[f];
    const Pose X_WF = m.X_WB * model_.feet[f].X_BF;
    const Vec3 v_WF = m.V_WB.velocity_of_point(m.X_WB, X_WF.translation());
    const Eigen::Vector3d v(v_WF.x(), v_WF.z(), m.V_WB.w_W.y());
    if (!v.allFinite() || !X_WF.matrix().allFinite()) {
      throw WrenchStepError(fmt::format("step {}: foot '{}': its motion is not finite", state_.step,
                                        model_.feet[f].body.name));
    }
    FootContact& foot = state_.feet[f];
    foot = foot_contact(model_.terrain, predictor_, X_WF.translation(), X_WF.linear());
    if (const auto why =
            depth_beyond_data(foot, predictor_, depth_beyond_data_m_, model_.feet[f].body.name)) {
      throw WrenchStepError(fmt::format("step {}: {}", state_.step, *why));
    }
    // The twist at the step's end without this step's contact, from the last two motions.
    const Eigen::Vector3d v_free =
        state_.has_last
            ? Eigen::Vector3d(2.0 * v - state_.last_twist[f] - state_.last_contact_dv[f])
            : v;
    Eigen::Vector3d w = Eigen::Vector3d::Zero();
    state_.last_contact_dv[f].setZero();
    if (foot.in_contact) {
      ++state_.contact_queries;
      if (foot.clamped) ++state_.clamped_queries;
      w = foot_wrench(f, dt_s, v_free);
    } else {
      state_.warm_rows[f].clear();
    }
    foot.wrench = planar_wrench(w, foot.wrench.p_W);
    wrenches[f] = foot.wrench;
    state_.last_twist[f] = v;
  }
  state_.has_last = true;
  ++state_.step;
}

// Eq. 2 for foot f alone (wrench_space_tier.hpp): returns the wrench (f_x, f_z, tau_y) about p_r
// and keeps A Q^T c for the next step's prediction.
Eigen::Vector3d WrenchSpaceTier::foot_wrench(std::size_t f, double dt_s,
                                             const Eigen::Vector3d& v_free) {
  const FootContact& foot = state_.feet[f];
  const WrenchTierFoot& spec = model_.feet[f];
  const Eigen::Matrix3d q = center_to_reference(foot);
  const Eigen::Matrix3d z = spec.inverse_inertia * q.transpose();
  qp_.dt_s = dt_s;
  const Eigen::Matrix3d h =
      q * spec.inverse_inertia * q.transpose() + z.transpose() * spec.granular_inertia * z;
  const Eigen::Vector3d g = q * v_free + z.transpose() * (spec.granular_inertia * v_free);
  qp_.H = 0.5 * (h + h.transpose());
  qp_.g = g;
  qp_.sets.assign(1, rotate_halfspaces(predictor_.tracked_feasible_set(foot.theta, state_.hulls[f]),
                                       planar_wrench_rotation(foot.slope_rad)));
  const std::vector<int>* warm = &state_.warm_rows[f];
  ContactQpSolution solution;
  try {
    solution = solver_.solve(qp_, std::span<const std::vector<int>>(warm, 1));
  } catch (const QpError& e) {
    throw WrenchStepError(
        fmt::format("step {}: foot '{}' (d = {:.4g} m, phi = {:.4g} rad): "
                    "contact QP ill-posed: {}",
                    state_.step, spec.body.name, foot.depth_m, foot.tilt_rad, e.what()));
  }
  if (solution.status != QpStatus::kOptimal) {
    throw WrenchStepError(
        fmt::format("step {}: foot '{}' (d = {:.4g} m, phi = {:.4g} rad): "
                    "contact QP {}: {}",
                    state_.step, spec.body.name, foot.depth_m, foot.tilt_rad,
                    to_string(solution.status), solution.message));
  }
  state_.warm_rows[f] = solution.active_rows[0];
  const Eigen::Vector3d c = solution.impulse.head<kD>();
  state_.last_contact_dv[f] = z * c;
  return c / dt_s;
}

std::unique_ptr<ContactTier::Snapshot> WrenchSpaceTier::snapshot() const {
  return std::make_unique<StateSnapshot<WrenchTierState>>(state_);
}

void WrenchSpaceTier::restore(const Snapshot& snapshot) {
  state_ = snapshot_state<WrenchTierState>(snapshot, "wrench-space");
}

}  // namespace talus::wrench
