// libFuzzer target: the scenario reader (core/scenario_file). Any text is parsed; every key of
// every table is then read with every getter, as a tier's reader would with a key of the wrong
// type or range. The document's own values are then put in at its own key paths, extended and
// indexed as a sweep file's dotted keys would be (ScenarioDocument::with_values), and the result
// read again. Expected failures are ScenarioErrors; anything else (a crash, a sanitizer report,
// another exception escaping) is a bug.

#include <toml++/toml.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/scenario_file.hpp"

namespace {

using talus::ScenarioError;
using talus::ScenarioTable;

template <class Fn>
void expect_scenario_error_or_value(Fn&& fn) {
  try {
    fn();
  } catch (const ScenarioError&) {
  }
}

void walk(const ScenarioTable& t, int depth) {
  if (depth > 8) return;
  const auto any = talus::any_finite("");
  for (const std::string& key : t.keys()) {
    expect_scenario_error_or_value([&] { t.number(key, talus::positive("[m]")); });
    expect_scenario_error_or_value([&] { t.integer(key, -5, 5); });
    expect_scenario_error_or_value([&] { t.boolean_or(key, false); });
    expect_scenario_error_or_value([&] { t.string(key); });
    expect_scenario_error_or_value([&] { t.choice(key, {"a", "b"}); });
    expect_scenario_error_or_value([&] { t.numbers(key, 0, any); });
    expect_scenario_error_or_value([&] { t.numbers(key, 3, any); });
    expect_scenario_error_or_value([&] { t.strings(key); });
    expect_scenario_error_or_value([&] { t.vec3(key, any); });
    expect_scenario_error_or_value([&] { t.vec2(key, any); });
    expect_scenario_error_or_value([&] { t.number_rows(key, 2, any); });
    expect_scenario_error_or_value([&] { t.named_tables(key); });
    expect_scenario_error_or_value([&] {
      for (const ScenarioTable& item : t.tables(key)) walk(item, depth + 1);
    });
    expect_scenario_error_or_value([&] { walk(t.table(key), depth + 1); });
  }
  expect_scenario_error_or_value([&] { t.refuse_unknown_keys(); });
  expect_scenario_error_or_value([&] { t.fail("", "fuzz"); });
}

// Every node's key path (array items by index), at most `limit` of them.
void key_paths(const toml::node& node, std::vector<std::string>& path,
               std::vector<std::pair<std::vector<std::string>, const toml::node*>>& out,
               std::size_t limit) {
  if (out.size() >= limit || path.size() > 8) return;
  if (!path.empty()) out.emplace_back(path, &node);
  if (const toml::table* t = node.as_table()) {
    for (const auto& [key, child] : *t) {
      path.emplace_back(key.str());
      key_paths(child, path, out, limit);
      path.pop_back();
    }
  } else if (const toml::array* a = node.as_array()) {
    for (std::size_t i = 0; i < a->size(); ++i) {
      path.push_back(std::to_string(i));
      key_paths(*a->get(i), path, out, limit);
      path.pop_back();
    }
  }
}

// Puts each value at the next value's path, at that path extended by a key, and at an index one
// past an array's end: the places a sweep's dotted keys can name.
void put_values(const talus::ScenarioDocument& doc) {
  std::vector<std::string> path;
  std::vector<std::pair<std::vector<std::string>, const toml::node*>> nodes;
  key_paths(doc.toml_root(), path, nodes, 16);
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const auto& [target, unused] = nodes[(k + 1) % nodes.size()];
    const toml::node* value = nodes[k].second;
    std::vector<std::string> deeper = target;
    deeper.push_back("x");
    std::vector<std::string> beyond = target;
    beyond.push_back("99");
    for (const auto& at : {target, deeper, beyond}) {
      // Read back where the value went (its source is looked up), not the whole document again:
      // walk() per value would make each input a hundred times slower to fuzz.
      expect_scenario_error_or_value([&] {
        const ScenarioTable root = doc.with_values({{at, value}})->root();
        for (const std::string& key : root.keys()) root.where(key);
        root.fail(at.front(), "fuzz");
      });
    }
  }
  expect_scenario_error_or_value([&] { doc.with_tier("shaping")->root().keys(); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto doc = talus::ScenarioDocument::parse(text, "fuzz.toml");
    walk(doc->root(), 0);
    put_values(*doc);
  } catch (const ScenarioError&) {
  }
  return 0;
}
