#include "sweep/sweep_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include "core/atomic_file.hpp"
#include "core/image.hpp"
#include "core/interrupt.hpp"
#include "core/output_target.hpp"
#include "core/stopwatch.hpp"
#include "runner/run_scenario.hpp"
#include "sweep/sweep_combine.hpp"
#include "sweep/sweep_folder.hpp"
#include "sweep/sweep_plan.hpp"
#include "sweep/sweep_results.hpp"

namespace talus::sweep {

namespace fs = std::filesystem;

namespace {

enum MessageKind : int { kRequest = 1, kAssign = 2, kStop = 3 };

using Clock = StopwatchClock;

// Runs one run of the plan into its folder and writes its result file. A run that fails is
// recorded as failed (the sweep goes on); an interrupt passes on.
void execute_run(const SweepPlan& plan, const SweepRun& run, const SweepPaths& paths, int rank,
                 const RunProgress& progress) {
  const fs::path run_dir = paths.run_dir(run.id);
  const auto start = Clock::now();
  RunOutcome outcome{"ok", "", 0, 0.0, rank, host_name()};
  try {
    run_scenario_document(plan.run_document(run), OutputTarget(run_dir, ExistingOutput::replace),
                          progress);
  } catch (const InterruptedError&) {
    throw;
  } catch (const ScenarioError& e) {
    outcome = {"failed", e.what(), 2, 0.0, rank, host_name()};
  } catch (const OutputTargetError& e) {
    outcome = {"failed", e.what(), 2, 0.0, rank, host_name()};
  } catch (const std::exception& e) {
    outcome = {"failed", e.what(), 1, 0.0, rank, host_name()};
  }
  outcome.wall_s = seconds_since(start);
  write_run_result(paths.result_file(run.id), plan, run, outcome, run_dir);
}

// A worker's check that it sees the folder rank 0 prepared: the probe file with rank 0's token,
// and a file of its own made and removed in results/. Empty when all is well, else the reason.
std::string check_reach(const SweepPaths& paths, const std::string& token, int rank) {
  std::ifstream probe(paths.probe_file());
  std::string seen;
  if (!probe || !std::getline(probe, seen) || seen != token) {
    return fmt::format("cannot read {} (is the folder on a file system this machine shares?)",
                       paths.probe_file().string());
  }
  const fs::path mine = paths.results_dir() / fmt::format(".probe-{}", rank);
  std::ofstream out(mine);
  if (!(out << "ok\n") || (out.close(), !out)) {
    return fmt::format("cannot write in {}", paths.results_dir().string());
  }
  std::error_code ignored;
  fs::remove(mine, ignored);
  return "";
}

// Rank 0: the queue of runs, the ranks' requests, the results, the progress lines and the
// rebuilds of sweep.h5 and sweep.csv.
class Coordinator {
 public:
  Coordinator(const SweepOptions& options, const SweepPlan& plan, SweepFolder& folder,
              SweepChannel& channel)
      : options_(options), plan_(plan), folder_(folder), channel_(channel), start_(Clock::now()) {
    for (const auto& [id, record] : folder.finished()) {
      if (options.retry_failed && record.outcome.status == "failed") continue;
      records_.emplace(id, record);
    }
    for (const SweepRun& run : plan.runs) {
      if (records_.count(run.id) == 0) queue_.push_back(run.index);
    }
    done_before_ = static_cast<int>(records_.size());
    workers_left_ = channel.size() - 1;
    last_status_ = start_;
  }

  int run() {
    say(fmt::format("sweep '{}': {} runs, {} finished before, {} to run on {} rank{}", plan_.name,
                    plan_.runs.size(), done_before_, queue_.size(), channel_.size(),
                    channel_.size() == 1 ? "" : "s"));
    if (!folder_.fresh() || done_before_ > 0) rebuild();
    while (true) {
      serve(false);  // the other ranks first: they wait, rank 0 need not
      if (queue_.empty()) break;
      run_own(take_next());
    }
    while (workers_left_ > 0) serve(true);
    rebuild();
    const int code = report();
    if (plan_.combine != "none") {
      if (code != 0 || records_.size() != plan_.runs.size()) {
        say(fmt::format("sweep: combine = \"{}\" not made: it needs every run to succeed",
                        plan_.combine));
      } else {
        say("sweep: " + combine_runs(plan_, folder_));
      }
    }
    return code;
  }

 private:
  // The next run of the queue, now running.
  int take_next() {
    const int index = queue_.front();
    queue_.pop_front();
    running_.push_back(index);
    return index;
  }

