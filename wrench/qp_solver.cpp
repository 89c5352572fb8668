// Goldfarb-Idnani dual active-set method (D. Goldfarb, A. Idnani, "A numerically stable dual
// method for solving strictly convex quadratic programs", Math. Programming 27, 1983).
//
// Internally every row is a normalised constraint n_i^T x >= c_i:
//   inequality a_i x <= b_i   ->  n_i = -a_i / |a_i|,  c_i = -b_i / |a_i|
//   equality   e_k x  = f_k   ->  n_k =  e_k / |e_k|,  c_k =  f_k / |e_k|   (always active)
// With H = L L^T and the active normals N (n x q), the solver keeps
//   J = L^-T Q  and  R (q x q upper triangular)  with  J^T N = [R; 0],
// so that J J^T = H^-1 and, for a new normal n_p with d = J^T n_p:
//   z = J_2 d_2      the primal step direction (H^-1 n_p projected off the active normals),
//   r = R^-1 d_1     how the active multipliers change per unit of the new multiplier.
// Each iteration either adds the most violated row (full step t2 = -s_p / z^T n_p) or, when an
// active multiplier would turn negative first (partial step t1 = min u_j / r_j over r_j > 0),
// drops that row. If z = 0 and no r_j > 0, n_p = N r with r_j <= 0 on the active inequalities:
// a certificate that the rows {p} u {j : r_j != 0} cannot hold together (infeasible).

// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "wrench/qp_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace talus::wrench {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A new normal counts as linearly dependent on the active ones when the part of J^T n outside the
// active block is this small relative to the whole (cosine of the angle to the active span ~ 1).
constexpr double kDependenceRatio = 1e-10;

void check_shapes(const QpProblem& qp) {
  const auto n = qp.H.rows();
  if (n == 0 || qp.H.cols() != n) {
    throw QpError(
        fmt::format("QP: H must be square and non-empty, got {}x{}", qp.H.rows(), qp.H.cols()));
  }
  if (qp.g.size() != n) {
    throw QpError(fmt::format("QP: g has {} entries, H is {}x{}", qp.g.size(), n, n));
  }
  if (qp.A_eq.rows() != qp.b_eq.size() || (qp.A_eq.rows() > 0 && qp.A_eq.cols() != n)) {
    throw QpError(fmt::format("QP: A_eq is {}x{} and b_eq has {} entries; expected p x {} and p",
                              qp.A_eq.rows(), qp.A_eq.cols(), qp.b_eq.size(), n));
  }
  if (qp.A_in.rows() != qp.b_in.size() || (qp.A_in.rows() > 0 && qp.A_in.cols() != n)) {
    throw QpError(fmt::format("QP: A_in is {}x{} and b_in has {} entries; expected m x {} and m",
                              qp.A_in.rows(), qp.A_in.cols(), qp.b_in.size(), n));
  }
  if (!qp.H.allFinite() || !qp.g.allFinite() || !qp.A_eq.allFinite() || !qp.b_eq.allFinite() ||
      !qp.A_in.allFinite() || !qp.b_in.allFinite()) {
    throw QpError("QP: the data contain NaN or infinite entries");
  }
  const double asym = (qp.H - qp.H.transpose()).cwiseAbs().maxCoeff();
  if (asym > 1e-9 * std::max(1.0, qp.H.cwiseAbs().maxCoeff())) {
    throw QpError(fmt::format("QP: H is not symmetric (max |H - H^T| = {:.3g})", asym));
  }
}

// Givens rotation (c, s) with [c s; -s c] [a; b] = [h; 0].
void givens(double a, double b, double& c, double& s, double& h) {
  h = std::hypot(a, b);
  if (h == 0.0) {
    c = 1.0;
    s = 0.0;
    return;
  }
  c = a / h;
  s = b / h;
}

}  // namespace

const char* to_string(QpStatus status) {
  switch (status) {
    case QpStatus::kOptimal:
      return "optimal";
    case QpStatus::kInfeasible:
      return "infeasible";
    case QpStatus::kIterationLimit:
      return "iteration limit";
  }
  return "unknown";
}

