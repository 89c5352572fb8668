#include "shaping/trench_env.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace talus::shaping {

namespace {

std::size_t index_of(const BinaryMap& map, GridCell cell) {
  return static_cast<std::size_t>(cell.row) * static_cast<std::size_t>(map.cols) +
         static_cast<std::size_t>(cell.col);
}

// Digs `cell`; returns the change of the L1 distance to the goal (-1, 0 or +1).
int dig(const BinaryMap& goal, TrenchEnvState& s, GridCell cell) {
  const std::size_t k = index_of(goal, cell);
  if (s.dug.cells[k]) return 0;
  s.dug.cells[k] = 1;
  if (goal.cells[k]) return -1;
  ++s.dug_outside;
  return +1;
}

}  // namespace

TrenchEnvState trench_env_reset(const BinaryMap& goal, GridCell start) {
  if (goal.rows < 1 || goal.cols < 1 ||
      goal.cells.size() !=
          static_cast<std::size_t>(goal.rows) * static_cast<std::size_t>(goal.cols)) {
    throw std::invalid_argument(fmt::format("trench env: goal of {} x {} cells holds {} values",
                                            goal.rows, goal.cols, goal.cells.size()));
  }
  if (goal.count() == 0) throw std::invalid_argument("trench env: the goal has no cell to dig");
  if (start.row < 0 || start.row >= goal.rows || start.col < 0 || start.col >= goal.cols) {
    throw std::invalid_argument(fmt::format("trench env: start ({}, {}) is outside the {} x {} map",
                                            start.row, start.col, goal.rows, goal.cols));
  }
  TrenchEnvState s;
  s.dug.rows = goal.rows;
  s.dug.cols = goal.cols;
  s.dug.cells.assign(goal.cells.size(), 0);
  s.blade = start;
  s.l1_to_goal = goal.count();
  s.l1_to_goal += dig(goal, s, start);
  return s;
}

std::optional<GridCell> trench_move_target(const BinaryMap& goal, GridCell from,
                                           TrenchAction action) {
  GridCell next = from;
  switch (action) {
    case TrenchAction::Up:
      --next.row;
      break;
    case TrenchAction::Down:
      ++next.row;
      break;
    case TrenchAction::Left:
      --next.col;
      break;
    case TrenchAction::Right:
      ++next.col;
      break;
  }
  if (next.row < 0 || next.row >= goal.rows || next.col < 0 || next.col >= goal.cols) {
    return std::nullopt;
  }
  return next;
}

TrenchEnvStep trench_env_step(const BinaryMap& goal, TrenchEnvState& s, TrenchAction action) {
  TrenchEnvStep out;
  ++s.steps;
  const std::optional<GridCell> next = trench_move_target(goal, s.blade, action);
  if (!next) {
    out.moved = false;
  } else {
    s.blade = *next;
    const int change = dig(goal, s, *next);
    s.l1_to_goal += change;
    out.l1_decrease = -change;
  }
  out.reached = s.l1_to_goal == 0;
  return out;
}

}  // namespace talus::shaping