  void run_own(int index) {
    const SweepRun& run = plan_.runs[static_cast<std::size_t>(index)];
    own_run_ = run.id;
    own_fraction_ = 0.0;
    // Between the steps of its own run rank 0 answers the other ranks. Some tiers report progress
    // from an OpenMP thread (under their own lock): MPI is called only from the main thread.
    const RunProgress progress = [&](long done, long total, double) {
      throw_if_interrupted();
      own_fraction_ = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
      if (std::this_thread::get_id() == main_thread_) serve(false);
    };
    execute_run(plan_, run, folder_, 0, progress);
    running_.erase(std::find(running_.begin(), running_.end(), index));
    own_run_.clear();
    finished(index, 0);
  }

  // Answers every message waiting (or, with `wait`, at least one).
  void serve(bool wait) {
    while (auto message = channel_.receive(wait)) {
      wait = false;
      const auto [from, body] = *message;
      if (body[0] != kRequest) continue;
      if (body[1] >= 0) {
        running_.erase(std::find(running_.begin(), running_.end(), body[1]));
        finished(body[1], from);
      }
      if (!queue_.empty()) {
        channel_.send(from, {kAssign, take_next()});
      } else {
        channel_.send(from, {kStop, -1});
        --workers_left_;
      }
    }
    if (!options_.quiet && seconds_since(last_status_) >= options_.status_every_s) {
      last_status_ = Clock::now();
      const double elapsed = seconds_since(start_);
      // Runs done this time, counting rank 0's own run by its progress (the others' is unknown).
      const double own = own_run_.empty() ? 0.0 : own_fraction_.load();
      const double done = static_cast<double>(records_.size()) - done_before_ + own;
      const double left = static_cast<double>(queue_.size() + running_.size()) - own;
      say(fmt::format("sweep: {} of {} done, {} running{}, {} waiting, elapsed {:.0f} s{}",
                      records_.size(), plan_.runs.size(), running_.size(),
                      own_run_.empty() ? ""
                                       : fmt::format(" ({} on rank 0 at {:.0f}%)", own_run_,
                                                     100.0 * own_fraction_.load()),
                      queue_.size(), elapsed,
                      done > 0.0 ? fmt::format(", eta {:.0f} s", elapsed / done * left) : ""));
    }
  }

  // A run's result file was written (by rank `rank`): read it back, report, index.
  void finished(int index, int rank) {
    const SweepRun& run = plan_.runs[static_cast<std::size_t>(index)];
    RunRecord record = read_run_record(folder_.result_file(run.id), plan_.fingerprint);
    const RunOutcome& o = record.outcome;
    say(fmt::format("sweep: [{}/{}] {} {} in {:.1f} s on rank {}: {}{}", records_.size() + 1,
                    plan_.runs.size(), run.id, o.status, o.wall_s, rank, run.label(),
                    o.status == "ok" ? "" : "\n  error: " + o.error));
    records_[run.id] = std::move(record);
    if (seconds_since(last_rebuild_) >= 2.0) rebuild();
  }

  void rebuild() {
    std::vector<fs::path> files;
    std::vector<RunRecord> records;
    for (const auto& [id, record] : records_) {
      files.push_back(folder_.result_file(id));
      records.push_back(record);
    }
    write_sweep_hdf5(folder_.hdf5_file(), plan_, files);
    write_sweep_table(folder_.table_file(), plan_, records);
    for (const SweepPlot& plot : plan_.plots) {
      const RgbImage image = draw_sweep_plot(plot, plan_.keys, records);
      replace_file_atomically(folder_.dir() / (plot.name + ".png"),
                              [&](const fs::path& temp) { write_png(temp, image); });
    }
    last_rebuild_ = Clock::now();
  }

  int report() {
    int failed = 0;
    std::string failures;
    for (const auto& [id, record] : records_) {
      if (record.outcome.status == "ok") continue;
      ++failed;
      failures += fmt::format("\n  {}: {}", id, record.outcome.error);
    }
    std::cout << fmt::format("wrote {} ({} run{}: {} this time, {} before; {} failed; {:.1f} s)\n",
                             folder_.dir().string(), records_.size(),
                             records_.size() == 1 ? "" : "s",
                             static_cast<int>(records_.size()) - done_before_, done_before_, failed,
                             seconds_since(start_));
    // A y key that no finished run has a number at is most likely misspelt: its plot is empty.
    std::vector<RunRecord> records;
    for (const auto& [id, record] : records_) records.push_back(record);
    for (const SweepPlot& plot : plan_.plots) {
      for (const std::string& key : y_keys_without_values(plot, records)) {
        std::cerr << fmt::format(
            "warning: [[plot]] '{}': y = '{}' is a number in no finished run's summary.json, so "
            "the plot has no points for it (a misspelt key? see runs/*/summary.json)\n",
            plot.name, key);
      }
    }
    if (failed > 0) {
      std::cerr << fmt::format("error: {} of {} runs failed (sweep.csv has their errors):{}\n",
                               failed, records_.size(), failures);
      return 1;
    }
    return 0;
  }