bool DenseQpSolver::add_constraint(int n, const Eigen::VectorXd& normal) {
  d_.noalias() = J_.transpose() * normal;
  // Rotate d's entries q+1..n-1 into entry q; the same rotations act on J's columns q..n-1.
  for (int j = n - 1; j > q_; --j) {
    double c = 0.0;
    double s = 0.0;
    double h = 0.0;
    givens(d_[j - 1], d_[j], c, s, h);
    if (s == 0.0) continue;
    d_[j - 1] = h;
    d_[j] = 0.0;
    for (int row = 0; row < n; ++row) {
      const double a = J_(row, j - 1);
      const double b = J_(row, j);
      J_(row, j - 1) = c * a + s * b;
      J_(row, j) = -s * a + c * b;
    }
  }
  if (std::abs(d_[q_]) <= kDependenceRatio * d_.norm()) return false;
  R_.col(q_).head(q_ + 1) = d_.head(q_ + 1);
  N_.col(q_) = normal;
  ++q_;
  return true;
}

void DenseQpSolver::drop_constraint(int n, int position) {
  // Remove column `position` and restore R's triangular form with rotations on rows j, j+1, which
  // act on J's columns j, j+1 (J^T N = [R; 0] is kept).
  for (int col = position; col < q_ - 1; ++col) {
    R_.col(col).head(q_) = R_.col(col + 1).head(q_);
    N_.col(col) = N_.col(col + 1);
    c_[col] = c_[col + 1];
    u_[col] = u_[col + 1];
    active_[static_cast<size_t>(col)] = active_[static_cast<size_t>(col + 1)];
  }
  active_.pop_back();
  R_.col(q_ - 1).setZero();
  --q_;
  for (int j = position; j < q_; ++j) {
    double c = 0.0;
    double s = 0.0;
    double h = 0.0;
    givens(R_(j, j), R_(j + 1, j), c, s, h);
    if (s == 0.0) continue;
    R_(j, j) = h;
    R_(j + 1, j) = 0.0;
    for (int col = j + 1; col < q_; ++col) {
      const double a = R_(j, col);
      const double b = R_(j + 1, col);
      R_(j, col) = c * a + s * b;
      R_(j + 1, col) = -s * a + c * b;
    }
    for (int row = 0; row < n; ++row) {
      const double a = J_(row, j);
      const double b = J_(row, j + 1);
      J_(row, j) = c * a + s * b;
      J_(row, j + 1) = -s * a + c * b;
    }
  }
}

// The minimiser on the active rows as equalities: with w = R^-T (c_A - N^T x0),
// u = R^-1 w and x = x0 + J_1 w (since H^-1 N = J_1 R and N^T H^-1 N = R^T R).
void DenseQpSolver::recompute_from_active(int n) {
  x_ = x_unconstrained_;
  if (q_ == 0) return;
  Eigen::VectorXd w = c_.head(q_) - N_.leftCols(q_).transpose() * x_unconstrained_;
  R_.topLeftCorner(q_, q_).triangularView<Eigen::Upper>().transpose().solveInPlace(w);
  x_.noalias() += J_.leftCols(q_) * w;
  u_.head(q_) = R_.topLeftCorner(q_, q_).triangularView<Eigen::Upper>().solve(w);
  (void)n;
}

/// The inequality rows, normalised (see the top of this file), and which of them are active.
struct DenseQpSolver::InequalityRows {
  Eigen::VectorXd norm;         ///< |a_i| per row
  Eigen::MatrixXd N;            ///< n_i^T = -a_i / |a_i| per row (0 for a zero row)
  Eigen::VectorXd c;            ///< c_i = -b_i / |a_i| (0 for a zero row)
  std::vector<char> is_active;  ///< 1 while row i is in the active set
};

