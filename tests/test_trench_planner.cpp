// Tests of the single-stroke trench planner (shaping/trench_planner.hpp) and the letter maps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "shaping/letter_maps.hpp"
#include "shaping/trench_planner.hpp"

namespace talus::shaping {
namespace {

const std::vector<char> kLetters = {'A', 'S', 'T', 'R'};
constexpr std::array<TrenchHeuristic, 2> kHeuristics = {TrenchHeuristic::CellsRemaining,
                                                        TrenchHeuristic::PathCover};

const char* name(TrenchHeuristic h) {
  return h == TrenchHeuristic::PathCover ? "PathCover" : "CellsRemaining";
}

// Expects fn() to throw std::invalid_argument whose message contains every part.
template <class Fn>
void expect_invalid(Fn fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const std::string& p : parts)
      EXPECT_NE(what.find(p), std::string::npos) << "message: " << what;
  }
}

// A random 4-connected goal of `cells` cells on a rows x cols map, grown from a random cell by
// adding random neighbours of the cells so far. Uses rng() % n only, so it is portable.
BinaryMap random_connected_map(std::mt19937_64& rng, int rows, int cols, int cells) {
  BinaryMap m{rows, cols, std::vector<std::uint8_t>(static_cast<std::size_t>(rows * cols), 0)};
  auto idx = [&](int r, int c) { return static_cast<std::size_t>(r * cols + c); };
  m.cells[rng() % m.cells.size()] = 1;
  for (int have = 1; have < cells;) {
    std::vector<std::size_t> frontier;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        if (m.cells[idx(r, c)]) continue;
        const bool touches =
            (r > 0 && m.cells[idx(r - 1, c)]) || (r + 1 < rows && m.cells[idx(r + 1, c)]) ||
            (c > 0 && m.cells[idx(r, c - 1)]) || (c + 1 < cols && m.cells[idx(r, c + 1)]);
        if (touches) frontier.push_back(idx(r, c));
      }
    m.cells[frontier[rng() % frontier.size()]] = 1;
    ++have;
  }
  return m;
}

std::vector<GridCell> goal_cells(const BinaryMap& m) {
  std::vector<GridCell> out;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c)
      if (m.at(r, c)) out.push_back({r, c});
  return out;
}

// A mid-plan state: the blade lowered at a random goal cell, then `steps` random moves among goal
// cells. Returns the dug map and sets position.
BinaryMap random_state(std::mt19937_64& rng, const BinaryMap& goal, int steps, GridCell& position) {
  const std::vector<GridCell> cells = goal_cells(goal);
  position = cells[rng() % cells.size()];
  BinaryMap dug{goal.rows, goal.cols, std::vector<std::uint8_t>(goal.cells.size(), 0)};
  dug.cells[static_cast<std::size_t>(position.row * goal.cols + position.col)] = 1;
  for (int s = 0; s < steps; ++s) {
    std::vector<GridCell> next;
    for (const GridCell d : {GridCell{-1, 0}, GridCell{1, 0}, GridCell{0, -1}, GridCell{0, 1}}) {
      const GridCell q{position.row + d.row, position.col + d.col};
      if (q.row >= 0 && q.row < goal.rows && q.col >= 0 && q.col < goal.cols &&
          goal.at(q.row, q.col))
        next.push_back(q);
    }
    if (next.empty()) break;
    position = next[rng() % next.size()];
    dug.cells[static_cast<std::size_t>(position.row * goal.cols + position.col)] = 1;
  }
  return dug;
}

void expect_valid_plan(const BinaryMap& goal, const TrenchPlan& plan) {
  ASSERT_TRUE(plan.found) << plan.failure;
  EXPECT_TRUE(plan.failure.empty());
  EXPECT_EQ(plan.steps, static_cast<int>(plan.actions.size()));
  ASSERT_EQ(plan.cells.size(), plan.actions.size() + 1);
  EXPECT_EQ(plan.cells.front(), plan.start);
  EXPECT_EQ(replay_trench(goal.rows, goal.cols, plan.start, plan.actions), goal);
}

// ------------------------------------------------------------------------------------------------

TEST(TrenchMap, FromRowsParsesAndRoundTrips) {
  const std::vector<std::string> rows = {"#..", ".##", "..#"};
  const BinaryMap m = BinaryMap::from_rows(rows);
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 3);
  EXPECT_EQ(m.count(), 4);
  EXPECT_TRUE(m.at(0, 0));
  EXPECT_FALSE(m.at(0, 1));
  EXPECT_TRUE(m.at(1, 2));
  EXPECT_EQ(m.to_rows(), rows);
  EXPECT_THROW((void)m.at(3, 0), std::out_of_range);
  EXPECT_THROW((void)m.at(0, -1), std::out_of_range);
}

