#pragma once
// The terrain of a robots-tier scenario (robot/robot_run.cpp): the tier the robot's coupled links
// touch, the undisturbed surface that the placement check and the sinkage are measured from, and
// the terrain's own pictures. One implementation per terrain tier:
//   "scm"        SCM soil from [grid], [soil], [flow]                 (robot_terrain_scm.cpp)
//   "particles"  a particle bed from [particles], [bed], [container],
//                [solver], [settle] (robot_terrain_particles.cpp), stepping with the tier step
//   "wrench"     wrench spaces (paper 000) from [wrench_space], the coupled links being feet
//                (robot_terrain_wrench.cpp)
// chosen by [scenario] terrain (default "scm"). docs/rover.md lists the keys.

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "core/contact_tier.hpp"
#include "core/output_dir.hpp"
#include "core/progress.hpp"
#include "core/scenario_file.hpp"
#include "core/view_recorder.hpp"
#include "robot/robot_scenario.hpp"

namespace talus::robot {

class RobotTerrain {
 public:
  virtual ~RobotTerrain() = default;

  /// The tier the coupled links touch (its bodies are the links, in order).
  virtual ContactTier& tier() = 0;

  /// Brings the terrain to its starting state with the bodies held at `start` (their initial
  /// motions; twists are ignored): a particle bed settles under gravity, SCM soil has nothing to
  /// do. Returns the summary's fields about it. Called once, before the first coupled step.
  virtual nlohmann::json prepare(std::span<const BodyMotion> start,
                                 const RunProgress& progress) = 0;

  /// The undisturbed surface height z [m] at world (x, y) [m]: the base terrain for SCM, the
  /// settled bed's free surface for particles (before prepare(): the bed as filled).
  virtual double surface_z(double x_W, double y_W) const = 0;

  /// Whether world (x, y) [m] lies over the terrain (the SCM map, the particle container's box; no
  /// container: everywhere). A robot link outside it stops the run (robot_run.cpp).
  virtual bool covers_xy(double x_W, double y_W) const = 0;

  /// Steps that prepare() may take at most (for progress reports).
  virtual long preparation_steps() const = 0;

  /// Adds the terrain's part of the scene `talus view` draws to `layout`: its particles, or its
  /// surface as a heightmap (SCM soil; the wrench tier's profile, from 1 m behind
  /// `robot_start_W` to 3 m ahead of it).
  virtual void view_layout(ViewLayout& layout, const Vec3& robot_start_W) const = 0;

  /// The terrain's part of a view frame: its particle arrays into `frame` (views of its state,
  /// valid until the next step) and its heights into `heights_m` (as many as the layout's grid).
  virtual void view_frame(ViewFrame& frame, std::vector<double>& heights_m) const = 0;

  /// Writes the terrain's pictures of the end of the run into `out` (the bodies at `end`) and
  /// returns the summary's terrain fields.
  virtual nlohmann::json finish(OutputDir& out, const std::string& title,
                                std::span<const BodyMotion> end) = 0;
};

/// Reads the terrain tables of `root` for terrain kind `kind` (robot_terrain_kinds()) and builds
/// its tier with the robot's coupled links as bodies and tier step `dt_s` [s] (MuJoCo's step x
/// mujoco_steps_per_tier_step). The wrench terrain reads the robot's inertia at its feet (MuJoCo's
/// data are recomputed for the initial state). Bad input fails with a ScenarioError naming file,
/// line and key.
std::unique_ptr<RobotTerrain> read_robot_terrain(const ScenarioTable& root, const std::string& kind,
                                                 RobotScenario& robot, double dt_s);

/// The terrain kinds read_robot_terrain knows.
inline const std::vector<std::string>& robot_terrain_kinds() {
  static const std::vector<std::string> kinds = {"scm", "particles", "wrench"};
  return kinds;
}

// The implementations (robot_terrain_scm.cpp, robot_terrain_particles.cpp,
// robot_terrain_wrench.cpp).
std::unique_ptr<RobotTerrain> read_scm_terrain(const ScenarioTable& root,
                                               std::vector<CoupledBody> bodies, double dt_s);
std::unique_ptr<RobotTerrain> read_particle_terrain(const ScenarioTable& root,
                                                    std::vector<CoupledBody> bodies, double dt_s);
std::unique_ptr<RobotTerrain> read_wrench_terrain(const ScenarioTable& root, RobotScenario& robot);

}  // namespace talus::robot