// H = L L^T, J = L^-T (Q = I with no row active) and the unconstrained minimiser x0 = -H^-1 g, the
// dual method's starting point; the active set and its factors start empty.
void DenseQpSolver::factorise_hessian(const QpProblem& qp) {
  const int n = static_cast<int>(qp.H.rows());
  Eigen::LLT<Eigen::MatrixXd> llt(qp.H);
  if (llt.info() != Eigen::Success) {
    throw QpError("QP: H is not positive definite (Cholesky factorisation failed)");
  }
  const Eigen::MatrixXd L = llt.matrixL();
  const double min_pivot = L.diagonal().cwiseAbs().minCoeff();
  if (!(min_pivot > 1e-12 * std::sqrt(qp.H.diagonal().cwiseAbs().maxCoeff()))) {
    throw QpError(
        fmt::format("QP: H is numerically singular (smallest Cholesky pivot {:.3g})", min_pivot));
  }
  J_ = L.transpose().triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(n, n));
  x_unconstrained_ = -llt.solve(qp.g);
  x_ = x_unconstrained_;
  R_.setZero(n, n);
  N_.setZero(n, n);
  c_.setZero(n);
  u_.setZero(n);
  d_.resize(n);
  z_.resize(n);
  r_.resize(n);
  active_.clear();
  q_ = 0;
}

// Normalised inequality rows n_i^T x >= c_i. A zero row reads 0 <= b_i: false (returns false, with
// the reason in result) when b_i < 0, else it holds for every x and is never made active.
bool DenseQpSolver::normalise_inequalities(const QpProblem& qp, InequalityRows& rows,
                                           QpResult& result) {
  const auto m = qp.A_in.rows();
  const auto n = qp.H.rows();
  rows.norm = qp.A_in.rowwise().norm();
  rows.N.resize(m, n);
  rows.c.resize(m);
  rows.is_active.assign(static_cast<size_t>(m), 0);
  for (int i = 0; i < m; ++i) {
    if (rows.norm[i] > 0.0) {
      rows.N.row(i) = -qp.A_in.row(i) / rows.norm[i];
      rows.c[i] = -qp.b_in[i] / rows.norm[i];
    } else {
      rows.N.row(i).setZero();
      rows.c[i] = 0.0;
      if (qp.b_in[i] < 0.0) {
        result.status = QpStatus::kInfeasible;
        result.conflicting_inequalities = {i};
        result.message = fmt::format("inequality row {} is 0 <= {:.6g}", i, qp.b_in[i]);
        return false;
      }
    }
  }
  return true;
}

// Equalities, always active. Returns the rows that add nothing to the active set (zero, or
// linearly dependent on the rows before them); check_dependent_equalities tests them later.
std::vector<int> DenseQpSolver::activate_equalities(const QpProblem& qp, int n) {
  std::vector<int> dependent_equalities;
  for (int k = 0; k < qp.A_eq.rows(); ++k) {
    const double norm = qp.A_eq.row(k).norm();
    if (norm == 0.0) {
      dependent_equalities.push_back(k);
      continue;
    }
    const Eigen::VectorXd normal = qp.A_eq.row(k).transpose() / norm;
    if (!add_constraint(n, normal)) {
      dependent_equalities.push_back(k);
      continue;
    }
    c_[q_ - 1] = qp.b_eq[k] / norm;
    active_.push_back(-(k + 1));
  }
  return dependent_equalities;
}

// Warm start: take the given rows as equalities, then drop those whose multiplier is negative
// until the active set is dual feasible (the dual method's invariant).
void DenseQpSolver::warm_start(std::span<const int> warm_active, int n, int q_equalities,
                               InequalityRows& rows) {
  const auto m = static_cast<int>(rows.c.size());
  for (const int i : warm_active) {
    if (i < 0 || i >= m || rows.is_active[static_cast<size_t>(i)] || rows.norm[i] == 0.0) continue;
    if (q_ >= n) break;
    if (!add_constraint(n, rows.N.row(i).transpose())) continue;
    c_[q_ - 1] = rows.c[i];
    active_.push_back(i);
    rows.is_active[static_cast<size_t>(i)] = 1;
  }
  recompute_from_active(n);
  while (q_ > q_equalities) {
    int worst = -1;
    double worst_u = 0.0;
    for (int j = q_equalities; j < q_; ++j) {
      if (u_[j] < worst_u) {
        worst_u = u_[j];
        worst = j;
      }
    }
    if (worst < 0) break;
    rows.is_active[static_cast<size_t>(active_[static_cast<size_t>(worst)])] = 0;
    drop_constraint(n, worst);
    recompute_from_active(n);
  }
}

