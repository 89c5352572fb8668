// The talus command line: `talus run SCENARIO.toml --out DIR`, `talus check SCENARIO.toml`,
// `talus sweep SWEEP.toml --out DIR` (under `mpirun -np N` or on one process), `talus view DIR`
// (a finished run in a web browser).
//
// Exit codes: 0 success; 1 the run failed (a NaN, an exploding state, an I/O error); 2 the input
// is wrong (bad command line, malformed or inconsistent scenario, an --out folder talus may not
// write) and nothing was run. Ctrl-C, SIGTERM and SIGHUP remove the partial output and end the
// process as the signal would (core/interrupt.hpp).

#include <omp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/view_command.hpp"
#include "core/interrupt.hpp"
#include "core/output_target.hpp"
#include "core/scenario_file.hpp"
#include "core/threads.hpp"
#include "core/version.hpp"
#include "core/video_writer.hpp"
#include "core/view_check.hpp"
#include "core/view_video.hpp"
#include "runner/run_scenario.hpp"
#include "sweep/sweep_channel.hpp"
#include "sweep/sweep_runner.hpp"

namespace {

// Progress on stderr. On a terminal: a one-line bar redrawn at most 10 times a second. Elsewhere
// (a log file, CI, a job scheduler): one plain line every TALUS_PROGRESS_EVERY_S seconds (10 by
// default), so that a long run never looks hung, and nothing for runs shorter than that.
class ProgressBar {
 public:
  enum class Style { none, bar, lines };
  ProgressBar(Style style, double line_every_s)
      : style_(style),
        line_every_(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(line_every_s))),
        start_(Clock::now()),
        last_draw_(start_) {}

  void update(long done, long total, double sim_time_s) {
    if (style_ == Style::none) return;
    const auto now = Clock::now();
    const Clock::duration interval =
        style_ == Style::bar ? std::chrono::milliseconds(100) : line_every_;
    const bool last = done >= total;
    if (now - last_draw_ < interval && !(last && style_ == Style::bar && drawn_)) return;
    if (last && style_ == Style::lines) return;  // the "wrote ..." line follows at once
    last_draw_ = now;
    drawn_ = true;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1;
    const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    if (style_ == Style::lines) {
      std::fprintf(stderr,
                   "progress: %3.0f%%  step %ld/%ld  t = %.2f s  elapsed %.0f s  eta %.0f s\n",
                   100 * fraction, done, total, sim_time_s, elapsed, eta);
    } else {
      const int width = 30;
      const int filled = static_cast<int>(fraction * width);
      std::fprintf(stderr,
                   "\r[%-*s] %3.0f%%  step %ld/%ld  t = %.2f s  elapsed %.1f s  eta %.1f s ", width,
                   std::string(static_cast<std::size_t>(filled), '#').c_str(), 100 * fraction, done,
                   total, sim_time_s, elapsed, eta);
      if (last) std::fprintf(stderr, "\n");
    }
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  Style style_;
  Clock::duration line_every_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
};

// TALUS_PROGRESS_EVERY_S: seconds between progress lines when stderr is not a terminal.
double progress_line_interval_s() {
  const char* text = std::getenv("TALUS_PROGRESS_EVERY_S");
  if (text == nullptr || *text == 0) return 10.0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != 0 || !(value > 0) || !std::isfinite(value)) {
    throw talus::ScenarioError(std::string("environment variable TALUS_PROGRESS_EVERY_S: expected "
                                           "a number of seconds > 0, got '") +
                               text + "'");
  }
  return value;
}

