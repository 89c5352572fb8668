#include "core/threads.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "core/scenario_file.hpp"

namespace talus {

namespace {

double wall_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

bool threads_fixed_by_user(int requested) {
  const auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != 0;
  };
  return requested > 0 || set("TALUS_THREADS") || set("OMP_NUM_THREADS");
}

int threads_for_load(int max_threads, int cores, double other_busy_cores) {
  const double free_cores = static_cast<double>(cores) - std::max(0.0, other_busy_cores);
  const long rounded = std::lround(std::max(free_cores, 0.0));
  return static_cast<int>(std::clamp<long>(rounded, 1, std::max(1, max_threads)));
}

CpuSnapshot CpuSnapshot::now() {
  CpuSnapshot s;
  const double tick_s = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  std::ifstream stat("/proc/stat");
  std::string label;
  // cpu  user nice system idle iowait irq softirq steal ...
  double v[8] = {};
  if (stat >> label && label == "cpu") {
    for (double& x : v) stat >> x;
    s.machine_busy_s = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * tick_s;
    s.machine_total_s = s.machine_busy_s + (v[3] + v[4]) * tick_s;
  }
  // /proc/self/stat: the command name is in parentheses and may hold spaces; utime and stime are
  // the 12th and 13th fields after it.
  std::ifstream self("/proc/self/stat");
  std::string line;
  std::getline(self, line);
  const std::size_t close = line.rfind(')');
  if (close != std::string::npos) {
    std::istringstream rest(line.substr(close + 1));
    std::string field;
    double utime = 0.0, stime = 0.0;
    for (int k = 1; k <= 13 && rest >> field; ++k) {
      if (k == 12) utime = std::atof(field.c_str());
      if (k == 13) stime = std::atof(field.c_str());
    }
    s.self_s = (utime + stime) * tick_s;
  }
  return s;
}

double other_busy_cores(const CpuSnapshot& since, const CpuSnapshot& now, int cores) {
  const double total = now.machine_total_s - since.machine_total_s;
  if (!(total > 0.0)) return 0.0;
  const double others = (now.machine_busy_s - since.machine_busy_s) - (now.self_s - since.self_s);
  return std::max(0.0, others / total * static_cast<double>(cores));
}

LoadAdaptiveThreads::LoadAdaptiveThreads(int max_threads)
    : max_threads_(std::max(1, max_threads)),
      cores_(std::max(1, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)))),
      threads_(max_threads_),
      last_(CpuSnapshot::now()),
      last_wall_s_(wall_s()) {}

int LoadAdaptiveThreads::update() {
  const double t = wall_s();
  if (t - last_wall_s_ < 0.5) return threads_;
  const CpuSnapshot s = CpuSnapshot::now();
  const int threads = threads_for_load(max_threads_, cores_, other_busy_cores(last_, s, cores_));
  last_ = s;
  last_wall_s_ = t;
  if (threads != threads_) {
    threads_ = threads;
    omp_set_num_threads(threads_);
  }
  return threads_;
}

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
    } else if (const char* omp = std::getenv("OMP_NUM_THREADS"); omp != nullptr && *omp != 0) {
      // OpenMP reads it before talus starts and only warns about a bad value (then runs with
      // every core); refused here as TALUS_THREADS is. A list ("4,2": nested levels) is valid.
      char* end = nullptr;
      const long value = std::strtol(omp, &end, 10);
      if (end == omp || (*end != 0 && *end != ',') || value < 1) {
        throw ScenarioError(
            fmt::format("environment variable OMP_NUM_THREADS: expected a positive integer (or a "
                        "comma-separated list of them), got '{}'",
                        omp));
      }
    }
  }
  if (threads > 0) omp_set_num_threads(threads);
  return omp_get_max_threads();
}

RestoreOmpThreads::RestoreOmpThreads() : threads_(omp_get_max_threads()) {}
RestoreOmpThreads::~RestoreOmpThreads() { omp_set_num_threads(threads_); }

RunThreads::RunThreads(int requested) {
  const int team = configure_threads(requested);
  if (!threads_fixed_by_user(requested) && team > 1) adapt_.emplace(team);
}

void RunThreads::update() {
  if (adapt_) adapt_->update();
}

}  // namespace talus
