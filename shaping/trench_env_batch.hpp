#pragma once
// Episodes of ShapingTrench-v0 (trench_env.hpp) drawn and stepped in C++: where each episode's goal
// and start come from (letters, one map, or random single strokes), a seeded generator per
// environment, and a batch of environments stepped in one call with Gymnasium's next-step
// autoreset (talus.envs.make_vec). The single environment draws its episodes with the same code,
// so a batch equals its environments stepped one by one, bit for bit.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/splitmix.hpp"
#include "shaping/trench_env.hpp"
#include "shaping/trench_heightmap.hpp"

namespace talus::shaping {

/// Episodes' generator (core/splitmix.hpp).
using TrenchRng = SplitMix64;

/// Where episodes' goals come from.
struct TrenchGoalSource {
  /// Candidate goals, drawn uniformly; empty: random single-stroke goals.
  std::vector<BinaryMap> maps;
  std::vector<GridCell> starts;       ///< per map: where its optimal stroke starts (A*, free start)
  std::vector<int> optimal_steps;     ///< per map: that stroke's length
  int rows = 7, cols = 7;             ///< random goals: the map's size
  int min_cells = 4, max_cells = 20;  ///< random goals: cells, drawn uniformly in this range

  /// Maps drawn uniformly; plans each one's optimal stroke now. Throws std::invalid_argument for
  /// an empty list, maps of different sizes, or a map one stroke cannot dig.
  static TrenchGoalSource of_maps(std::vector<BinaryMap> maps);
  /// Random single strokes: the cells a random walk of the blade visits from a uniform start cell
  /// (each move uniform among those that stay on the map) until it has visited a uniform number
  /// of cells in [min_cells, max_cells], at most 30. Throws std::invalid_argument for a bad
  /// range.
  static TrenchGoalSource random(int rows, int cols, int min_cells, int max_cells);
};

/// One episode's goal, start and optimal stroke length (A* from that start).
struct TrenchDraw {
  BinaryMap goal;
  GridCell start;
  int optimal_steps = 0;
  int map_index = -1;  ///< into source.maps; -1 for a random goal
};

TrenchDraw draw_trench_episode(const TrenchGoalSource& source, TrenchRng& rng);

/// ShapingTrench-v0's reward and episode limits.
struct TrenchEnvRules {
  double step_cost = 0.05;
  int max_episode_steps = 100;
  /// The backend: the paper's binary map (none) or the blade pushed through sand on this bed
  /// (trench_heightmap.hpp).
  std::optional<TrenchHeightmapBed> heightmap;
};

/// One environment of a batch.
struct TrenchEnvSlot {
  TrenchRng rng;
  TrenchDraw draw;
  TrenchEnvState state;
  bool ended = false;         ///< terminated or truncated at the last step: reset at the next one
  TrenchHeightmapState sand;  ///< the heightmap backend's bed (unused on the binary map)
  ShapingWorkspace work;      ///< its step's scratch memory (one per environment: threads)
};

/// Writes an environment's observation (3 x rows x cols floats: dug map, goal, blade one-hot).
void write_trench_observation(const TrenchDraw& draw, const TrenchEnvState& state, float* out);

/// N environments stepped together.
class TrenchEnvBatch {
 public:
  TrenchEnvBatch(TrenchGoalSource source, TrenchEnvRules rules, int num_envs);

  /// Seeds environment i with seeds[i] and draws its first episode; writes the observations
  /// (num_envs x 3 x rows x cols).
  void reset(std::span<const std::uint64_t> seeds, float* observations);

  /// One step of every environment (`actions` 0-3 each, checked by the caller) on up to
  /// `threads` threads (each environment is independent: the result is the same for any count).
  /// Next-step autoreset: an environment whose episode ended at the previous step draws a new
  /// episode instead of moving (its action is ignored) and reports reward 0, not terminated, not
  /// truncated, as Gymnasium's vector environments do by default.
  void step(std::span<const std::uint8_t> actions, float* observations, double* rewards,
            std::uint8_t* terminated, std::uint8_t* truncated, int threads);

  /// Starts environment i on the next episode its generator draws (a reset without a seed);
  /// writes its observation.
  void redraw(int i, float* observation);

  /// Starts environment i on `draw` (a goal and start given by the caller: reset options),
  /// keeping its generator; writes its observation.
  void set_episode(int i, TrenchDraw draw, float* observation);

  int num_envs() const { return static_cast<int>(slots_.size()); }
  /// The heightmap backend's model, or nullptr on the binary map.
  const TrenchHeightmapModel* heightmap() const { return heightmap_ ? &*heightmap_ : nullptr; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  const TrenchEnvSlot& slot(int i) const { return slots_[static_cast<std::size_t>(i)]; }

 private:
  void step_one(std::size_t i, std::uint8_t action, float* observation, double& reward,
                std::uint8_t& terminated, std::uint8_t& truncated);

  TrenchGoalSource source_;
  void start(TrenchEnvSlot& s);

  TrenchEnvRules rules_;
  std::optional<TrenchHeightmapModel> heightmap_;
  int rows_ = 0, cols_ = 0;
  std::vector<TrenchEnvSlot> slots_;
};

}  // namespace talus::shaping
