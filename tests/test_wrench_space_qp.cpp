// Tests of the dense Goldfarb-Idnani QP solver (wrench/qp_solver.hpp) against an exact brute-force
// enumeration of active sets, the KKT conditions, infeasibility certificates and warm starts.

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "wrench/qp_solver.hpp"

namespace talus::wrench {
namespace {

Eigen::MatrixXd random_matrix(std::mt19937& rng, int rows, int cols) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd M(rows, cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) M(i, j) = normal(rng);
  }
  return M;
}

// A random strictly convex QP whose feasible set contains x0 (so it is feasible); the
// unconstrained minimum is pushed far out so that many rows end up active.
QpProblem random_feasible_qp(std::mt19937& rng, int n, int m, int p, double g_scale) {
  QpProblem qp;
  const Eigen::MatrixXd M = random_matrix(rng, n, n);
  qp.H = M * M.transpose() + 0.1 * Eigen::MatrixXd::Identity(n, n);
  qp.g = g_scale * random_matrix(rng, n, 1);
  const Eigen::VectorXd x0 = random_matrix(rng, n, 1);
  qp.A_in = random_matrix(rng, m, n);
  std::uniform_real_distribution<double> slack(0.0, 1.0);
  qp.b_in = qp.A_in * x0;
  for (int i = 0; i < m; ++i) qp.b_in[i] += slack(rng);
  qp.A_eq = random_matrix(rng, p, n);
  qp.b_eq = qp.A_eq * x0;
  return qp;
}

// Exact solution by enumeration: for every subset S of inequality rows solve the KKT system with
// S (and the equalities) as equalities; the optimum is the primal-feasible, dual-feasible one.
bool brute_force(const QpProblem& qp, Eigen::VectorXd& x_best) {
  const int n = static_cast<int>(qp.H.rows());
  const int m = static_cast<int>(qp.A_in.rows());
  const int p = static_cast<int>(qp.A_eq.rows());
  for (unsigned mask = 0; mask < (1u << m); ++mask) {
    std::vector<int> rows;
    for (int i = 0; i < m; ++i) {
      if (mask & (1u << i)) rows.push_back(i);
    }
    const int k = static_cast<int>(rows.size()) + p;
    if (k > n) continue;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n + k, n + k);
    Eigen::VectorXd rhs(n + k);
    K.topLeftCorner(n, n) = qp.H;
    rhs.head(n) = -qp.g;
    for (int e = 0; e < p; ++e) {
      K.block(n + e, 0, 1, n) = qp.A_eq.row(e);
      K.block(0, n + e, n, 1) = qp.A_eq.row(e).transpose();
      rhs[n + e] = qp.b_eq[e];
    }
    for (size_t j = 0; j < rows.size(); ++j) {
      const int at = n + p + static_cast<int>(j);
      K.block(at, 0, 1, n) = qp.A_in.row(rows[j]);
      K.block(0, at, n, 1) = qp.A_in.row(rows[j]).transpose();
      rhs[at] = qp.b_in[rows[j]];
    }
    Eigen::FullPivLU<Eigen::MatrixXd> lu(K);
    if (lu.rank() < n + k) continue;
    const Eigen::VectorXd sol = lu.solve(rhs);
    const Eigen::VectorXd x = sol.head(n);
    bool ok = true;
    for (size_t j = 0; j < rows.size(); ++j) {
      if (sol[n + p + static_cast<int>(j)] < -1e-9) ok = false;  // multiplier sign
    }
    if (m > 0 && ((qp.A_in * x - qp.b_in).array() > 1e-9).any()) ok = false;
    if (ok) {
      x_best = x;
      return true;
    }
  }
  return false;
}

