// The wrench-space contact step (paper 000, §III-C, eq. 2) on a planar MuJoCo model; stages and
// their order in wrench_contact_step.hpp, the objective's derivation in docs/wrench_space.md §6.

// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "wrench/wrench_contact_step.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {

namespace {

constexpr int kD = 3;  // planar wrenches (f_x, f_z, tau_y)

class StageTimer {
 public:
  explicit StageTimer(double& sink) : sink_(sink), start_(std::chrono::steady_clock::now()) {}
  ~StageTimer() {
    sink_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  double& sink_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

WrenchContactStep::WrenchContactStep(robot::MujocoModel& robot, const WrenchSetPredictor& predictor,
                                     WrenchStepModel model)
    : robot_(robot),
      predictor_(predictor),
      model_(std::move(model)),
      depth_beyond_data_m_(depth_beyond_data_limit_m(predictor_, model_.depth_beyond_data_m)) {
  const std::string where = robot_.file().string();
  if (predictor_.wrench_dimension() != kD) {
    throw WrenchStepError(fmt::format(
        "{}: the wrench-space step is planar (wrenches f_x, f_z, tau_y; D = 3), the wrench "
        "sets have D = {}",
        where, predictor_.wrench_dimension()));
  }
  if (model_.feet.empty()) throw WrenchStepError(where + ": the wrench-space step has no feet");
  mjModel* m = robot_.model();
  if (m->neq > 0) {
    throw WrenchStepError(fmt::format(
        "{}: {} equality constraint(s); the wrench-space step solves only the feet's contacts "
        "and would ignore them",
        where, m->neq));
  }
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_limited[j]) {
      const char* name = mj_id2name(m, mjOBJ_JOINT, j);
      throw WrenchStepError(fmt::format(
          "{}: joint '{}' is limited; the wrench-space step solves only the feet's contacts and "
          "would ignore the limit (remove limited=\"true\")",
          where, name ? name : std::to_string(j)));
    }
  }
  for (const FootSpec& foot : model_.feet) {
    const int site = mj_name2id(m, mjOBJ_SITE, foot.site.c_str());
    if (site < 0) {
      throw WrenchStepError(
          fmt::format("{}: foot '{}': no site '{}' in the model", where, foot.name, foot.site));
    }
    if (!foot.granular_inertia.allFinite() ||
        (foot.granular_inertia - foot.granular_inertia.transpose()).cwiseAbs().maxCoeff() > 0.0 ||
        foot.granular_inertia.ldlt().vectorD().minCoeff() < 0.0) {
      throw WrenchStepError(fmt::format(
          "{}: foot '{}': granular inertia M_g must be symmetric positive semi-definite", where,
          foot.name));
    }
    site_ids_.push_back(site);
    body_ids_.push_back(m->site_bodyid[site]);
  }
  // The feet's contacts are this step's; MuJoCo's solver and collision detection stay off.
  m->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_CONTACT;
  // The feet as they stand before the first step (no wrench yet), so that a log's first row
  // has their depth and tilt rather than zeros (a foot_drop log began at depth 0).
  mj_kinematics(m, robot_.data());
  for (size_t f = 0; f < model_.feet.size(); ++f) state_.feet.push_back(foot_at(f));
  p_WR_.resize(model_.feet.size(), Eigen::Vector3d::Zero());
  state_.hulls.resize(model_.feet.size());
  state_.warm_rows.resize(model_.feet.size());
}

double WrenchContactStep::time_step_s() const { return robot_.time_step_s(); }

void WrenchContactStep::restore(const WrenchStepState& state) {
  if (state.feet.size() != model_.feet.size() || state.hulls.size() != model_.feet.size() ||
      state.warm_rows.size() != model_.feet.size()) {
    throw std::invalid_argument(fmt::format("restore: the state has {} feet, this step {}",
                                            state.feet.size(), model_.feet.size()));
  }
  state_ = state;
}

void WrenchContactStep::step() {
  smooth_dynamics();
  detect_contacts();
  predict_wrench_sets();
  assemble_qp();
  solve_qp();
  integrate();
  ++state_.step;
}

// Stage 1: v_free = v + h qacc_smooth, with qacc_smooth = M^-1 (actuator + passive + applied -
// bias) from MuJoCo's smooth pipeline (positions, velocities, actuation, acceleration).
void WrenchContactStep::smooth_dynamics() {
  StageTimer timer(state_.seconds.mujoco);
  const mjModel* m = robot_.model();
  mjData* d = robot_.data();
  mj_fwdPosition(m, d);  // kinematics, M and its factor qLD
  mj_fwdVelocity(m, d);  // bias and passive forces
  mj_fwdActuation(m, d);
  mj_fwdAcceleration(m, d);  // qacc_smooth
  const double h = m->opt.timestep;
  v_free_ = Eigen::Map<const Eigen::VectorXd>(d->qvel, m->nv) +
            h * Eigen::Map<const Eigen::VectorXd>(d->qacc_smooth, m->nv);
}

// Foot f's contact geometry at the robot's current kinematics (site position and frame).
FootContact WrenchContactStep::foot_at(std::size_t f) const {
  const mjData* d = robot_.data();
  const int s = site_ids_[f];
  const Eigen::Vector3d p_WCenter(d->site_xpos[3 * s], d->site_xpos[3 * s + 1],
                                  d->site_xpos[3 * s + 2]);
  // site_xmat is row-major; its columns are the site's axes in world.
  const Eigen::Matrix3d R_WF =
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->site_xmat + 9 * s);
  return foot_contact(model_.terrain, predictor_, p_WCenter, R_WF);
}