TEST(TrenchMap, FromRowsNamesBadCharactersAndRaggedRows) {
  expect_invalid([] { BinaryMap::from_rows({"##.", "#x."}); }, {"row 1", "column 1", "'x'"});
  expect_invalid(
      [] {
        BinaryMap::from_rows({"###", "##", "###"});
      },
      {"row 1", "2 characters", "expected 3"});
  expect_invalid([] { BinaryMap::from_rows({}); }, {"no rows"});
  expect_invalid([] { BinaryMap::from_rows({""}); }, {"row 0", "empty"});
}

TEST(TrenchReplay, DigsStartAndEveryCellEntered) {
  const BinaryMap dug = replay_trench(3, 4, {1, 0},
                                      {TrenchAction::Right, TrenchAction::Up, TrenchAction::Right,
                                       TrenchAction::Down, TrenchAction::Down, TrenchAction::Left});
  EXPECT_EQ(dug.to_rows(), (std::vector<std::string>{".##.", "###.", ".##."}));
  EXPECT_STREQ(to_string(TrenchAction::Up), "up");
  EXPECT_STREQ(to_string(TrenchAction::Left), "left");
}

TEST(TrenchReplay, LeavingTheMapNamesTheStep) {
  expect_invalid(
      [] {
        replay_trench(2, 2, {0, 0}, {TrenchAction::Right, TrenchAction::Right});
      },
      {"step 1", "right", "leaves the 2x2 map"});
  expect_invalid([] { replay_trench(2, 2, {2, 0}, {}); }, {"start", "outside"});
}

// The cells of `m` reachable from its first set cell through 4-neighbours.
int four_connected_cells(const BinaryMap& m) {
  std::vector<std::uint8_t> seen(m.cells.size(), 0);
  std::vector<int> stack;
  for (int k = 0; k < static_cast<int>(m.cells.size()) && stack.empty(); ++k) {
    if (m.cells[static_cast<std::size_t>(k)]) stack.push_back(k);
  }
  int count = 0;
  while (!stack.empty()) {
    const int k = stack.back();
    stack.pop_back();
    if (seen[static_cast<std::size_t>(k)]) continue;
    seen[static_cast<std::size_t>(k)] = 1;
    ++count;
    const int r = k / m.cols, c = k % m.cols;
    const int next[4][2] = {{r - 1, c}, {r + 1, c}, {r, c - 1}, {r, c + 1}};
    for (const auto& n : next) {
      if (n[0] >= 0 && n[0] < m.rows && n[1] >= 0 && n[1] < m.cols && m.at(n[0], n[1])) {
        stack.push_back(n[0] * m.cols + n[1]);
      }
    }
  }
  return count;
}

TEST(TrenchLetters, MapsAreSevenBySevenAndConnected) {
  EXPECT_EQ(letter_map_names(),
            "A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z");
  for (char l = 'A'; l <= 'Z'; ++l) {
    SCOPED_TRACE(std::string("letter ") + l);
    const BinaryMap m = letter_map(l);
    EXPECT_EQ(m.rows, 7);
    EXPECT_EQ(m.cols, 7);
    EXPECT_EQ(letter_map(static_cast<char>(l - 'A' + 'a')), m);  // lower case works too
    EXPECT_GE(m.count(), 10);
    EXPECT_EQ(four_connected_cells(m), m.count());  // one stroke can dig it
  }
  expect_invalid([] { letter_map('1'); }, {"'1'", "A, B, C"});
}