void expect_kkt(const QpProblem& qp, const QpResult& res, double tol) {
  ASSERT_EQ(res.status, QpStatus::kOptimal) << res.message;
  const Eigen::VectorXd& x = res.x;
  Eigen::VectorXd stationarity = qp.H * x + qp.g;
  if (qp.A_in.rows() > 0) stationarity += qp.A_in.transpose() * res.lambda_in;
  if (qp.A_eq.rows() > 0) stationarity += qp.A_eq.transpose() * res.lambda_eq;
  const double scale = 1.0 + qp.g.norm() + qp.H.norm() * x.norm();
  EXPECT_LT(stationarity.norm(), tol * scale);
  for (int i = 0; i < qp.A_in.rows(); ++i) {
    const double row_scale = 1.0 + qp.A_in.row(i).norm() * x.norm() + std::abs(qp.b_in[i]);
    const double s = qp.b_in[i] - qp.A_in.row(i).dot(x);
    EXPECT_GT(s, -tol * row_scale) << "row " << i;
    EXPECT_GE(res.lambda_in[i], 0.0);
    EXPECT_LT(std::abs(s * res.lambda_in[i]), tol * row_scale * (1.0 + res.lambda_in.norm()))
        << "complementarity row " << i;
  }
  for (int e = 0; e < qp.A_eq.rows(); ++e) {
    EXPECT_NEAR(qp.A_eq.row(e).dot(x), qp.b_eq[e], tol * (1.0 + std::abs(qp.b_eq[e])));
  }
}

TEST(WrenchSpaceQp, MatchesBruteForceOnThousandsOfSmallProblems) {
  std::mt19937 rng(12345);
  DenseQpSolver solver;
  int compared = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 1 + trial % 6;
    const int m = trial % 11;
    const int p = (trial % 3 == 0 && n > 1) ? 1 : 0;
    const QpProblem qp = random_feasible_qp(rng, n, m, p, 3.0);
    Eigen::VectorXd x_exact;
    ASSERT_TRUE(brute_force(qp, x_exact)) << "trial " << trial;
    const QpResult res = solver.solve(qp);
    ASSERT_EQ(res.status, QpStatus::kOptimal) << "trial " << trial << ": " << res.message;
    EXPECT_LT((res.x - x_exact).norm(), 1e-7 * (1.0 + x_exact.norm())) << "trial " << trial;
    ++compared;
  }
  EXPECT_EQ(compared, 3000);
}

TEST(WrenchSpaceQp, SatisfiesKktOnQuadrupedSizedProblems) {
  std::mt19937 rng(7);
  DenseQpSolver solver;
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 20 + trial % 21;
    const int m = 100 + 5 * (trial % 21);
    const QpProblem qp = random_feasible_qp(rng, n, m, trial % 4, 30.0);
    const QpResult res = solver.solve(qp);
    expect_kkt(qp, res, 1e-8);
    EXPECT_GT(res.active_set.size(), 0u);
  }
}

TEST(WrenchSpaceQp, ActiveSetIsConsistentWithMultipliersAndSlacks) {
  std::mt19937 rng(99);
  DenseQpSolver solver;
  const QpProblem qp = random_feasible_qp(rng, 10, 40, 0, 20.0);
  const QpResult res = solver.solve(qp);
  ASSERT_EQ(res.status, QpStatus::kOptimal);
  const std::set<int> active(res.active_set.begin(), res.active_set.end());
  for (int i = 0; i < 40; ++i) {
    if (active.count(i)) {
      EXPECT_NEAR(qp.A_in.row(i).dot(res.x), qp.b_in[i], 1e-8 * (1.0 + std::abs(qp.b_in[i])));
    } else {
      EXPECT_EQ(res.lambda_in[i], 0.0);
    }
  }
}

TEST(WrenchSpaceQp, UnconstrainedProblemGivesTheNewtonPoint) {
  QpProblem qp;
  qp.H = Eigen::Matrix2d{{2.0, 0.0}, {0.0, 4.0}};
  qp.g = Eigen::Vector2d{-2.0, 8.0};
  const QpResult res = DenseQpSolver{}.solve(qp);
  ASSERT_EQ(res.status, QpStatus::kOptimal);
  EXPECT_NEAR(res.x[0], 1.0, 1e-14);
  EXPECT_NEAR(res.x[1], -2.0, 1e-14);
  EXPECT_NEAR(res.objective, -1.0 - 8.0, 1e-12);
}

