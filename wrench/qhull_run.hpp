#pragma once
// One qhull (reentrant libqhull_r) session over the rows of a point matrix: the set-up, the facet
// walk and the clean-up that every hull in wrench/ needs, written once. Private to wrench/: it
// exposes qhull's C types.

#include <Eigen/Dense>
#include <functional>
#include <string>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace talus::wrench {

/// Runs qhull with `options` (e.g. "qhull Qx C-0") on the rows of `points` (m points in D = cols
/// dimensions), calls `visit(qh, facet)` for every facet of the result while qhull's data is
/// alive, then frees it. Returns qhull's exit code (0 on success; no facet is visited otherwise)
/// and puts qhull's messages in `messages`.
int run_qhull(const Eigen::MatrixXd& points, const char* options,
              const std::function<void(qhT* qh, facetT* facet)>& visit, std::string& messages);

}  // namespace talus::wrench