// Every letter, both heuristics, free start: the plan replays to exactly the goal, its length
// equals the exhaustive optimum, and PathCover opens no more nodes than the paper's heuristic.
TEST(TrenchPlanner, LettersAreOptimalAndPathCoverOpensFewerNodes) {
  const std::vector<int> expected_steps = {22, 28, 18, 25};  // docs/trench_planner.md
  std::uint64_t total_cells_remaining = 0, total_path_cover = 0;
  for (std::size_t i = 0; i < kLetters.size(); ++i) {
    SCOPED_TRACE(std::string("letter ") + kLetters[i]);
    const BinaryMap goal = letter_map(kLetters[i]);
    const int optimum = exhaustive_min_steps(goal, std::nullopt);
    EXPECT_EQ(optimum, expected_steps[i]);
    std::uint64_t expanded[2] = {0, 0};
    for (std::size_t h = 0; h < 2; ++h) {
      TrenchPlanOptions options;
      options.heuristic = kHeuristics[h];
      const TrenchPlan plan = plan_single_stroke_trench(goal, options);
      expect_valid_plan(goal, plan);
      EXPECT_EQ(plan.steps, optimum) << name(kHeuristics[h]);
      EXPECT_GE(plan.nodes_generated, plan.nodes_expanded);
      expanded[h] = plan.nodes_expanded;
    }
    EXPECT_LE(expanded[1], expanded[0]);
    total_cells_remaining += expanded[0];
    total_path_cover += expanded[1];
  }
  EXPECT_LT(total_path_cover, total_cells_remaining);
}

// A* (both heuristics, alpha = 1, free and given start) against the independent breadth-first
// search on a few hundred small random connected maps.
TEST(TrenchPlanner, MatchesExhaustiveSearchOnRandomMaps) {
  std::mt19937_64 rng(20240603);
  std::uint64_t expanded[2] = {0, 0};
  int maps = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const bool big = trial % 2 == 1;
    const int side = big ? 5 : 4;
    const int cells = big ? 6 + static_cast<int>(rng() % 10) : 2 + static_cast<int>(rng() % 11);
    const BinaryMap goal = random_connected_map(rng, side, side, cells);
    const std::vector<GridCell> all = goal_cells(goal);
    const GridCell start = all[rng() % all.size()];
    const int free_optimum = exhaustive_min_steps(goal, std::nullopt);
    const int start_optimum = exhaustive_min_steps(goal, start);
    ASSERT_GE(free_optimum, cells - 1);
    ASSERT_GE(start_optimum, free_optimum);
    for (std::size_t h = 0; h < 2; ++h) {
      TrenchPlanOptions options;
      options.heuristic = kHeuristics[h];
      const TrenchPlan free_plan = plan_single_stroke_trench(goal, options);
      expect_valid_plan(goal, free_plan);
      EXPECT_EQ(free_plan.steps, free_optimum) << name(kHeuristics[h]) << " trial " << trial;
      options.start = start;
      const TrenchPlan start_plan = plan_single_stroke_trench(goal, options);
      expect_valid_plan(goal, start_plan);
      EXPECT_EQ(start_plan.start, start);
      EXPECT_EQ(start_plan.steps, start_optimum) << name(kHeuristics[h]) << " trial " << trial;
      expanded[h] += free_plan.nodes_expanded + start_plan.nodes_expanded;
    }
    ++maps;
  }
  EXPECT_EQ(maps, 300);
  EXPECT_LT(expanded[1], expanded[0]);
}

// Neither heuristic ever exceeds the true cost-to-go (exhaustive search from the state); PathCover
// dominates CellsRemaining and is often exact.
TEST(TrenchPlanner, HeuristicsAreAdmissibleAtSampledStates) {
  std::mt19937_64 rng(7);
  int states = 0, path_cover_stronger = 0, path_cover_exact = 0;
  auto check = [&](const BinaryMap& goal, const BinaryMap& dug, GridCell position) {
    const int truth = exhaustive_cost_to_go(goal, dug, position);
    ASSERT_GE(truth, 0);
    const int cr = trench_heuristic(goal, dug, position, TrenchHeuristic::CellsRemaining);
    const int pc = trench_heuristic(goal, dug, position, TrenchHeuristic::PathCover);
    EXPECT_EQ(cr, goal.count() - dug.count());
    EXPECT_LE(cr, truth);
    EXPECT_LE(pc, truth) << "goal:\n"
                         << ::testing::PrintToString(goal.to_rows()) << "\ndug:\n"
                         << ::testing::PrintToString(dug.to_rows()) << "\nat " << position.row
                         << "," << position.col;
    EXPECT_GE(pc, cr);
    path_cover_stronger += pc > cr;
    path_cover_exact += pc == truth;
    ++states;
  };
  for (int trial = 0; trial < 250; ++trial) {
    const int side = trial % 2 ? 5 : 4;
    const BinaryMap goal = random_connected_map(rng, side, side, 3 + static_cast<int>(rng() % 12));
    for (int k = 0; k < 6; ++k) {
      GridCell position;
      const BinaryMap dug =
          random_state(rng, goal, static_cast<int>(rng() % (2 * goal.count())), position);
      check(goal, dug, position);
    }
  }
  for (char l : kLetters) {  // larger, structured maps: fewer samples, each search is bigger
    const BinaryMap goal = letter_map(l);
    for (int k = 0; k < 8; ++k) {
      GridCell position;
      const BinaryMap dug = random_state(rng, goal, 8 + static_cast<int>(rng() % 30), position);
      check(goal, dug, position);
    }
  }
  EXPECT_EQ(states, 250 * 6 + 4 * 8);
  EXPECT_GT(path_cover_stronger, states / 4);
  EXPECT_GT(path_cover_exact, states / 2);
}

