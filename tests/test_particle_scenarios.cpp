// The tools around the particle engine: random beds and settling, the angle-of-repose measurement,
// scenario files (every shipped one checks; bad input names file, line and key), runs with their
// outputs, the divergence stop, and two physical trends: the angle of repose grows with friction
// and the drag on a plate grows with depth.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/output_dir.hpp"
#include "core/scenario_file.hpp"
#include "core/view_check.hpp"
#include "particles/particle_bed_random.hpp"
#include "particles/particle_io.hpp"
#include "particles/particle_scenario.hpp"
#include "particles/repose_angle.hpp"
#include "runner/run_scenario.hpp"
#include "scratch_files.hpp"

namespace talus::particles {
namespace {

namespace fs = std::filesystem;

RandomBed small_random_bed() {
  RandomBed bed;
  bed.region = Aabb{Vec3(-0.05, -0.05, 0.01), Vec3(0.05, 0.05, 0.1)};
  bed.count = 400;
  bed.radius_m = 0.005;
  bed.radius_spread = 0.2;
  bed.seed = 11;
  return bed;
}

TEST(RandomBed, PlacesCountParticlesInsideWithoutOverlap) {
  const RandomBed bed = small_random_bed();
  const ParticleState s = make_random_bed(bed);
  ASSERT_EQ(s.size(), bed.count);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_TRUE(bed.region.contains(Vec3(s.x_m[i], s.y_m[i], s.z_m[i])));
    EXPECT_GE(s.radius_m[i], 0.004f - 1e-7f);
    EXPECT_LE(s.radius_m[i], 0.006f + 1e-7f);
    EXPECT_EQ(s.vz_m_per_s[i], 0.0f);
    for (std::size_t j = 0; j < i; ++j) {
      const double d = std::hypot(s.x_m[i] - s.x_m[j], s.y_m[i] - s.y_m[j], s.z_m[i] - s.z_m[j]);
      ASSERT_GE(d, s.radius_m[i] + s.radius_m[j] - 1e-6) << i << " " << j;
    }
  }
}

TEST(RandomBed, SameSeedSameBedOtherSeedOtherBed) {
  RandomBed bed = small_random_bed();
  const ParticleState a = make_random_bed(bed);
  const ParticleState b = make_random_bed(bed);
  EXPECT_EQ(a.x_m, b.x_m);
  EXPECT_EQ(a.radius_m, b.radius_m);
  bed.seed = 12;
  EXPECT_NE(make_random_bed(bed).x_m, a.x_m);
}

TEST(RandomBed, CylinderKeepsParticlesInside) {
  RandomBed bed = small_random_bed();
  bed.count = 100;
  bed.cylinder_radius_m = 0.03;
  bed.cylinder_axis_xy_m = Vec2(0.01, 0.0);
  const ParticleState s = make_random_bed(bed);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_LE(std::hypot(s.x_m[i] - 0.01, s.y_m[i]) + s.radius_m[i], 0.03 + 1e-6);
  }
}

TEST(RandomBed, FullRegionIsRefusedSayingHowManyFitted) {
  RandomBed bed = small_random_bed();
  bed.count = 100000;
  bed.max_attempts = 2000;
  try {
    make_random_bed(bed);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("placed only"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("of 100000 particles"), std::string::npos) << e.what();
  }
  bed.radius_spread = 0.7;
  EXPECT_THROW(make_random_bed(bed), std::invalid_argument);
}

ParticleModel box_model(double friction) {
  ParticleModel m;
  m.time_step_s = 1e-3;
  m.friction = m.wall_friction = friction;
  m.rotation = false;  // paper 001's grains, whose pile angle grows with sliding friction alone
  m.container.kind = Container::Kind::kBox;
  m.container.box = Aabb{Vec3(-0.06, -0.06, 0.0), Vec3(0.06, 0.06, 0.3)};
  m.threads = 1;
  return m;
}

