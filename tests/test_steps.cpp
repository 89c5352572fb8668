// The one rule that turns durations into step counts (core/steps.hpp), bounded in one place.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/scenario_file.hpp"
#include "core/steps.hpp"

namespace talus {
namespace {

TEST(StepsFor, CoversTheDurationAndTakesWholeNumbersOfStepsExactly) {
  EXPECT_EQ(steps_for(1.0, 0.001), 1000);  // 1000.0000000000001 in binary: not 1001
  EXPECT_EQ(steps_for(0.3, 0.1), 3);       // 2.9999999999999996: not 2
  EXPECT_EQ(steps_for(7.0, 0.03), 234);    // 233.33: the last step covers the rest
  EXPECT_EQ(steps_for(0.0, 0.01), 0);
  EXPECT_EQ(steps_for(0.004, 0.01), 1);  // part of a step is a step
  EXPECT_EQ(steps_for(1e-12, 0.01), 0);  // within the tolerance of no step
  EXPECT_EQ(steps_for(1e6, 1e-3), kMaxStepsPerRun);
}

TEST(StepsFor, RefusesCountsPastTheBoundAndNumbersThatAreNotTimes) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& [duration, dt] :
       {std::pair{1.0, 1e-300}, std::pair{1e6, 0.999e-3}, std::pair{1.0, 0.0},
        std::pair{1.0, -1e-3}, std::pair{1.0, nan}, std::pair{nan, 1e-3}, std::pair{inf, 1e-3},
        std::pair{-1.0, 1e-3}}) {
    EXPECT_THROW(steps_for(duration, dt), std::invalid_argument) << duration << " / " << dt;
  }
  try {
    steps_for(0.3, 1e-300);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "0.3 s in steps of 1e-300 s is 3e+299 steps, more than the 1e+09 a run "
                 "may take");
  }
}

TEST(StepsFor, ScenarioFormNamesTheFileLineAndKey) {
  const auto doc = ScenarioDocument::parse("[simulation]\ntime_step_s = 1e-300\n", "s.toml");
  const ScenarioTable sim = doc->root().table("simulation");
  try {
    steps_for(sim, "time_step_s", 2.0, 1e-300);
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("s.toml:2:15: simulation.time_step_s: 2 s in steps", 0),
              0u)
        << e.what();
  }
  EXPECT_EQ(steps_for(sim, "time_step_s", 2.0, 0.5), 4);
}

}  // namespace
}  // namespace talus
