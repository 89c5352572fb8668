#include "core/scenario_head.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace talus {

const std::string& ScenarioHead::choice(const std::string& key) const {
  const auto it = choices.find(key);
  if (it == choices.end()) {
    throw std::logic_error("[scenario] " + key + " was not read: pass it to read_scenario_head");
  }
  return it->second;
}

ScenarioHead read_scenario_head(const ScenarioTable& root, const std::string& tier,
                                const std::vector<HeadChoice>& choices) {
  const ScenarioTable head = root.table("scenario");
  ScenarioHead h;
  h.name = head.string("name");
  h.tier = head.choice("tier", {tier});
  h.description = head.string_or("description", "");
  for (const HeadChoice& c : choices) {
    h.choices[c.key] = c.fallback.empty() ? head.choice(c.key, c.choices)
                                          : head.choice_or(c.key, c.fallback, c.choices);
  }
  head.refuse_unknown_keys();
  return h;
}

void refuse_moved_key(const ScenarioTable& table, const std::string& key,
                      const std::string& new_place) {
  // keys(), not has(): has() counts the key as one the table reads, and an unknown key's message
  // would then offer the moved key among the expected ones.
  const std::vector<std::string> present = table.keys();
  if (std::find(present.begin(), present.end(), key) != present.end()) {
    table.fail(key, "moved to " + new_place);
  }
}

}  // namespace talus
