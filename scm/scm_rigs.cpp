#include "scm/scm_rigs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/steps.hpp"
#include "core/units.hpp"

namespace talus::scm {

PlateResult run_plate(ScmModel model, const PlateTest& t, ScmState* final_state) {
  model.bodies = {CoupledBody{"plate", BoxShape{t.half_extents_m}, Vec3::Zero()}};
  validate(model);
  ScmState state(model);
  ScmWorkspace work;
  const int ci = model.nearest_i(t.centre_xy_m.x());
  const int cj = model.nearest_j(t.centre_xy_m.y());
  const double surface = state.height(ci, cj);
  VerticalRig rig;
  rig.mass_kg = t.load_n / kGravity_m_per_s2;
  const double area = 4.0 * t.half_extents_m.x() * t.half_extents_m.y();
  SoilParameters soil = model.soil;
  soil.contact_width_m = 2.0 * std::min(t.half_extents_m.x(), t.half_extents_m.y());
  model.soil.contact_width_m = soil.contact_width_m;  // Bekker's b is the plate's smaller side
  const double z_bekker = std::pow(t.load_n / (area * soil.bekker_k()), 1.0 / soil.exponent_n);
  // dW/dz of Bekker's law at the closed-form sinkage: n W / z.
  const double stiffness = soil.exponent_n * t.load_n / z_bekker;
  rig.damping_n_s_per_m =
      t.damping_n_s_per_m > 0.0 ? t.damping_n_s_per_m : 2.0 * std::sqrt(stiffness * rig.mass_kg);
  rig.z_m = surface + t.half_extents_m.z();  // plate bottom on the surface
  const double dt = model.time_step_s;
  const long steps = steps_for(t.ramp_s + t.hold_s, dt);
  // The deepest sinkage the rig models: the plate's smaller side b (or its height, if taller).
  const double depth_limit = std::max(2.0 * t.half_extents_m.z(), soil.contact_width_m);
  PlateResult r;
  std::vector<BodyMotion> motion(1);
  std::vector<Wrench> wrench(1);
  double soil_fz = 0.0;
  for (long s = 1; s <= steps; ++s) {
    const double time = static_cast<double>(s) * dt;
    const double load = t.load_n * std::min(1.0, time / t.ramp_s);
    const double z_start = rig.z_m;  // the step's motion: where it starts, the velocity it takes
    rig.advance(soil_fz, load, dt);
    const double sinkage = surface - (rig.z_m - t.half_extents_m.z());
    if (!std::isfinite(rig.z_m) || sinkage > depth_limit) {
      r.stopped = fmt::format(
          "step {} (t = {:.4f} s): the plate would sink {:.4g} m, more than its width ({:g} m): "
          "the load is more than this soil carries, or the time step is too long for the rig "
          "(Bekker's pressure-sinkage law is measured to depths below the plate's width); "
          "stopping",
          s, time, sinkage, depth_limit);
      break;
    }
    motion[0].X_WB = make_pose(Vec3(t.centre_xy_m.x(), t.centre_xy_m.y(), z_start));
    motion[0].V_WB.v_WBo = Vec3(0.0, 0.0, rig.vz_m_per_s);
    const ScmStepReport rep = step(model, state, motion, wrench, work);
    soil_fz = wrench[0].f_W.z();
    r.time_s.push_back(time);
    r.load_n.push_back(load);
    r.soil_force_n.push_back(soil_fz);
    r.sinkage_m.push_back(sinkage);
    r.contact_area_m2 = rep.nodes_in_contact * model.cell_area_m2();
    r.steps = s;
  }
  r.final_sinkage_m = r.sinkage_m.empty() ? 0.0 : r.sinkage_m.back();
  r.bekker_sinkage_m = z_bekker;
  if (final_state) *final_state = std::move(state);
  return r;
}

namespace {

bool is_wheel_shape(const Shape& s) { return std::holds_alternative<WheelShape>(s); }

// Why the wheel's next pose is beyond what SCM can model, or "": buried deeper than its diameter
// (the soil would close over it), off the map, or a height that is not finite (a time step too
// long for the rig: issue 16's 0.3 s steps sank a wheel 2,362,509 m and reported success).
std::string wheel_out_of_bounds(const ScmModel& m, const WheelTest& t, double x_m, double z_m,
                                double surface_z_m) {
  const double sinkage = surface_z_m - (z_m - t.radius_m);
  if (!std::isfinite(z_m)) return fmt::format("the wheel's height is {}", z_m);
  if (sinkage > 2.0 * t.radius_m) {
    return fmt::format(
        "the wheel would sink {:.4g} m, more than its diameter ({:g} m): the load "
        "is more than this soil carries, or the time step is too long for the rig",
        sinkage, 2.0 * t.radius_m);
  }
  const double x_max = m.x(m.nx - 1), y_max = m.y(m.ny - 1);
  const double y = t.start_xy_m.y();
  if (x_m - t.radius_m < m.x0_m || x_m + t.radius_m > x_max || y < m.y0_m || y > y_max) {
    return fmt::format("the wheel (x = {:.4g} m, radius {:g} m) left the map, x in [{:g}, {:g}] m",
                       x_m, t.radius_m, m.x0_m, x_max);
  }
  return "";
}

// Pose of the wheel: a WheelShape has its axis along y_B already; a cylinder's z_B axis is
// turned onto y by a roll of 90 deg. The spin angle is a pitch about y.
Pose wheel_pose(const Shape& s, const Vec3& p, double spin_angle) {
  return is_wheel_shape(s) ? make_pose(p, 0.0, spin_angle, 0.0)
                           : make_pose(p, kPi / 2.0, spin_angle, 0.0);
}

}  // namespace

ScmModel with_wheel(ScmModel model, const WheelTest& t) {
  model.bodies = {CoupledBody{"wheel", t.shape, Vec3::Zero()}};
  return model;
}

WheelResult run_wheel(const ScmModel& base, ScmState& state, const WheelTest& t, double surface_z_m,
                      const std::function<void(const ScmState&, const WheelSample&)>& per_step) {
  const ScmModel model = with_wheel(base, t);
  validate(model);
  ScmWorkspace work;
  const double dt = model.time_step_s;
  VerticalRig rig;
  rig.mass_kg = t.load_n / kGravity_m_per_s2;
  rig.damping_n_s_per_m = t.damping_n_s_per_m;
  rig.z_m = surface_z_m + t.radius_m;
  const double omega = t.speed_m_per_s / ((1.0 - t.slip) * t.radius_m);  // i = 1 - v/(omega r)
  const long settle = steps_for(t.settle_s, dt);
  const long drive = steps_for(t.drive_s, dt);
  WheelResult r;
  std::vector<BodyMotion> motion(1);
  std::vector<Wrench> wrench(1);
  double soil_fz = 0.0, x = t.start_xy_m.x(), angle = 0.0;
  double sum_dp = 0.0, sum_tq = 0.0, sum_z = 0.0;
  long n_mean = 0;
  for (long s = 1; s <= settle + drive; ++s) {
    const bool driving = s > settle;
    const double v = driving ? t.speed_m_per_s : 0.0, w = driving ? omega : 0.0;
    // The step's motion: where the wheel starts, the velocities it takes (the soil answers at
    // the end pose they reach, scm::step).
    const Pose X_start = wheel_pose(t.shape, Vec3(x, t.start_xy_m.y(), rig.z_m), angle);
    rig.advance(soil_fz, t.load_n, dt);
    x += v * dt;
    angle += w * dt;
    r.stopped = wheel_out_of_bounds(model, t, x, rig.z_m, surface_z_m);
    if (!r.stopped.empty()) {
      r.stopped = fmt::format("step {} (t = {:.4f} s): {}; stopping", s,
                              static_cast<double>(s) * dt, r.stopped);
      break;
    }
    motion[0].X_WB = X_start;
    motion[0].V_WB.v_WBo = Vec3(v, 0.0, rig.vz_m_per_s);
    motion[0].V_WB.w_W = Vec3(0.0, w, 0.0);
    const ScmStepReport rep = step(model, state, motion, wrench, work);
    soil_fz = wrench[0].f_W.z();
    WheelSample sm;
    sm.time_s = state.time_s;
    sm.x_m = x;
    sm.sinkage_m = surface_z_m - (rig.z_m - t.radius_m);
    sm.drawbar_pull_n = wrench[0].f_W.x();
    sm.torque_nm = -wrench[0].tau_W.y();  // the drive torque that balances the soil's
    sm.vertical_force_n = soil_fz;
    sm.nodes_in_contact = rep.nodes_in_contact;
    sm.displaced_m3 = rep.displaced_volume_m3;
    sm.deposited_m3 = rep.deposited_volume_m3;
    sm.X_WB = wheel_pose(t.shape, Vec3(x, t.start_xy_m.y(), rig.z_m), angle);
    r.max_volume_error_m3 = std::max(r.max_volume_error_m3,
                                     std::abs(rep.displaced_volume_m3 - rep.deposited_volume_m3));
    r.samples.push_back(sm);
    if (s > settle + drive / 2) {
      sum_dp += sm.drawbar_pull_n;
      sum_tq += sm.torque_nm;
      sum_z += sm.sinkage_m;
      ++n_mean;
    }
    if (per_step) per_step(state, sm);
    r.steps = s;
  }
  if (n_mean > 0) {
    r.mean_drawbar_pull_n = sum_dp / static_cast<double>(n_mean);
    r.mean_torque_nm = sum_tq / static_cast<double>(n_mean);
    r.mean_sinkage_m = sum_z / static_cast<double>(n_mean);
  }
  return r;
}

}  // namespace talus::scm
