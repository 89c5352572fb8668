#include "shaping/trench_env_batch.hpp"

#include <fmt/format.h>

#include <exception>
#include <stdexcept>

namespace talus::shaping {

namespace {

// The optimal stroke of `goal` (from `start`, or the best start when none is given).
TrenchPlan optimal_stroke(const BinaryMap& goal, std::optional<GridCell> start) {
  TrenchPlanOptions options;
  options.start = start;
  TrenchPlan plan = plan_single_stroke_trench(goal, options);
  if (!plan.found) {
    throw std::invalid_argument("trench goal: one stroke cannot dig it (" + plan.failure + ")");
  }
  return plan;
}

// The cells a random walk of the blade visits (TrenchGoalSource::random).
TrenchDraw random_walk_goal(const TrenchGoalSource& s, TrenchRng& rng) {
  static constexpr int kMoves[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
  TrenchDraw d;
  d.goal.rows = s.rows;
  d.goal.cols = s.cols;
  d.goal.cells.assign(static_cast<std::size_t>(s.rows) * static_cast<std::size_t>(s.cols), 0);
  const int target = s.min_cells + rng.below(s.max_cells - s.min_cells + 1);
  d.start = GridCell{rng.below(s.rows), rng.below(s.cols)};
  GridCell at = d.start;
  d.goal.cells[static_cast<std::size_t>(at.row * s.cols + at.col)] = 1;
  for (int visited = 1; visited < target;) {
    const int* move = kMoves[rng.below(4)];
    const GridCell next{at.row + move[0], at.col + move[1]};
    if (next.row < 0 || next.row >= s.rows || next.col < 0 || next.col >= s.cols) continue;
    at = next;
    std::uint8_t& cell = d.goal.cells[static_cast<std::size_t>(at.row * s.cols + at.col)];
    if (!cell) {
      cell = 1;
      ++visited;
    }
  }
  d.optimal_steps = optimal_stroke(d.goal, d.start).steps;
  return d;
}

}  // namespace

TrenchGoalSource TrenchGoalSource::of_maps(std::vector<BinaryMap> maps) {
  if (maps.empty()) throw std::invalid_argument("trench goals: no map given");
  TrenchGoalSource s;
  s.rows = maps.front().rows;
  s.cols = maps.front().cols;
  for (const BinaryMap& m : maps) {
    if (m.rows != s.rows || m.cols != s.cols) {
      throw std::invalid_argument(fmt::format("trench goals: a {} x {} map among {} x {} maps",
                                              m.rows, m.cols, s.rows, s.cols));
    }
    const TrenchPlan plan = optimal_stroke(m, std::nullopt);
    s.starts.push_back(plan.start);
    s.optimal_steps.push_back(plan.steps);
  }
  s.maps = std::move(maps);
  return s;
}

TrenchGoalSource TrenchGoalSource::random(int rows, int cols, int min_cells, int max_cells) {
  // At most 30 cells: the episode's optimal stroke is planned at every reset (A* grows
  // exponentially with the cells; 30-cell walks plan in milliseconds).
  if (rows < 1 || cols < 1 || min_cells < 1 || max_cells < min_cells || max_cells > rows * cols ||
      max_cells > 30) {
    throw std::invalid_argument(fmt::format(
        "random trench goals: expected 1 <= min_cells <= max_cells <= min({}, 30), got {} and {}",
        rows * cols, min_cells, max_cells));
  }
  TrenchGoalSource s;
  s.rows = rows;
  s.cols = cols;
  s.min_cells = min_cells;
  s.max_cells = max_cells;
  return s;
}

TrenchDraw draw_trench_episode(const TrenchGoalSource& source, TrenchRng& rng) {
  if (source.maps.empty()) return random_walk_goal(source, rng);
  TrenchDraw d;
  d.map_index = rng.below(static_cast<int>(source.maps.size()));
  const auto k = static_cast<std::size_t>(d.map_index);
  d.goal = source.maps[k];
  d.start = source.starts[k];
  d.optimal_steps = source.optimal_steps[k];
  return d;
}

void write_trench_observation(const TrenchDraw& draw, const TrenchEnvState& state, float* out) {
  const std::size_t n = draw.goal.cells.size();
  for (std::size_t k = 0; k < n; ++k) {
    out[k] = static_cast<float>(state.dug.cells[k]);
    out[n + k] = static_cast<float>(draw.goal.cells[k]);
    out[2 * n + k] = 0.0f;
  }
  out[2 * n + static_cast<std::size_t>(state.blade.row * draw.goal.cols + state.blade.col)] = 1.0f;
}

TrenchEnvBatch::TrenchEnvBatch(TrenchGoalSource source, TrenchEnvRules rules, int num_envs)
    : source_(std::move(source)), rules_(rules), rows_(source_.rows), cols_(source_.cols) {
  if (num_envs < 1) throw std::invalid_argument("trench env batch: num_envs must be >= 1");
  slots_.resize(static_cast<std::size_t>(num_envs));
  if (rules_.heightmap) heightmap_ = make_trench_heightmap_model(*rules_.heightmap, rows_, cols_);
}

void TrenchEnvBatch::start(TrenchEnvSlot& s) {
  s.state = heightmap_ ? trench_env_reset(s.draw.goal, s.draw.start, *heightmap_, s.sand, s.work)
                       : trench_env_reset(s.draw.goal, s.draw.start);
  s.ended = false;
}

void TrenchEnvBatch::reset(std::span<const std::uint64_t> seeds, float* observations) {
  if (seeds.size() != slots_.size()) {
    throw std::invalid_argument(
        fmt::format("trench env batch: {} seeds for {} environments", seeds.size(), slots_.size()));
  }
  const std::size_t obs_size =
      3 * static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_);
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].rng.state = seeds[i];
    redraw(static_cast<int>(i), observations + i * obs_size);
  }
}

