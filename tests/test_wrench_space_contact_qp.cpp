// The contact QP of eq. 2 over the impulses (contact_wrench_qp.hpp): KKT conditions per contact,
// warm starts, rank-deficient H refused, and an independent check: cvxopt's interior-point
// solvers.qp (Debian python3-cvxopt through /usr/bin/python3; not linked into talus; skipped where
// missing) solves the same problem in the other representation of W, as convex combinations of
// the predicted wrenches (c_i = h V_i lambda_i, lambda_i >= 0, sum lambda_i <= 1; no hull).

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <gtest/gtest.h>

#include <random>

#include "cvxopt_qp.hpp"
#include "wrench/contact_wrench_qp.hpp"

namespace talus::wrench {
namespace {

struct RandomContactQp {
  ContactQp qp;
  std::vector<Eigen::MatrixXd> vertices;  // per contact: 3 x m predicted wrenches
};

// k contacts with m random wrenches each (about 100 N, 10 N m) whose hull holds the zero wrench
// strictly inside; H like J M^-1 J^T (SPD, ~1/kg), g ~ `reach` m/s: small g leaves the optimum
// inside W (sticking), large g puts it on the boundary (sliding).
RandomContactQp random_problem(std::mt19937& rng, int k, int m, double reach) {
  std::normal_distribution<double> normal(0.0, 1.0);
  RandomContactQp out;
  ContactQp& qp = out.qp;
  qp.dt_s = 1e-3;
  const int n = 3 * k;
  Eigen::MatrixXd A(n, n + 3);
  for (int i = 0; i < A.rows(); ++i)
    for (int j = 0; j < A.cols(); ++j) A(i, j) = normal(rng);
  qp.H = 0.1 * A * A.transpose() / n + 0.01 * Eigen::MatrixXd::Identity(n, n);
  qp.g.resize(n);
  for (int i = 0; i < n; ++i) qp.g[i] = reach * normal(rng);
  for (int c = 0; c < k; ++c) {
    for (;;) {
      Eigen::MatrixXd V(3, m);
      for (int j = 0; j < m; ++j) {
        V.col(j) = Eigen::Vector3d(100 * normal(rng), 50 + 100 * normal(rng), 10 * normal(rng));
      }
      HalfSpaces W = convex_hull_halfspaces(V.transpose());
      if (!W.contains(Eigen::Vector3d::Zero(), -1e-6)) continue;  // 0 strictly inside
      qp.sets.push_back(std::move(W));
      out.vertices.push_back(V);
      break;
    }
  }
  return out;
}

TEST(WrenchSpaceContactQp, SolutionsMeetTheKktConditionsPerContact) {
  std::mt19937 rng(5);
  ContactWrenchSolver solver;
  int sliding = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int k = 1 + trial % 4;
    const RandomContactQp problem =
        random_problem(rng, k, trial % 3 == 0 ? 58 : 26, trial % 5 == 0 ? 1e-3 : 1.0);
    const ContactQp& qp = problem.qp;
    const ContactQpSolution s = solver.solve(qp);
    ASSERT_EQ(s.status, QpStatus::kOptimal) << trial << ": " << s.message;
    // Rebuild the multipliers per contact from the active rows (least squares on the active
    // normals), then check stationarity, primal and dual feasibility, complementarity.
    const Eigen::VectorXd grad = qp.H * s.impulse + qp.g;
    EXPECT_LT(s.stationarity, 1e-9 * (1.0 + qp.g.norm())) << trial;
    bool any_active = false;
    for (int c = 0; c < k; ++c) {
      const HalfSpaces& W = qp.sets[static_cast<size_t>(c)];
      const Eigen::Vector3d c_i = s.impulse.segment<3>(3 * c);
      const Eigen::VectorXd slack = qp.dt_s * W.b - W.A * c_i;
      // Primal feasible to the solver's tolerance (1e-9 relative; h b is ~0.1 N s here).
      EXPECT_GT(slack.minCoeff(), -1e-10) << trial;
      const std::vector<int>& rows = s.active_rows[static_cast<size_t>(c)];
      any_active |= !rows.empty();
      Eigen::MatrixXd N(3, rows.size());
      for (size_t r = 0; r < rows.size(); ++r) {
        EXPECT_NEAR(slack[rows[r]], 0.0, 1e-10) << trial;  // complementarity: active = tight
        N.col(static_cast<Eigen::Index>(r)) = W.A.row(rows[r]).transpose();
      }
      const Eigen::Vector3d g_i = grad.segment<3>(3 * c);
      if (rows.empty()) {
        EXPECT_LT(g_i.norm(), 1e-9 * (1.0 + qp.g.norm())) << trial;  // sticking: gradient 0
        continue;
      }
      // -grad_i = N mu, mu >= 0 (dual feasible).
      const Eigen::VectorXd mu = N.colPivHouseholderQr().solve(-g_i);
      EXPECT_LT((N * mu + g_i).norm(), 1e-9 * (1.0 + qp.g.norm())) << trial;
      EXPECT_GT(mu.minCoeff(), -1e-9) << trial;
    }
    sliding += any_active;
  }
  EXPECT_GT(sliding, 150);  // the boundary case is exercised, not only the interior one
}

TEST(WrenchSpaceContactQp, WarmStartFromThePreviousActiveRowsSavesWork) {
  std::mt19937 rng(9);
  ContactWrenchSolver solver;
  long cold = 0;
  long warm = 0;
  for (int trial = 0; trial < 50; ++trial) {
    RandomContactQp problem = random_problem(rng, 4, 26, 1.0);
    const ContactQpSolution first = solver.solve(problem.qp);
    problem.qp.g *= 1.0 + 1e-4;  // the next step: nearly the same problem
    const ContactQpSolution fresh = solver.solve(problem.qp);
    const ContactQpSolution again = solver.solve(problem.qp, first.active_rows);
    cold += fresh.iterations;
    warm += again.iterations;
    EXPECT_LT((again.impulse - fresh.impulse).norm(), 1e-9 * (1.0 + fresh.impulse.norm()));
  }
  EXPECT_LT(warm, cold / 2);
}

TEST(WrenchSpaceContactQp, DependentContactsAreRefused) {
  std::mt19937 rng(3);
  RandomContactQp problem = random_problem(rng, 2, 26, 1.0);
  // Contact 1 moves exactly like contact 0: H = [K K; K K].
  const Eigen::MatrixXd K = problem.qp.H.topLeftCorner(3, 3);
  problem.qp.H << K, K, K, K;
  ContactWrenchSolver solver;
  try {
    solver.solve(problem.qp);
    FAIL() << "no error";
  } catch (const QpError& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
}

// Vertex (convex-combination) form for cvxopt: variables lambda (sum m_i), P = B^T H B (positive
// semi-definite), q = B^T g, G = [-I; S], h = [0; 1], with B = dt blockdiag(V_i) and S the rows of
// ones per contact.

TEST(WrenchSpaceContactQp, MatchesCvxoptOnTheConvexCombinationForm) {
  if (!testing::cvxopt_available()) {
    ASSERT_FALSE(testing::running_in_ci()) << "CI needs python3-cvxopt (scripts/install-deps.sh)";
    GTEST_SKIP() << "/usr/bin/python3 with cvxopt is not available";
  }
  std::mt19937 rng(21);
  const int count = 60;
  std::vector<RandomContactQp> problems;
  std::vector<Eigen::MatrixXd> Bs;
  std::vector<QpProblem> vertex_form;
  for (int t = 0; t < count; ++t) {
    problems.push_back(random_problem(rng, 1 + t % 4, 26, t % 4 == 0 ? 1e-3 : 1.0));
    const RandomContactQp& p = problems.back();
    const int k = static_cast<int>(p.vertices.size());
    int n = 0;
    for (const auto& V : p.vertices) n += static_cast<int>(V.cols());
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(3 * k, n);
    QpProblem qp;
    qp.A_in = Eigen::MatrixXd::Zero(n + k, n);
    qp.b_in = Eigen::VectorXd::Zero(n + k);
    int col = 0;
    for (int c = 0; c < k; ++c) {
      const Eigen::MatrixXd& V = p.vertices[static_cast<size_t>(c)];
      B.block(3 * c, col, 3, V.cols()) = p.qp.dt_s * V;
      qp.A_in.block(n + c, col, 1, V.cols()).setOnes();
      qp.b_in[n + c] = 1.0;
      col += static_cast<int>(V.cols());
    }
    qp.A_in.topLeftCorner(n, n) = -Eigen::MatrixXd::Identity(n, n);
    qp.H = B.transpose() * p.qp.H * B;  // positive semi-definite: fine for cvxopt
    qp.g = B.transpose() * p.qp.g;
    qp.A_eq.resize(0, n);
    qp.b_eq.resize(0);
    vertex_form.push_back(std::move(qp));
    Bs.push_back(B);
  }
  const std::vector<testing::CvxoptSolution> reference =
      testing::solve_with_cvxopt(vertex_form, "talus_contact_qp_cvxopt");
  ContactWrenchSolver solver;
  for (int t = 0; t < count; ++t) {
    const testing::CvxoptSolution& ref = reference[static_cast<size_t>(t)];
    ASSERT_EQ(ref.status, "optimal") << "problem " << t;
    const Eigen::VectorXd c_cvxopt = Bs[static_cast<size_t>(t)] * ref.x;
    const ContactQpSolution ours = solver.solve(problems[static_cast<size_t>(t)].qp);
    ASSERT_EQ(ours.status, QpStatus::kOptimal);
    // Interior-point accuracy: 1e-6 of the impulse plus 1e-5 of the sets' scale h 100 N (the
    // sticking problems have impulses far inside W, near 1e-8 N s).
    const double scale = problems[static_cast<size_t>(t)].qp.dt_s * 100.0;
    EXPECT_LT((ours.impulse - c_cvxopt).norm(), 1e-6 * c_cvxopt.norm() + 1e-5 * scale)
        << "problem " << t;
  }
}

}  // namespace
}  // namespace talus::wrench
