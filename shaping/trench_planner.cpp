// Single-stroke trench planner (paper 003 §4.2-4.3, §5.2). See trench_planner.hpp and
// docs/trench_planner.md (heuristics, admissibility proof, results).
//
// Written by hand: the state is a 64-bit dug mask plus a blade cell, and the admissible
// path-cover heuristic works on those masks directly; no packaged graph-search library offers
// either, and the search loop itself is short.
#include "shaping/trench_planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <queue>
#include <stdexcept>
#include <unordered_map>

namespace talus::shaping {

// ------------------------------------------------------------------------------------------------
// BinaryMap

BinaryMap BinaryMap::from_rows(const std::vector<std::string>& rows) {
  if (rows.empty()) throw std::invalid_argument("BinaryMap::from_rows: no rows given");
  BinaryMap map;
  map.rows = static_cast<int>(rows.size());
  map.cols = static_cast<int>(rows[0].size());
  if (map.cols == 0) throw std::invalid_argument("BinaryMap::from_rows: row 0 is empty");
  map.cells.reserve(static_cast<std::size_t>(map.rows) * static_cast<std::size_t>(map.cols));
  for (int r = 0; r < map.rows; ++r) {
    const std::string& row = rows[static_cast<std::size_t>(r)];
    if (static_cast<int>(row.size()) != map.cols) {
      throw std::invalid_argument(fmt::format(
          "BinaryMap::from_rows: row {} has {} characters, expected {} (the length of row 0)", r,
          row.size(), map.cols));
    }
    for (int c = 0; c < map.cols; ++c) {
      const char ch = row[static_cast<std::size_t>(c)];
      if (ch != '#' && ch != '.') {
        throw std::invalid_argument(fmt::format(
            "BinaryMap::from_rows: row {}, column {}: unexpected character '{}' (expected '#' for "
            "a set cell or '.' for a clear one)",
            r, c, ch));
      }
      map.cells.push_back(ch == '#' ? 1 : 0);
    }
  }
  return map;
}

int BinaryMap::count() const {
  return static_cast<int>(
      std::count_if(cells.begin(), cells.end(), [](std::uint8_t v) { return v != 0; }));
}

bool BinaryMap::at(int r, int c) const {
  if (r < 0 || r >= rows || c < 0 || c >= cols) {
    throw std::out_of_range(
        fmt::format("BinaryMap::at: (row {}, col {}) is outside the {}x{} map", r, c, rows, cols));
  }
  return cells[static_cast<std::size_t>(r * cols + c)] != 0;
}

std::vector<std::string> BinaryMap::to_rows() const {
  std::vector<std::string> out(static_cast<std::size_t>(rows),
                               std::string(static_cast<std::size_t>(cols), '.'));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (cells[static_cast<std::size_t>(r * cols + c)] != 0)
        out[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] = '#';
  return out;
}

const char* to_string(TrenchAction action) {
  switch (action) {
    case TrenchAction::Up:
      return "up";
    case TrenchAction::Down:
      return "down";
    case TrenchAction::Left:
      return "left";
    case TrenchAction::Right:
      return "right";
  }
  return "?";
}

namespace {

// ------------------------------------------------------------------------------------------------
// Trivial helpers shared by the A* search and the exhaustive reference.

constexpr int kMaxGoalCells = 64;
// Row and column offsets of the actions, in TrenchAction order (Up, Down, Left, Right).
constexpr std::array<int, 4> kDRow = {-1, 1, 0, 0};
constexpr std::array<int, 4> kDCol = {0, 0, -1, 1};

inline std::uint64_t bit(int i) { return std::uint64_t{1} << i; }
inline bool in_map(int rows, int cols, GridCell c) {
  return c.row >= 0 && c.row < rows && c.col >= 0 && c.col < cols;
}
inline bool set_at(const BinaryMap& m, int r, int c) {
  return m.cells[static_cast<std::size_t>(r * m.cols + c)] != 0;
}

void validate_shape(const BinaryMap& m, const char* what) {
  if (m.rows <= 0 || m.cols <= 0) {
    throw std::invalid_argument(fmt::format("{} map is empty ({}x{})", what, m.rows, m.cols));
  }
  if (m.cells.size() != static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols)) {
    throw std::invalid_argument(
        fmt::format("{} map has {} cells stored, expected rows x cols = {}x{} = {}", what,
                    m.cells.size(), m.rows, m.cols, m.rows * m.cols));
  }
}

void validate_goal(const BinaryMap& goal) {
  validate_shape(goal, "goal");
  const int n = goal.count();
  if (n == 0) throw std::invalid_argument("goal map has no goal cells (nothing to dig)");
  if (n > kMaxGoalCells) {
    throw std::invalid_argument(fmt::format(
        "goal map has {} goal cells; the trench planner indexes goal cells in a 64-bit mask, so at "
        "most {} are supported",
        n, kMaxGoalCells));
  }
}

void validate_start(const BinaryMap& goal, GridCell start, const char* what) {
  if (!in_map(goal.rows, goal.cols, start)) {
    throw std::invalid_argument(fmt::format("{} (row {}, col {}) is outside the {}x{} goal map",
                                            what, start.row, start.col, goal.rows, goal.cols));
  }
  if (!set_at(goal, start.row, start.col)) {
    throw std::invalid_argument(fmt::format(
        "{} (row {}, col {}) is not a goal cell: lowering the blade there digs a cell the goal "
        "keeps, so the goal can never be reached",
        what, start.row, start.col));
  }
}

TrenchAction action_between(GridCell a, GridCell b) {
  for (int k = 0; k < 4; ++k)
    if (a.row + kDRow[k] == b.row && a.col + kDCol[k] == b.col) return static_cast<TrenchAction>(k);
  throw std::logic_error("trench planner: consecutive path cells are not neighbours");
}

// ------------------------------------------------------------------------------------------------
// The goal graph: goal cells indexed 0..n-1 in row-major order, their 4-neighbours among goal
// cells (moves into non-goal cells are never useful: such a cell stays dug), as index tables and
// as bit masks for the heuristic.

struct GoalGraph {
  int rows = 0, cols = 0, n = 0;
  std::vector<GridCell> cell;  // by goal index
  std::vector<int> index_of;   // by row-major map index; -1 off the goal
  std::array<std::array<std::int8_t, 4>, kMaxGoalCells> nbr{};  // goal index per action, or -1
  std::array<std::uint64_t, kMaxGoalCells> nbr_mask{};          // neighbours as a mask
  std::uint64_t full = 0;                                       // all goal cells
  std::uint64_t black = 0;  // goal cells with (row + col) even: the grid graph is bipartite

