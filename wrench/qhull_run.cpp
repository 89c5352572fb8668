#include "wrench/qhull_run.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace talus::wrench {

int run_qhull(const Eigen::MatrixXd& points, const char* options,
              const std::function<void(qhT* qh, facetT* facet)>& visit, std::string& messages) {
  const int dim = static_cast<int>(points.cols());
  const int count = static_cast<int>(points.rows());
  // qhull reads row-major coordinates and may reorder them in place: give it its own copy.
  std::vector<coordT> flat(static_cast<size_t>(dim) * static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    for (int k = 0; k < dim; ++k) flat[static_cast<size_t>(i * dim + k)] = points(i, k);
  }
  // qhull writes its messages to a FILE: capture them in memory for the caller's errors.
  char* message = nullptr;
  size_t message_size = 0;
  FILE* errfile = open_memstream(&message, &message_size);
  qhT qh_storage;
  qhT* qh = &qh_storage;
  qh_zero(qh, errfile);
  std::string command(options);  // qh_new_qhull takes a mutable string
  const int exitcode =
      qh_new_qhull(qh, dim, count, flat.data(), False, command.data(), nullptr, errfile);
  if (exitcode == 0) {
    facetT* facet = nullptr;
    FORALLfacets { visit(qh, facet); }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0;
  int totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(errfile);
  messages = message ? std::string(message, message_size) : std::string();
  std::free(message);
  return exitcode;
}

}  // namespace talus::wrench