// Stage 2: theta_i = (d_i, phi_i) per foot against the terrain (§III-C).
void WrenchContactStep::detect_contacts() {
  StageTimer timer(state_.seconds.prediction);
  contacts_.clear();
  for (size_t f = 0; f < model_.feet.size(); ++f) {
    FootContact& foot = state_.feet[f];
    foot = foot_at(f);
    if (const auto why =
            depth_beyond_data(foot, predictor_, depth_beyond_data_m_, model_.feet[f].name)) {
      throw WrenchStepError(
          fmt::format("step {} (t = {:.4g} s): {}", state_.step, robot_.time_s(), *why));
    }
    p_WR_[f] = foot.wrench.p_W;
    if (!foot.in_contact) continue;
    ++state_.contact_queries;
    if (foot.clamped) ++state_.clamped_queries;
    contacts_.push_back(static_cast<int>(f));
  }
}

// Stage 3: W(theta_i) in world axes: w_W = T(slope) w_C (§III-C: "rotate it to the global frame if
// it is on a slope").
void WrenchContactStep::predict_wrench_sets() {
  StageTimer timer(state_.seconds.prediction);
  qp_.sets.resize(contacts_.size());
  for (size_t i = 0; i < contacts_.size(); ++i) {
    const FootContact& foot = state_.feet[static_cast<size_t>(contacts_[i])];
    const Eigen::Vector2d& theta = foot.theta;
    const Eigen::Matrix3d T_WC = planar_wrench_rotation(foot.slope_rad);
    qp_.sets[i] = rotate_halfspaces(
        predictor_.tracked_feasible_set(theta, state_.hulls[static_cast<size_t>(contacts_[i])]),
        T_WC);
  }
  state_.hull_reuses = 0;
  state_.hull_runs = 0;
  for (const HullTracker& hull : state_.hulls) {
    state_.hull_reuses += hull.reuses() + hull.repairs();
    state_.hull_runs += hull.qhull_runs();
  }
}

// Stage 4: eq. 2 over the impulses c (docs/wrench_space.md §6). With J the contact wrench
// Jacobian at the p_r's, P the p_center Jacobian, G = blockdiag(M_g,i) and Y^T = J M^-1:
//   v' = v_free + M^-1 J^T c,
//   1/2 v'^T M v' + 1/2 (P v')^T G (P v') = 1/2 c^T H c + g^T c + const,
//   H = J M^-1 J^T + Z^T G Z,  g = J v_free + Z^T G P v_free,  Z = P M^-1 J^T.
void WrenchContactStep::assemble_qp() {
  const mjModel* m = robot_.model();
  mjData* d = robot_.data();
  const int nv = m->nv;
  const int k = static_cast<int>(contacts_.size());
  {
    StageTimer timer(state_.seconds.mujoco);
    J_.resize(k * kD, nv);
    P_.resize(k * kD, nv);
    JMinv_.resize(k * kD, nv);
    std::vector<mjtNum> jacp(3 * static_cast<size_t>(nv));
    std::vector<mjtNum> jacr(3 * static_cast<size_t>(nv));
    for (int i = 0; i < k; ++i) {
      const auto f = static_cast<size_t>(contacts_[static_cast<size_t>(i)]);
      // Rows (x, z) of the translational and y of the rotational Jacobian: the planar twist
      // (v_x, v_z, omega_y) of the point, dual to the wrench (f_x, f_z, tau_y) about it.
      mj_jac(m, d, jacp.data(), jacr.data(), p_WR_[f].data(), body_ids_[f]);
      for (int c = 0; c < nv; ++c) {
        J_(i * kD + 0, c) = jacp[static_cast<size_t>(c)];
        J_(i * kD + 1, c) = jacp[static_cast<size_t>(2 * nv + c)];
        J_(i * kD + 2, c) = jacr[static_cast<size_t>(nv + c)];
      }
      mj_jac(m, d, jacp.data(), jacr.data(), d->site_xpos + 3 * site_ids_[f], body_ids_[f]);
      for (int c = 0; c < nv; ++c) {
        P_(i * kD + 0, c) = jacp[static_cast<size_t>(c)];
        P_(i * kD + 1, c) = jacp[static_cast<size_t>(2 * nv + c)];
        P_(i * kD + 2, c) = jacr[static_cast<size_t>(nv + c)];
      }
    }
    // J M^-1 (rows), with MuJoCo's sparse factor of M from stage 1.
    if (k > 0) mj_solveM(m, d, JMinv_.data(), J_.data(), k * kD);
  }
  StageTimer timer(state_.seconds.qp_setup);
  qp_.dt_s = m->opt.timestep;
  if (k == 0) {
    qp_.H.resize(0, 0);
    qp_.g.resize(0);
    return;
  }
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(k * kD, k * kD);
  for (int i = 0; i < k; ++i) {
    G.block<kD, kD>(i * kD, i * kD) =
        model_.feet[static_cast<size_t>(contacts_[static_cast<size_t>(i)])].granular_inertia;
  }
  const Eigen::MatrixXd Z = P_ * JMinv_.transpose();
  const Eigen::VectorXd Pv = P_ * v_free_;
  qp_.H.noalias() = J_ * JMinv_.transpose();
  qp_.H.noalias() += Z.transpose() * G * Z;
  qp_.H = 0.5 * (qp_.H + Eigen::MatrixXd(qp_.H.transpose()));
  qp_.g.noalias() = J_ * v_free_;
  qp_.g.noalias() += Z.transpose() * (G * Pv);
}