  explicit GoalGraph(const BinaryMap& goal) : rows(goal.rows), cols(goal.cols) {
    index_of.assign(static_cast<std::size_t>(rows * cols), -1);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        if (set_at(goal, r, c)) {
          index_of[static_cast<std::size_t>(r * cols + c)] = n;
          cell.push_back({r, c});
          if ((r + c) % 2 == 0) black |= bit(n);
          ++n;
        }
    full = n == 64 ? ~std::uint64_t{0} : bit(n) - 1;
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 4; ++k) {
        const GridCell q{cell[static_cast<std::size_t>(i)].row + kDRow[k],
                         cell[static_cast<std::size_t>(i)].col + kDCol[k]};
        const int j =
            in_map(rows, cols, q) ? index_of[static_cast<std::size_t>(q.row * cols + q.col)] : -1;
        nbr[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)] = static_cast<std::int8_t>(j);
        if (j >= 0) nbr_mask[static_cast<std::size_t>(i)] |= bit(j);
      }
  }

  int index(GridCell c) const { return index_of[static_cast<std::size_t>(c.row * cols + c.col)]; }

  // Union of the neighbours of the cells in set.
  std::uint64_t neighbours(std::uint64_t set) const {
    std::uint64_t out = 0;
    while (set != 0) {
      out |= nbr_mask[static_cast<std::size_t>(std::countr_zero(set))];
      set &= set - 1;
    }
    return out;
  }

  // Number of connected components of the goal (4-connectivity).
  int component_count() const {
    int count = 0;
    std::uint64_t rest = full;
    while (rest != 0) {
      std::uint64_t comp = rest & (~rest + 1), frontier = comp;
      while (frontier != 0) {
        frontier = neighbours(frontier) & full & ~comp;
        comp |= frontier;
      }
      rest &= ~comp;
      ++count;
    }
    return count;
  }
};

