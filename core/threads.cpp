#include "core/threads.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <cstdlib>
#include <string>

#include "core/scenario_file.hpp"

namespace talus {

int configure_threads(int requested) {
  int threads = requested;
  if (threads <= 0) {
    if (const char* text = std::getenv("TALUS_THREADS"); text != nullptr && *text != 0) {
      char* end = nullptr;
      const long value = std::strtol(text, &end, 10);
      if (*end != 0 || value < 1 || value > kMaxThreads) {
        throw ScenarioError(fmt::format(
            "environment variable TALUS_THREADS: expected an integer in [1, {}], got '{}'",
            kMaxThreads, text));
      }
      threads = static_cast<int>(value);
    }
  }
  if (threads > 0) omp_set_num_threads(threads);
  return omp_get_max_threads();
}

}  // namespace talus
