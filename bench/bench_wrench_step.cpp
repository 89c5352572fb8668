// Per-step cost of the wrench-space contact step (paper 000, §III-C, eq. 2) on the planar
// quadruped robots/quadruped/quadruped.xml (13 bodies, 12 revolute leg joints, 4 feet in contact),
// against the target of 50 us per step (the paper: 0.343 s per step in Matlab, §IV-C4).
//
//   WrenchStepQuadruped/0      one step (W per foot per step: RBF prediction + qhull half-spaces)
//                              on the synthetic database below, full mass (48 kg)
//   WrenchStepQuadruped/1      the same on the shipped particle-tier database
//                              data/wrench/pebbles.h5, the robot at mass_scale 0.25 as in
//                              scenarios/wrench/quadruped.toml (the medium carries ~100 N per foot)
//
// Counters (microseconds per step, wall clock inside the step): mujoco_us (smooth dynamics,
// Jacobians, M^-1 J^T, integration), prediction_us (contact detection, RBF prediction of W(theta)
// and its half-spaces), qp_setup_us (H, g), qp_solve_us; contacts (feet in contact at the end),
// qp_iterations (active-set changes per step) and qhull_share (the share of W's hulls that ran
// qhull; the others came from the previous step's triangles, wrench/hull_tracker.hpp).
//
// The wrench sets come from a WrenchSpaceModel fitted to a synthetic database (the Pebbles grid of
// Table I, 26 directions, wrenches on a depth-scaled ellipsoid with a 5 % scatter of its own per
// configuration, so that W's shape changes with theta as with measured data): the cost does not
// depend on the numbers. The legs swing with small position-servo targets so that the feet's
// contacts change between sticking and slipping.

// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>, also -Warray-bounds);
// silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "bench/pebbles_grid.hpp"
#include "wrench/velocity_directions.hpp"
#include "wrench/wrench_contact_step.hpp"
#include "wrench/wrench_database.hpp"
#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {
namespace {

WrenchDatabase synthetic_pebbles_database() {
  WrenchDatabase db;
  db.configurations = bench::pebbles_grid();
  db.velocity_directions = velocity_directions(26);
  db.velocity_scale = Eigen::Vector3d(0.02, 0.02, 0.3);
  // Unit ellipsoid points opposite to the direction (resistance), scaled (200 N, 200 N, 20 N m)
  // and by depth / 4.5 cm, shifted up by a third (more lift than pull).
  Eigen::MatrixXd surface = -db.velocity_directions;
  surface.col(2) *= 0.1;
  surface.col(1).array() += 0.33;
  std::mt19937 rng(17);
  std::normal_distribution<double> scatter(0.0, 0.05);
  for (int j = 0; j < 28; ++j) {
    const double depth = -db.configurations(j, 0) / 0.045;
    Eigen::MatrixXd w = surface;
    for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] += scatter(rng);
    db.wrenches.push_back(200.0 * depth * (1.0 + 0.2 * std::cos(db.configurations(j, 1))) * w);
  }
  db.medium = MediumDescription{"synthetic", 0.004, 2600.0, 0.6, "bench_wrench_step (synthetic)"};
  return db;
}

void WrenchStepQuadruped(benchmark::State& state) {
  const bool shipped = state.range(0) == 1;
  auto robot = robot::MujocoModel::load(TALUS_SOURCE_DIR "/robots/quadruped/quadruped.xml");
  const double mass_scale = shipped ? 0.25 : 1.0;
  for (int b = 0; b < robot.model()->nbody; ++b) {
    robot.model()->body_mass[b] *= mass_scale;
    for (int a = 0; a < 3; ++a) robot.model()->body_inertia[3 * b + a] *= mass_scale;
  }
  const WrenchSpaceModel predictor(shipped
                                       ? load_database(TALUS_SOURCE_DIR "/data/wrench/pebbles.h5")
                                       : synthetic_pebbles_database());
  WrenchStepModel model;
  for (const char* leg : {"fl", "fr", "hl", "hr"}) {
    model.feet.push_back(FootSpec{leg, std::string(leg) + "_bottom",
                                  mass_scale * Eigen::Vector3d(2.0, 2.0, 0.02).asDiagonal()});
  }
  WrenchContactStep step(robot, predictor, model);
  mjData* d = robot.data();
  auto drive = [&] {
    // Hips swing +-0.08 rad at 1 Hz, diagonal pairs in phase (a trot-like sway), knees follow.
    const double s = 0.08 * std::sin(2.0 * M_PI * d->time);
    const double phase[4] = {s, -s, -s, s};
    for (int leg = 0; leg < 4; ++leg) {
      d->ctrl[3 * leg + 0] = phase[leg];
      d->ctrl[3 * leg + 1] = -0.5 * phase[leg];
      d->ctrl[3 * leg + 2] = -0.5 * phase[leg];
    }
  };
  for (int i = 0; i < 1000; ++i) {  // settle into the ground
    drive();
    step.step();
  }
  const StageSeconds before = step.state().seconds;
  const long runs_before = step.state().hull_runs;
  const long reuses_before = step.state().hull_reuses;
  long iterations = 0;
  for (auto _ : state) {
    drive();
    step.step();
    iterations += step.state().last_qp_iterations;
  }
  const StageSeconds& after = step.state().seconds;
  const double per_step_us = 1e6 / static_cast<double>(state.iterations());
  state.counters["mujoco_us"] = (after.mujoco - before.mujoco) * per_step_us;
  state.counters["prediction_us"] = (after.prediction - before.prediction) * per_step_us;
  state.counters["qp_setup_us"] = (after.qp_setup - before.qp_setup) * per_step_us;
  state.counters["qp_solve_us"] = (after.qp_solve - before.qp_solve) * per_step_us;
  state.counters["qp_iterations"] =
      static_cast<double>(iterations) / static_cast<double>(state.iterations());
  const auto runs = static_cast<double>(step.state().hull_runs - runs_before);
  const auto reuses = static_cast<double>(step.state().hull_reuses - reuses_before);
  state.counters["qhull_share"] = runs / std::max(1.0, runs + reuses);
  int contacts = 0;
  for (const FootContact& foot : step.state().feet) contacts += foot.in_contact;
  state.counters["contacts"] = contacts;
}
BENCHMARK(WrenchStepQuadruped)
    ->ArgName("shipped_pebbles")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace talus::wrench
