#pragma once
// Single-stroke trench planner of the sand-shaping tier (paper 003 §4.1-4.3, §5.2).
//
// The sand is reduced to a binary map (paper 003 §4.2, Fig. 5): a cell is either dug to the
// trench depth or untouched. A blade is lowered at a start cell (which is dug at once) and then
// never leaves trench depth: every step moves it to one of the four neighbouring cells and digs
// that cell. A dug cell stays dug, so a path that enters a cell outside the goal can never produce
// the goal. The planner finds the shortest action sequence whose dug set equals the goal set.
//
// Search: A* over states (blade cell, dug set), with cost-so-far g = steps and one of two
// admissible cost-to-go estimates (TrenchHeuristic), optionally inflated by alpha >= 1 (weighted
// A*, paper §5.2). Goal cells are indexed in a 64-bit mask, so a goal has at most 64 cells.
// docs/trench_planner.md derives the heuristics and reports results on the letter maps.
//
// Grid convention: (row, col) with row 0 the TOP row of a map as drawn (as in an image), col 0
// the leftmost column. Cells are stored row-major. These maps are abstract planning grids; they
// carry no metric size. Mapping onto a HeightmapModel (row j counted from the bottom) is the
// caller's choice.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace talus::shaping {

struct GridCell {
  int row = 0;  ///< 0 = top row of the map as drawn
  int col = 0;  ///< 0 = leftmost column
  friend bool operator==(const GridCell&, const GridCell&) = default;
};

/// A binary map: 1 = goal (or dug) cell, 0 = untouched. rows x cols, row-major.
struct BinaryMap {
  int rows = 0;
  int cols = 0;
  std::vector<std::uint8_t> cells;  ///< rows * cols, row-major; 0 = clear, nonzero = set

  /// Parses rows of '#' (cell set) and '.' (cell clear). Throws std::invalid_argument naming the
  /// row and column of any other character, and naming the row of a ragged (shorter or longer)
  /// row; an empty list or empty rows are rejected too.
  static BinaryMap from_rows(const std::vector<std::string>& rows);

  int count() const;                         ///< number of set cells
  bool at(int r, int c) const;               ///< throws std::out_of_range outside the map
  std::vector<std::string> to_rows() const;  ///< inverse of from_rows
  friend bool operator==(const BinaryMap&, const BinaryMap&) = default;
};

enum class TrenchAction : std::uint8_t { Up, Down, Left, Right };  ///< Up = row - 1

const char* to_string(TrenchAction action);

enum class TrenchHeuristic {
  /// Paper 003 §4.2: h = w * |H_goal - H_t| = number of goal cells not yet dug (w = 1: one step
  /// digs at most one cell). Admissible and consistent.
  CellsRemaining,
  /// CellsRemaining plus a lower bound on the steps that must be wasted re-entering dug cells:
  /// (distance from the blade to the nearest undug cell - 1) + (a lower bound on the number of
  /// vertex-disjoint paths covering the undug cells, with the blade cell as a path end - 1).
  /// Admissible (proof in docs/trench_planner.md), not always consistent (the search re-opens).
  PathCover,
};

struct TrenchPlanOptions {
  TrenchHeuristic heuristic = TrenchHeuristic::PathCover;
  /// f = g + alpha * h. alpha = 1 gives optimal plans; alpha > 1 (weighted A*) usually opens
  /// fewer nodes and returns a plan at most alpha times longer than optimal. Must be >= 1.
  double alpha = 1.0;
  /// Cell where the blade is lowered; must be a goal cell. Empty: the planner chooses the start
  /// (a virtual root whose successors are the start states at every goal cell).
  std::optional<GridCell> start;
  /// The search gives up (found = false) after expanding this many nodes.
  std::uint64_t max_expansions = 50'000'000;
};

struct TrenchPlan {
  bool found = false;
  /// Empty when found; otherwise why not (goal not 4-connected, expansion limit reached).
  std::string failure;
  GridCell start;                     ///< where the blade is lowered (given or chosen)
  std::vector<TrenchAction> actions;  ///< one per step
  std::vector<GridCell> cells;        ///< start, then the cell entered by each action
  int steps = 0;                      ///< actions.size()
  /// States popped from the open list and expanded (the goal state, popped last, is not
  /// expanded and not counted; the free start's virtual root is not counted either).
  std::uint64_t nodes_expanded = 0;
  /// States pushed onto the open list: the start state(s) (every goal cell for a free start)
  /// and every successor that improved the best known cost of its state.
  std::uint64_t nodes_generated = 0;
};

/// Plans the shortest single stroke that digs exactly the goal's cells. Throws
/// std::invalid_argument for an empty goal, a goal of more than 64 cells, a cells vector of the
/// wrong size, alpha < 1 (or not finite), or a start outside the map or outside the goal. A goal
/// that is not 4-connected cannot be dug in one stroke: found = false, without searching.
TrenchPlan plan_single_stroke_trench(const BinaryMap& goal, const TrenchPlanOptions& options = {});

/// The dug map after lowering the blade at start and taking the actions on a rows x cols map.
/// Throws std::invalid_argument if start or any step leaves the map (naming the step).
BinaryMap replay_trench(int rows, int cols, GridCell start,
                        const std::vector<TrenchAction>& actions);

/// Breadth-first search over (blade cell, dug set), written independently of the A* code, as a
/// reference for tests: the fewest steps that dig exactly the goal from the given start (or the
/// best start when none is given); -1 when impossible. Exponential: meant for small maps (about
/// 20 goal cells). Same input errors as plan_single_stroke_trench.
int exhaustive_min_steps(const BinaryMap& goal, std::optional<GridCell> start);

/// Breadth-first search as exhaustive_min_steps, from a mid-plan state: the blade at position
/// with the cells of dug already dug (position must be one of them). The true cost-to-go that
/// an admissible heuristic must not exceed; -1 when the goal can no longer be reached (a dug cell
/// outside the goal).
int exhaustive_cost_to_go(const BinaryMap& goal, const BinaryMap& dug, GridCell position);

/// The planner's heuristic (unweighted, alpha = 1) at a state, for tests and diagnostics. dug
/// must be a subset of goal containing position, on a map of the goal's size.
int trench_heuristic(const BinaryMap& goal, const BinaryMap& dug, GridCell position,
                     TrenchHeuristic heuristic);

}  // namespace talus::shaping