  void say(const std::string& line) const {
    if (!options_.quiet) std::cerr << line << "\n" << std::flush;
  }

  const SweepOptions& options_;
  const SweepPlan& plan_;
  SweepFolder& folder_;
  SweepChannel& channel_;
  std::map<std::string, RunRecord> records_;
  std::deque<int> queue_;
  std::vector<int> running_;
  int done_before_ = 0;
  int workers_left_ = 0;
  Clock::time_point start_;
  Clock::time_point last_status_;
  Clock::time_point last_rebuild_{};
  std::thread::id main_thread_ = std::this_thread::get_id();
  std::string own_run_;                    // the run rank 0 is running now, and how far it is
  std::atomic<double> own_fraction_{0.0};  // set from the run's progress, maybe on another thread
};

// A rank other than 0: asks for a run (saying which it finished), runs it, asks again.
void work(const SweepPlan& plan, const SweepPaths& paths, SweepChannel& channel) {
  SweepMessage request{kRequest, -1};
  while (true) {
    channel.send(0, request);
    const SweepMessage reply = channel.receive(true)->second;
    if (reply[0] != kAssign) return;
    const SweepRun& run = plan.runs[static_cast<std::size_t>(reply[1])];
    execute_run(plan, run, paths, channel.rank(),
                [](long, long, double) { throw_if_interrupted(); });
    request = {kRequest, run.index};
  }
}

std::string random_token() {
  std::random_device device;
  return fmt::format("{:08x}{:08x}-{}", device(), device(), static_cast<long>(::getpid()));
}

}  // namespace

int run_sweep(const SweepOptions& options, SweepChannel& channel) {
  const bool root = channel.rank() == 0;
  // 1. Rank 0 reads and checks everything before any run; the others wait for its verdict.
  std::optional<SweepPlan> plan;
  std::unique_ptr<SweepFolder> folder;
  std::string verdict;
  if (root) {
    try {
      plan = load_sweep_plan(options.sweep_file);
      check_sweep_plan(*plan);
      folder = std::make_unique<SweepFolder>(options.out_dir, *plan, options.replace);
      const std::string token = random_token();
      std::ofstream(folder->probe_file()) << token << "\n";
      verdict = "ok " + token + " " + plan->fingerprint;
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      verdict = "stop";
    }
  }
  channel.broadcast(verdict);
  if (verdict == "stop") return 2;
  std::istringstream words(verdict);
  std::string ok, token, fingerprint;
  words >> ok >> token >> fingerprint;

  // 2. Every other rank reads the sweep itself and proves it reaches the folder.
  std::string reach;
  if (!root) {
    try {
      plan = load_sweep_plan(options.sweep_file);
      reach = plan->fingerprint != fingerprint
                  ? fmt::format("reads {} as a different sweep (fingerprint {}, rank 0's {})",
                                options.sweep_file.string(), plan->fingerprint, fingerprint)
                  : check_reach(SweepPaths{options.out_dir}, token, channel.rank());
    } catch (const std::exception& e) {
      reach = e.what();
    }
  }
  const std::vector<std::string> reaches = channel.gather(reach);
  verdict = "ok";
  if (root) {
    std::string problems;
    for (std::size_t r = 1; r < reaches.size(); ++r) {
      if (!reaches[r].empty()) problems += fmt::format("\n  rank {}: {}", r, reaches[r]);
    }
    if (!problems.empty()) {
      std::cerr << fmt::format(
          "error: not every rank can use the output folder {}; nothing was "
          "run:{}\n",
          options.out_dir.string(), problems);
      folder->remove_if_fresh();
      verdict = "stop";
    } else {
      std::error_code ignored;
      fs::remove(folder->probe_file(), ignored);
      folder->write_identity(*plan);
    }
  }
  channel.broadcast(verdict);
  if (verdict == "stop") return 2;

  // 3. The runs.
  if (!root) {
    work(*plan, SweepPaths{options.out_dir}, channel);
    return 0;
  }
  Coordinator coordinator(options, *plan, *folder, channel);
  return coordinator.run();
}

}  // namespace talus::sweep
