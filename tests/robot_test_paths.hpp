#pragma once
// Test helper: paths of the robot test models, and the message of the RobotError a callable throws.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "robot/coupling.hpp"
#include "robot/mujoco_model.hpp"

namespace talus::test_support {

inline std::filesystem::path robot_data(const std::string& name) {
  return std::filesystem::path(TALUS_SOURCE_DIR) / "tests" / "data" / "robot" / name;
}

/// The rover's four wheel bodies (robots/rover/rover.xml), front left to rear right.
inline const std::vector<std::string> kRoverWheels = {"wheel_fl", "wheel_fr", "wheel_rl",
                                                      "wheel_rr"};

/// A coupling entry for `body` with every other field at its default.
inline robot::CouplingEntry body_entry(const std::string& body) {
  robot::CouplingEntry e;
  e.body = body;
  return e;
}

inline std::filesystem::path rover_file() {
  return std::filesystem::path(TALUS_SOURCE_DIR) / "robots" / "rover" / "rover.xml";
}

/// Passes when `text` contains `part`; the failure shows both.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

template <class F>
std::string robot_error_of(F&& f) {
  try {
    f();
  } catch (const robot::RobotError& e) {
    return e.what();
  }
  return "";
}

}  // namespace talus::test_support
