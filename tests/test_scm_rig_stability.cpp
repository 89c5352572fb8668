// The SCM rigs' time-step limit (scm/rig_stability.hpp) against the rigs themselves: below it the
// plate settles to Bekker's sinkage, at twice it the run does not; past what SCM models the rig
// stops with the step and the reason instead of reporting garbage (issue 16).

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/scenario_file.hpp"
#include "scm/rig_stability.hpp"
#include "scm/scm_rigs.hpp"
#include "scm/scm_scenario.hpp"

namespace talus::scm {
namespace {

ScmScenario shipped(const char* name) {
  const auto doc =
      ScenarioDocument::load(std::filesystem::path(TALUS_SOURCE_DIR) / "scenarios" / "scm" / name);
  return load_scm_scenario(doc->root());
}

TEST(ScmRigStability, ThePlateSettlesBelowTheLimitAndNotAtTwiceIt) {
  ScmScenario sc = shipped("plate_sinkage.toml");
  const double limit = plate_rig_dt_max_s(sc.model.soil, sc.plate);
  EXPECT_GT(limit, 0.02);  // the shipped 1 ms step is far inside
  EXPECT_LT(limit, 0.04);
  sc.model.time_step_s = 0.7 * limit;
  const PlateResult below = run_plate(sc.model, sc.plate);
  EXPECT_TRUE(below.stopped.empty()) << below.stopped;
  EXPECT_NEAR(below.final_sinkage_m, below.bekker_sinkage_m, 1e-3 * below.bekker_sinkage_m);
  sc.model.time_step_s = 2.0 * limit;
  const PlateResult above = run_plate(sc.model, sc.plate);
  const bool settled =
      above.stopped.empty() &&
      std::abs(above.final_sinkage_m - above.bekker_sinkage_m) < 0.01 * above.bekker_sinkage_m;
  EXPECT_FALSE(settled) << above.final_sinkage_m << " vs " << above.bekker_sinkage_m;
}

TEST(ScmRigStability, TheWheelRunsBelowTheLimitAndStopsNamingTheStepFarAboveIt) {
  ScmScenario sc = shipped("single_wheel.toml");
  const double limit = wheel_rig_dt_max_s(sc.model.soil, sc.wheel);
  EXPECT_GT(limit, 0.03);
  EXPECT_LT(limit, 0.07);
  sc.model.time_step_s = 0.4 * limit;
  ScmState below_state(sc.model);
  const WheelResult below = run_wheel(sc.model, below_state, sc.wheel, sc.model.base_height_m);
  EXPECT_TRUE(below.stopped.empty()) << below.stopped;
  EXPECT_LT(below.mean_sinkage_m, 0.05);
  sc.model.time_step_s = 0.3;  // issue 16: sank 2,362,509 m and exited 0
  ScmState above_state(sc.model);
  const WheelResult above = run_wheel(sc.model, above_state, sc.wheel, sc.model.base_height_m);
  EXPECT_EQ(above.stopped.rfind("step 1 (t = 0.3000 s): the wheel would sink", 0), 0u)
      << above.stopped;
  EXPECT_EQ(above.steps, 0);
  EXPECT_TRUE(above.samples.empty());  // the bad step was never taken
}

}  // namespace
}  // namespace talus::scm
