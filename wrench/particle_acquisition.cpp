#include "wrench/particle_acquisition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/shape.hpp"
#include "core/steps.hpp"

namespace talus::wrench {

namespace {

void require(bool ok, const char* field, double value, const char* expected) {
  if (!ok || !std::isfinite(value)) {
    throw std::invalid_argument(
        fmt::format("foot path: {} = {:g} is not {}", field, value, expected));
  }
}

// The constant-twist part of a run: the foot's pose and twist at time tau after its start.
struct ConstantTwistPath {
  Pose X_target;  // pose at the target instant
  Vec3 p_BR;      // p_r in the body frame
  Vec3 v_r;       // velocity of p_r [m/s]
  Vec3 omega;     // angular velocity [rad/s]
  double target_time_s = 0.0;

  BodyMotion at(double tau_s) const {
    const double s = tau_s - target_time_s;
    BodyMotion m;
    const double angle = omega.norm() * s;
    Mat3 R = X_target.linear();
    if (angle != 0.0) R = Eigen::AngleAxisd(angle, omega.normalized()).toRotationMatrix() * R;
    const Vec3 p_r = X_target * p_BR + v_r * s;
    m.X_WB.linear() = R;
    m.X_WB.translation() = p_r - R * p_BR;
    m.V_WB.w_W = omega;
    m.V_WB.v_WBo = v_r + omega.cross(m.X_WB.translation() - p_r);
    return m;
  }
};

// Lowest point of the cylinder's bottom rim: p_center minus the radius times the horizontal part
// of the axis (the rim's lowest point lies along the axis' horizontal projection).
double lowest_point_z(const FootPath& path, const Pose& X_WB) {
  const Vec3 axis = X_WB.linear().col(2);
  const Vec3 p_center = X_WB.translation() - 0.5 * path.foot_length_m * axis;
  return p_center.z() - path.foot_radius_m * std::hypot(axis.x(), axis.y());
}

// Whether the part of the foot in the sand stays inside the container's side walls: its axis
// from the bottom centre up to where the cylinder's lowest rim point leaves the surface (all of
// it for a foot lying flat or pointing down), widened by the radius. The walls are convex, so
// that segment's two ends decide. (Checking the bottom disc alone let a foot tilted to pi/2 pass:
// its 0.5 m length lay across a 26 cm box.)
bool inside_walls(const particles::Container& c, const FootPath& path, const Pose& X_WB,
                  double surface_z_m) {
  const Vec3 axis = X_WB.linear().col(2);
  const Vec3 p_bottom = X_WB.translation() - 0.5 * path.foot_length_m * axis;
  const double r = path.foot_radius_m;
  const double rim_drop = r * std::hypot(axis.x(), axis.y());
  double buried = path.foot_length_m;
  if (axis.z() > 1e-9) {
    buried = std::clamp((surface_z_m + rim_drop - p_bottom.z()) / axis.z(), 0.0, buried);
  }
  for (const Vec3& p : {p_bottom, Vec3(p_bottom + buried * axis)}) {
    switch (c.kind) {
      case particles::Container::Kind::kNone:
        break;
      case particles::Container::Kind::kBox:
        if (p.x() - r < c.box.lo.x() || p.x() + r > c.box.hi.x() || p.y() - r < c.box.lo.y() ||
            p.y() + r > c.box.hi.y()) {
          return false;
        }
        break;
      case particles::Container::Kind::kCylinder:
        if ((p.head<2>() - c.cylinder_axis_xy_m).norm() + r > c.cylinder_radius_m) return false;
        break;
    }
  }
  return true;
}

std::string run_name(const AcquisitionRun& run) {
  return fmt::format("run (configuration {}: depth {:g} m, tilt {:g} rad; direction {})",
                     run.configuration, run.depth_m, run.tilt_rad, run.direction);
}

}  // namespace

void validate(const FootPath& p) {
  require(p.foot_radius_m > 0.0, "foot_radius_m", p.foot_radius_m, "> 0");
  require(p.foot_length_m > 0.0, "foot_length_m", p.foot_length_m, "> 0");
  require(std::isfinite(p.reference_height_m), "reference_height_m", p.reference_height_m,
          "finite");
  require(p.target_xy_m.allFinite(), "target_xy_m", p.target_xy_m.norm(), "finite");
  require(p.duration_s > 0.0, "duration_s", p.duration_s, "> 0");
  require(p.insertion_speed_m_per_s > 0.0, "insertion_speed_m_per_s", p.insertion_speed_m_per_s,
          "> 0");
  require(p.clearance_m >= 0.0, "clearance_m", p.clearance_m, ">= 0");
  require(p.filter_window_s > 0.0 && p.filter_window_s <= 0.4 * p.duration_s, "filter_window_s",
          p.filter_window_s, "in (0, 0.4 duration_s] (the window must fit around 0.8 duration_s)");
}

Pose foot_pose_at(const FootPath& path, double surface_z_m, double depth_m, double tilt_rad) {
  Pose X = Pose::Identity();
  X.linear() = Eigen::AngleAxisd(tilt_rad, Vec3::UnitY()).toRotationMatrix();
  const Vec3 p_center(path.target_xy_m.x(), path.target_xy_m.y(), surface_z_m + depth_m);
  X.translation() = p_center + X.linear() * Vec3(0.0, 0.0, 0.5 * path.foot_length_m);
  return X;
}

std::pair<Vec3, Vec3> run_twist(const Eigen::VectorXd& velocity) {
  if (velocity.size() == 3) {
    return {Vec3(velocity[0], 0.0, velocity[1]), Vec3(0.0, velocity[2], 0.0)};
  }
  if (velocity.size() == 6) return {velocity.head<3>(), velocity.tail<3>()};
  throw std::invalid_argument(
      fmt::format("run velocity has {} components, expected 3 (v_x, v_z, omega_y) or 6 (v, omega)",
                  velocity.size()));
}

Eigen::VectorXd database_components(const Wrench& w, int dimension) {
  Eigen::VectorXd out(dimension);
  if (dimension == 3) {
    out << w.f_W.x(), w.f_W.z(), w.tau_W.y();
  } else {
    out << w.f_W, w.tau_W;
  }
  return out;
}

void check_run_inside_walls(const particles::Container& container, const FootPath& path,
                            const AcquisitionRun& run, double surface_z_m, double dt_s) {
  const auto [v_r, omega] = run_twist(run.velocity);
  const Vec3 p_BR(0.0, 0.0, path.reference_height_m - 0.5 * path.foot_length_m);
  const ConstantTwistPath cv{
      foot_pose_at(path, surface_z_m, run.bottom_centre_depth_m(), run.tilt_rad), p_BR, v_r, omega,
      0.8 * path.duration_s};
  const long cv_steps = steps_for(cv.target_time_s + 0.5 * path.filter_window_s, dt_s);
  for (long k = 0; k <= cv_steps; ++k) {
    if (!inside_walls(container, path, cv.at(static_cast<double>(k) * dt_s).X_WB, surface_z_m)) {
      throw std::invalid_argument(fmt::format(
          "{}: the foot (its part in the sand) reaches the container's side wall at {:g} s of "
          "the path; widen the bed or shorten duration_s",
          run_name(run), static_cast<double>(k) * dt_s));
    }
  }
}

Eigen::VectorXd measure_in_particles(const SettledBed& bed, const FootPath& path,
                                     const AcquisitionRun& run, AcquisitionTrace* trace) {
  validate(path);
  const auto [v_r, omega] = run_twist(run.velocity);
  const int dimension = static_cast<int>(run.velocity.size());

  if (!bed.model.bodies.empty()) {
    throw std::invalid_argument(fmt::format(
        "{}: the settled bed's model has {} bodies; the acquisition bed must be held by its "
        "container alone (the foot is the only body)",
        run_name(run), bed.model.bodies.size()));
  }
  particles::ParticleModel model = bed.model;
  const Vec3 p_BR(0.0, 0.0, path.reference_height_m - 0.5 * path.foot_length_m);
  model.bodies.push_back(
      CoupledBody{"foot", CylinderShape{path.foot_radius_m, 0.5 * path.foot_length_m}, p_BR});
  const double dt = model.time_step_s;

  check_run_inside_walls(model.container, path, run, bed.surface_z_m, dt);
  const ConstantTwistPath cv{
      foot_pose_at(path, bed.surface_z_m, run.bottom_centre_depth_m(), run.tilt_rad), p_BR, v_r,
      omega, 0.8 * path.duration_s};
  const long cv_steps = steps_for(cv.target_time_s + 0.5 * path.filter_window_s, dt);

  // Insertion (§III-B2 step 2): straight down from above the surface to the path's start.
  const BodyMotion start = cv.at(0.0);
  const double lift =
      std::max(0.0, bed.surface_z_m + path.clearance_m - lowest_point_z(path, start.X_WB));
  const long insertion_steps = steps_for(lift / path.insertion_speed_m_per_s, dt);

  particles::ParticleState state = bed.state;
  particles::ParticleWorkspace workspace = bed.workspace;
  std::vector<BodyMotion> motions(1);
  for (long k = 0; k < insertion_steps; ++k) {
    BodyMotion m = start;
    const double remaining = 1.0 - static_cast<double>(k) / static_cast<double>(insertion_steps);
    m.X_WB.translation().z() += lift * remaining;
    m.V_WB.w_W = Vec3::Zero();
    m.V_WB.v_WBo = Vec3(0.0, 0.0, -lift / (static_cast<double>(insertion_steps) * dt));
    motions.back() = m;
    particles::step(model, state, motions, workspace);
  }

  // The constant-velocity part (step 3), and the centred moving average at 0.8 t_total (step 4):
  // a step's wrench is the mean over [tau_k, tau_k + dt], so it counts at tau_k + dt / 2.
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(dimension);
  long averaged = 0;
  const double lo = cv.target_time_s - 0.5 * path.filter_window_s;
  const double hi = cv.target_time_s + 0.5 * path.filter_window_s;
  if (trace != nullptr) {
    *trace = AcquisitionTrace{};
    trace->target_time_s = cv.target_time_s;
    trace->insertion_steps = insertion_steps;
  }
  for (long k = 0; k < cv_steps; ++k) {
    const double tau = static_cast<double>(k) * dt;
    motions.back() = cv.at(tau);
    particles::step(model, state, motions, workspace);
    const Wrench& w = state.body_wrenches.back();
    // The particle step reports the torque about R at the step's start pose; shift it to p_r at
    // the middle of the step, where the reading is taken.
    const Vec3 p_r_mid = cv.at(tau + 0.5 * dt).X_WB * p_BR;
    const Eigen::VectorXd c = database_components(w.shifted_to(p_r_mid), dimension);
    const double t_mid = tau + 0.5 * dt;
    if (t_mid >= lo && t_mid <= hi) {
      sum += c;
      ++averaged;
    }
    if (trace != nullptr) {
      trace->t_s.push_back(t_mid);
      trace->wrench.push_back(c);
    }
  }
  if (averaged == 0) {
    throw std::invalid_argument(
        fmt::format("{}: filter_window_s = {:g} s holds no step of dt = {:g} s", run_name(run),
                    path.filter_window_s, dt));
  }
  const Eigen::VectorXd filtered = sum / static_cast<double>(averaged);
  if (trace != nullptr) trace->filtered = filtered;
  return filtered;
}

}  // namespace talus::wrench
