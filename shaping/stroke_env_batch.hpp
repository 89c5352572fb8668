#pragma once
// ShapingStrokes-v0's environments (stroke_env.hpp) stepped in C++: a batch of N beds stepped in
// one call on threads, with Gymnasium's next-step autoreset (talus.envs.make_vec); the single
// environment is a batch of one, so the two give the same bits.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "shaping/stroke_env.hpp"

namespace talus::shaping {

/// ShapingStrokes-v0's reward and episode limits.
struct StrokeEnvRules {
  double step_cost = 0.02;  ///< subtracted from every stroke's reward (goal fractions)
  int extra_strokes = 2;    ///< an episode allows the goal's stroke count plus this many
  /// Terminated (success) when the L1 distance to the goal is at most this fraction of the goal's
  /// distance from the flat bed.
  double success_fraction = 0.1;
};

/// Throws std::invalid_argument naming the field.
void validate(const StrokeEnvRules& rules);

/// One environment of a batch.
struct StrokeEnvSlot {
  TrenchRng rng;
  std::shared_ptr<const StrokeGoal> goal;
  HeightmapState sand;
  double l1_m3 = 0.0;  ///< L1 distance between the sand and the goal [m^3]
  int strokes = 0;     ///< strokes made this episode
  Stroke last_stroke;  ///< the last stroke made (valid when strokes > 0)
  bool ended = false;  ///< terminated or truncated at the last step: reset at the next one

  int max_strokes(const StrokeEnvRules& rules) const {
    return static_cast<int>(goal->strokes.size()) + rules.extra_strokes;
  }
  double l1_fraction() const { return l1_m3 / goal->l1_from_flat_m3; }
};

/// N environments stepped together. Observations are written as float32 heights [m], cells x
/// cells row-major per environment: `achieved` (the sand now) and `desired` (the goal).
class StrokeEnvBatch {
 public:
  StrokeEnvBatch(StrokeBed bed, StrokeGoalSource source, StrokeEnvRules rules, int num_envs);

  /// Seeds environment i with seeds[i] and draws its first episode.
  void reset(std::span<const std::uint64_t> seeds, float* achieved, float* desired);

  /// One stroke in every environment: actions[4 i .. 4 i + 3] = (x0, y0, x1, y1) in [-1, 1]. All
  /// actions are checked first (std::invalid_argument naming the environment and the value for
  /// one outside [-1, 1] or NaN, and then no environment has moved). Runs on up to `threads`
  /// threads; environments are independent, so the result is the same for any count. Next-step
  /// autoreset: an environment whose episode ended at the previous step draws a new episode
  /// instead (its action is ignored) and reports reward 0, not terminated, not truncated.
  void step(std::span<const double> actions, float* achieved, float* desired, double* rewards,
            std::uint8_t* terminated, std::uint8_t* truncated, int threads);

  /// Starts environment i on the next episode its generator draws.
  void redraw(int i, float* achieved, float* desired);

  /// Starts environment i on `goal` (reset options), keeping its generator.
  void set_goal(int i, std::shared_ptr<const StrokeGoal> goal, float* achieved, float* desired);

  int num_envs() const { return static_cast<int>(slots_.size()); }
  int cells() const { return bed_.cells; }
  const StrokeBed& bed() const { return bed_; }
  const HeightmapModel& heightmap() const { return heightmap_; }
  const StrokeEnvRules& rules() const { return rules_; }
  const StrokeGoalSource& source() const { return source_; }
  const StrokeEnvSlot& slot(int i) const { return slots_.at(static_cast<std::size_t>(i)); }

 private:
  void start(StrokeEnvSlot& s, std::shared_ptr<const StrokeGoal> goal);
  void step_one(std::size_t i, const std::array<double, 4>& action, float* achieved, float* desired,
                double& reward, std::uint8_t& terminated, std::uint8_t& truncated);
  void write(const StrokeEnvSlot& s, float* achieved, float* desired) const;

  StrokeBed bed_;
  HeightmapModel heightmap_;
  StrokeGoalSource source_;
  StrokeEnvRules rules_;
  std::vector<StrokeEnvSlot> slots_;
};

}  // namespace talus::shaping
