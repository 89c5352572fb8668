#pragma once
// The test rigs of the SCM scenarios and tests: a plate pressed by a dead load, and a single
// wheel on a test rig (paper 002 §4.2) with forward speed and spin prescribed and its vertical
// motion free under the load. Each integrates its free vertical DOF from the soil's wrench.

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "scm/scm_step.hpp"
#include "scm/vertical_rig.hpp"

namespace talus::scm {

struct PlateTest {
  Vec3 half_extents_m{0.1, 0.1, 0.02};  ///< the plate (a box)
  Vec2 centre_xy_m = Vec2::Zero();
  double load_n = 500.0;  ///< dead load W, reached by a linear ramp
  double ramp_s = 0.5;    ///< time to ramp the load from 0 to W
  double hold_s = 0.5;    ///< time at full load after the ramp
  /// Rig damper [N s/m]; 0 chooses the critical damping of the load on the Bekker soil
  /// stiffness at the closed-form sinkage, so the plate settles without overshooting.
  double damping_n_s_per_m = 0.0;
};

/// A rig run that stopped because the body left what SCM can model (scm_rigs.cpp,
/// rig_out_of_bounds): thrown by the scenario runner after it wrote the outputs up to the last
/// good step, which the CLI reports with exit code 1.
class ScmRunStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PlateResult {
  std::vector<double> time_s, load_n, soil_force_n, sinkage_m;
  double final_sinkage_m = 0.0;   ///< plate bottom below the initial surface at the end [m]
  double bekker_sinkage_m = 0.0;  ///< (W / (A (kc / b + kphi)))^(1/n), b = smaller plate side
  double contact_area_m2 = 0.0;   ///< nodes in contact times A_grid at the end
  long steps = 0;
  /// Why the run stopped early ("step 12 (t = 3.6000 s): the plate sank ..."), or empty. The
  /// series and the final state end at the last good step: the bad one is never stepped.
  std::string stopped;
};

/// Presses the plate into fresh soil of `model`. Stops early (PlateResult::stopped) when the rig
/// would sink the plate deeper than its smaller side (or its height, if taller) or its height is
/// not finite. (model.bodies is
/// replaced by the plate and Bekker's b by the plate's smaller side). The final state is left in
/// `final_state` when given. Throws like step().
PlateResult run_plate(ScmModel model, const PlateTest& test, ScmState* final_state = nullptr);

struct WheelTest {
  Shape shape = CylinderShape{0.25, 0.1};  ///< a cylinder (axis z, turned to y) or a WheelShape
  double radius_m = 0.25;                  ///< rolling radius for the slip ratio
  double load_n = 500.0;                   ///< vertical load W (total weight)
  double slip = 0.2;                       ///< i = 1 - v / (omega r)
  double speed_m_per_s = 0.5;              ///< forward speed v
  Vec2 start_xy_m{0.4, 0.5};               ///< axle position at the start [m]
  double settle_s = 0.2;                   ///< time under load before driving
  double drive_s = 0.6;                    ///< time driving
  double damping_n_s_per_m = 1500.0;       ///< rig damper
};

struct WheelSample {
  double time_s, x_m, sinkage_m, drawbar_pull_n, torque_nm, vertical_force_n;
  int nodes_in_contact;
  double displaced_m3, deposited_m3;
  Pose X_WB;  ///< the wheel's pose at the end of the step (axle, spin)
};

struct WheelResult {
  std::vector<WheelSample> samples;
  /// Means over the second half of the driving phase.
  double mean_drawbar_pull_n = 0.0, mean_torque_nm = 0.0, mean_sinkage_m = 0.0;
  double max_volume_error_m3 = 0.0;  ///< largest |displaced - deposited| of any step
  long steps = 0;
  std::string stopped;  ///< as PlateResult::stopped
};

/// Drives one wheel over `state` (its soil may already hold ruts: multipass). The wheel starts
/// with its lowest point on the surface level `surface_z_m`, sinks under the load for settle_s,
/// then drives along +x at the prescribed speed and spin. model.bodies is replaced by the wheel.
/// Stops early (WheelResult::stopped) when the wheel would sink more than its diameter, leave
/// the map or reach a height that is not finite.
/// `per_step`, when set, is called after every step.
WheelResult run_wheel(
    const ScmModel& model, ScmState& state, const WheelTest& test, double surface_z_m,
    const std::function<void(const ScmState&, const WheelSample&)>& per_step = {});

/// The wheel's model: `model` with the wheel as its one body (reference point at the axle).
ScmModel with_wheel(ScmModel model, const WheelTest& test);

}  // namespace talus::scm
