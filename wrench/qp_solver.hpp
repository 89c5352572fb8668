#pragma once
// Dense strictly convex QP solver for the wrench-space step (paper 000, eq. 2 of §III-C):
//
//   minimise 1/2 x^T H x + g^T x   subject to   A_eq x = b_eq,   A_in x <= b_in,
//
// H symmetric positive definite. Sizes in talus: n ~ 20-40 variables, ~100-200 inequality rows
// (the stacked half-spaces h A_i(theta_i) c_i <= b_i(theta_i) of the feet in contact).
//
// Why an own solver: Debian 12 packages no QP library under an Apache-compatible licence
// (apt-cache finds no qpOASES, OSQP, proxsuite or eiquadprog; r-cran-quadprog is GPL and an R
// package). The problems are small, dense and strictly convex, and consecutive steps have nearly
// the same active set, which is the case the Goldfarb-Idnani dual active-set method suits: it
// starts from the unconstrained minimum, needs no feasible starting point, keeps the active
// normals' factorisation J = L^-T Q, [R; 0] = Q^T L^-1 N up to date with Givens rotations (no
// refactorisation per iteration), and detects infeasibility with a certificate (the violated row
// is a non-positive combination of the active rows).

#include <Eigen/Dense>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace talus::wrench {

/// The QP's data. Empty A_eq/A_in (0 rows) are allowed; column counts must equal H's size.
struct QpProblem {
  Eigen::MatrixXd H;     ///< n x n, symmetric positive definite
  Eigen::VectorXd g;     ///< n
  Eigen::MatrixXd A_eq;  ///< p x n equality rows
  Eigen::VectorXd b_eq;  ///< p
  Eigen::MatrixXd A_in;  ///< m x n inequality rows A_in x <= b_in
  Eigen::VectorXd b_in;  ///< m
};

enum class QpStatus {
  kOptimal,         ///< KKT conditions hold to tolerance
  kInfeasible,      ///< no x satisfies the constraints; see QpResult::conflicting_*
  kIterationLimit,  ///< the iteration limit was reached (x is not optimal)
};

const char* to_string(QpStatus status);

/// Result. Multipliers use the convention H x + g + A_eq^T lambda_eq + A_in^T lambda_in = 0 with
/// lambda_in >= 0 and lambda_in[i] (b_in[i] - A_in[i] x) = 0.
struct QpResult {
  QpStatus status = QpStatus::kOptimal;
  Eigen::VectorXd x;
  Eigen::VectorXd lambda_eq;
  Eigen::VectorXd lambda_in;
  std::vector<int>
      active_set;          ///< active inequality rows at the end (warm start for the next call)
  int iterations = 0;      ///< constraints added or dropped by the dual active-set loop
  double objective = 0.0;  ///< 1/2 x^T H x + g^T x
  /// For kInfeasible: rows whose combination proves infeasibility (the violated row first).
  std::vector<int> conflicting_inequalities;
  std::vector<int> conflicting_equalities;
  std::string message;  ///< human-readable summary for kInfeasible / kIterationLimit
};

struct QpOptions {
  /// A row counts as violated when (A x - b) / ||A_row|| > feasibility_tolerance * (1 +
  /// |b|/||A_row||).
  double feasibility_tolerance = 1e-9;
  /// 0: automatic (10 (n + m + p) + 100).
  int max_iterations = 0;
};

/// Bad problem data (shapes, non-finite numbers, H not positive definite).
class QpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Goldfarb-Idnani dual active-set solver. Keeps its workspace between calls, so reuse one object
/// for a sequence of same-sized problems. Not thread-safe (one object per thread).
class DenseQpSolver {
 public:
  /// Solves `problem`; `warm_active` lists inequality rows believed active (e.g. the previous
  /// step's QpResult::active_set); rows that turn out inactive are dropped. Throws QpError on bad
  /// data; infeasibility is a status, never a silent zero.
  QpResult solve(const QpProblem& problem, std::span<const int> warm_active = {},
                 const QpOptions& options = {});

 private:
  bool add_constraint(int n, const Eigen::VectorXd& normal);
  void drop_constraint(int n, int position);
  void recompute_from_active(int n);

  // The stages of solve (qp_solver.cpp).
  struct InequalityRows;
  void factorise_hessian(const QpProblem& qp);
  static bool normalise_inequalities(const QpProblem& qp, InequalityRows& rows, QpResult& result);
  std::vector<int> activate_equalities(const QpProblem& qp, int n);
  void warm_start(std::span<const int> warm_active, int n, int q_equalities, InequalityRows& rows);
  bool check_dependent_equalities(const QpProblem& qp, const std::vector<int>& dependent_equalities,
                                  double tol, QpResult& result) const;
  int most_violated_row(const InequalityRows& rows, double tol, Eigen::VectorXd& slack,
                        double& worst) const;
  void activate_row(int n, int q_equalities, int violated, double s_p, int max_iterations,
                    InequalityRows& rows, int& iterations, QpResult& result);
  void record_infeasibility(const InequalityRows& rows, int violated, double s_p,
                            const Eigen::VectorXd& r, QpResult& result) const;
  void collect_result(const QpProblem& qp, const InequalityRows& rows, QpResult& result) const;

  // Workspace (see qp_solver.cpp for the notation).
  Eigen::MatrixXd J_;        // L^-T Q, n x n
  Eigen::MatrixXd R_;        // upper triangular, first q columns used
  Eigen::MatrixXd N_;        // scaled active normals, n x q (columns)
  Eigen::VectorXd c_;        // scaled right-hand sides of the active rows
  Eigen::VectorXd u_;        // multipliers of the active rows
  std::vector<int> active_;  // active rows: >= 0 inequality index, < 0 equality -(i+1)
  Eigen::VectorXd x_unconstrained_;
  Eigen::VectorXd x_;
  Eigen::VectorXd d_, z_, r_;
  int q_ = 0;
};

}  // namespace talus::wrench