TEST(Settle, RandomBedComesToRestAndReportsProgress) {
  const ParticleModel m = box_model(0.5);
  ParticleState s = make_random_bed(small_random_bed());
  check_initial_state(m, s);
  ParticleWorkspace ws;
  long calls = 0;
  SettleOptions o;
  o.kinetic_energy_per_particle_J = 1e-7;
  o.max_steps = 3000;
  const SettleResult r = settle(m, s, {}, ws, o, [&](long done, long total, double) {
    ++calls;
    EXPECT_EQ(done, calls);
    EXPECT_EQ(total, 3000);
  });
  EXPECT_TRUE(r.at_rest);
  EXPECT_LT(r.kinetic_energy_per_particle_J, 1e-7);
  EXPECT_EQ(calls, r.steps);
  EXPECT_LT(r.steps, 3000);
  EXPECT_EQ(r.steps % o.check_every, 0);
  // It fell: the highest particle is lower than where the random bed put it.
  double top = 0.0;
  for (const float z : s.z_m) top = std::max(top, double{z});
  EXPECT_LT(top, 0.09);
}

TEST(Settle, StopsAtMaxStepsWhenNotAtRest) {
  const ParticleModel m = box_model(0.5);
  ParticleState s = make_random_bed(small_random_bed());
  ParticleWorkspace ws;
  SettleOptions o;
  o.kinetic_energy_per_particle_J = 1e-30;
  o.max_steps = 25;
  const SettleResult r = settle(m, s, {}, ws, o);
  EXPECT_FALSE(r.at_rest);
  EXPECT_EQ(r.steps, 25);
  EXPECT_EQ(s.step, 25);
  o.min_steps = 30;
  EXPECT_THROW(settle(m, s, {}, ws, o), std::invalid_argument);
}

// Particles tiling the surface of a cone of known slope: the measurement gives its angle.
TEST(ReposeAngle, MeasuresTheSlopeOfAKnownCone) {
  for (const double angle_deg : {20.0, 35.0}) {
    const double slope = std::tan(angle_deg * kPi / 180.0);
    const double r = 0.002, base = 0.1;
    ParticleState s;
    for (double x = -base; x <= base; x += 2 * r) {
      for (double y = -base; y <= base; y += 2 * r) {
        const double rho = std::hypot(x, y);
        if (rho > base) continue;
        const double top = (base - rho) * slope;
        for (double z = r; z <= top - r + 1e-12; z += 2 * r)
          s.add(Vec3(x, y, z), Vec3::Zero(), r, 1e-5);
        s.add(Vec3(x, y, std::max(r, top - r)), Vec3::Zero(), r, 1e-5);
      }
    }
    ReposeOptions o;
    const ReposeMeasurement m = measure_repose_angle(s, o);
    EXPECT_NEAR(m.angle_deg, angle_deg, 1.5) << angle_deg;
    EXPECT_NEAR(m.height_m, base * slope, 4 * r);
    EXPECT_GE(m.flank_bins, 3);
    EXPECT_NEAR(m.centre_xy_m.norm(), 0.0, 1e-3);
    EXPECT_EQ(why_not_a_pile(m), "") << angle_deg;
  }
}

// Grains spread into a layer one to two grains high (a pour that did not heap): the profile's
// rings all lie between 20 % and 80 % of its height, the fit gives an angle near 0, and the
// measurement says it is not a pile (the pile scenario reported "0.0 deg" for such a layer).
TEST(ReposeAngle, ALayerOfGrainsIsNotAPile) {
  ParticleState s;
  const double r = 0.004;
  for (double x = -0.2; x <= 0.2; x += 2 * r) {
    for (double y = -0.2; y <= 0.2; y += 2 * r) {
      s.add(Vec3(x, y, r), Vec3::Zero(), r, 1e-5);
    }
  }
  s.add(Vec3(0.0, 0.0, 3 * r), Vec3::Zero(), r, 1e-5);  // one grain on top: H = 2 diameters
  ReposeOptions o;
  const ReposeMeasurement m = measure_repose_angle(s, o);
  EXPECT_GE(m.flank_bins, 3);
  EXPECT_LT(std::abs(m.angle_deg), 1.0);
  const std::string why = why_not_a_pile(m);
  EXPECT_NE(why.find("less than one grain diameter (8 mm): the grains lie in a layer 16 mm high"),
            std::string::npos)
      << why;
}

