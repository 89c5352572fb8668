// The talus command line: `talus run SCENARIO.toml --out DIR`, `talus check SCENARIO.toml`.
//
// Exit codes: 0 success; 1 the run failed (a NaN, an exploding state, an I/O error); 2 the input
// is wrong (bad command line, malformed or inconsistent scenario) and nothing was run.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "core/scenario_file.hpp"
#include "core/version.hpp"
#include "runner/run_scenario.hpp"

namespace {

// A one-line progress bar on stderr, redrawn at most 10 times a second; silent when stderr is not
// a terminal (logs and CI stay clean).
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled), start_(Clock::now()) {}

  void update(long done, long total, double sim_time_s) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (done < total && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1;
    const int width = 30;
    const int filled = static_cast<int>(fraction * width);
    const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    std::fprintf(stderr, "\r[%-*s] %3.0f%%  step %ld/%ld  t = %.2f s  elapsed %.1f s  eta %.1f s ",
                 width, std::string(static_cast<std::size_t>(filled), '#').c_str(), 100 * fraction,
                 done, total, sim_time_s, elapsed, eta);
    if (done >= total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  Clock::time_point start_;
  Clock::time_point last_draw_{};
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "talus: robots in sand, soil and gravel, at four levels of fidelity.\n"
      "Scenario files are TOML (see scenarios/ and docs/scenarios.md)."};
  app.set_version_flag("--version", std::string("talus ") + talus::version());
  app.require_subcommand(1);

  std::filesystem::path scenario;
  std::filesystem::path out_dir;
  bool quiet = false;
  CLI::App* run = app.add_subcommand(
      "run", "Run a scenario and write its outputs (summary.json, CSV logs, PNG images) to --out");
  run->add_option("scenario", scenario, "Scenario file (.toml)")->required();
  run->add_option("-o,--out", out_dir,
                  "Output folder; written as a temporary folder and renamed into place when the "
                  "run completes, so an existing folder is replaced only by a complete run")
      ->required();
  run->add_flag("-q,--quiet", quiet, "No progress bar (it is only shown on a terminal anyway)");

  CLI::App* check = app.add_subcommand(
      "check", "Read and validate a scenario without running it (exit code 2 if it is wrong)");
  check->add_option("scenario", scenario, "Scenario file (.toml)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  try {
    if (*check) {
      const auto info = talus::check_scenario_file(scenario);
      std::cout << scenario.string() << ": ok (" << info["tier"].get<std::string>() << " scenario '"
                << info["name"].get<std::string>() << "', " << info["steps"].get<long>()
                << " steps)\n";
      return 0;
    }
    ProgressBar bar(!quiet && isatty(fileno(stderr)));
    const auto start = std::chrono::steady_clock::now();
    const auto summary = talus::run_scenario_file(
        scenario, out_dir, [&](long done, long total, double t) { bar.update(done, total, t); });
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Tiers name their step count differently (some run several experiments); the wall time is
    // measured here so that every tier reports it.
    std::cout << "wrote " << out_dir.string() << " (";
    if (summary.contains("steps") && summary["steps"].is_number()) {
      std::cout << summary["steps"].get<long>() << " steps, ";
    }
    std::cout << std::fixed << std::setprecision(1) << wall_s << " s)\n";
    return 0;
  } catch (const talus::ScenarioError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
