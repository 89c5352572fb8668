#pragma once
// An independent reference for the QP tests: cvxopt's interior-point solvers.qp (Debian
// python3-cvxopt), run through /usr/bin/python3 on problems written to a file. Never linked into
// talus. Tests call cvxopt_available() first and skip without it, except in CI (CI=true), where
// scripts/install-deps.sh installs it and a missing cvxopt is a failure, not a silent skip.

#include <unistd.h>

#include <Eigen/Dense>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "wrench/qp_solver.hpp"

namespace talus::wrench::testing {

inline bool cvxopt_available() {
  return std::system("/usr/bin/python3 -c 'import cvxopt' > /dev/null 2>&1") == 0;
}

/// True when the environment says this is a CI run (CI=true or CI=1).
inline bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && (std::string(ci) == "true" || std::string(ci) == "1");
}

struct CvxoptSolution {
  std::string status;  ///< cvxopt's: "optimal", "unknown", ...
  Eigen::VectorXd x;
};

/// Solves each problem (minimise 1/2 x^T H x + g^T x s.t. A_in x <= b_in, A_eq x = b_eq) with
/// cvxopt in one Python process, in a per-process folder under `work_name` in the temporary
/// directory (removed afterwards). Tolerances 1e-10, at most 200 iterations.
inline std::vector<CvxoptSolution> solve_with_cvxopt(const std::vector<QpProblem>& problems,
                                                     const std::string& work_name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / (work_name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream in(dir / "problems.txt");
    in.precision(17);
    in << problems.size() << "\n";
    const auto write = [&in](const auto& mat) {
      for (Eigen::Index r = 0; r < mat.rows(); ++r)
        for (Eigen::Index c = 0; c < mat.cols(); ++c) in << mat(r, c) << " ";
      in << "\n";
    };
    for (const QpProblem& qp : problems) {
      in << qp.H.rows() << " " << qp.A_in.rows() << " " << qp.A_eq.rows() << "\n";
      write(qp.H);
      write(qp.g);
      write(qp.A_in);
      write(qp.b_in);
      write(qp.A_eq);
      write(qp.b_eq);
    }
    std::ofstream(dir / "solve.py") << R"PY(
import sys
from cvxopt import matrix, solvers
solvers.options['show_progress'] = False
solvers.options['abstol'] = 1e-10
solvers.options['reltol'] = 1e-10
solvers.options['feastol'] = 1e-10
solvers.options['maxiters'] = 200
tokens = open(sys.argv[1]).read().split()
pos = 0
def take(count):
    global pos
    values = [float(t) for t in tokens[pos:pos + count]]
    pos += count
    return values
out = open(sys.argv[2], 'w')
for _ in range(int(take(1)[0])):
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
  }
  const std::string command = "/usr/bin/python3 " + (dir / "solve.py").string() + " " +
                              (dir / "problems.txt").string() + " " +
                              (dir / "solutions.txt").string();
  if (std::system(command.c_str()) != 0) {
    std::filesystem::remove_all(dir);
    throw std::runtime_error("cvxopt run failed: " + command);
  }
  std::vector<CvxoptSolution> out;
  std::ifstream solutions(dir / "solutions.txt");
  for (const QpProblem& qp : problems) {
    CvxoptSolution s;
    s.x.resize(qp.H.rows());
    solutions >> s.status;
    for (Eigen::Index i = 0; i < s.x.size(); ++i) solutions >> s.x[i];
    if (!solutions) throw std::runtime_error("cvxopt wrote fewer solutions than problems");
    out.push_back(std::move(s));
  }
  std::filesystem::remove_all(dir);
  return out;
}

}  // namespace talus::wrench::testing
