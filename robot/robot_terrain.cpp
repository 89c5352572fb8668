#include "robot/robot_terrain.hpp"

namespace talus::robot {

std::unique_ptr<RobotTerrain> read_robot_terrain(const ScenarioTable& root, const std::string& kind,
                                                 std::vector<CoupledBody> bodies, double dt_s) {
  if (kind == "particles") return read_particle_terrain(root, std::move(bodies), dt_s);
  return read_scm_terrain(root, std::move(bodies), dt_s);
}

}  // namespace talus::robot
