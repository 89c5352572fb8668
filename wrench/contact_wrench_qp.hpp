#pragma once
// The contact-wrench QP of paper 000, eq. 2, once MuJoCo's generalised coordinates have reduced it
// to the contact impulses c (kD entries for k contacts with D-component wrenches):
//
//   minimise 1/2 c^T H c + g^T c   subject to   A_i c_i <= h b_i,  A_eq,i c_i = h b_eq,i,
//
// with H, g from the kinetic energy of the robot and of the grains (docs/wrench_space.md §6
// derives them) and W_i = { w : A_i w <= b_i, A_eq,i w = b_eq,i } each contact's feasible wrench
// set in world axes about its reference point p_r (eq. 1, the half-space form of the hull of the
// predicted wrenches). Solved with the Goldfarb-Idnani solver over c (n = kD), warm-started from
// the previous step's active rows of each contact.
//
// Why not the convex-combination ("vertex") form c_i = h V_i lambda_i without a hull: its QP over
// lambda has a singular Hessian, and its Lagrangian dual (small and convex) is degenerate exactly
// when a foot sticks (every row of that foot is active at the optimum), where the dual active-set
// method cycled; docs/wrench_space.md §6 has the derivation and what it would take.

#include <Eigen/Dense>
#include <span>
#include <string>
#include <vector>

#include "wrench/qp_solver.hpp"
#include "wrench/wrench_hull.hpp"

namespace talus::wrench {

/// The reduced eq. 2: impulses c (kD) [N s, N m s] over the step dt_s.
struct ContactQp {
  Eigen::MatrixXd H;  ///< kD x kD, symmetric positive definite [1/kg, 1/(kg m), 1/(kg m^2)]
  Eigen::VectorXd g;  ///< kD [m/s, rad/s]
  double dt_s = 0.0;  ///< h [s]
  std::vector<HalfSpaces> sets;  ///< W_i per contact, world axes about p_r [N, N m]
};

struct ContactQpSolution {
  QpStatus status = QpStatus::kOptimal;
  Eigen::VectorXd impulse;  ///< c, kD [N s, N m s]
  /// Active rows per contact, numbered within the contact's A_i (warm start for the next step).
  std::vector<std::vector<int>> active_rows;
  int iterations = 0;      ///< active-set changes
  double objective = 0.0;  ///< 1/2 c^T H c + g^T c [J]
  /// Largest entry of the stationarity residual H c + g + A^T mu + A_eq^T mu_eq [m/s, rad/s].
  double stationarity = 0.0;
  /// kInfeasible: the contacts (indices into ContactQp::sets) whose rows form the certificate.
  std::vector<int> conflicting_contacts;
  std::string message;
};

/// Solves ContactQp, warm-started from the previous step's active rows. Keeps the QP solver's
/// workspace: one object per simulation (not thread-safe). Throws QpError for bad data, including
/// an H that is not positive definite (dependent contact Jacobians).
class ContactWrenchSolver {
 public:
  ContactQpSolution solve(const ContactQp& qp, std::span<const std::vector<int>> warm_rows = {});

 private:
  DenseQpSolver solver_;
  QpProblem problem_;  // reused storage
};

}  // namespace talus::wrench