TEST(TrenchPlanner, HeuristicValuesOnSimpleStates) {
  // A plus sign: centre and four arms of length 1. Standing on the centre with only it dug, the
  // four arm tips each end a path: at least 2 paths with the centre as an end -> one must be
  // revisited; in fact 4 + 3 wasted (go out and back three times) = 7 steps.
  const BinaryMap plus = BinaryMap::from_rows({".#.", "###", ".#."});
  const BinaryMap centre = BinaryMap::from_rows({"...", ".#.", "..."});
  EXPECT_EQ(exhaustive_cost_to_go(plus, centre, {1, 1}), 7);
  EXPECT_EQ(trench_heuristic(plus, centre, {1, 1}, TrenchHeuristic::CellsRemaining), 4);
  // Colours: 4 arm cells of one colour, no cell of the other -> 4 one-cell paths, the blade
  // joins one: 4 undug + 3 extra paths = 7, exact.
  EXPECT_EQ(trench_heuristic(plus, centre, {1, 1}, TrenchHeuristic::PathCover), 7);
  EXPECT_EQ(trench_heuristic(plus, plus, {1, 1}, TrenchHeuristic::PathCover), 0);
  // Far from the undug cells: a 1x5 line, blade at the left end, only the right end undug.
  const BinaryMap line = BinaryMap::from_rows({"#####"});
  const BinaryMap most = BinaryMap::from_rows({"####."});
  EXPECT_EQ(trench_heuristic(line, most, {0, 0}, TrenchHeuristic::PathCover), 4);
  EXPECT_EQ(exhaustive_cost_to_go(line, most, {0, 0}), 4);
  expect_invalid(
      [&] {
        trench_heuristic(line, centre, {0, 0}, TrenchHeuristic::PathCover);
      },
      {"differ in size"});
}

TEST(TrenchPlanner, RunsAreBitIdentical) {
  for (TrenchHeuristic h : kHeuristics) {
    TrenchPlanOptions options;
    options.heuristic = h;
    const TrenchPlan a = plan_single_stroke_trench(letter_map('S'), options);
    const TrenchPlan b = plan_single_stroke_trench(letter_map('S'), options);
    EXPECT_EQ(a.actions, b.actions);
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.nodes_expanded, b.nodes_expanded);
    EXPECT_EQ(a.nodes_generated, b.nodes_generated);
  }
}

TEST(TrenchPlanner, WeightedSearchStillReachesTheGoalWithinAlphaOfOptimal) {
  for (char l : kLetters) {
    const BinaryMap goal = letter_map(l);
    const int optimum = exhaustive_min_steps(goal, std::nullopt);
    for (TrenchHeuristic h : kHeuristics)
      for (double alpha : {1.5, 2.0, 3.0}) {
        SCOPED_TRACE(std::string("letter ") + l + " " + name(h) + " alpha " +
                     std::to_string(alpha));
        TrenchPlanOptions options;
        options.heuristic = h;
        options.alpha = alpha;
        const TrenchPlan plan = plan_single_stroke_trench(goal, options);
        expect_valid_plan(goal, plan);
        EXPECT_GE(plan.steps, optimum);
        EXPECT_LE(plan.steps, alpha * optimum);
      }
  }
}

