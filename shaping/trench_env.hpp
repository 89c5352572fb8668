#pragma once
// The dynamics of the single-stroke trench environment (paper 003 §4.1-4.3, ShapingTrench-v0 in
// talus.envs) on the paper's binary map: the blade is lowered at a start cell, which is dug at
// once, and each step moves it to one of the four neighbouring cells, digging that cell (the
// planner's model, trench_planner.hpp). The reward the paper gives is the decrease of the L1
// distance between the dug map and the goal map; a step digs at most one cell, so it is +1 (a goal
// cell dug), 0 (a cell dug before, or a move off the map, which leaves the blade in place) or -1 (a
// cell outside the goal dug: the goal can no longer be reached).

#include <optional>

#include "shaping/trench_planner.hpp"

namespace talus::shaping {

/// Everything a trench episode's next step reads.
struct TrenchEnvState {
  BinaryMap dug;        ///< cells dug so far (goal-sized)
  GridCell blade;       ///< the blade's cell
  int steps = 0;        ///< moves taken since the blade was lowered
  int l1_to_goal = 0;   ///< |dug - goal|_1: cells that differ from the goal
  int dug_outside = 0;  ///< cells dug outside the goal (the goal is out of reach when > 0)
};

/// The outcome of one move.
struct TrenchEnvStep {
  int l1_decrease = 0;   ///< the paper's reward: L1 distance before minus after (+1, 0 or -1)
  bool moved = true;     ///< false when the move would have left the map (the blade stays)
  bool reached = false;  ///< the dug map equals the goal
};

/// Lowers the blade at `start` on an undug map of the goal's size. Throws std::invalid_argument
/// for an empty goal, a cells vector of the wrong size, or a start outside the map.
TrenchEnvState trench_env_reset(const BinaryMap& goal, GridCell start);

/// The cell a move from `from` leads to, or nullopt when it would leave the goal's map.
std::optional<GridCell> trench_move_target(const BinaryMap& goal, GridCell from,
                                           TrenchAction action);

/// One move of the blade. Assumes `state` came from trench_env_reset with this goal.
TrenchEnvStep trench_env_step(const BinaryMap& goal, TrenchEnvState& state, TrenchAction action);

}  // namespace talus::shaping
