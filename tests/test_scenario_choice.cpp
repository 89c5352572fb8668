// ScenarioTable::choice_entry: the dispatch tables of the runner (tiers) and of the wrench tier
// (kinds) pick their entry through it. read_scenario_head: the one [scenario] reader of every tier.
// read_bodies: the one [[body]] reader of the shaping, particle and SCM tiers.

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "core/scenario_bodies.hpp"
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

// read_bodies: the one [[body]] reader of the shaping, particle and SCM tiers.
const char* kHoverBody = R"([[body]]
name = "blade"
reference_point_m = [0.0, 0.0, 0.1]
[body.shape]
kind = "box"
size_m = [0.01, 0.1, 0.2]
[body.motion]
kind = "hover"
height_m = 0.3
)";

// A tier with a motion of its own ("hover": at rest at height_m) besides waypoints.
BodyRules hover_rules() {
  BodyRules rules;
  rules.motion_kinds = {"hover", "waypoints"};
  rules.read_tier_motion = [](const ScenarioTable& motion, const std::string&,
                              const Shape&) -> Driver {
    ConstantTwistDriver d;
    d.X_WB0 = make_pose(Vec3(0.0, 0.0, motion.number("height_m", positive("[m]"))));
    return d;
  };
  rules.reference_point = true;
  return rules;
}

std::vector<ScenarioBody> bodies_of(const std::string& text, const BodyRules& rules) {
  const auto doc = ScenarioDocument::parse(text, "bodies.toml");
  return read_bodies(doc->root(), rules);
}

std::string bodies_error(const std::string& text, const BodyRules& rules) {
  try {
    bodies_of(text, rules);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return text.replace(pos, from.size(), to);
}

TEST(ScenarioBodies, ReadsNameShapeTheTiersMotionAndReferencePoint) {
  const std::vector<ScenarioBody> bodies = bodies_of(kHoverBody, hover_rules());
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_EQ(bodies[0].name, "blade");
  EXPECT_EQ(std::get<BoxShape>(bodies[0].shape).half_extents_m, Vec3(0.005, 0.05, 0.1));
  EXPECT_EQ(pose_at(bodies[0].driver, 1.0).translation(), Vec3(0.0, 0.0, 0.3));
  EXPECT_EQ(bodies[0].p_BR, Vec3(0.0, 0.0, 0.1));
}

TEST(ScenarioBodies, RefusesAnUnknownMotionKindNamingTheKindsTheTierAccepts) {
  const std::string msg =
      bodies_error(replaced(kHoverBody, "\"hover\"", "\"orbit\""), hover_rules());
  EXPECT_NE(msg.find("bodies.toml:8:8: body[0].motion.kind: expected one of \"hover\", "
                     "\"waypoints\", got \"orbit\""),
            std::string::npos)
      << msg;
}

TEST(ScenarioBodies, AReferencePointIsAnUnknownKeyWhereTheTierDoesNotUseIt) {
  BodyRules rules = hover_rules();
  rules.reference_point = false;
  const std::string msg = bodies_error(kHoverBody, rules);
  EXPECT_NE(msg.find("bodies.toml:3:21: body[0].reference_point_m: unknown key"), std::string::npos)
      << msg;
}

TEST(ScenarioBodies, RefusesANameGivenTwice) {
  const std::string msg = bodies_error(std::string(kHoverBody) + kHoverBody, hover_rules());
  EXPECT_NE(msg.find("body[1].name: body 'blade' is named twice"), std::string::npos) << msg;
}

TEST(ScenarioBodies, AMotionThatSizesItsBodyTakesNoShapeTable) {
  BodyRules rules = hover_rules();
  rules.motion_sized_shape = [](const ScenarioTable&,
                                const std::string& kind) -> std::optional<Shape> {
    if (kind == "hover") return SphereShape{0.25};
    return std::nullopt;
  };
  const std::string msg = bodies_error(kHoverBody, rules);
  EXPECT_NE(msg.find("body[0].shape: a hover motion sizes its body; expected no [body.shape]"),
            std::string::npos)
      << msg;
  const std::string shapeless =
      replaced(kHoverBody, "[body.shape]\nkind = \"box\"\nsize_m = [0.01, 0.1, 0.2]\n", "");
  EXPECT_EQ(std::get<SphereShape>(bodies_of(shapeless, rules)[0].shape).radius_m, 0.25);
}

TEST(ScenarioBodies, TheOldToolTableIsRefusedNamingBody) {
  const std::string msg = bodies_error("[[tool]]\nname = \"blade\"\n", hover_rules());
  EXPECT_NE(
      msg.find("bodies.toml:1:1: tool: renamed to [[body]] (one table for every tier's bodies)"),
      std::string::npos)
      << msg;
}

}  // namespace
}  // namespace talus