// ------------------------------------------------------------------------------------------------
// Heuristics: h(position, dug) in steps, unweighted. U = goal cells not yet dug.

struct CellsRemainingH {
  // Paper 003 §4.2: h = w |H_goal - H_t| with w = 1: each undug goal cell needs its own step.
  int operator()(const GoalGraph& g, int /*pos*/, std::uint64_t dug) const {
    return std::popcount(g.full & ~dug);
  }
};

// Lower bound on the number of vertex-disjoint paths covering one connected component of a
// bipartite grid graph, from its colour counts and forced endpoint slots (docs/trench_planner.md):
// each path has two endpoint slots (a one-cell path gives both to its cell) and unbalances the
// colours by at most one, towards the colour of its endpoints when they agree.
inline int component_path_lower_bound(int n_black, int n_white, int slots_black, int slots_white) {
  int delta = n_black - n_white;
  int slots_major = slots_black, slots_minor = slots_white;
  if (delta < 0) {
    delta = -delta;
    std::swap(slots_major, slots_minor);
  }
  const int paths = delta + std::max({0, slots_minor, slots_major - 2 * delta});
  return std::max(1, paths);
}

struct PathCoverH {
  int operator()(const GoalGraph& g, int pos, std::uint64_t dug) const {
    const std::uint64_t undug = g.full & ~dug;
    if (undug == 0) return 0;
    const int m = std::popcount(undug);

    // d = steps from the blade to the nearest undug cell (breadth-first through dug cells; the
    // intermediate cells of a shortest path to U are dug by definition). The first d - 1 steps
    // are wasted.
    int d = 1;
    if ((g.nbr_mask[static_cast<std::size_t>(pos)] & undug) == 0) {
      std::uint64_t seen = bit(pos), frontier = seen;
      for (;;) {
        ++d;
        frontier = g.neighbours(frontier) & dug & ~seen;
        if (frontier == 0) return std::numeric_limits<int>::max() / 4;  // unreachable goal cells
        seen |= frontier;
        if ((g.neighbours(frontier) & undug) != 0) break;
      }
    }

    // Cover the undug cells (plus the blade cell when adjacent: it must start the first path)
    // with vertex-disjoint paths; every path after the first costs at least one wasted step.
    const std::uint64_t cover = d == 1 ? undug | bit(pos) : undug;
    int paths = 0;
    std::uint64_t rest = cover;
    while (rest != 0) {
      std::uint64_t frontier = rest & (~rest + 1), comp = frontier;
      int slots[2] = {0, 0};  // forced endpoint slots on white [0] and black [1] cells
      while (frontier != 0) {
        std::uint64_t grow = 0;
        for (std::uint64_t f = frontier; f != 0; f &= f - 1) {
          const int i = std::countr_zero(f);
          const std::uint64_t adj = g.nbr_mask[static_cast<std::size_t>(i)] & cover;
          grow |= adj;
          const int deg = std::popcount(adj);
          // An isolated cell is a whole path (2 slots), a cell with one neighbour in the cover
          // must end a path (1 slot), and so must the blade cell, which starts the first path.
          const int s = deg == 0 ? 2 : (deg == 1 || i == pos) ? 1 : 0;
          slots[(g.black >> i) & 1] += s;
        }
        frontier = grow & ~comp;
        comp |= frontier;
      }
      rest &= ~comp;
      const int nb = std::popcount(comp & g.black), nw = std::popcount(comp) - nb;
      paths += component_path_lower_bound(nb, nw, slots[1], slots[0]);
    }
    return m + (d - 1) + (paths - 1);
  }
};

