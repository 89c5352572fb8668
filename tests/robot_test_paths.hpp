#pragma once
// Test helpers: paths of the robot test models, the message of the RobotError a callable throws,
// and the velocity of a free body.

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

/// The linear velocity of the model's first free joint (qvel[0..2]) [m/s]: the ball of the
/// coupling tests' models.
inline Vec3 first_free_joint_velocity(const robot::MujocoModel& robot) {
  const double* v = robot.data()->qvel;
  return Vec3(v[0], v[1], v[2]);
}

}  // namespace talus::test_support