TEST(WrenchSpaceQp, BoxConstrainedSolutionIsTheClampedPoint) {
  // min 1/2 |x - (3, -3)|^2 with |x_i| <= 1 -> (1, -1), multipliers (2, 2).
  QpProblem qp;
  qp.H = Eigen::Matrix2d::Identity();
  qp.g = Eigen::Vector2d{-3.0, 3.0};
  qp.A_in = Eigen::MatrixXd(4, 2);
  qp.A_in << 1, 0, -1, 0, 0, 1, 0, -1;
  qp.b_in = Eigen::Vector4d::Ones();
  const QpResult res = DenseQpSolver{}.solve(qp);
  ASSERT_EQ(res.status, QpStatus::kOptimal);
  EXPECT_NEAR(res.x[0], 1.0, 1e-12);
  EXPECT_NEAR(res.x[1], -1.0, 1e-12);
  EXPECT_NEAR(res.lambda_in[0], 2.0, 1e-12);
  EXPECT_NEAR(res.lambda_in[3], 2.0, 1e-12);
  EXPECT_EQ(res.lambda_in[1], 0.0);
  EXPECT_EQ(std::set<int>(res.active_set.begin(), res.active_set.end()), (std::set<int>{0, 3}));
}

TEST(WrenchSpaceQp, ReportsConflictingRowsOfAnInfeasibleProblem) {
  // x0 + x1 <= -1 and -(x0 + x1) <= -1 (i.e. x0 + x1 >= 1) conflict; a third row is harmless.
  QpProblem qp;
  qp.H = Eigen::Matrix3d::Identity();
  qp.g = Eigen::Vector3d{0.5, -0.2, 0.1};
  qp.A_in = Eigen::MatrixXd(3, 3);
  qp.A_in << 0, 0, 1, 1, 1, 0, -1, -1, 0;
  qp.b_in = Eigen::Vector3d{5.0, -1.0, -1.0};
  const QpResult res = DenseQpSolver{}.solve(qp);
  ASSERT_EQ(res.status, QpStatus::kInfeasible);
  EXPECT_EQ(std::set<int>(res.conflicting_inequalities.begin(), res.conflicting_inequalities.end()),
            (std::set<int>{1, 2}));
  EXPECT_FALSE(res.message.empty());
}

TEST(WrenchSpaceQp, ReportsInequalityContradictingAnEquality) {
  QpProblem qp;
  qp.H = Eigen::Matrix2d::Identity();
  qp.g = Eigen::Vector2d::Zero();
  qp.A_eq = Eigen::RowVector2d{1.0, 0.0};
  qp.b_eq = Eigen::VectorXd::Constant(1, 2.0);
  qp.A_in = Eigen::RowVector2d{1.0, 0.0};
  qp.b_in = Eigen::VectorXd::Constant(1, 1.0);
  const QpResult res = DenseQpSolver{}.solve(qp);
  ASSERT_EQ(res.status, QpStatus::kInfeasible);
  EXPECT_EQ(res.conflicting_inequalities, std::vector<int>{0});
  EXPECT_EQ(res.conflicting_equalities, std::vector<int>{0});
}

TEST(WrenchSpaceQp, DetectsInfeasibilityOnRandomEmptyPolytopes) {
  // Rows a x <= b and -a x <= -b - 1 with random a: empty for every x. Every row but 7 holds at
  // x0, so any certificate must contain row 7; the reported rows alone must be infeasible.
  std::mt19937 rng(3);
  DenseQpSolver solver;
  for (int trial = 0; trial < 200; ++trial) {
    QpProblem qp = random_feasible_qp(rng, 8, 20, 0, 5.0);
    qp.A_in.row(7) = -qp.A_in.row(3);
    qp.b_in[7] = -qp.b_in[3] - 1.0;
    const QpResult res = solver.solve(qp);
    ASSERT_EQ(res.status, QpStatus::kInfeasible) << "trial " << trial;
    const std::set<int> conflict(res.conflicting_inequalities.begin(),
                                 res.conflicting_inequalities.end());
    EXPECT_TRUE(conflict.count(7)) << "trial " << trial;
    QpProblem subset = qp;
    subset.A_in.resize(static_cast<Eigen::Index>(conflict.size()), 8);
    subset.b_in.resize(static_cast<Eigen::Index>(conflict.size()));
    Eigen::Index row = 0;
    for (const int i : conflict) {
      subset.A_in.row(row) = qp.A_in.row(i);
      subset.b_in[row++] = qp.b_in[i];
    }
    EXPECT_EQ(solver.solve(subset).status, QpStatus::kInfeasible) << "trial " << trial;
    // Without row 7 the problem is feasible again.
    qp.b_in[7] = 1e3;
    EXPECT_EQ(solver.solve(qp).status, QpStatus::kOptimal) << "trial " << trial;
  }
}