// ------------------------------------------------------------------------------------------------
// Search data.

// A search node; 16 bytes. Nodes are appended in generation order and never moved, so a node's
// index doubles as its insertion sequence number for tie-breaking.
struct Node {
  std::uint64_t dug;
  std::uint32_t parent;     // kNoParent for start states
  std::uint16_t g;          // steps so far (optimal plans have at most 2n - 2 <= 126 steps)
  std::uint8_t pos;         // goal index of the blade cell
  std::uint8_t superseded;  // 1 once a cheaper path to the same state was found
};
constexpr std::uint32_t kNoParent = std::numeric_limits<std::uint32_t>::max();

// Open-list entry, ordered by f ascending, then g descending (deeper first: among equal f, nodes
// closer to the goal), then node index ascending (first generated first). Total order on distinct
// nodes, so runs are bit-identical.
struct OpenEntry {
  double f;
  std::uint32_t g;
  std::uint32_t node;
};
struct OpenAfter {  // "a is served after b": std::priority_queue pops the greatest
  bool operator()(const OpenEntry& a, const OpenEntry& b) const {
    if (a.f != b.f) return a.f > b.f;
    if (a.g != b.g) return a.g < b.g;
    return a.node > b.node;
  }
};

// Best node per state (dug, pos): open addressing with linear probing, power-of-two capacity, at
// most half full. Chosen over std::unordered_map (one heap-allocated list node per state, a pointer
// chase per probe) because bench/bench_planner.cpp shows it matters once searches grow: on the
// Window map (paper heuristic, 1.1 M states generated) 0.69-0.77 s per plan against 1.25-1.69 s
// with std::unordered_map and the same hash, ~2x; on the letters (<= 40 k states) 1-1.5x. Three
// interleaved runs each on a shared 2-core machine.
class StateTable {
 public:
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();
  struct Slot {
    std::uint64_t dug;
    std::uint32_t node;  // best node of the state; kEmpty for an unused slot
    std::uint16_t g;     // nodes[node].g, kept here so duplicate checks need not touch the arena
    std::uint8_t pos;
  };

  StateTable() { slots_.assign(std::size_t{1} << 12, Slot{0, kEmpty, 0, 0}); }

  // The entry for (dug, pos); inserted = true (and node = kEmpty) if the state was not there.
  // The reference stays valid until the next call.
  Slot& find_or_insert(std::uint64_t dug, std::uint8_t pos, bool& inserted) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = hash(dug, pos) & (slots_.size() - 1);
    for (;;) {
      Slot& s = slots_[i];
      if (s.node == kEmpty) {
        s.dug = dug;
        s.pos = pos;
        ++size_;
        inserted = true;
        return s;
      }
      if (s.dug == dug && s.pos == pos) {
        inserted = false;
        return s;
      }
      i = (i + 1) & (slots_.size() - 1);
    }
  }

 private:
  static std::size_t hash(std::uint64_t dug, std::uint8_t pos) {
    std::uint64_t x = dug + (std::uint64_t{pos} + 1) * 0x9E3779B97F4A7C15ull;  // splitmix64
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return static_cast<std::size_t>(x ^ (x >> 31));
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2, Slot{0, kEmpty, 0, 0});
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.node == kEmpty) continue;
      std::size_t i = hash(s.dug, s.pos) & (slots_.size() - 1);
      while (slots_[i].node != kEmpty) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

