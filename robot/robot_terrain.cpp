#include "robot/robot_terrain.hpp"

namespace talus::robot {

std::unique_ptr<RobotTerrain> read_robot_terrain(const ScenarioTable& root, const std::string& kind,
                                                 RobotScenario& robot, double dt_s) {
  if (kind == "particles") return read_particle_terrain(root, tier_bodies(robot.links), dt_s);
  if (kind == "wrench") return read_wrench_terrain(root, robot);
  return read_scm_terrain(root, tier_bodies(robot.links), dt_s);
}

}  // namespace talus::robot