TEST(WrenchSpaceQp, WarmStartGivesTheSameSolutionInFewerIterations) {
  std::mt19937 rng(2024);
  DenseQpSolver solver;
  int cold_total = 0;
  int warm_total = 0;
  for (int trial = 0; trial < 30; ++trial) {
    QpProblem qp = random_feasible_qp(rng, 30, 150, 2, 30.0);
    const QpResult first = solver.solve(qp);
    ASSERT_EQ(first.status, QpStatus::kOptimal);
    // The next "time step": slightly different linear term.
    qp.g += 1e-3 * random_matrix(rng, 30, 1);
    const QpResult cold = solver.solve(qp);
    const QpResult warm = solver.solve(qp, first.active_set);
    ASSERT_EQ(warm.status, QpStatus::kOptimal);
    EXPECT_LT((warm.x - cold.x).norm(), 1e-8 * (1.0 + cold.x.norm()));
    expect_kkt(qp, warm, 1e-8);
    EXPECT_LE(warm.iterations, cold.iterations);
    cold_total += cold.iterations;
    warm_total += warm.iterations;
  }
  EXPECT_LT(warm_total * 4, cold_total);
}

TEST(WrenchSpaceQp, WarmStartFromAWrongActiveSetStillConverges) {
  std::mt19937 rng(5);
  DenseQpSolver solver;
  for (int trial = 0; trial < 50; ++trial) {
    const QpProblem qp = random_feasible_qp(rng, 12, 60, 1, 10.0);
    std::vector<int> wrong = {0, 5, 9, 59, 59, -3, 1000};  // junk and duplicates are ignored
    const QpResult cold = solver.solve(qp);
    const QpResult warm = solver.solve(qp, wrong);
    expect_kkt(qp, warm, 1e-8);
    EXPECT_LT((warm.x - cold.x).norm(), 1e-8 * (1.0 + cold.x.norm()));
  }
}

TEST(WrenchSpaceQp, RejectsBadData) {
  DenseQpSolver solver;
  QpProblem qp;
  qp.H = Eigen::Matrix2d{{1.0, 0.0}, {0.0, -1.0}};
  qp.g = Eigen::Vector2d::Zero();
  EXPECT_THROW(solver.solve(qp), QpError);  // indefinite
  qp.H = Eigen::Matrix2d{{1.0, 0.5}, {0.0, 1.0}};
  EXPECT_THROW(solver.solve(qp), QpError);  // not symmetric
  qp.H = Eigen::Matrix2d::Identity();
  qp.g = Eigen::Vector3d::Zero();
  EXPECT_THROW(solver.solve(qp), QpError);  // g size
  qp.g = Eigen::Vector2d::Zero();
  qp.A_in = Eigen::MatrixXd::Ones(2, 3);
  qp.b_in = Eigen::Vector2d::Ones();
  EXPECT_THROW(solver.solve(qp), QpError);  // A_in columns
  qp.A_in = Eigen::MatrixXd::Ones(2, 2);
  qp.b_in = Eigen::Vector2d{1.0, std::nan("")};
  EXPECT_THROW(solver.solve(qp), QpError);  // NaN
}

}  // namespace
}  // namespace talus::wrench