// A dependent equality row holds at x only if the others imply it; if it does not, the equalities
// contradict each other (returns false, with all equality rows as the conflict in result).
bool DenseQpSolver::check_dependent_equalities(const QpProblem& qp,
                                               const std::vector<int>& dependent_equalities,
                                               double tol, QpResult& result) const {
  const int p = static_cast<int>(qp.A_eq.rows());
  for (const int k : dependent_equalities) {
    const double norm = qp.A_eq.row(k).norm();
    const double residual = qp.A_eq.row(k).dot(x_) - qp.b_eq[k];
    if (std::abs(residual) > tol * (norm + std::abs(qp.b_eq[k])) + tol) {
      result.status = QpStatus::kInfeasible;
      result.conflicting_equalities.resize(static_cast<size_t>(p));
      for (int e = 0; e < p; ++e) result.conflicting_equalities[static_cast<size_t>(e)] = e;
      result.message = fmt::format(
          "equality row {} depends linearly on the other equality rows but contradicts them "
          "(residual {:.3g})",
          k, residual);
      result.x = x_;
      return false;
    }
  }
  return true;
}

// Step 1 of an iteration: the most violated inactive inequality (normalised rows, so violations
// compare), -1 if none is violated beyond the tolerance; its slack n_i^T x - c_i in worst.
int DenseQpSolver::most_violated_row(const InequalityRows& rows, double tol, Eigen::VectorXd& slack,
                                     double& worst) const {
  slack.noalias() = rows.N * x_;
  slack -= rows.c;
  int violated = -1;
  worst = 0.0;
  for (int i = 0; i < slack.size(); ++i) {
    if (rows.is_active[static_cast<size_t>(i)]) continue;
    const double s = slack[i];
    if (s < -tol * (1.0 + std::abs(rows.c[i])) && s < worst) {
      worst = s;
      violated = i;
    }
  }
  return violated;
}

// The infeasibility certificate: n_p = N r with r <= 0 on the active inequalities, so row
// `violated` and the active rows with r_j != 0 cannot hold together.
void DenseQpSolver::record_infeasibility(const InequalityRows& rows, int violated, double s_p,
                                         const Eigen::VectorXd& r, QpResult& result) const {
  result.status = QpStatus::kInfeasible;
  result.conflicting_inequalities.push_back(violated);
  const double r_scale = q_ > 0 ? std::max(1.0, r.head(q_).cwiseAbs().maxCoeff()) : 1.0;
  for (int j = 0; j < q_; ++j) {
    if (std::abs(r[j]) <= 1e-12 * r_scale) continue;
    const int row = active_[static_cast<size_t>(j)];
    if (row >= 0) {
      result.conflicting_inequalities.push_back(row);
    } else {
      result.conflicting_equalities.push_back(-row - 1);
    }
  }
  result.message = fmt::format(
      "inequality row {} cannot be satisfied together with the rows it depends on (violation "
      "{:.3g})",
      violated, -s_p * rows.norm[violated]);
}

