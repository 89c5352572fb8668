// SCM tier physics: plate sinkage against Bekker's closed form, volume conservation of the border
// path, slip-sinkage and drawbar pull against slip, multipass.

#include <gtest/gtest.h>

#include <cmath>

#include "core/units.hpp"
#include "scm/scm_rigs.hpp"

namespace talus::scm {
namespace {

ScmModel flat_map(double cell_m, double size_x_m, double size_y_m) {
  ScmModel m;
  m.cell_size_m = cell_m;
  m.nx = static_cast<int>(std::lround(size_x_m / cell_m)) + 1;
  m.ny = static_cast<int>(std::lround(size_y_m / cell_m)) + 1;
  m.soil = named_soil("dry_sand");
  m.method = FlowMethod::Border;
  m.time_step_s = 1e-3;
  return m;
}

TEST(ScmPhysics, PlateSinksToBekkerClosedForm) {
  ScmModel m = flat_map(0.01, 0.6, 0.6);
  PlateTest t;
  // Plate edges midway between nodes: 20 x 20 nodes of 1 cm^2 = the plate's 0.04 m^2 exactly.
  t.centre_xy_m = Vec2(0.305, 0.305);
  const PlateResult r = run_plate(m, t);
  EXPECT_NEAR(r.contact_area_m2, 0.04, 1e-12);
  EXPECT_GT(r.bekker_sinkage_m, 0.005);
  EXPECT_NEAR(r.final_sinkage_m / r.bekker_sinkage_m, 1.0, 0.02)
      << "sinkage " << r.final_sinkage_m << " Bekker " << r.bekker_sinkage_m;
}

TEST(ScmPhysics, PlateSinkageScalesWithLoadAsBekker) {
  ScmModel m = flat_map(0.01, 0.6, 0.6);
  m.soil = named_soil("lunar_regolith");
  PlateTest t;
  t.centre_xy_m = Vec2(0.305, 0.305);
  t.load_n = 2000.0;
  t.hold_s = 1.0;
  const PlateResult r = run_plate(m, t);
  EXPECT_NEAR(r.final_sinkage_m / r.bekker_sinkage_m, 1.0, 0.02)
      << "sinkage " << r.final_sinkage_m << " Bekker " << r.bekker_sinkage_m;
}

WheelTest wheel_at(double slip) {
  WheelTest t;
  t.slip = slip;
  t.start_xy_m = Vec2(0.4, 0.3);
  t.settle_s = 0.2;
  t.drive_s = 0.6;
  return t;
}

TEST(ScmPhysics, BorderPathConservesVolumeEveryStep) {
  const ScmModel m = flat_map(0.02, 1.2, 0.6);
  ScmState state(m);
  const WheelResult r = run_wheel(m, state, wheel_at(0.2), 0.0);
  double total = 0.0;
  for (const WheelSample& s : r.samples) {
    EXPECT_NEAR(s.deposited_m3, s.displaced_m3, 1e-12 * std::max(1.0, s.displaced_m3));
    total += s.displaced_m3;
  }
  EXPECT_GT(total, 1e-4);  // the wheel did displace soil
}

TEST(ScmPhysics, DrawbarPullAndSinkageRiseWithSlip) {
  const ScmModel m = flat_map(0.02, 1.2, 0.6);
  double last_dp = -1e9, last_z = -1e9;
  for (double slip : {0.05, 0.2, 0.5}) {
    ScmState state(m);
    const WheelResult r = run_wheel(m, state, wheel_at(slip), 0.0);
    std::printf("slip %.2f dp %.1f N torque %.1f Nm sinkage %.4f m\n", slip, r.mean_drawbar_pull_n,
                r.mean_torque_nm, r.mean_sinkage_m);
    EXPECT_GT(r.mean_drawbar_pull_n, last_dp) << "slip " << slip;
    EXPECT_GT(r.mean_sinkage_m, last_z) << "slip " << slip;
    last_dp = r.mean_drawbar_pull_n;
    last_z = r.mean_sinkage_m;
  }
}

TEST(ScmPhysics, SecondPassInRutHasLessDrawbarPull) {
  const ScmModel m = flat_map(0.02, 1.2, 0.6);
  ScmState state(m);
  const WheelResult first = run_wheel(m, state, wheel_at(0.2), 0.0);
  const WheelResult second = run_wheel(m, state, wheel_at(0.2), 0.0);
  std::printf("first dp %.1f z %.4f; second dp %.1f z %.4f\n", first.mean_drawbar_pull_n,
              first.mean_sinkage_m, second.mean_drawbar_pull_n, second.mean_sinkage_m);
  EXPECT_LT(second.mean_drawbar_pull_n, first.mean_drawbar_pull_n);
  // A fresh run over old soil: nodes left in contact by the first pass were released.
  EXPECT_LT(first.max_volume_error_m3, 1e-15);
  EXPECT_LT(second.max_volume_error_m3, 1e-15);
}

}  // namespace
}  // namespace talus::scm
