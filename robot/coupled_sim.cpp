#include "robot/coupled_sim.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <complex>
#include <stdexcept>

namespace talus::robot {

double explicit_coupling_dt_max_s(double stiffness_n_per_m, double mass_kg, double damping_ratio) {
  const double omega = std::sqrt(stiffness_n_per_m / mass_kg);
  return 2.0 * (std::sqrt(1.0 + damping_ratio * damping_ratio) - damping_ratio) / omega;
}

bool explicit_coupling_stable(double stiffness_n_per_m, double mass_kg, double damping_ratio,
                              double dt_tier_s, int mujoco_steps_per_tier_step) {
  // State (x, u = v dt) over one tier step of n MuJoCo steps h = dt / n with the force
  // a = -omega^2 x - 2 zeta omega v held: semi-implicit Euler gives v' = v + dt a and
  // x' = x + dt v + beta dt^2 a with beta = (n + 1) / (2 n) (sum of h^2 (1 + 2 + ... + n)).
  // With A = omega dt, B = 2 zeta omega dt the step matrix is
  //   [[1 - beta A^2, 1 - beta B], [-A^2, 1 - B]].
  const double omega = std::sqrt(stiffness_n_per_m / mass_kg);
  const double n = mujoco_steps_per_tier_step;
  const double beta = (n + 1.0) / (2.0 * n);
  const double a2 = omega * omega * dt_tier_s * dt_tier_s;
  const double b = 2.0 * damping_ratio * omega * dt_tier_s;
  const double trace = (1.0 - beta * a2) + (1.0 - b);
  const double det = (1.0 - beta * a2) * (1.0 - b) + a2 * (1.0 - beta * b);
  const std::complex<double> disc = std::sqrt(std::complex<double>(trace * trace - 4.0 * det));
  const double r1 = std::abs((trace + disc) / 2.0);
  const double r2 = std::abs((trace - disc) / 2.0);
  return r1 < 1.0 && r2 < 1.0;
}

BodyMotion link_motion(const MujocoModel& robot, const CoupledLink& link) {
  const mjData* d = robot.data();
  BodyMotion motion;
  motion.X_WB = link_pose(robot, link);
  // mj_objectVelocity with flg_local = 0: [angular; linear] in world axes, linear part the
  // velocity of the body frame's origin (mjOBJ_XBODY; mjOBJ_BODY would be the inertial frame).
  mjtNum v[6];
  mj_objectVelocity(robot.model(), d, mjOBJ_XBODY, link.body_id, v, 0);
  const Vec3 w_W(v[0], v[1], v[2]);
  const Vec3 v_WBo(v[3], v[4], v[5]);
  const Vec3 p_WB(d->xpos[3 * link.body_id], d->xpos[3 * link.body_id + 1],
                  d->xpos[3 * link.body_id + 2]);
  motion.V_WB.w_W = w_W;
  motion.V_WB.v_WBo = v_WBo + w_W.cross(motion.X_WB.translation() - p_WB);
  return motion;
}

CoupledSim::CoupledSim(MujocoModel& robot, std::vector<CoupledLink> links, ContactTier& tier,
                       int mujoco_steps_per_tier_step)
    : robot_(robot),
      links_(std::move(links)),
      tier_(tier),
      substeps_(mujoco_steps_per_tier_step),
      motions_(links_.size()),
      tier_wrenches_(links_.size()),
      applied_(links_.size()) {
  if (substeps_ < 1) {
    throw RobotError(fmt::format("{}: MuJoCo steps per tier step must be >= 1, got {}",
                                 robot_.file().string(), substeps_));
  }
  const auto bodies = tier_.bodies();
  if (bodies.size() != links_.size()) {
    throw RobotError(fmt::format("{}: the tier was built with {} bodies, the coupling has {} links",
                                 robot_.file().string(), bodies.size(), links_.size()));
  }
  for (std::size_t i = 0; i < links_.size(); ++i) {
    if (bodies[i].name != links_[i].name) {
      throw RobotError(fmt::format("{}: tier body {} is '{}' but coupled link {} is '{}'",
                                   robot_.file().string(), i, bodies[i].name, i, links_[i].name));
    }
  }
}

double CoupledSim::tier_time_step_s() const { return substeps_ * robot_.time_step_s(); }

void CoupledSim::step() {
  mjModel* m = robot_.model();
  mjData* d = robot_.data();
  const double t_start_s = d->time;
  // MuJoCo answers a NaN, infinite or huge acceleration by resetting the robot to its start
  // (with a warning on stdout) and steps on: a run would continue from the start with its time
  // set back. The warning's counter tells that it happened during this step.
  const int bad_accelerations = d->warning[mjWARN_BADQACC].number;
  mj_step1(m, d);  // positions and velocities at the start of the step: xpos, xquat, cvel
  read_motions();
  tier_.step(tier_time_step_s(), motions_, tier_wrenches_);
  check_tier_wrenches(t_start_s);
  apply_wrenches();
  mj_step2(m, d);  // integrate with the wrenches applied
  // Sub-steps: xfrc_applied stays as set, so each body keeps the same force and the same torque
  // about its (moving) centre of mass until the next tier step.
  for (int k = 1; k < substeps_; ++k) mj_step(m, d);
  if (d->warning[mjWARN_BADQACC].number != bad_accelerations) {
    throw std::runtime_error(fmt::format(
        "the tier step from t = {:.4f} s: MuJoCo's acceleration of the robot became NaN, infinite "
        "or huge (mjWARN_BADQACC, at degree of freedom {}) and MuJoCo reset the robot to its "
        "start; the coupled step is unstable (shorten the time step)",
        t_start_s, d->warning[mjWARN_BADQACC].lastinfo));
  }
}

void CoupledSim::check_tier_wrenches(double t_start_s) const {
  for (std::size_t i = 0; i < links_.size(); ++i) {
    const Wrench& w = tier_wrenches_[i];
    if (!w.f_W.allFinite() || !w.tau_W.allFinite() || !w.p_W.allFinite()) {
      throw std::runtime_error(fmt::format(
          "the tier step from t = {:.4f} s: the terrain's wrench on link '{}' is not finite "
          "(f_W = ({}, {}, {}) N, tau_W = ({}, {}, {}) N m)",
          t_start_s, links_[i].name, w.f_W.x(), w.f_W.y(), w.f_W.z(), w.tau_W.x(), w.tau_W.y(),
          w.tau_W.z()));
    }
  }
}

void CoupledSim::read_motions() {
  for (std::size_t i = 0; i < links_.size(); ++i) motions_[i] = link_motion(robot_, links_[i]);
}

void CoupledSim::apply_wrenches() {
  mjData* d = robot_.data();
  // xfrc_applied is (force, torque) at the body's centre of mass xipos, in world axes. Clear the
  // coupled bodies' rows first: several links may share a body and add up.
  for (const CoupledLink& link : links_) {
    for (int j = 0; j < 6; ++j) d->xfrc_applied[6 * link.body_id + j] = 0.0;
  }
  for (std::size_t i = 0; i < links_.size(); ++i) {
    const int b = links_[i].body_id;
    const Vec3 p_WCm(d->xipos[3 * b], d->xipos[3 * b + 1], d->xipos[3 * b + 2]);
    applied_[i] = tier_wrenches_[i].shifted_to(p_WCm);
    for (int j = 0; j < 3; ++j) {
      d->xfrc_applied[6 * b + j] += applied_[i].f_W[j];
      d->xfrc_applied[6 * b + 3 + j] += applied_[i].tau_W[j];
    }
  }
}

CoupledSim::Snapshot CoupledSim::snapshot() const {
  return Snapshot{robot_.snapshot(), tier_.snapshot(), motions_, tier_wrenches_, applied_};
}

void CoupledSim::restore(const Snapshot& snapshot) {
  robot_.restore(snapshot.robot);
  tier_.restore(*snapshot.tier);
  motions_ = snapshot.motions;
  tier_wrenches_ = snapshot.tier_wrenches;
  applied_ = snapshot.applied;
}

}  // namespace talus::robot