TEST(ReposeAngle, FlatLayerIsRefused) {
  ParticleState s;
  s.add(Vec3(0, 0, 0.01), Vec3::Zero(), 0.01, 1.0);
  s.add(Vec3(0.02, 0, 0.01), Vec3::Zero(), 0.01, 1.0);
  try {
    measure_repose_angle(s, ReposeOptions{});
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("too small or too flat"), std::string::npos);
  }
}

// A few hundred particles poured from a narrow column: the pile of the rougher ones is steeper.
double small_pile_angle(double friction) {
  ParticleModel m;
  m.time_step_s = 1e-3;
  m.friction = m.wall_friction = friction;
  m.rotation = false;  // paper 001's grains, whose pile angle grows with sliding friction alone
  m.threads = 1;
  m.container.kind = Container::Kind::kBox;
  m.container.box = Aabb{Vec3(-0.15, -0.15, 0.0), Vec3(0.15, 0.15, 0.4)};
  m.expected_speed_m_per_s = 3.0;
  RandomBed bed;
  bed.region = Aabb{Vec3(-0.02, -0.02, 0.005), Vec3(0.02, 0.02, 0.3)};
  bed.cylinder_radius_m = 0.02;
  bed.radius_m = 0.004;
  bed.count = 300;
  bed.seed = 3;
  ParticleState s = make_random_bed(bed);
  check_initial_state(m, s);
  ParticleWorkspace ws;
  for (int k = 0; k < 1000; ++k) step(m, s, {}, ws);
  ReposeOptions o;
  o.bin_m = 0.008;  // one diameter: a 300-particle pile spans few rings of the default width
  return measure_repose_angle(s, o).angle_deg;
}

TEST(ReposeAngle, GrowsWithFriction) {
  const double low = small_pile_angle(0.3);
  const double high = small_pile_angle(0.8);
  EXPECT_GT(high, low + 5.0) << "mu 0.1: " << low << " deg, mu 0.8: " << high << " deg";
}

// --- scenario files ---

const char* kSmallDrag = R"([scenario]
name = "small_drag"
tier = "particles"

[particles]
radius_m = 0.005
friction = 0.577

[bed]
kind = "lattice"
lo_m = [0.0051, -0.0349, 0.0051]
hi_m = [0.1949, 0.0349, 0.05]

[container]
kind = "box"
lo_m = [0.0, -0.04, 0.0]
hi_m = [0.2, 0.04, 0.2]

[solver]
threads = 1

[settle]
max_steps = 400
kinetic_energy_per_particle_J = 1e-9

[simulation]
time_step_s = 0.001
log_every_steps = 10

[measure]
kind = "drag"
depths_m = [0.01, 0.03]
x_start_m = 0.04
x_end_m = 0.12
speed_m_per_s = 0.2
lower_time_s = 0.15
[measure.plate]
kind = "box"
size_m = [0.008, 0.05, 0.06]
)";

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

ParticleScenario load_text(const std::string& text) {
  const auto doc = ScenarioDocument::parse(text, "bad.toml");
  return load_particle_scenario(doc->root());
}

