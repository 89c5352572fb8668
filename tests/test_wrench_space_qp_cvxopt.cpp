// Cross-check of the Goldfarb-Idnani QP solver against an independent solver: cvxopt's
// interior-point solvers.qp (Debian python3-cvxopt, run through /usr/bin/python3; never linked
// into talus). Skipped when that interpreter or cvxopt is missing.

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <gtest/gtest.h>

#include <random>

#include "cvxopt_qp.hpp"
#include "wrench/qp_solver.hpp"

namespace talus::wrench {
namespace {

Eigen::MatrixXd gaussian(std::mt19937& rng, int rows, int cols) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd M(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) M(i, j) = normal(rng);
  return M;
}

TEST(WrenchSpaceQpCvxopt, MatchesCvxoptOnThousandsOfRandomProblems) {
  if (!testing::cvxopt_available()) {
    ASSERT_FALSE(testing::running_in_ci()) << "CI needs python3-cvxopt (scripts/install-deps.sh)";
    GTEST_SKIP() << "/usr/bin/python3 with cvxopt is not available";
  }
  std::mt19937 rng(77);
  const int count = 2000;
  std::vector<QpProblem> problems;
  for (int k = 0; k < count; ++k) {
    const int n = 2 + k % 14;
    const int m = 1 + (7 * k) % 40;
    const int p = k % 5 == 0 ? 1 : 0;
    QpProblem qp;
    const Eigen::MatrixXd M = gaussian(rng, n, n);
    qp.H = M * M.transpose() + 0.1 * Eigen::MatrixXd::Identity(n, n);
    qp.g = 5.0 * gaussian(rng, n, 1);
    const Eigen::VectorXd x0 = gaussian(rng, n, 1);
    qp.A_in = gaussian(rng, m, n);
    qp.b_in = qp.A_in * x0 + (gaussian(rng, m, 1).array().abs()).matrix();
    qp.A_eq = gaussian(rng, p, n);
    qp.b_eq = qp.A_eq * x0;
    problems.push_back(std::move(qp));
  }
  const std::vector<testing::CvxoptSolution> reference =
      testing::solve_with_cvxopt(problems, "talus_qp_cvxopt");
  DenseQpSolver solver;
  int compared = 0;
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const QpProblem& qp = problems[k];
    if (reference[k].status != "optimal") continue;  // cvxopt's own tolerance trouble
    const Eigen::VectorXd& x_ref = reference[k].x;
    const QpResult res = solver.solve(qp);
    ASSERT_EQ(res.status, QpStatus::kOptimal) << "problem " << k << ": " << res.message;
    EXPECT_LT((res.x - x_ref).norm(), 1e-5 * (1.0 + x_ref.norm())) << "problem " << k;
    // The active-set solution is at least as good as the interior-point one.
    const double f_ref = 0.5 * x_ref.dot(qp.H * x_ref) + qp.g.dot(x_ref);
    EXPECT_LE(res.objective, f_ref + 1e-7 * (1.0 + std::abs(f_ref)));
    ++compared;
  }
  EXPECT_GT(compared, count * 9 / 10);
}

}  // namespace
}  // namespace talus::wrench
