// Benchmarks of the wrench-space tier's pieces (wrench/), against the whole-step target
// of 50 microseconds for a 13-body quadruped with 4 contacts:
//
//   WrenchQpCold/n/m        Goldfarb-Idnani solve from scratch, n variables, m inequality rows
//   WrenchQpWarm/n/m        the same after a small change of g, warm-started from the previous
//                           active set (the per-step case)
//   WrenchRbfPredict/m/D    thin-plate-spline prediction of m extreme D-wrenches from 28 samples
//   WrenchHull/m/D          qhull half-spaces of m points on a convex limit surface in D-D
//   WrenchFeasibleSet/m/D   prediction + hull at a theta between samples (one contact per step)
//
// Counters: `rows` (facets) for hulls, `active` and `iterations` for QPs.

// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <benchmark/benchmark.h>

#include <random>

#include "bench/pebbles_grid.hpp"
#include "wrench/qp_solver.hpp"
#include "wrench/rbf.hpp"
#include "wrench/velocity_directions.hpp"
#include "wrench/wrench_hull.hpp"
#include "wrench/wrench_space_model.hpp"

namespace talus::wrench {
namespace {

Eigen::MatrixXd gaussian(std::mt19937& rng, int rows, int cols) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd M(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) M(i, j) = normal(rng);
  return M;
}

// Like eq. 2 in the contact impulses: H = J M^-1 J^T + J_p^T M_g J_p (SPD), rows = facets of
// the feet's wrench sets (unit normals, the origin strictly inside), g pulling outside so that a
// few facets per contact are active.
QpProblem quadruped_like_qp(std::mt19937& rng, int n, int m) {
  QpProblem qp;
  const Eigen::MatrixXd J = gaussian(rng, n, n + 6);
  qp.H = J * J.transpose() / (n + 6) + 0.05 * Eigen::MatrixXd::Identity(n, n);
  qp.g = 5.0 * gaussian(rng, n, 1);
  qp.A_in = gaussian(rng, m, n);
  qp.A_in.rowwise().normalize();
  std::uniform_real_distribution<double> offset(0.5, 1.5);
  qp.b_in.resize(m);
  for (int i = 0; i < m; ++i) qp.b_in[i] = offset(rng);
  return qp;
}

void WrenchQpCold(benchmark::State& state) {
  std::mt19937 rng(1);
  const QpProblem qp =
      quadruped_like_qp(rng, static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  DenseQpSolver solver;
  QpResult result;
  for (auto _ : state) {
    result = solver.solve(qp);
    benchmark::DoNotOptimize(result.x.data());
  }
  state.counters["active"] = static_cast<double>(result.active_set.size());
  state.counters["iterations"] = result.iterations;
}
BENCHMARK(WrenchQpCold)
    ->Args({12, 100})
    ->Args({24, 100})
    ->Args({24, 200})
    ->Args({40, 200})
    ->Unit(benchmark::kMicrosecond);

void WrenchQpWarm(benchmark::State& state) {
  std::mt19937 rng(1);
  QpProblem qp =
      quadruped_like_qp(rng, static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  DenseQpSolver solver;
  const QpResult previous = solver.solve(qp);
  qp.g += 1e-3 * gaussian(rng, static_cast<int>(qp.g.size()), 1);
  QpResult result;
  for (auto _ : state) {
    result = solver.solve(qp, previous.active_set);
    benchmark::DoNotOptimize(result.x.data());
  }
  state.counters["active"] = static_cast<double>(result.active_set.size());
  state.counters["iterations"] = result.iterations;
}
BENCHMARK(WrenchQpWarm)
    ->Args({12, 100})
    ->Args({24, 100})
    ->Args({24, 200})
    ->Args({40, 200})
    ->Unit(benchmark::kMicrosecond);

// m points on an ellipsoidal limit surface in D-D, scaled like forces [N] and torques [N m].
Eigen::MatrixXd limit_surface_points(int m, int D, unsigned seed) {
  std::mt19937 rng(seed);
  Eigen::MatrixXd P = gaussian(rng, m, D);
  P.rowwise().normalize();
  Eigen::VectorXd scale = Eigen::VectorXd::Constant(D, 100.0);
  scale.tail(D / 2).setConstant(10.0);
  return P * scale.asDiagonal();
}

void WrenchHull(benchmark::State& state) {
  const Eigen::MatrixXd P =
      limit_surface_points(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), 3);
  HalfSpaces hull;
  for (auto _ : state) {
    hull = convex_hull_halfspaces(P);
    benchmark::DoNotOptimize(hull.b.data());
  }
  state.counters["rows"] = static_cast<double>(hull.A.rows());
}
BENCHMARK(WrenchHull)
    ->Args({26, 3})
    ->Args({58, 3})
    ->Args({26, 6})
    ->Args({58, 6})
    ->Unit(benchmark::kMicrosecond);

// A database on the paper's Pebbles grid (4 depths x 7 tilts incl. mirrored) with wrenches on a
// depth-scaled limit surface; D = 3 uses the direction sets, D = 6 random unit directions.
WrenchDatabase bench_database(int m, int D) {
  WrenchDatabase db;
  db.configurations = bench::pebbles_grid();
  std::mt19937 rng(5);
  if (D == 3) {
    db.velocity_directions = velocity_directions(m);
  } else {
    db.velocity_directions = gaussian(rng, m, D);
    db.velocity_directions.rowwise().normalize();
  }
  db.velocity_scale = Eigen::VectorXd::Constant(D, 0.02);
  const Eigen::MatrixXd surface = limit_surface_points(m, D, 9);
  for (int j = 0; j < 28; ++j) {
    const double depth = -db.configurations(j, 0);
    const double tilt = db.configurations(j, 1);
    db.wrenches.push_back(30.0 * depth * (1.0 + 0.2 * std::cos(tilt)) * surface);
  }
  db.medium = MediumDescription{"bench", 0.004, 2600.0, 0.6, "bench_wrench_space"};
  return db;
}

void WrenchRbfPredict(benchmark::State& state) {
  const WrenchSpaceModel model(
      bench_database(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))));
  Eigen::Vector2d theta(-0.022, 0.41);
  for (auto _ : state) {
    const Eigen::MatrixXd w = model.predict_wrenches(theta);
    benchmark::DoNotOptimize(w.data());
  }
}
BENCHMARK(WrenchRbfPredict)
    ->Args({26, 3})
    ->Args({58, 3})
    ->Args({26, 6})
    ->Args({58, 6})
    ->Unit(benchmark::kMicrosecond);

void WrenchFeasibleSet(benchmark::State& state) {
  const WrenchSpaceModel model(
      bench_database(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))));
  Eigen::Vector2d theta(-0.022, 0.41);
  HalfSpaces W;
  for (auto _ : state) {
    W = model.feasible_set(theta);
    benchmark::DoNotOptimize(W.b.data());
  }
  state.counters["rows"] = static_cast<double>(W.A.rows());
}
BENCHMARK(WrenchFeasibleSet)
    ->Args({26, 3})
    ->Args({58, 3})
    ->Args({26, 6})
    ->Args({58, 6})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace talus::wrench
