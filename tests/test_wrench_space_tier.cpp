// The wrench-space tier as a coupling partner (wrench/wrench_space_tier.hpp): a planar foot moved
// by hand (a free body integrated here, semi-implicit Euler like MuJoCo) against synthetic wrench
// sets; and the robots-tier scenario foot_drop_wrench against the wrench tier's own implicit step
// (scenarios/wrench/foot_drop.toml, upright_flat).

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/output_target.hpp"
#include "runner/run_scenario.hpp"
#include "tests/scratch_files.hpp"
#include "tests/wrench_step_fixtures.hpp"
#include "wrench/wrench_space_tier.hpp"

namespace talus::wrench {
namespace {

using testing::BoxWrenchSet;
using testing::friction_box;

constexpr double kFootMass_kg = 7.357;      // [kg]
constexpr double kInertia = 0.5;            // about y at p_center [kg m^2]
constexpr double kGravity_m_per_s2 = 9.81;  // [m/s^2]
constexpr double kH = 0.001;                // [s]

// A free planar foot whose centre of mass is its bottom centre p_center (so its inverse inertia
// there is diagonal), integrated like MuJoCo: v += h (g + A w_center), then x += h v.
struct HandFoot {
  Eigen::Vector3d q = Eigen::Vector3d::Zero();  // (x, z, pitch)
  Eigen::Vector3d v = Eigen::Vector3d::Zero();  // (v_x, v_z, omega_y)

