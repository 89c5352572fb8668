// ScenarioTable::choice_entry: the dispatch tables of the runner (tiers) and of the wrench tier
// (kinds) pick their entry through it.

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "core/scenario_file.hpp"

namespace talus {
namespace {

struct Entry {
  const char* name;
  int value;
};

constexpr std::array kEntries = {Entry{"sand", 1}, Entry{"gravel", 2}};

TEST(ScenarioChoice, PicksTheEntryTheKeyNames) {
  const auto doc = ScenarioDocument::parse("[scenario]\nkind = \"gravel\"\n", "pick.toml");
  const Entry& e = doc->root().table("scenario").choice_entry("kind", kEntries);
  EXPECT_EQ(e.value, 2);
  EXPECT_EQ(&e, &kEntries[1]);  // the table's own entry, not a copy
}

TEST(ScenarioChoice, RefusesANameNotInTheTableNamingFileKeyAndChoices) {
  const auto doc = ScenarioDocument::parse("[scenario]\nkind = \"clay\"\n", "pick.toml");
  try {
    doc->root().table("scenario").choice_entry("kind", kEntries);
    FAIL() << "an unknown kind was accepted";
  } catch (const ScenarioError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("pick.toml"), std::string::npos) << msg;
    EXPECT_NE(msg.find("kind"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"sand\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"gravel\""), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace talus
