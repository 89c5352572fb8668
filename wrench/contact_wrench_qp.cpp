// Contact-wrench QP (paper 000, eq. 2) over the contact impulses; see contact_wrench_qp.hpp and
// docs/wrench_space.md §6.

// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "wrench/contact_wrench_qp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace talus::wrench {

namespace {

void check_qp(const ContactQp& qp, int D) {
  const auto k = static_cast<Eigen::Index>(qp.sets.size());
  if (qp.H.rows() != k * D || qp.H.cols() != k * D || qp.g.size() != k * D) {
    throw QpError(fmt::format("contact QP: H is {}x{}, g has {} entries; expected {} contacts x {}",
                              qp.H.rows(), qp.H.cols(), qp.g.size(), k, D));
  }
  if (!(qp.dt_s > 0.0)) throw QpError(fmt::format("contact QP: time step {} s", qp.dt_s));
}

// H must be positive definite with margin: a rank-deficient J (dependent feet) gives an H whose
// Cholesky factor has a pivot at rounding level rather than exactly zero, which a plain LLT
// accepts. Pivots below kPivotRatio of the largest diagonal entry count as zero.
constexpr double kPivotRatio = 1e-12;

void check_positive_definite(const Eigen::MatrixXd& H) {
  const Eigen::LLT<Eigen::MatrixXd> llt(H);
  const double largest = H.diagonal().cwiseAbs().maxCoeff();
  const Eigen::VectorXd pivots = Eigen::MatrixXd(llt.matrixL()).diagonal().cwiseAbs2();
  if (llt.info() != Eigen::Success || !(pivots.minCoeff() > kPivotRatio * largest)) {
    throw QpError(fmt::format(
        "contact QP: H is not positive definite (smallest Cholesky pivot {:.3g} of largest "
        "diagonal {:.3g}): the contact Jacobians are rank deficient",
        llt.info() == Eigen::Success ? pivots.minCoeff() : 0.0, largest));
  }
}

// Which contact a global row belongs to, given each contact's first row.
int contact_of_row(const std::vector<int>& first_row, int row) {
  const auto it = std::upper_bound(first_row.begin(), first_row.end(), row);
  return static_cast<int>(it - first_row.begin()) - 1;
}

}  // namespace

ContactQpSolution ContactWrenchSolver::solve(const ContactQp& qp,
                                             std::span<const std::vector<int>> warm) {
  if (qp.sets.empty()) {
    ContactQpSolution none;
    none.impulse.resize(0);
    return none;
  }
  if (qp.H.rows() != qp.H.cols() || qp.H.rows() != qp.g.size()) {
    throw QpError(fmt::format("contact QP: H is {}x{}, g has {} entries", qp.H.rows(), qp.H.cols(),
                              qp.g.size()));
  }
  if (!qp.H.allFinite() || !qp.g.allFinite()) throw QpError("contact QP: H or g is not finite");
  check_positive_definite(qp.H);

  const int k = static_cast<int>(qp.sets.size());
  const int D = qp.sets[0].dimension;
  check_qp(qp, D);
  const double h = qp.dt_s;
  const int n = k * D;

  std::vector<int> first_row(static_cast<size_t>(k));
  std::vector<int> first_eq(static_cast<size_t>(k));
  int rows = 0;
  int eq_rows = 0;
  for (int i = 0; i < k; ++i) {
    const HalfSpaces& W = qp.sets[static_cast<size_t>(i)];
    if (W.dimension != D) {
      throw QpError(fmt::format("contact QP: contact {} has a {}-D wrench set, contact 0 {}-D", i,
                                W.dimension, D));
    }
    first_row[static_cast<size_t>(i)] = rows;
    first_eq[static_cast<size_t>(i)] = eq_rows;
    rows += static_cast<int>(W.A.rows());
    eq_rows += static_cast<int>(W.A_eq.rows());
  }
  QpProblem& p = problem_;
  p.H = qp.H;
  p.g = qp.g;
  p.A_in.setZero(rows, n);
  p.b_in.setZero(rows);
  p.A_eq.setZero(eq_rows, n);
  p.b_eq.setZero(eq_rows);
  for (int i = 0; i < k; ++i) {
    const HalfSpaces& W = qp.sets[static_cast<size_t>(i)];
    const int r0 = first_row[static_cast<size_t>(i)];
    const int e0 = first_eq[static_cast<size_t>(i)];
    // A w <= b with c = h w:  A c <= h b.
    if (W.A.rows() > 0) {
      p.A_in.block(r0, i * D, W.A.rows(), D) = W.A;
      p.b_in.segment(r0, W.A.rows()) = h * W.b;
    }
    if (W.A_eq.rows() > 0) {
      p.A_eq.block(e0, i * D, W.A_eq.rows(), D) = W.A_eq;
      p.b_eq.segment(e0, W.A_eq.rows()) = h * W.b_eq;
    }
  }
  std::vector<int> warm_global;
  for (int i = 0; i < k && i < static_cast<int>(warm.size()); ++i) {
    const auto m = static_cast<int>(qp.sets[static_cast<size_t>(i)].A.rows());
    for (const int r : warm[static_cast<size_t>(i)]) {
      if (r >= 0 && r < m) warm_global.push_back(first_row[static_cast<size_t>(i)] + r);
    }
  }
  const QpResult r = solver_.solve(p, warm_global);
  ContactQpSolution out;
  out.status = r.status;
  out.iterations = r.iterations;
  if (r.status != QpStatus::kOptimal) {
    out.message = r.message;
    auto note = [&](int c) {
      if (std::find(out.conflicting_contacts.begin(), out.conflicting_contacts.end(), c) ==
          out.conflicting_contacts.end()) {
        out.conflicting_contacts.push_back(c);
      }
    };
    for (const int row : r.conflicting_inequalities) note(contact_of_row(first_row, row));
    for (const int row : r.conflicting_equalities) note(contact_of_row(first_eq, row));
    out.impulse = Eigen::VectorXd::Constant(n, std::nan(""));
    return out;
  }
  out.impulse = r.x;
  out.objective = r.objective;
  out.active_rows.assign(static_cast<size_t>(k), {});
  for (const int row : r.active_set) {
    const int c = contact_of_row(first_row, row);
    out.active_rows[static_cast<size_t>(c)].push_back(row - first_row[static_cast<size_t>(c)]);
  }
  Eigen::VectorXd stationarity = qp.H * r.x + qp.g;
  if (rows > 0) stationarity += p.A_in.transpose() * r.lambda_in;
  if (eq_rows > 0) stationarity += p.A_eq.transpose() * r.lambda_eq;
  out.stationarity = stationarity.cwiseAbs().maxCoeff();
  return out;
}

}  // namespace talus::wrench