  BodyMotion motion() const {
    BodyMotion m;
    m.X_WB = make_pose(Vec3(q[0], 0.0, q[1]), 0.0, q[2], 0.0);
    m.V_WB.v_WBo = Vec3(v[0], 0.0, v[1]);
    m.V_WB.w_W = Vec3(0.0, v[2], 0.0);
    return m;
  }
  // Applies the tier's wrench (about its own point) over one step, with gravity.
  void advance(const Wrench& w) {
    const Wrench at_center = w.shifted_to(Vec3(q[0], 0.0, q[1]));
    v += kH * Eigen::Vector3d(at_center.f_W.x() / kFootMass_kg,
                              at_center.f_W.z() / kFootMass_kg - kGravity_m_per_s2,
                              at_center.tau_W.y() / kInertia);
    q += kH * v;
  }
};

WrenchTierModel tier_foot_model(TerrainProfile terrain = TerrainProfile::plane(0.0)) {
  WrenchTierFoot foot;
  foot.body = CoupledBody{"foot", CylinderShape{0.04, 0.25}, Vec3::Zero()};
  foot.inverse_inertia =
      Eigen::Vector3d(1 / kFootMass_kg, 1 / kFootMass_kg, 1 / kInertia).asDiagonal();
  WrenchTierModel model;
  model.feet.push_back(foot);
  model.terrain = std::move(terrain);
  return model;
}

Wrench step(WrenchSpaceTier& tier, HandFoot& foot) {
  const BodyMotion m = foot.motion();
  Wrench w;
  tier.step(kH, std::span<const BodyMotion>(&m, 1), std::span<Wrench>(&w, 1));
  foot.advance(w);
  return w;
}

TEST(WrenchSpaceTier, AFootAboveTheSurfaceGetsNoWrench) {
  const BoxWrenchSet box = friction_box();
  WrenchSpaceTier tier(box, tier_foot_model());
  HandFoot foot;
  foot.q = Eigen::Vector3d(0.0, 0.5, 0.0);
  for (int k = 0; k < 10; ++k) {
    const Wrench w = step(tier, foot);
    EXPECT_EQ(w.f_W, Vec3::Zero());
    EXPECT_EQ(w.tau_W, Vec3::Zero());
  }
  EXPECT_FALSE(tier.state().feet[0].in_contact);
  EXPECT_EQ(tier.state().contact_queries, 0);
  EXPECT_NEAR(foot.v[1], -kGravity_m_per_s2 * 10 * kH, 1e-12);
}

TEST(WrenchSpaceTier, AFootInContactComesToRestCarryingItsWeight) {
  // Exact inverse inertia: the predicted free motion (gravity) is cancelled from the second step
  // on, so the foot stops and the tier's force is the weight; it reports about p_r.
  const BoxWrenchSet box = friction_box();
  WrenchSpaceTier tier(box, tier_foot_model());
  HandFoot foot;
  foot.q = Eigen::Vector3d(0.0, -0.01, 0.0);
  Wrench w;
  for (int k = 0; k < 200; ++k) w = step(tier, foot);
  EXPECT_LT(foot.v.cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_NEAR(w.f_W.z(), kFootMass_kg * kGravity_m_per_s2, 1e-9);
  EXPECT_NEAR(w.f_W.x(), 0.0, 1e-9);
  EXPECT_NEAR(w.p_W.z(), foot.q[1] + 0.25, 1e-12);  // p_r: 0.25 m up the foot's axis
  EXPECT_NEAR(foot.q[1], -0.01 - kGravity_m_per_s2 * kH * kH,
              1e-9);  // sank only during the first step
  EXPECT_EQ(tier.state().contact_queries, 200);
}

TEST(WrenchSpaceTier, ASlidingFootIsBrakedAtTheBoundOfW) {
  // Sliding at 1 m/s: stopping it in one step needs 7357 N, W allows 50 N: the wrench sits on
  // the bound f_x = -50 N and the foot slows by 50 N / m per second.
  const BoxWrenchSet box = friction_box();
  WrenchSpaceTier tier(box, tier_foot_model());
  HandFoot foot;
  foot.q = Eigen::Vector3d(0.0, -0.01, 0.0);
  foot.v = Eigen::Vector3d(1.0, 0.0, 0.0);
  const Wrench first = step(tier, foot);
  EXPECT_NEAR(first.f_W.x(), -50.0, 1e-9);
  for (int k = 0; k < 9; ++k) step(tier, foot);
  EXPECT_NEAR(foot.v[0], 1.0 - 10 * kH * 50.0 / kFootMass_kg, 1e-9);
}

TEST(WrenchSpaceTier, AFootFrameOffsetInTheBodyIsHonoured) {
  // The body frame 0.25 m above the foot's bottom (as a MuJoCo geom frame), X_BF pointing down
  // to it: the same depth as a foot whose frame is its bottom.
  const BoxWrenchSet box = friction_box();
  WrenchTierModel model = tier_foot_model();
  model.feet[0].X_BF.translation() = Vec3(0.0, 0.0, -0.25);
  WrenchSpaceTier tier(box, model);
  BodyMotion m;
  m.X_WB = make_pose(Vec3(0.0, 0.0, 0.24));
  Wrench w;
  tier.step(kH, std::span<const BodyMotion>(&m, 1), std::span<Wrench>(&w, 1));
  EXPECT_TRUE(tier.state().feet[0].in_contact);
  EXPECT_NEAR(tier.state().feet[0].depth_m, -0.01, 1e-12);
  EXPECT_NEAR(tier.bodies()[0].p_BR.z(), 0.0, 1e-12);  // p_r = 0.25 m up from the bottom
}

TEST(WrenchSpaceTier, ASnapshotRestoresBitForBit) {
  const BoxWrenchSet box = friction_box();
  WrenchSpaceTier tier(box, tier_foot_model());
  HandFoot foot;
  foot.q = Eigen::Vector3d(0.0, -0.005, 0.05);
  foot.v = Eigen::Vector3d(0.3, -0.2, 0.5);
  for (int k = 0; k < 20; ++k) step(tier, foot);
  const auto snap = tier.snapshot();
  const HandFoot saved = foot;
  std::vector<Wrench> first, second;
  for (int k = 0; k < 50; ++k) first.push_back(step(tier, foot));
  tier.restore(*snap);
  foot = saved;
  for (int k = 0; k < 50; ++k) second.push_back(step(tier, foot));
  for (int k = 0; k < 50; ++k) {
    EXPECT_EQ(first[k].f_W, second[k].f_W) << k;
    EXPECT_EQ(first[k].tau_W, second[k].tau_W) << k;
  }
}

TEST(WrenchSpaceTier, RefusesBadFeetAndMotions) {
  const BoxWrenchSet box = friction_box();
  WrenchTierModel singular = tier_foot_model();
  singular.feet[0].inverse_inertia(2, 2) = 0.0;  // the foot cannot turn
  try {
    WrenchSpaceTier tier(box, singular);
    FAIL() << "a singular inverse inertia was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("foot 'foot'"), std::string::npos) << e.what();
  }
  WrenchTierModel negative = tier_foot_model();
  negative.feet[0].granular_inertia(0, 0) = -1.0;
  EXPECT_THROW(WrenchSpaceTier(box, negative), std::invalid_argument);
  EXPECT_THROW(WrenchSpaceTier(box, WrenchTierModel{}), std::invalid_argument);

  WrenchSpaceTier tier(box, tier_foot_model());
  BodyMotion m;
  m.V_WB.v_WBo = Vec3(std::nan(""), 0.0, 0.0);
  Wrench w;
  try {
    tier.step(kH, std::span<const BodyMotion>(&m, 1), std::span<Wrench>(&w, 1));
    FAIL() << "a NaN motion was accepted";
  } catch (const WrenchStepError& e) {
    EXPECT_NE(std::string(e.what()).find("step 0: foot 'foot'"), std::string::npos) << e.what();
  }
}

// The shipped robots-tier foot drop equals the wrench tier's implicit step on the same foot
// (foot_drop.toml at the robots-tier foot's mass, upright_flat): one free body, so A is exact and
// the explicit tier's predicted free motion is the implicit step's v_free (up to the first contact
// step).
TEST(WrenchSpaceTier, TheRobotsTierFootDropMatchesTheImplicitStep) {
  const std::filesystem::path src(TALUS_SOURCE_DIR);
  talus::testing_files::ScratchDir tmp;
  const nlohmann::json coupled = run_scenario_file(src / "scenarios/robots/foot_drop_wrench.toml",
                                                   OutputTarget{tmp.path() / "coupled"});
  // foot_drop drops the paper's full 7.357 kg foot; the robots-tier scenario's free foot is the
  // lighter one (mass_scale 0.35, paper_foot_free.xml): the same drop at that mass.
  std::ifstream in(src / "scenarios/wrench/foot_drop.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto replace = [&](const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("granular_inertia = [14.714, 14.714, 0.122]",
          "mass_scale = 0.35\ngranular_inertia = [5.15, 5.15, 0.0427]");
  // fmt, not operator+: GCC 12 takes that concatenation, inlined here, for a copy past the
  // largest object size (-Wstringop-overflow, a false positive).
  const std::string quoted_root = fmt::format("\"{}/", src.string());
  for (std::size_t at; (at = text.find("\"../../")) != std::string::npos;) {
    text.replace(at, 7, quoted_root);
  }
  const std::filesystem::path light = tmp.path() / "foot_drop_light.toml";
  std::ofstream(light) << text;
  const nlohmann::json implicit = run_scenario_file(light, OutputTarget{tmp.path() / "implicit"});
  const nlohmann::json& foot = coupled["terrain_details"]["feet"]["foot"];
  const nlohmann::json& reference = implicit["cases"][0]["feet"]["bottom"];
  ASSERT_EQ(implicit["cases"][0]["name"], "upright_flat");
  EXPECT_TRUE(coupled["result"]["came_to_rest"].get<bool>());
  EXPECT_EQ(coupled["terrain_details"]["clamped_queries"].get<long>(), 0);
  EXPECT_NEAR(foot["final_depth_m"].get<double>(), reference["final_depth_m"].get<double>(), 1e-6);
  EXPECT_NEAR(foot["final_tilt_rad"].get<double>(), reference["final_tilt_rad"].get<double>(),
              1e-4);
  EXPECT_NEAR(foot["final_wrench_W"][1].get<double>(), 0.35 * 7.357 * kGravity_m_per_s2, 1e-6);
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "coupled" / "links.png"));
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "coupled" / "side_view.png"));
}

}  // namespace
}  // namespace talus::wrench