void TrenchEnvBatch::redraw(int i, float* observation) {
  TrenchEnvSlot& s = slots_.at(static_cast<std::size_t>(i));
  s.draw = draw_trench_episode(source_, s.rng);
  start(s);
  write_trench_observation(s.draw, s.state, observation);
}

void TrenchEnvBatch::set_episode(int i, TrenchDraw draw, float* observation) {
  if (draw.goal.rows != rows_ || draw.goal.cols != cols_) {
    throw std::invalid_argument(fmt::format("trench env batch: a {} x {} goal for {} x {} maps",
                                            draw.goal.rows, draw.goal.cols, rows_, cols_));
  }
  TrenchEnvSlot& s = slots_.at(static_cast<std::size_t>(i));
  (void)trench_env_reset(draw.goal, draw.start);  // checks the goal and start before any change
  s.draw = std::move(draw);
  start(s);
  write_trench_observation(s.draw, s.state, observation);
}

void TrenchEnvBatch::step_one(std::size_t i, std::uint8_t action, float* observation,
                              double& reward, std::uint8_t& terminated, std::uint8_t& truncated) {
  TrenchEnvSlot& s = slots_[i];
  if (s.ended) {  // next-step autoreset
    redraw(static_cast<int>(i), observation);
    reward = 0.0;
    terminated = truncated = 0;
    return;
  }
  const auto move = static_cast<TrenchAction>(action);
  const TrenchEnvStep r =
      heightmap_ ? trench_env_step(s.draw.goal, s.state, move, *heightmap_, s.sand, s.work)
                 : trench_env_step(s.draw.goal, s.state, move);
  reward = static_cast<double>(r.l1_decrease) - rules_.step_cost;
  terminated = r.reached ? 1 : 0;
  truncated = !r.reached && s.state.steps >= rules_.max_episode_steps ? 1 : 0;
  s.ended = terminated || truncated;
  write_trench_observation(s.draw, s.state, observation);
}

void TrenchEnvBatch::step(std::span<const std::uint8_t> actions, float* observations,
                          double* rewards, std::uint8_t* terminated, std::uint8_t* truncated,
                          int threads) {
  if (actions.size() != slots_.size()) {
    throw std::invalid_argument(fmt::format("trench env batch: {} actions for {} environments",
                                            actions.size(), slots_.size()));
  }
  const std::size_t obs_size =
      3 * static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_);
  const long n = static_cast<long>(slots_.size());
  // A binary step takes nanoseconds (threads pay off from 64 environments on), a heightmap step
  // a fraction of a millisecond. An exception must not leave the OpenMP region: the first
  // environment's (a height gone NaN, named by the tier) is rethrown after the loop.
  const bool parallel = threads > 1 && (n >= 64 || (heightmap_ && n > 1));
  std::vector<std::exception_ptr> failures(slots_.size());
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (long i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    try {
      step_one(k, actions[k], observations + k * obs_size, rewards[k], terminated[k], truncated[k]);
    } catch (...) {
      failures[k] = std::current_exception();
    }
  }
  for (const std::exception_ptr& f : failures) {
    if (f) std::rethrow_exception(f);
  }
}

}  // namespace talus::shaping
