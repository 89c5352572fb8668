// Cross-check of the Goldfarb-Idnani QP solver against an independent solver: cvxopt's
// interior-point solvers.qp (Debian python3-cvxopt, run through /usr/bin/python3; never linked
// into talus). Skipped when that interpreter or cvxopt is missing.

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "wrench/qp_solver.hpp"

namespace talus::wrench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSolverScript = R"PY(
import sys
import cvxopt
from cvxopt import matrix, solvers
solvers.options['show_progress'] = False
solvers.options['abstol'] = 1e-10
solvers.options['reltol'] = 1e-10
solvers.options['feastol'] = 1e-10
tokens = open(sys.argv[1]).read().split()
pos = 0
def take(count):
    global pos
    values = [float(t) for t in tokens[pos:pos + count]]
    pos += count
    return values
out = open(sys.argv[2], 'w')
problems = int(take(1)[0])
for _ in range(problems):
    n, m, p = (int(v) for v in take(3))
    H = matrix(take(n * n), (n, n), 'd').T
    g = matrix(take(n), (n, 1), 'd')
    G = matrix(take(m * n), (n, m), 'd').T
    h = matrix(take(m), (m, 1), 'd')
    A = matrix(take(p * n), (n, p), 'd').T if p > 0 else None
    b = matrix(take(p), (p, 1), 'd') if p > 0 else None
    sol = solvers.qp(H, g, G, h, A, b)
    out.write(sol['status'] + ' ' + ' '.join('%.17g' % v for v in sol['x']) + '\n')
)PY";

Eigen::MatrixXd gaussian(std::mt19937& rng, int rows, int cols) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd M(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) M(i, j) = normal(rng);
  return M;
}

TEST(WrenchSpaceQpCvxopt, MatchesCvxoptOnHundredsOfRandomProblems) {
  if (std::system("/usr/bin/python3 -c 'import cvxopt' > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 with cvxopt is not available";
  }
  const fs::path dir =
      fs::temp_directory_path() /
      ("talus_qp_cvxopt_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::create_directories(dir);
  std::mt19937 rng(77);
  const int count = 400;
  std::vector<QpProblem> problems;
  {
    std::ofstream in(dir / "problems.txt");
    in.precision(17);
    in << count << "\n";
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
      in << n << " " << m << " " << p << "\n";
      const auto write = [&in](const auto& mat) {
        for (Eigen::Index r = 0; r < mat.rows(); ++r)
          for (Eigen::Index c = 0; c < mat.cols(); ++c) in << mat(r, c) << " ";
        in << "\n";
      };
      write(qp.H);
      write(qp.g);
      write(qp.A_in);
      write(qp.b_in);
      write(qp.A_eq);
      write(qp.b_eq);
      problems.push_back(std::move(qp));
    }
  }
  {
    std::ofstream script(dir / "solve.py");
    script << kSolverScript;
  }
  const std::string command = "/usr/bin/python3 " + (dir / "solve.py").string() + " " +
                              (dir / "problems.txt").string() + " " +
                              (dir / "solutions.txt").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream solutions(dir / "solutions.txt");
  DenseQpSolver solver;
  int compared = 0;
  for (const QpProblem& qp : problems) {
    std::string status;
    solutions >> status;
    Eigen::VectorXd x_ref(qp.H.rows());
    for (Eigen::Index i = 0; i < x_ref.size(); ++i) solutions >> x_ref[i];
    ASSERT_TRUE(solutions.good());
    if (status != "optimal") continue;  // cvxopt's own tolerance trouble: not a reference
    const QpResult res = solver.solve(qp);
    ASSERT_EQ(res.status, QpStatus::kOptimal) << "problem " << compared << ": " << res.message;
    EXPECT_LT((res.x - x_ref).norm(), 1e-5 * (1.0 + x_ref.norm())) << "problem " << compared;
    // The active-set solution is at least as good as the interior-point one.
    const double f_ref = 0.5 * x_ref.dot(qp.H * x_ref) + qp.g.dot(x_ref);
    EXPECT_LE(res.objective, f_ref + 1e-7 * (1.0 + std::abs(f_ref)));
    ++compared;
  }
  EXPECT_GT(compared, count * 9 / 10);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace talus::wrench
