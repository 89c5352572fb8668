// ScenarioTable::choice_entry: the dispatch tables of the runner (tiers) and of the wrench tier
// (kinds) pick their entry through it. read_scenario_head: the one [scenario] reader of every tier.

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "core/scenario_file.hpp"
#include "core/scenario_head.hpp"

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

ScenarioHead head_of(const std::string& text, const std::string& tier,
                     const std::vector<HeadChoice>& choices = {}) {
  const auto doc = ScenarioDocument::parse(text, "head.toml");
  return read_scenario_head(doc->root(), tier, choices);
}

std::string head_error(const std::string& text, const std::string& tier,
                       const std::vector<HeadChoice>& choices = {}) {
  try {
    head_of(text, tier, choices);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

const std::vector<HeadChoice> kTerrain = {{"terrain", {"scm", "particles"}, "scm"}};
const std::vector<HeadChoice> kKind = {{"kind", {"acquire", "foot_drop"}, ""}};

TEST(ScenarioHead, ReadsNameTierDescriptionAndTheTiersChoices) {
  const ScenarioHead h = head_of(
      "[scenario]\nname = \"n\"\ntier = \"wrench\"\ndescription = \"d\"\nkind = \"foot_drop\"\n",
      "wrench", kKind);
  EXPECT_EQ(h.name, "n");
  EXPECT_EQ(h.tier, "wrench");
  EXPECT_EQ(h.description, "d");
  EXPECT_EQ(h.choice("kind"), "foot_drop");
  EXPECT_THROW(h.choice("terrain"), std::logic_error);  // not a key this tier reads
}

TEST(ScenarioHead, AnOptionalChoiceFallsBackAndTheDescriptionIsOptional) {
  const ScenarioHead h =
      head_of("[scenario]\nname = \"n\"\ntier = \"robots\"\n", "robots", kTerrain);
  EXPECT_EQ(h.choice("terrain"), "scm");
  EXPECT_EQ(h.description, "");
}

TEST(ScenarioHead, RefusesAMissingName) {
  const std::string msg = head_error("[scenario]\ntier = \"scm\"\n", "scm");
  EXPECT_NE(msg.find("head.toml:1:1: scenario: missing key 'name': expected a string"),
            std::string::npos)
      << msg;
}

TEST(ScenarioHead, RefusesAnUnknownTierNamingTheLine) {
  const std::string msg = head_error("[scenario]\nname = \"n\"\ntier = \"clay\"\n", "scm");
  EXPECT_NE(msg.find("head.toml:3:8: scenario.tier: expected one of \"scm\", got \"clay\""),
            std::string::npos)
      << msg;
}

TEST(ScenarioHead, RefusesAMissingRequiredChoiceAndUnknownKeys) {
  const std::string kind =
      head_error("[scenario]\nname = \"n\"\ntier = \"wrench\"\n", "wrench", kKind);
  EXPECT_NE(kind.find("scenario: missing key 'kind'"), std::string::npos) << kind;
  const std::string other =
      head_error("[scenario]\nname = \"n\"\ntier = \"scm\"\nterrain = \"scm\"\n", "scm");
  EXPECT_NE(other.find("head.toml:4:11: scenario.terrain: unknown key"), std::string::npos)
      << other;
}

TEST(ScenarioHead, AMovedKeyIsRefusedNamingWhereItIsNow) {
  const auto doc = ScenarioDocument::parse("[solver]\ntime_step_s = 0.001\n", "old.toml");
  const ScenarioTable solver = doc->root().table("solver");
  try {
    refuse_moved_key(solver, "time_step_s", kTimeStepKey);
    FAIL() << "the old key was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(),
                 "old.toml:2:15: solver.time_step_s: moved to [simulation] time_step_s (one key "
                 "for every tier)");
  }
  const auto fresh = ScenarioDocument::parse("[solver]\niterations = 4\n", "new.toml");
  EXPECT_NO_THROW(refuse_moved_key(fresh->root().table("solver"), "time_step_s", kTimeStepKey));
}

}  // namespace
}  // namespace talus
