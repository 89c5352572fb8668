// Wrench-space data from the particle tier (issue 6, paper 000 §III-B2): the foot's path, the sign
// and growth of the measured resistance, determinism, bad input, and the "acquire" scenario kind
// end to end (database, mirror symmetry, zero depth).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "particles/particle_bed.hpp"
#include "particles/particle_bed_random.hpp"
#include "runner/run_scenario.hpp"
#include "wrench/particle_acquisition.hpp"
#include "wrench/velocity_directions.hpp"

namespace talus::wrench {
namespace {

namespace fs = std::filesystem;
using particles::ParticleModel;

// A bed of ~700 spheres of 5 mm, 5 cm deep, settled in a 16 x 12 cm box.
const SettledBed& small_bed() {
  static const SettledBed bed = [] {
    SettledBed b;
    b.model.time_step_s = 1e-3;
    b.model.iterations = 8;
    b.model.friction = 0.6;
    // The shipped databases' grains (data/wrench/*.toml: paper 001's, not rotating). (Rotating
    // grains with rolling friction 0.1 give 0.58 N in the shallow press below, measured.)
    b.model.rotation = false;
    b.model.body_friction = 0.5;
    b.model.wall_friction = 0.5;
    b.model.container.box = Aabb{Vec3(0, 0, 0), Vec3(0.16, 0.12, 0.4)};
    b.model.threads = 1;
    particles::LatticeBed lattice;
    lattice.region = Aabb{Vec3(0.0051, 0.0051, 0.0051), Vec3(0.1549, 0.1149, 0.05)};
    lattice.radius_m = 0.005;
    lattice.density_kg_per_m3 = 2650.0;
    lattice.seed = 3;
    b.state = particles::make_lattice_bed(lattice);
    particles::SettleOptions o;
    o.min_steps = 200;
    o.max_steps = 1500;
    o.kinetic_energy_per_particle_J = 1e-9;
    const particles::SettleResult r = particles::settle(b.model, b.state, {}, b.workspace, o);
    EXPECT_TRUE(r.at_rest);
    b.surface_z_m = particles::free_surface_z_m(b.state);
    return b;
  }();
  return bed;
}

FootPath small_foot() {
  FootPath p;
  p.foot_radius_m = 0.02;
  p.target_xy_m = Vec2(0.08, 0.06);
  p.duration_s = 0.3;
  p.filter_window_s = 0.06;
  return p;
}

AcquisitionRun run_at(double depth, double tilt, const Eigen::Vector3d& velocity) {
  AcquisitionRun r;
  r.depth_m = depth;
  r.tilt_rad = tilt;
  r.velocity = velocity;
  return r;
}

TEST(WrenchParticleAcquisition, FootPoseHasTheBottomCentreAtDepthAndTheAxisTilted) {
  FootPath p;
  p.foot_length_m = 0.5;
  p.target_xy_m = Vec2(0.1, 0.2);
  const double tilt = 0.4;
  const Pose X = foot_pose_at(p, 0.05, -0.02, tilt);
  const Vec3 axis = X.linear().col(2);
  // The axis leans towards +x by the tilt (rotation about +y from the normal).
  EXPECT_NEAR(axis.x(), std::sin(tilt), 1e-12);
  EXPECT_NEAR(axis.z(), std::cos(tilt), 1e-12);
  EXPECT_NEAR(axis.y(), 0.0, 1e-12);
  const Vec3 p_center = X.translation() - 0.25 * axis;
  EXPECT_NEAR((p_center - Vec3(0.1, 0.2, 0.03)).norm(), 0.0, 1e-12);
}

TEST(WrenchParticleAcquisition, RunVelocityIsTheTwistOfTheReferencePoint) {
  const auto [v, w] = run_twist(Eigen::Vector3d(0.1, -0.2, 0.3));
  EXPECT_EQ(v, Vec3(0.1, 0.0, -0.2));
  EXPECT_EQ(w, Vec3(0.0, 0.3, 0.0));
  Eigen::VectorXd six(6);
  six << 1, 2, 3, 4, 5, 6;
  const auto [v6, w6] = run_twist(six);
  EXPECT_EQ(v6, Vec3(1, 2, 3));
  EXPECT_EQ(w6, Vec3(4, 5, 6));
  EXPECT_THROW(run_twist(Eigen::VectorXd::Zero(4)), std::invalid_argument);
  Wrench wr{Vec3(1, 2, 3), Vec3(4, 5, 6), Vec3::Zero()};
  EXPECT_EQ(database_components(wr, 3), Eigen::Vector3d(1, 3, 5));
}

TEST(WrenchParticleAcquisition, PressingDownMeetsUpwardResistanceThatGrowsWithDepth) {
  const SettledBed& bed = small_bed();
  const Eigen::Vector3d down(0.0, -0.02, 0.0);
  AcquisitionTrace trace;
  const Eigen::VectorXd shallow = measure_in_particles(bed, small_foot(), run_at(-0.01, 0, down));
  const Eigen::VectorXd deep =
      measure_in_particles(bed, small_foot(), run_at(-0.03, 0, down), &trace);
  EXPECT_GT(shallow[1], 0.5);  // f_z [N]: the bed pushes the foot up
  EXPECT_GT(deep[1], 1.5 * shallow[1]);
  EXPECT_LT(std::abs(deep[0]), 0.3 * deep[1]);  // little sideways force on a vertical push
  // The reading is the trace's centred mean around 0.8 t_total.
  EXPECT_NEAR(trace.target_time_s, 0.24, 1e-12);
  double sum = 0.0;
  int n = 0;
  for (std::size_t i = 0; i < trace.t_s.size(); ++i) {
    if (trace.t_s[i] >= 0.21 && trace.t_s[i] <= 0.27) {
      sum += trace.wrench[i][1];
      ++n;
    }
  }
  EXPECT_NEAR(trace.filtered[1], sum / n, 1e-9);
  EXPECT_GT(trace.insertion_steps, 0);
}

TEST(WrenchParticleAcquisition, DraggingAndTurningMeetOpposingResistance) {
  const SettledBed& bed = small_bed();
  const Eigen::VectorXd plus_x =
      measure_in_particles(bed, small_foot(), run_at(-0.02, 0, Eigen::Vector3d(0.02, 0, 0)));
  const Eigen::VectorXd minus_x =
      measure_in_particles(bed, small_foot(), run_at(-0.02, 0, Eigen::Vector3d(-0.02, 0, 0)));
  EXPECT_LT(plus_x[0], -0.5);
  EXPECT_GT(minus_x[0], 0.5);
  // Turning about p_r (0.25 m up) at +omega_y swings the bottom towards -x: the bed pushes it
  // back (+f_x) and resists the turn (-tau_y).
  const Eigen::VectorXd turn =
      measure_in_particles(bed, small_foot(), run_at(-0.02, 0, Eigen::Vector3d(0, 0, 0.3)));
  EXPECT_GT(turn[0], 0.5);
  EXPECT_LT(turn[2], -0.1);
}

TEST(WrenchParticleAcquisition, RunsAreDeterministicForAnyThreadCount) {
  SettledBed two = small_bed();
  two.model.threads = 2;
  const AcquisitionRun r = run_at(-0.02, 0.3, Eigen::Vector3d(0.01, -0.01, 0.1));
  const Eigen::VectorXd a = measure_in_particles(small_bed(), small_foot(), r);
  const Eigen::VectorXd b = measure_in_particles(small_bed(), small_foot(), r);
  const Eigen::VectorXd c = measure_in_particles(two, small_foot(), r);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

TEST(WrenchParticleAcquisition, BadInputIsRefusedWithTheRunNamed) {
  FootPath wide = small_foot();
  wide.target_xy_m = Vec2(0.02, 0.06);  // the 2 cm foot touches the x = 0 wall
  AcquisitionRun r = run_at(-0.02, 0, Eigen::Vector3d(0.02, 0, 0));
  r.configuration = 7;
  r.direction = 4;
  try {
    measure_in_particles(small_bed(), wide, r);
    FAIL() << "expected a wall error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("configuration 7"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("direction 4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("side wall"), std::string::npos) << e.what();
  }
  // A foot tilted nearly flat lays its buried length across the bed: its bottom disc alone is
  // inside the walls, the rest of it is not.
  const FootPath upright = small_foot();
  AcquisitionRun flat = run_at(-0.02, 1.5, Eigen::Vector3d(0.02, 0, 0));
  flat.configuration = 3;
  const particles::Container& box = small_bed().model.container;
  EXPECT_NO_THROW(check_run_inside_walls(box, upright,
                                         run_at(-0.02, 0.3, Eigen::Vector3d(0.02, 0, 0)),
                                         small_bed().surface_z_m, 0.001));
  try {
    check_run_inside_walls(box, upright, flat, small_bed().surface_z_m, 0.001);
    FAIL() << "expected a wall error for a foot lying across the bed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("configuration 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("part in the sand"), std::string::npos) << e.what();
  }
  FootPath window = small_foot();
  window.filter_window_s = 0.2;  // does not fit around 0.8 of 0.3 s
  EXPECT_THROW(measure_in_particles(small_bed(), window, r), std::invalid_argument);
  SettledBed with_body = small_bed();
  with_body.model.bodies.push_back(CoupledBody{"plate", PlaneShape{}, Vec3::Zero()});
  EXPECT_THROW(
      measure_in_particles(with_body, small_foot(), run_at(-0.02, 0, Eigen::Vector3d(0.02, 0, 0))),
      std::invalid_argument);
}

// The "acquire" kind end to end on a small grid: zero depth gives zero wrenches without a run,
// negative tilts are the mirror images of positive ones, and the database file is complete.
TEST(WrenchParticleAcquisition, AcquireScenarioWritesAMirroredDatabase) {
  const fs::path dir =
      fs::temp_directory_path() / ("talus_wrench_acquire_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "acquire.toml";
  std::ofstream(file) << R"([scenario]
name = "tiny"
tier = "wrench"
kind = "acquire"
[medium]
name = "test_gravel"
[particles]
radius_m = 0.005
density_kg_per_m3 = 2650.0
friction = 0.6
[bed]
kind = "lattice"
lo_m = [0.0051, 0.0051, 0.0051]
hi_m = [0.1549, 0.1149, 0.05]
seed = 3
[container]
kind = "box"
lo_m = [0.0, 0.0, 0.0]
hi_m = [0.16, 0.12, 0.4]
[simulation]
time_step_s = 0.001
[solver]
iterations = 4
[settle]
max_steps = 1500
min_steps = 200
kinetic_energy_per_particle_J = 1e-9
[foot]
radius_m = 0.02
[path]
duration_s = 0.2
filter_window_s = 0.04
[grid]
depths_m = [0.0, -0.015]
tilts_rad = [-0.2, 0.0, 0.2]
directions = 26
velocity_scale = [0.02, 0.02, 0.3]
)";
  // Progress in the steps check states, to the end (it counted runs after the settling's steps).
  const long total = check_scenario_file(file)["steps"].get<long>();
  long last_done = 0;
  bool same_total = true;
  std::mutex progress_lock;  // the runs report from the threads that measured them
  const nlohmann::json s = run_scenario_file(file, dir / "out", [&](long done, long all, double) {
    const std::lock_guard<std::mutex> guard(progress_lock);
    EXPECT_GE(done, last_done);
    last_done = done;
    same_total = same_total && all == total;
  });
  EXPECT_TRUE(same_total);
  EXPECT_EQ(last_done, total);
  EXPECT_EQ(s["runs"], 52);  // 1 depth x 2 tilts x 26; zero depth and tilt -0.2 need no run
  EXPECT_EQ(s["runs_saved_by_zero_depth_and_symmetry"], 6 * 26 - 52);
  for (const char* f :
       {"database.h5", "runs.csv", "wrench_sets.png", "traces.png", "summary.json"}) {
    EXPECT_TRUE(fs::exists(dir / "out" / f)) << f;
  }
  const WrenchDatabase db = load_database(dir / "out" / "database.h5");
  ASSERT_EQ(db.configuration_count(), 6);
  EXPECT_EQ(db.medium.name, "test_gravel");
  EXPECT_DOUBLE_EQ(db.medium.friction, 0.6);
  const Eigen::VectorXi partner = mirror_partners(db.velocity_directions);
  for (int j = 0; j < 6; ++j) {
    if (db.configurations(j, 0) == 0.0) {
      for (int i = 0; i < 26; ++i) {
        for (int a = 0; a < 3; ++a) EXPECT_EQ(db.wrenches[j](i, a), 0.0);
      }
      continue;
    }
    if (db.configurations(j, 1) >= 0.0) continue;
    // w(d, -phi, i) = mirror_x(w(d, phi, partner(i))): (-f_x, f_z, -tau_y).
    const int source = j + 2;  // tilts -0.2, 0, 0.2 in order
    for (int i = 0; i < 26; ++i) {
      const Eigen::VectorXd w = db.wrenches[source].row(partner[i]).transpose();
      EXPECT_EQ(db.wrenches[j](i, 0), -w[0]);
      EXPECT_EQ(db.wrenches[j](i, 1), w[1]);
      EXPECT_EQ(db.wrenches[j](i, 2), -w[2]);
    }
  }
  // The measured wrenches at depth are not all zero, and pressing down is resisted upwards.
  const int down = [&] {
    int best = 0;
    for (int i = 0; i < 26; ++i) {
      if (db.velocity_directions(i, 1) < db.velocity_directions(best, 1)) best = i;
    }
    return best;
  }();
  // (This file's grains rotate, rolling friction 0.1: 0.54 N measured.)
  EXPECT_GT(db.wrenches[4](down, 1), 0.5);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace talus::wrench
