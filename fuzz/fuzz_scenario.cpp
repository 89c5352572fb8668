// libFuzzer target: the scenario reader (core/scenario_file). Any text is parsed; every key of
// every table is then read with every getter, as a tier's reader would with a key of the wrong
// type or range. Expected failures are ScenarioErrors; anything else (a crash, a sanitizer
// report, another exception escaping) is a bug.

#include <cstddef>
#include <cstdint>
#include <string>

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto doc = talus::ScenarioDocument::parse(text, "fuzz.toml");
    walk(doc->root(), 0);
  } catch (const ScenarioError&) {
  }
  return 0;
}