// `talus sweep`: MPI only under mpirun (a plain start runs every run on this process).
int run_sweep_command(talus::sweep::SweepOptions options, int threads, int* argc, char*** argv) {
  std::unique_ptr<talus::sweep::SweepChannel> channel;
  try {
    channel = talus::sweep::launched_by_mpirun() ? talus::sweep::make_mpi_channel(argc, argv)
                                                 : std::make_unique<talus::sweep::LocalChannel>();
    // Ranks sharing a machine share its cores, unless the user said how many threads to use.
    if (threads == 0 && !talus::threads_fixed_by_user(0)) {
      threads = std::max(1, omp_get_num_procs() / talus::sweep::local_rank_count());
    }
    talus::configure_threads(threads);
    options.status_every_s = progress_line_interval_s();
    return talus::sweep::run_sweep(options, *channel);
  } catch (const talus::InterruptedError& e) {
    std::cerr << "\ntalus: " << e.what() << "; finished runs are kept, the run in progress was "
              << "removed\n";
    talus::die_of_signal(e.signal_number());
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    // A rank that stops on its own would leave the others waiting for it.
    if (channel && channel->size() > 1) channel->abort(1);
    return 1;
  }
}

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
  bool replace = false;
  int threads = 0;
  CLI::App* run = app.add_subcommand(
      "run", "Run a scenario and write its outputs (summary.json, CSV logs, PNG images) to --out");
  run->add_option("scenario", scenario, "Scenario file (.toml)")->required();
  run->add_option("-o,--out", out_dir,
                  "Output folder: a new or empty folder (or, with --replace, an earlier talus "
                  "output). Written as a temporary folder and renamed into place when the run "
                  "completes; talus never writes over files it did not write")
      ->required();
  run->add_flag("--replace", replace,
                "Replace --out when it holds an earlier talus run (and nothing else); without "
                "it an existing non-empty folder is refused");
  run->add_option("-j,--threads", threads,
                  "Threads for the run (default: TALUS_THREADS, else OMP_NUM_THREADS, else every "
                  "core); on a machine busy with other work, fewer threads can be faster")
      ->check(CLI::Range(1, talus::kMaxThreads));
  std::string tier;
  const auto tier_check = CLI::IsMember(talus::scenario_tier_names());
  run->add_option("--tier", tier,
                  "Run on this tier instead of the file's [scenario] tier (a [terrain] file runs "
                  "unchanged on shaping, scm and particles)")
      ->check(tier_check);
  bool video = false;
  run->add_flag("--video", video,
                "After the run, draw its view frames into video.mp4 in --out (needs the ffmpeg "
                "program; docs/viewer.md); refused before the run when the scenario records no "
                "view frames");
  run->add_flag("-q,--quiet", quiet,
                "No progress (a bar on a terminal, otherwise a line every 10 s)");

  CLI::App* check = app.add_subcommand(
      "check", "Read and validate a scenario without running it (exit code 2 if it is wrong)");
  check->add_option("scenario", scenario, "Scenario file (.toml)")->required();
  check->add_option("--tier", tier, "Check it for this tier instead of its [scenario] tier")
      ->check(tier_check);

  talus::sweep::SweepOptions sweep_options;
  CLI::App* sweep = app.add_subcommand(
      "sweep",
      "Run every combination of a sweep file's values (docs/sweep.md), under `mpirun -np N` on N "
      "ranks or on one process; results go to --out/sweep.h5 and sweep.csv, and a restart with "
      "the same command runs only what is not finished");
  sweep->add_option("sweep_file", sweep_options.sweep_file, "Sweep file (.toml)")->required();
  sweep
      ->add_option("-o,--out", sweep_options.out_dir,
                   "Output folder: new, empty, or this sweep's earlier output (resumed)")
      ->required();
  sweep->add_flag("--replace", sweep_options.replace,
                  "Start afresh in --out when it holds an earlier sweep's output (and nothing "
                  "else): its runs and results are removed first");
  sweep->add_flag("--retry-failed", sweep_options.retry_failed,
                  "Run again the runs whose earlier attempt failed");
  sweep
      ->add_option("-j,--threads", threads,
                   "Threads per rank (default: TALUS_THREADS, else OMP_NUM_THREADS, else the "
                   "machine's cores shared among the ranks on it)")
      ->check(CLI::Range(1, talus::kMaxThreads));
  sweep->add_flag("-q,--quiet", sweep_options.quiet, "No progress lines");

  talus::ViewCommandOptions view_options;
  CLI::App* view = app.add_subcommand(
      "view",
      "Play a finished run in a web browser: serves a page on this machine (127.0.0.1 only) with "
      "the run's particles, soil, bodies and plots (docs/viewer.md); Ctrl-C stops it");
  view->add_option("run_dir", view_options.run_dir, "A run's --out folder")->required();
  view->add_option("-p,--port", view_options.port,
                   "Port to serve on (default: one the system picks)")
      ->check(CLI::Range(1, 65535));

  // CLI11 answers an unknown command with "A subcommand is required", without naming it.
  const std::string first = argc > 1 ? argv[1] : "";
  if (!first.empty() && first[0] != '-' && first != "run" && first != "check" && first != "sweep" &&
      first != "view") {
    std::fprintf(stderr,
                 "error: unknown command '%s' (expected run, check, sweep or view; see talus "
                 "--help)\n",
                 argv[1]);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  // `talus view` takes its stop signals itself (it has no partial output to remove); run and sweep
  // remove theirs on a signal.
  if (*view) return talus::run_view_command(view_options);
  talus::install_interrupt_handling();  // before any thread starts (OpenMP's included)
  if (*sweep) return run_sweep_command(sweep_options, threads, &argc, &argv);

  try {
    if (*check) {
      const auto info = talus::check_scenario_file(scenario, tier);
      if (info.contains("warnings")) {
        for (const auto& w : info["warnings"])
          std::cerr << "warning: " << w.get<std::string>() << "\n";
      }
      std::cout << scenario.string() << ": ok (" << info["tier"].get<std::string>() << " scenario '"
                << info["name"].get<std::string>() << "', " << info["steps"].get<long>()
                << " steps)\n";
      return 0;
    }
    if (video && talus::find_ffmpeg().empty()) {
      std::cerr << "error: --video needs the ffmpeg program (Debian package ffmpeg; "
                   "scripts/install-deps.sh installs it)\n";
      return 2;
    }
    // Before the run: a scenario that records no view frames (rigs, sweeps of runs, database
    // acquisitions) has nothing to draw, and finding that out after a long run wasted it.
    if (video && !talus::check_scenario_file(scenario, tier).value("view", false)) {
      std::cerr << "error: --video: " << scenario.string()
                << " records no view frames (its kind of run writes tables and pictures only, or "
                   "[view] frames = 0): run it without --video\n";
      return 2;
    }
    talus::RunThreads run_threads(threads);
    using Style = ProgressBar::Style;
    ProgressBar bar(quiet                    ? Style::none
                    : isatty(fileno(stderr)) ? Style::bar
                                             : Style::lines,
                    progress_line_interval_s());
    const auto start = std::chrono::steady_clock::now();
    const talus::OutputTarget target(
        out_dir, replace ? talus::ExistingOutput::replace : talus::ExistingOutput::refuse);
    const auto summary = talus::run_scenario_file(
        scenario, target,
        [&](long done, long total, double t) {
          talus::throw_if_interrupted();
          run_threads.update();
          bar.update(done, total, t);
        },
        tier);
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Tiers name their step count differently (some run several experiments); the wall time is
    // measured here so that every tier reports it.
    std::cout << "wrote " << out_dir.string() << " (";
    if (summary.contains("steps") && summary["steps"].is_number()) {
      std::cout << summary["steps"].get<long>() << " steps, ";
    }
    std::cout << std::fixed << std::setprecision(1) << wall_s << " s of wall time)\n";
    if (video) {
      const auto video_start = std::chrono::steady_clock::now();
      ProgressBar video_bar(quiet                    ? Style::none
                            : isatty(fileno(stderr)) ? Style::bar
                                                     : Style::lines,
                            progress_line_interval_s());
      talus::write_run_video(out_dir, [&](long done, long total) {
        talus::throw_if_interrupted();
        video_bar.update(done, total, 0.0);
      });
      std::cout
          << "wrote " << (out_dir / "video.mp4").string() << " ("
          << std::chrono::duration<double>(std::chrono::steady_clock::now() - video_start).count()
          << " s)\n";
    }
    return 0;
  } catch (const talus::ScenarioError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const talus::ViewRunError& e) {
    std::cerr << "error: --video: " << e.what() << "\n";
    return 2;
  } catch (const talus::OutputTargetError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const talus::InterruptedError& e) {
    std::cerr << "\ntalus: " << e.what() << "; the partial output was removed\n";
    talus::die_of_signal(e.signal_number());
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