// A* (weighted when alpha > 1) with re-opening: a state reached again more cheaply is pushed
// again, even after expansion, so an admissible but inconsistent heuristic still gives optimal
// plans at alpha = 1.
template <class Heuristic>
TrenchPlan search(const GoalGraph& graph, const TrenchPlanOptions& options, Heuristic heuristic) {
  TrenchPlan plan;
  std::vector<Node> nodes;
  nodes.reserve(std::size_t{1} << 14);
  StateTable table;
  std::priority_queue<OpenEntry, std::vector<OpenEntry>, OpenAfter> open;
  const double alpha = options.alpha;

  auto push = [&](std::uint64_t dug, int pos, std::uint32_t g, std::uint32_t parent) {
    bool inserted = false;
    StateTable::Slot& slot = table.find_or_insert(dug, static_cast<std::uint8_t>(pos), inserted);
    if (!inserted) {
      if (slot.g <= g) return;
      nodes[slot.node].superseded = 1;  // re-open: the cheaper copy below replaces it
    }
    const auto index = static_cast<std::uint32_t>(nodes.size());
    slot.node = index;
    slot.g = static_cast<std::uint16_t>(g);
    nodes.push_back(
        {dug, parent, static_cast<std::uint16_t>(g), static_cast<std::uint8_t>(pos), 0});
    const int h = heuristic(graph, pos, dug);
    open.push({static_cast<double>(g) + alpha * static_cast<double>(h), g, index});
    ++plan.nodes_generated;
  };

  if (options.start) {
    const int s = graph.index(*options.start);
    push(bit(s), s, 0, kNoParent);
  } else {
    for (int s = 0; s < graph.n; ++s) push(bit(s), s, 0, kNoParent);  // virtual root's children
  }

  while (!open.empty()) {
    const OpenEntry top = open.top();
    open.pop();
    const Node node = nodes[top.node];  // a copy: push() may reallocate nodes
    if (node.superseded) continue;
    if (node.dug == graph.full) {
      std::vector<GridCell> cells;
      for (std::uint32_t i = top.node; i != kNoParent; i = nodes[i].parent)
        cells.push_back(graph.cell[nodes[i].pos]);
      std::reverse(cells.begin(), cells.end());
      plan.found = true;
      plan.start = cells.front();
      for (std::size_t k = 1; k < cells.size(); ++k)
        plan.actions.push_back(action_between(cells[k - 1], cells[k]));
      plan.cells = std::move(cells);
      plan.steps = static_cast<int>(plan.actions.size());
      return plan;
    }
    if (plan.nodes_expanded >= options.max_expansions) {
      plan.failure = fmt::format("expansion limit of {} nodes reached", options.max_expansions);
      return plan;
    }
    ++plan.nodes_expanded;
    const std::uint32_t g = node.g + 1u;
    if (g > std::numeric_limits<std::uint16_t>::max()) continue;  // unreachable in practice
    for (int k = 0; k < 4; ++k) {
      const int q = graph.nbr[node.pos][static_cast<std::size_t>(k)];
      if (q >= 0) push(node.dug | bit(q), q, g, top.node);
    }
  }
  plan.failure =
      "search space exhausted without reaching the goal";  // not expected: goal connected
  return plan;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Public entry points.

TrenchPlan plan_single_stroke_trench(const BinaryMap& goal, const TrenchPlanOptions& options) {
  validate_goal(goal);
  if (!(options.alpha >= 1.0) || !std::isfinite(options.alpha)) {
    throw std::invalid_argument(fmt::format(
        "plan_single_stroke_trench: alpha must be a finite number >= 1 (got {}); alpha < 1 would "
        "shrink the admissible heuristic without making the search cheaper",
        options.alpha));
  }
  if (options.start) validate_start(goal, *options.start, "start");

  const GoalGraph graph(goal);
  const int components = graph.component_count();
  if (components > 1) {
    TrenchPlan plan;
    plan.failure = fmt::format(
        "goal is not 4-connected ({} separate parts): a single stroke cannot dig it", components);
    return plan;
  }
  switch (options.heuristic) {
    case TrenchHeuristic::CellsRemaining:
      return search(graph, options, CellsRemainingH{});
    case TrenchHeuristic::PathCover:
      return search(graph, options, PathCoverH{});
  }
  throw std::invalid_argument("plan_single_stroke_trench: unknown heuristic");
}

BinaryMap replay_trench(int rows, int cols, GridCell start,
                        const std::vector<TrenchAction>& actions) {
  if (rows <= 0 || cols <= 0) {
    throw std::invalid_argument(fmt::format("replay_trench: map is empty ({}x{})", rows, cols));
  }
  if (!in_map(rows, cols, start)) {
    throw std::invalid_argument(
        fmt::format("replay_trench: start (row {}, col {}) is outside the {}x{} map", start.row,
                    start.col, rows, cols));
  }
  BinaryMap dug{rows, cols, std::vector<std::uint8_t>(static_cast<std::size_t>(rows * cols), 0)};
  GridCell at = start;
  dug.cells[static_cast<std::size_t>(at.row * cols + at.col)] = 1;
  for (std::size_t k = 0; k < actions.size(); ++k) {
    const auto a = static_cast<std::size_t>(actions[k]);
    if (a > 3)
      throw std::invalid_argument(fmt::format("replay_trench: step {} has no valid action", k));
    const GridCell next{at.row + kDRow[a], at.col + kDCol[a]};
    if (!in_map(rows, cols, next)) {
      throw std::invalid_argument(
          fmt::format("replay_trench: step {} ({}) from (row {}, col {}) leaves the {}x{} map", k,
                      to_string(actions[k]), at.row, at.col, rows, cols));
    }
    at = next;
    dug.cells[static_cast<std::size_t>(at.row * cols + at.col)] = 1;
  }
  return dug;
}

int trench_heuristic(const BinaryMap& goal, const BinaryMap& dug, GridCell position,
                     TrenchHeuristic heuristic) {
  validate_goal(goal);
  validate_shape(dug, "dug");
  if (dug.rows != goal.rows || dug.cols != goal.cols) {
    throw std::invalid_argument("trench_heuristic: dug map and goal map differ in size");
  }
  validate_start(goal, position, "position");
  const GoalGraph graph(goal);
  std::uint64_t mask = 0;
  for (int r = 0; r < goal.rows; ++r)
    for (int c = 0; c < goal.cols; ++c)
      if (set_at(dug, r, c)) {
        if (!set_at(goal, r, c)) {
          throw std::invalid_argument(
              fmt::format("trench_heuristic: dug cell (row {}, col {}) is not a goal cell", r, c));
        }
        mask |= bit(graph.index({r, c}));
      }
  const int pos = graph.index(position);
  if ((mask & bit(pos)) == 0)
    throw std::invalid_argument("trench_heuristic: the blade cell is not dug");
  switch (heuristic) {
    case TrenchHeuristic::CellsRemaining:
      return CellsRemainingH{}(graph, pos, mask);
    case TrenchHeuristic::PathCover:
      return PathCoverH{}(graph, pos, mask);
  }
  throw std::invalid_argument("trench_heuristic: unknown heuristic");
}

// ------------------------------------------------------------------------------------------------
// Exhaustive reference: a plain breadth-first search, deliberately sharing nothing with the A*
// code above except input validation and the action offsets. It numbers the goal cells itself,
// finds neighbours from coordinates on every step, and keeps, per dug set, the set of blade
// cells already seen as a 64-bit mask.

namespace {

int breadth_first(const BinaryMap& goal, const std::vector<std::pair<int, std::uint64_t>>& starts) {
  std::vector<int> number(goal.cells.size(), -1);
  std::vector<GridCell> where;
  for (int r = 0; r < goal.rows; ++r)
    for (int c = 0; c < goal.cols; ++c)
      if (set_at(goal, r, c)) {
        number[static_cast<std::size_t>(r * goal.cols + c)] = static_cast<int>(where.size());
        where.push_back({r, c});
      }
  std::uint64_t all = 0;
  for (std::size_t i = 0; i < where.size(); ++i) all |= std::uint64_t{1} << i;

  std::unordered_map<std::uint64_t, std::uint64_t> seen;  // dug set -> blade cells seen with it
  std::vector<std::pair<int, std::uint64_t>> layer, next;
  for (const auto& s : starts) {
    if (seen[s.second] & (std::uint64_t{1} << s.first)) continue;
    seen[s.second] |= std::uint64_t{1} << s.first;
    layer.push_back(s);
  }
  for (int steps = 0; !layer.empty(); ++steps) {
    for (const auto& [cell, dug] : layer)
      if (dug == all) return steps;
    next.clear();
    for (const auto& [cell, dug] : layer) {
      const GridCell at = where[static_cast<std::size_t>(cell)];
      for (int k = 0; k < 4; ++k) {
        const int r = at.row + kDRow[static_cast<std::size_t>(k)];
        const int c = at.col + kDCol[static_cast<std::size_t>(k)];
        if (r < 0 || r >= goal.rows || c < 0 || c >= goal.cols) continue;
        const int to = number[static_cast<std::size_t>(r * goal.cols + c)];
        if (to < 0) continue;  // digging outside the goal: the goal is lost for good
        const std::uint64_t dug2 = dug | (std::uint64_t{1} << to);
        std::uint64_t& cells_seen = seen[dug2];
        if (cells_seen & (std::uint64_t{1} << to)) continue;
        cells_seen |= std::uint64_t{1} << to;
        next.emplace_back(to, dug2);
      }
    }
    layer.swap(next);
  }
  return -1;
}

int goal_number(const BinaryMap& goal, GridCell c) {
  int k = 0;
  for (int i = 0; i < c.row * goal.cols + c.col; ++i)
    k += goal.cells[static_cast<std::size_t>(i)] != 0;
  return k;
}

}  // namespace

int exhaustive_min_steps(const BinaryMap& goal, std::optional<GridCell> start) {
  validate_goal(goal);
  std::vector<std::pair<int, std::uint64_t>> starts;
  if (start) {
    validate_start(goal, *start, "start");
    const int s = goal_number(goal, *start);
    starts.emplace_back(s, std::uint64_t{1} << s);
  } else {
    for (int s = 0; s < goal.count(); ++s) starts.emplace_back(s, std::uint64_t{1} << s);
  }
  return breadth_first(goal, starts);
}

int exhaustive_cost_to_go(const BinaryMap& goal, const BinaryMap& dug, GridCell position) {
  validate_goal(goal);
  validate_shape(dug, "dug");
  if (dug.rows != goal.rows || dug.cols != goal.cols) {
    throw std::invalid_argument("exhaustive_cost_to_go: dug map and goal map differ in size");
  }
  if (!in_map(dug.rows, dug.cols, position) || !set_at(dug, position.row, position.col)) {
    throw std::invalid_argument(
        fmt::format("exhaustive_cost_to_go: position (row {}, col {}) is not a dug cell of the map",
                    position.row, position.col));
  }
  std::uint64_t mask = 0;
  for (int r = 0; r < goal.rows; ++r)
    for (int c = 0; c < goal.cols; ++c)
      if (set_at(dug, r, c)) {
        if (!set_at(goal, r, c)) return -1;  // a cell dug outside the goal can never be filled
        mask |= std::uint64_t{1} << goal_number(goal, {r, c});
      }
  return breadth_first(goal, {{goal_number(goal, position), mask}});
}

}  // namespace talus::shaping