// Step 2 of an iteration: make row `violated` (slack s_p) active, dropping rows whose multipliers
// would turn negative. Counts every active-set change in iterations; sets result's status when
// the problem is infeasible or the iteration limit is reached.
void DenseQpSolver::activate_row(int n, int q_equalities, int violated, double s_p,
                                 int max_iterations, InequalityRows& rows, int& iterations,
                                 QpResult& result) {
  const Eigen::VectorXd normal = rows.N.row(violated).transpose();
  Eigen::VectorXd& z = z_;
  Eigen::VectorXd& r = r_;
  double u_new = 0.0;
  while (true) {
    if (++iterations > max_iterations) {
      result.status = QpStatus::kIterationLimit;
      result.message = fmt::format("no convergence after {} active-set changes", max_iterations);
      return;
    }
    d_.noalias() = J_.transpose() * normal;
    const int free_dims = n - q_;
    z.noalias() = J_.rightCols(free_dims) * d_.tail(free_dims);
    if (q_ > 0) {
      r.head(q_) = R_.topLeftCorner(q_, q_).triangularView<Eigen::Upper>().solve(d_.head(q_));
    }
    double t1 = kInf;
    int leaving = -1;
    for (int j = q_equalities; j < q_; ++j) {
      if (r[j] > 0.0) {
        const double ratio = u_[j] / r[j];
        if (ratio < t1) {
          t1 = ratio;
          leaving = j;
        }
      }
    }
    const bool dependent = d_.tail(free_dims).norm() <= kDependenceRatio * d_.norm();
    const double t2 = dependent ? kInf : -s_p / z.dot(normal);
    if (dependent && leaving < 0) {
      // n_p = N r with r <= 0 on active inequalities: infeasible.
      record_infeasibility(rows, violated, s_p, r, result);
      return;
    }
    const double t = std::min(t1, t2);
    if (!dependent) x_.noalias() += t * z;
    u_.head(q_) -= t * r.head(q_);
    u_new += t;
    if (t2 <= t1) {
      // Full step: the row becomes active.
      if (add_constraint(n, normal)) {
        c_[q_ - 1] = rows.c[violated];
        u_[q_ - 1] = u_new;
        active_.push_back(violated);
        rows.is_active[static_cast<size_t>(violated)] = 1;
      }
      return;
    }
    // Partial step: drop the blocking row and try again from the new point.
    rows.is_active[static_cast<size_t>(active_[static_cast<size_t>(leaving)])] = 0;
    drop_constraint(n, leaving);
    s_p = normal.dot(x_) - rows.c[violated];
  }
}

// The multipliers in the caller's convention (H x + g + A_eq^T lambda_eq + A_in^T lambda_in = 0,
// on the rows as given, not normalised), the active inequality rows and the objective at x.
void DenseQpSolver::collect_result(const QpProblem& qp, const InequalityRows& rows,
                                   QpResult& result) const {
  result.x = x_;
  result.lambda_in = Eigen::VectorXd::Zero(qp.A_in.rows());
  result.lambda_eq = Eigen::VectorXd::Zero(qp.A_eq.rows());
  for (int j = 0; j < q_; ++j) {
    const int row = active_[static_cast<size_t>(j)];
    if (row >= 0) {
      result.lambda_in[row] = std::max(0.0, u_[j]) / rows.norm[row];
      result.active_set.push_back(row);
    } else {
      const int k = -row - 1;
      result.lambda_eq[k] = -u_[j] / qp.A_eq.row(k).norm();
    }
  }
  result.objective = 0.5 * x_.dot(qp.H * x_) + qp.g.dot(x_);
}

QpResult DenseQpSolver::solve(const QpProblem& qp, std::span<const int> warm_active,
                              const QpOptions& options) {
  check_shapes(qp);
  const int n = static_cast<int>(qp.H.rows());
  const int m = static_cast<int>(qp.A_in.rows());
  const int p = static_cast<int>(qp.A_eq.rows());
  factorise_hessian(qp);

  QpResult result;
  InequalityRows rows;
  if (!normalise_inequalities(qp, rows, result)) {
    result.x = x_;
    return result;
  }
  const double tol = options.feasibility_tolerance;
  const int max_iterations =
      options.max_iterations > 0 ? options.max_iterations : 10 * (n + m + p) + 100;

  const std::vector<int> dependent_equalities = activate_equalities(qp, n);
  const int q_equalities = q_;
  warm_start(warm_active, n, q_equalities, rows);
  if (!check_dependent_equalities(qp, dependent_equalities, tol, result)) return result;

  // The dual active-set iterations: step 1 finds the most violated inactive row, step 2 makes
  // it active. Once none is violated, the point is recomputed from the active set once.
  Eigen::VectorXd slack(m);
  int iterations = 0;
  bool polished = false;
  while (true) {
    double worst = 0.0;
    const int violated = most_violated_row(rows, tol, slack, worst);
    if (violated < 0) {
      if (polished) break;
      // Remove the drift of the incremental updates, then check once more.
      recompute_from_active(n);
      polished = true;
      continue;
    }
    polished = false;
    activate_row(n, q_equalities, violated, worst, max_iterations, rows, iterations, result);
    if (result.status != QpStatus::kOptimal) break;
  }

  result.iterations = iterations;
  collect_result(qp, rows, result);
  return result;
}

}  // namespace talus::wrench