std::string particle_scenario_error_of(const std::string& text) {
  try {
    load_text(text);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

TEST(ParticleScenario, EveryShippedScenarioChecks) {
  int count = 0;
  for (const auto& entry :
       fs::directory_iterator(fs::path(TALUS_SOURCE_DIR) / "scenarios/particles")) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    const nlohmann::json info = check_scenario_file(entry.path());
    EXPECT_EQ(info["tier"], "particles");
    EXPECT_GT(info["steps"].get<long>(), 0);
    ++count;
  }
  EXPECT_GE(count, 4);
}

TEST(ParticleScenario, UnknownKeyIsRefusedWithLineAndKey) {
  const std::string msg = particle_scenario_error_of(
      with(kSmallDrag, "friction = 0.577", "friction = 0.5\nfrction = 1"));
  EXPECT_NE(msg.find("bad.toml:8:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("particles.frction: unknown key"), std::string::npos) << msg;
}

TEST(ParticleScenario, GrainKeysAreReadAndBadRollingFrictionIsRefusedWithItsKey) {
  const ParticleScenario rolling =
      load_text(with(kSmallDrag, "friction = 0.577", "friction = 0.577\nrolling_friction = 0.2"));
  EXPECT_TRUE(rolling.model.rotation);
  EXPECT_EQ(rolling.model.rolling_friction, 0.2);
  EXPECT_FALSE(load_text(with(kSmallDrag, "friction = 0.577", "friction = 0.577\nrotation = false"))
                   .model.rotation);
  std::string msg = particle_scenario_error_of(
      with(kSmallDrag, "friction = 0.577", "friction = 0.577\nrolling_friction = -0.1"));
  EXPECT_NE(msg.find("bad.toml:8:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("particles.rolling_friction"), std::string::npos) << msg;
  msg = particle_scenario_error_of(
      with(kSmallDrag, "friction = 0.577",
           "friction = 0.577\nrotation = false\nrolling_friction = 0.1"));
  EXPECT_NE(msg.find("particles.rolling_friction: needs rotation = true"), std::string::npos)
      << msg;
  msg = particle_scenario_error_of(
      with(kSmallDrag, "friction = 0.577", "friction = 0.577\nrotation = 1"));
  EXPECT_NE(msg.find("particles.rotation"), std::string::npos) << msg;
}

TEST(ParticleScenario, TheSortPeriodIsReadAndANegativeOneIsRefusedWithItsKey) {
  EXPECT_EQ(load_text(kSmallDrag).model.sort_every_steps, 0);
  EXPECT_EQ(load_text(with(kSmallDrag, "threads = 1", "threads = 1\nsort_every_steps = 500"))
                .model.sort_every_steps,
            500);
  const std::string msg = particle_scenario_error_of(
      with(kSmallDrag, "threads = 1", "threads = 1\nsort_every_steps = -5"));
  EXPECT_NE(msg.find("bad.toml:21:20: solver.sort_every_steps: expected an integer in [0,"),
            std::string::npos)
      << msg;
}

TEST(ParticleScenario, ASortingRunWritesItsBedInCreationOrder) {
  // The same short run with and without the spatial sort: the sorted run's final_state.tps holds
  // the particles in creation order, so particle k of both files is the same particle, in the
  // same place to rounding. Frames are written too (in creation order, particle_run.cpp).
  const testing_files::ScratchDir scratch;
  std::string text = with(kSmallDrag, "max_steps = 400", "max_steps = 20");
  text = text.substr(0, text.find("[measure]")) + "[measure]\nkind = \"at_rest\"\n";
  text = with(text, "log_every_steps = 10",
              "log_every_steps = 10\nduration_s = 0.05\nframe_every_steps = 25");
  std::vector<ParticleState> beds;
  for (const int every : {0, 10}) {
    ParticleScenario sc = load_text(
        with(text, "threads = 1", fmt::format("threads = 1\nsort_every_steps = {}", every)));
    const fs::path dir = scratch.path() / fmt::format("sort_{}", every);
    OutputDir out(dir);
    run_particle_scenario(sc, out, {});
    out.commit();
    beds.push_back(load_particle_state(dir / "final_state.tps"));
    EXPECT_TRUE(fs::exists(dir / "frames" / "particles_000025.vtp"));
  }
  ASSERT_EQ(beds[0].size(), beds[1].size());
  double worst = 0.0;
  for (std::size_t i = 0; i < beds[0].size(); ++i) {
    worst = std::max({worst, std::abs(double(beds[0].x_m[i]) - beds[1].x_m[i]),
                      std::abs(double(beds[0].z_m[i]) - beds[1].z_m[i])});
  }
  EXPECT_LT(worst, 1e-5) << "the sorted run's particle k is the unsorted run's particle k";
}

TEST(ParticleScenario, TheOldTimeStepKeyIsRefusedNamingTheNewOne) {
  const std::string msg = particle_scenario_error_of(
      with(kSmallDrag, "threads = 1", "threads = 1\ntime_step_s = 0.001"));
  EXPECT_NE(msg.find("bad.toml:21:15: solver.time_step_s: moved to [simulation] time_step_s"),
            std::string::npos)
      << msg;
}

TEST(ParticleScenario, TheTimeStepIsRequiredUnderSimulation) {
  const std::string msg = particle_scenario_error_of(with(kSmallDrag, "time_step_s = 0.001\n", ""));
  EXPECT_NE(msg.find("simulation: missing key 'time_step_s'"), std::string::npos) << msg;
}

TEST(ParticleScenario, EngineChecksSurfaceWithTheFileName) {
  // A time step that breaks the no-tunnelling bound (1 m/s * 0.01 s > 5 mm radius).
  std::string msg =
      particle_scenario_error_of(with(kSmallDrag, "time_step_s = 0.001", "time_step_s = 0.01"));
  EXPECT_NE(msg.find("bad.toml:"), std::string::npos) << msg;
  // Named at the key that sets the step (it named the bed before).
  EXPECT_NE(msg.find("simulation.time_step_s: particle model: time_step_s = 0.01 s violates the "
                     "no-tunnelling bound"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("expected time_step_s <= 0.005 s"), std::string::npos) << msg;
  // The float radius without float32 noise (0.004999999888241291).
  EXPECT_NE(msg.find("smallest radius 0.005 m"), std::string::npos) << msg;
  // A bed outside its container.
  msg = particle_scenario_error_of(
      with(kSmallDrag, "hi_m = [0.2, 0.04, 0.2]", "hi_m = [0.1, 0.04, 0.2]"));
  EXPECT_NE(msg.find("bad.toml:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("particle"), std::string::npos) << msg;
  // A negative Baumgarte factor, refused by the reader's range check.
  msg = particle_scenario_error_of(with(kSmallDrag, "threads = 1", "threads = 1\nbaumgarte = -1"));
  EXPECT_NE(msg.find("solver.baumgarte: expected a number in [0, 1], got -1"), std::string::npos)
      << msg;  // a unitless range: no space before the comma
  // A plate faster than the no-tunnelling bound allows.
  msg = particle_scenario_error_of(with(kSmallDrag, "speed_m_per_s = 0.2", "speed_m_per_s = 2.0"));
  EXPECT_NE(msg.find("measure.speed_m_per_s"), std::string::npos) << msg;
  // A bed file that is not there.
  msg = particle_scenario_error_of(
      with(with(kSmallDrag, "kind = \"lattice\"", "kind = \"file\"\npath = \"nope.tps\""),
           "lo_m = [0.0051, -0.0349, 0.0051]\nhi_m = [0.1949, 0.0349, 0.05]\n", ""));
  EXPECT_NE(msg.find("bed.path"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nope.tps: cannot open"), std::string::npos) << msg;
  // A bed file of no particles (a valid state file, but nothing to simulate).
  const testing_files::ScratchDir scratch;
  const fs::path empty = scratch.path() / "empty.tps";
  save_particle_state(ParticleState{}, empty);
  msg = particle_scenario_error_of(with(
      with(kSmallDrag, "kind = \"lattice\"", "kind = \"file\"\npath = \"" + empty.string() + "\""),
      "lo_m = [0.0051, -0.0349, 0.0051]\nhi_m = [0.1949, 0.0349, 0.05]\n", ""));
  EXPECT_NE(msg.find("bed.path: " + empty.string() + " holds no particles"), std::string::npos)
      << msg;
}

TEST(ParticleScenario, DragGrowsWithDepthAndOutputsAreWritten) {
  const testing_files::ScratchDir scratch;
  const fs::path dir = scratch.path();
  const ParticleScenario sc = load_text(kSmallDrag);
  OutputDir out(dir / "run");
  long last = 0;
  const nlohmann::json summary = run_particle_scenario(sc, out, [&](long done, long total, double) {
    EXPECT_EQ(done, last + 1);
    EXPECT_LE(done, total);
    last = done;
  });
  out.commit();
  const auto& rows = summary["drag"]["per_depth"];
  ASSERT_EQ(rows.size(), 2u);
  const double shallow = rows[0]["mean_drag_N"], deep = rows[1]["mean_drag_N"];
  EXPECT_GT(shallow, 0.0);
  EXPECT_GT(deep, 1.5 * shallow) << shallow << " N at 1 cm, " << deep << " N at 3 cm";
  for (const char* f : {"summary.json", "drag.csv", "drag_force.png", "drag_vs_depth.png",
                        "energy.csv", "final_state.tps"}) {
    EXPECT_TRUE(fs::exists(dir / "run" / f)) << f;
  }
  // No main run: no "end" picture (it was the start again), one per drag pass instead.
  EXPECT_EQ(summary["depth_images"],
            nlohmann::json({"sky_depth_start.png", "sky_depth_after_drag_10mm.png",
                            "sky_depth_after_drag_30mm.png"}));
  EXPECT_TRUE(fs::exists(dir / "run" / "sky_depth_after_drag_30mm.npy"));
  EXPECT_FALSE(fs::exists(dir / "run" / "sky_depth_end.png"));
  EXPECT_GT(summary["settle"]["steps"].get<long>(), 0);
  EXPECT_LE(summary["settle"]["steps"].get<long>(), 400);
  // A warning exactly when the bed did not come to rest (ABedStillMoving... has one).
  EXPECT_EQ(summary.contains("warnings"), !summary["settle"]["at_rest"].get<bool>());
  // The summary says which grains ran: rotating ones (the default) and their rolling friction.
  EXPECT_EQ(summary["rotation"], true);
  EXPECT_EQ(summary["rolling_friction"], 0.1);
  // The saved bed loads again as the starting bed of another scenario.
  EXPECT_EQ(load_particle_state(dir / "run" / "final_state.tps").size(),
            summary["particles"].get<std::size_t>());
}

TEST(ParticleScenario, ABedStillMovingAfterSettlingIsReported) {
  // 20 settling steps leave the lattice falling: the run goes on, and says so.
  const testing_files::ScratchDir scratch;
  const ParticleScenario sc = load_text(with(kSmallDrag, "max_steps = 400", "max_steps = 20"));
  OutputDir out(scratch.path() / "run");
  ::testing::internal::CaptureStderr();
  const nlohmann::json summary = run_particle_scenario(sc, out, {});
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(summary["settle"]["at_rest"].get<bool>());
  ASSERT_EQ(summary["warnings"].size(), 1u) << summary.dump();
  const std::string warning = summary["warnings"][0];
  EXPECT_NE(warning.find("the bed did not come to rest in 20 settling steps"), std::string::npos)
      << warning;
  EXPECT_NE(printed.find("warning: " + warning), std::string::npos) << printed;
}

TEST(ParticleScenario, DivergenceSavesTheLastGoodStateAndNamesTheParticle) {
  // A kinetic-energy bound far below what falling particles reach stops the run.
  const testing_files::ScratchDir scratch;
  const fs::path dir = scratch.path();
  std::string text = with(kSmallDrag, "threads = 1", "threads = 1\nmax_kinetic_energy_J = 1e-9");
  text = with(text, "[settle]\nmax_steps = 400\nkinetic_energy_per_particle_J = 1e-9\n", "");
  text = text.substr(0, text.find("[measure]")) + "[measure]\nkind = \"at_rest\"\n";
  text = with(text, "log_every_steps = 10", "log_every_steps = 10\nduration_s = 0.1");
  const fs::path file = dir / "diverge.toml";
  std::ofstream(file) << text;
  try {
    run_scenario_file(file, dir / "out");
    ADD_FAILURE() << "no divergence";
  } catch (const ParticleRunDiverged& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("diverge.toml"), std::string::npos) << msg;
    EXPECT_NE(msg.find("at step 1 "), std::string::npos) << msg;
    EXPECT_NE(msg.find("first bad particle"), std::string::npos) << msg;
  }
  ASSERT_TRUE(fs::exists(dir / "out" / "last_good_state.tps"));
  const ParticleState good = load_particle_state(dir / "out" / "last_good_state.tps");
  EXPECT_EQ(good.step, 0);
  std::ifstream sfile(dir / "out" / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(sfile);
  EXPECT_EQ(summary["diverged"]["step"], 1);
  // The run up to the last good state can be watched: its view holds the starting frame.
  const ViewRunInfo view = check_view_run(dir / "out");
  EXPECT_EQ(view.frame_count, 1u);
}

}  // namespace
}  // namespace talus::particles
