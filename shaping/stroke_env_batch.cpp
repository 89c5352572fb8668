#include "shaping/stroke_env_batch.hpp"

#include <fmt/format.h>

#include <cmath>
#include <exception>
#include <stdexcept>

namespace talus::shaping {

void validate(const StrokeEnvRules& rules) {
  if (!(std::isfinite(rules.step_cost) && rules.step_cost >= 0.0)) {
    throw std::invalid_argument(
        fmt::format("stroke env: step_cost must be a number >= 0, got {}", rules.step_cost));
  }
  if (rules.extra_strokes < 0 || rules.extra_strokes > 100) {
    throw std::invalid_argument(
        fmt::format("stroke env: extra_strokes must be in [0, 100], got {}", rules.extra_strokes));
  }
  if (!(rules.success_fraction >= 0.0 && rules.success_fraction < 1.0)) {
    throw std::invalid_argument(fmt::format(
        "stroke env: success_fraction must be in [0, 1), got {}", rules.success_fraction));
  }
}

StrokeEnvBatch::StrokeEnvBatch(StrokeBed bed, StrokeGoalSource source, StrokeEnvRules rules,
                               int num_envs)
    : bed_(bed), heightmap_(stroke_bed_heightmap(bed)), source_(std::move(source)), rules_(rules) {
  validate(rules_);
  if (num_envs < 1) throw std::invalid_argument("stroke env batch: num_envs must be >= 1");
  slots_.resize(static_cast<std::size_t>(num_envs));
}

void StrokeEnvBatch::start(StrokeEnvSlot& s, std::shared_ptr<const StrokeGoal> goal) {
  if (goal->height_m.size() != static_cast<std::size_t>(heightmap_.sample_count())) {
    throw std::invalid_argument(fmt::format("stroke env batch: a goal of {} cells for a bed of {}",
                                            goal->height_m.size(), heightmap_.sample_count()));
  }
  s.goal = std::move(goal);
  s.sand = HeightmapState::flat(heightmap_, bed_.sand_height_m);
  s.l1_m3 = s.goal->l1_from_flat_m3;
  s.strokes = 0;
  s.last_stroke = Stroke{};
  s.ended = false;
}

void StrokeEnvBatch::write(const StrokeEnvSlot& s, float* achieved, float* desired) const {
  const std::size_t n = s.sand.height_m.size();
  for (std::size_t k = 0; k < n; ++k) {
    achieved[k] = static_cast<float>(s.sand.height_m[k]);
    desired[k] = static_cast<float>(s.goal->height_m[k]);
  }
}

void StrokeEnvBatch::reset(std::span<const std::uint64_t> seeds, float* achieved, float* desired) {
  if (seeds.size() != slots_.size()) {
    throw std::invalid_argument(
        fmt::format("stroke env batch: {} seeds for {} environments", seeds.size(), slots_.size()));
  }
  const auto cells = static_cast<std::size_t>(heightmap_.sample_count());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].rng.state = seeds[i];
    redraw(static_cast<int>(i), achieved + i * cells, desired + i * cells);
  }
}

void StrokeEnvBatch::redraw(int i, float* achieved, float* desired) {
  StrokeEnvSlot& s = slots_.at(static_cast<std::size_t>(i));
  start(s, draw_stroke_goal(bed_, source_, s.rng));
  write(s, achieved, desired);
}

void StrokeEnvBatch::set_goal(int i, std::shared_ptr<const StrokeGoal> goal, float* achieved,
                              float* desired) {
  StrokeEnvSlot& s = slots_.at(static_cast<std::size_t>(i));
  start(s, std::move(goal));
  write(s, achieved, desired);
}

void StrokeEnvBatch::step_one(std::size_t i, const std::array<double, 4>& action, float* achieved,
                              float* desired, double& reward, std::uint8_t& terminated,
                              std::uint8_t& truncated) {
  StrokeEnvSlot& s = slots_[i];
  if (s.ended) {  // next-step autoreset
    redraw(static_cast<int>(i), achieved, desired);
    reward = 0.0;
    terminated = truncated = 0;
    return;
  }
  s.last_stroke = stroke_of_action(bed_, action);
  execute_stroke(bed_, heightmap_, s.sand, s.last_stroke);
  ++s.strokes;
  const double l1_before = s.l1_m3;
  s.l1_m3 = l1_distance_m3(bed_, s.sand.height_m, s.goal->height_m);
  // The paper's reward (§4.4): the decrease of the L1 distance, here in goal fractions.
  reward = (l1_before - s.l1_m3) / s.goal->l1_from_flat_m3 - rules_.step_cost;
  const bool reached = s.l1_fraction() <= rules_.success_fraction;
  terminated = reached ? 1 : 0;
  truncated = !reached && s.strokes >= s.max_strokes(rules_) ? 1 : 0;
  s.ended = terminated || truncated;
  write(s, achieved, desired);
}

void StrokeEnvBatch::step(std::span<const double> actions, float* achieved, float* desired,
                          double* rewards, std::uint8_t* terminated, std::uint8_t* truncated,
                          int threads) {
  if (actions.size() != 4 * slots_.size()) {
    throw std::invalid_argument(
        fmt::format("stroke env batch: {} action values for {} "
                    "environments (4 each)",
                    actions.size(), slots_.size()));
  }
  for (std::size_t k = 0; k < actions.size(); ++k) {
    if (!(actions[k] >= -1.0 && actions[k] <= 1.0)) {
      throw std::invalid_argument(
          fmt::format("stroke env batch: environment {}'s action value {} is {}; expected a "
                      "number in [-1, 1]",
                      k / 4, k % 4, actions[k]));
    }
  }
  const auto cells = static_cast<std::size_t>(heightmap_.sample_count());
  const long n = static_cast<long>(slots_.size());
  // An exception must not leave an OpenMP region: the first environment's failure (a height gone
  // NaN, named by the tier) is kept and rethrown after the loop.
  std::vector<std::exception_ptr> failures(slots_.size());
#pragma omp parallel for schedule(dynamic) num_threads(threads) if (threads > 1 && n > 1)
  for (long i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const std::array<double, 4> a = {actions[4 * k], actions[4 * k + 1], actions[4 * k + 2],
                                     actions[4 * k + 3]};
    try {
      step_one(k, a, achieved + k * cells, desired + k * cells, rewards[k], terminated[k],
               truncated[k]);
    } catch (...) {
      failures[k] = std::current_exception();
    }
  }
  for (const std::exception_ptr& f : failures) {
    if (f) std::rethrow_exception(f);
  }
}

}  // namespace talus::shaping