TEST(TrenchPlanner, TrivialGoalsAndTheSixtyFourCellLimit) {
  const TrenchPlan one = plan_single_stroke_trench(BinaryMap::from_rows({"...", ".#.", "..."}));
  ASSERT_TRUE(one.found);
  EXPECT_EQ(one.steps, 0);
  EXPECT_EQ(one.start, (GridCell{1, 1}));
  EXPECT_EQ(one.cells.size(), 1u);
  EXPECT_EQ(exhaustive_min_steps(BinaryMap::from_rows({"#"}), std::nullopt), 0);

  const BinaryMap line64 = BinaryMap::from_rows({std::string(64, '#')});  // exactly 64 cells
  for (TrenchHeuristic h : kHeuristics) {
    TrenchPlanOptions options;
    options.heuristic = h;
    options.start = GridCell{0, 63};
    const TrenchPlan plan = plan_single_stroke_trench(line64, options);
    expect_valid_plan(line64, plan);
    EXPECT_EQ(plan.steps, 63);
  }
  expect_invalid([] { plan_single_stroke_trench(BinaryMap::from_rows({std::string(65, '#')})); },
                 {"65 goal cells", "at most 64"});
}

TEST(TrenchPlanner, BadInputErrorsNameTheProblem) {
  const BinaryMap t = letter_map('T');
  expect_invalid(
      [] {
        plan_single_stroke_trench(BinaryMap::from_rows({"...", "..."}));
      },
      {"no goal cells"});
  expect_invalid([] { plan_single_stroke_trench(BinaryMap{}); }, {"empty"});
  expect_invalid(
      [] {
        plan_single_stroke_trench(BinaryMap{2, 2, {1, 1, 1}});
      },
      {"3 cells stored", "2x2"});
  TrenchPlanOptions options;
  options.alpha = 0.5;
  expect_invalid([&] { plan_single_stroke_trench(t, options); }, {"alpha", ">= 1", "0.5"});
  options.alpha = std::numeric_limits<double>::quiet_NaN();
  expect_invalid([&] { plan_single_stroke_trench(t, options); }, {"alpha"});
  options.alpha = 1.0;
  options.start = GridCell{7, 0};
  expect_invalid([&] { plan_single_stroke_trench(t, options); },
                 {"start", "row 7", "outside the 7x7"});
  options.start = GridCell{3, 0};
  expect_invalid([&] { plan_single_stroke_trench(t, options); },
                 {"start", "row 3, col 0", "not a goal cell"});
  expect_invalid([&] { exhaustive_min_steps(t, GridCell{3, 0}); }, {"not a goal cell"});
  expect_invalid([] { exhaustive_min_steps(BinaryMap::from_rows({"."}), std::nullopt); },
                 {"no goal cells"});
}

TEST(TrenchPlanner, DisconnectedGoalIsNotFoundWithoutSearching) {
  const BinaryMap two_parts = BinaryMap::from_rows({"##...", ".....", "...##"});
  const TrenchPlan plan = plan_single_stroke_trench(two_parts);
  EXPECT_FALSE(plan.found);
  EXPECT_NE(plan.failure.find("not 4-connected"), std::string::npos) << plan.failure;
  EXPECT_NE(plan.failure.find("2 separate parts"), std::string::npos) << plan.failure;
  EXPECT_EQ(plan.nodes_expanded, 0u);
  EXPECT_EQ(plan.nodes_generated, 0u);
  EXPECT_TRUE(plan.actions.empty());
  // Diagonal neighbours do not connect: the blade moves in four directions only.
  EXPECT_FALSE(plan_single_stroke_trench(BinaryMap::from_rows({"#.", ".#"})).found);
  EXPECT_EQ(exhaustive_min_steps(two_parts, std::nullopt), -1);
}

TEST(TrenchPlanner, ExpansionLimitStopsTheSearch) {
  TrenchPlanOptions options;
  options.heuristic = TrenchHeuristic::CellsRemaining;
  options.max_expansions = 100;
  const TrenchPlan plan = plan_single_stroke_trench(letter_map('S'), options);
  EXPECT_FALSE(plan.found);
  EXPECT_EQ(plan.nodes_expanded, 100u);
  EXPECT_NE(plan.failure.find("expansion limit of 100"), std::string::npos) << plan.failure;
}

TEST(TrenchPlanner, FreeStartCountsEveryGoalCellAsGenerated) {
  // Free start: the virtual root is not counted; its children (one start state per goal cell)
  // are generated. A 1x3 line is solved from an end in 2 steps.
  const TrenchPlan plan = plan_single_stroke_trench(BinaryMap::from_rows({"###"}));
  ASSERT_TRUE(plan.found);
  EXPECT_EQ(plan.steps, 2);
  EXPECT_GE(plan.nodes_generated, 3u);
  EXPECT_EQ(plan.nodes_expanded, 2u);  // the start and the middle; the goal state is not expanded
}

}  // namespace
}  // namespace talus::shaping
