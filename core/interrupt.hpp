#pragma once
// Ctrl-C, SIGTERM and SIGHUP during a run: stop, remove the partial output, die of the signal.
//
// The command line calls install_interrupt_handling() first thing in main(). It blocks the three
// signals in every thread (threads inherit the mask, so OpenMP's workers never see them) and
// starts one watcher thread that waits for them with sigwait. On a signal the watcher
//   1. raises a flag that the run's progress callback turns into an InterruptedError, which
//      unwinds the run: each OutputDir's destructor removes its temporary folder, and main()
//      calls die_of_signal();
//   2. if the run has not finished unwinding within a grace period (a long stretch between
//      progress calls), or a second signal arrives, removes every registered temporary folder
//      itself and ends the process with the signal.
// A commit (a few renames) holds a lock the watcher takes before removing anything, so an output
// folder is never caught half-replaced. SIGKILL cannot be caught: the folders it leaves are
// removed by the next run into the same parent (remove_stale_temporaries).

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

namespace talus {

/// The run was stopped by a signal (Ctrl-C, SIGTERM, SIGHUP).
class InterruptedError : public std::runtime_error {
 public:
  explicit InterruptedError(int signal_number);
  int signal_number() const { return signal_number_; }

 private:
  int signal_number_;
};

/// "SIGINT", "SIGTERM", "SIGHUP" or "signal N".
std::string signal_name(int signal_number);

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and starts the watcher (see the file
/// comment). Call before any other thread starts. Idempotent.
void install_interrupt_handling();

/// Throws InterruptedError when a signal arrived (called from progress callbacks).
void throw_if_interrupted();

/// Ends the process with `signal_number`'s default action (the exit status shells report as
/// 128 + number), as a program killed by it would end.
[[noreturn]] void die_of_signal(int signal_number);

/// Temporary folders the watcher removes when it has to end the process itself.
void register_temporary(const std::filesystem::path& folder);
void unregister_temporary(const std::filesystem::path& folder);

/// Held while an output folder is committed; the watcher takes it before removing anything.
std::unique_lock<std::mutex> hold_commit_lock();

}  // namespace talus