std::string WrenchContactStep::contact_names(const std::vector<int>& contacts) const {
  std::string names;
  for (const int i : contacts) {
    const FootContact& foot = state_.feet[static_cast<size_t>(contacts_[static_cast<size_t>(i)])];
    if (!names.empty()) names += ", ";
    names += fmt::format("'{}' (d = {:.4g} m, phi = {:.4g} rad)",
                         model_.feet[static_cast<size_t>(contacts_[static_cast<size_t>(i)])].name,
                         foot.depth_m, foot.tilt_rad);
  }
  return names;
}

// Stage 5: the contact QP, warm-started from each foot's previous active rows.
void WrenchContactStep::solve_qp() {
  StageTimer timer(state_.seconds.qp_solve);
  const int k = static_cast<int>(contacts_.size());
  std::vector<std::vector<int>> warm(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) {
    warm[static_cast<size_t>(i)] =
        state_.warm_rows[static_cast<size_t>(contacts_[static_cast<size_t>(i)])];
  }
  const double t = robot_.time_s();
  try {
    solution_ = solver_.solve(qp_, warm);
  } catch (const QpError& e) {
    std::vector<int> all(static_cast<size_t>(k));
    for (int i = 0; i < k; ++i) all[static_cast<size_t>(i)] = i;
    throw WrenchStepError(
        fmt::format("step {} (t = {:.6g} s): contact QP ill-posed with feet {}: {}", state_.step, t,
                    contact_names(all), e.what()));
  }
  if (solution_.status != QpStatus::kOptimal) {
    throw WrenchStepError(fmt::format("step {} (t = {:.6g} s): contact QP {} with feet {}: {}",
                                      state_.step, t, to_string(solution_.status),
                                      contact_names(solution_.conflicting_contacts),
                                      solution_.message));
  }
  state_.last_qp_iterations = solution_.iterations;
  state_.worst_stationarity = std::max(state_.worst_stationarity, solution_.stationarity);
  for (auto& rows : state_.warm_rows) rows.clear();
  for (int i = 0; i < k; ++i) {
    const auto f = static_cast<size_t>(contacts_[static_cast<size_t>(i)]);
    state_.warm_rows[f] = solution_.active_rows[static_cast<size_t>(i)];
    state_.feet[f].wrench =
        planar_wrench(solution_.impulse.segment<kD>(i * kD) / qp_.dt_s, p_WR_[f]);
  }
}

// Stage 6: v' = v_free + M^-1 J^T c; q advanced with v' (§III-C: q^{t+1} = q^t + h v^{t+1}).
void WrenchContactStep::integrate() {
  StageTimer timer(state_.seconds.mujoco);
  const mjModel* m = robot_.model();
  mjData* d = robot_.data();
  const double h = m->opt.timestep;
  Eigen::Map<Eigen::VectorXd> v(d->qvel, m->nv);
  v = v_free_;
  if (!contacts_.empty()) v.noalias() += JMinv_.transpose() * solution_.impulse;
  if (!v.allFinite()) {
    throw WrenchStepError(fmt::format("step {} (t = {:.6g} s): the velocity is not finite",
                                      state_.step, robot_.time_s()));
  }
  mj_integratePos(m, d->qpos, d->qvel, h);
  for (int a = 0; a < m->na; ++a) d->act[a] += h * d->act_dot[a];
  d->time += h;
}

}  // namespace talus::wrench
