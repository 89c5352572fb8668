#pragma once
// What every tier's scenario file shares (docs/scenarios.md): the [scenario] table it starts with,
// read here for all five tiers, and the keys that moved into the one schema, refused where they
// used to be with a message naming where they are now.
//
//   [scenario]  name (required), tier (the tier reading the file), description (optional), and
//               the tier's own choice keys (wrench: kind; robots: terrain)
//   [simulation] time_step_s is every tier's time step (docs/scenarios.md)

#include <map>
#include <string>
#include <vector>

#include "core/scenario_file.hpp"

namespace talus {

/// A tier's own key of [scenario] picking one of `choices`; `fallback` when the key is absent,
/// an empty fallback making the key required.
struct HeadChoice {
  std::string key;
  std::vector<std::string> choices;
  std::string fallback;
};

/// The [scenario] table as read.
struct ScenarioHead {
  std::string name;
  std::string tier;
  std::string description;
  std::map<std::string, std::string> choices;  ///< key -> the value picked (or its fallback)

  /// The value picked for `key`, one of the HeadChoice keys read_scenario_head was given.
  const std::string& choice(const std::string& key) const;
};

/// Reads [scenario]: name (a string), tier (must be `tier`), description (optional string) and
/// `choices`, refusing any other key, each error naming file, line and key.
ScenarioHead read_scenario_head(const ScenarioTable& root, const std::string& tier,
                                const std::vector<HeadChoice>& choices = {});

/// Refuses `key` of `table` when it is there: it has moved to `new_place` (an old key is never
/// read as an alias of the new one).
void refuse_moved_key(const ScenarioTable& table, const std::string& key,
                      const std::string& new_place);

/// Where every tier's time step is, for refuse_moved_key.
inline constexpr const char* kTimeStepKey = "[simulation] time_step_s (one key for every tier)";

}  // namespace talus
