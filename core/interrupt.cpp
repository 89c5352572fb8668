#include "core/interrupt.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <set>
#include <system_error>
#include <thread>

namespace talus {
namespace fs = std::filesystem;

namespace {

// How long the run may take to unwind by itself after the first signal.
constexpr int kGracePeriodMs = 3000;

std::atomic<int> g_signal{0};
std::atomic<bool> g_installed{false};
std::mutex g_commit_mutex;
std::mutex g_registry_mutex;
std::set<fs::path>& registry() {
  static std::set<fs::path> folders;  // never destroyed before the watcher is done with it
  return folders;
}

sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

// Removes every registered temporary folder. Each is renamed first, so that the run (still going
// on in other threads) cannot create files in it by path while it is being removed.
void remove_registered_temporaries() {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  for (const fs::path& folder : registry()) {
    std::error_code ec;
    fs::path doomed = folder;
    doomed += ".interrupted";
    fs::rename(folder, doomed, ec);
    if (ec) doomed = folder;
    for (int attempt = 0; attempt < 3; ++attempt) {
      ec.clear();
      fs::remove_all(doomed, ec);
      if (!ec) break;
    }
  }
  registry().clear();
}

void watch_signals() {
  const sigset_t set = handled_signals();
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  g_signal.store(sig);
  // Give the run the grace period to unwind through its own destructors; a second signal cuts
  // it short.
  const timespec poll{0, 100'000'000};
  for (int waited_ms = 0; waited_ms < kGracePeriodMs; waited_ms += 100) {
    if (sigtimedwait(&set, nullptr, &poll) > 0) break;
  }
  g_commit_mutex.lock();  // never released: no commit may start after this
  remove_registered_temporaries();
  die_of_signal(sig);
}

}  // namespace

std::string signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return fmt::format("signal {}", signal_number);
  }
}

InterruptedError::InterruptedError(int signal_number)
    : std::runtime_error(fmt::format("interrupted by {}", signal_name(signal_number))),
      signal_number_(signal_number) {}

void install_interrupt_handling() {
  if (g_installed.exchange(true)) return;
  const sigset_t set = handled_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread(watch_signals).detach();
}

void throw_if_interrupted() {
  if (const int sig = g_signal.load()) throw InterruptedError(sig);
}

void die_of_signal(int signal_number) {
  // raise() sends the signal to this thread only: unblock it here and restore its default
  // action, so that the process ends exactly as one killed by the signal.
  struct sigaction action = {};
  action.sa_handler = SIG_DFL;
  sigaction(signal_number, &action, nullptr);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, signal_number);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  raise(signal_number);
  std::_Exit(128 + signal_number);  // only if the default action did not end the process
}

void register_temporary(const fs::path& folder) {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  registry().insert(folder);
}

void unregister_temporary(const fs::path& folder) {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  registry().erase(folder);
}

std::unique_lock<std::mutex> hold_commit_lock() {
  return std::unique_lock<std::mutex>(g_commit_mutex);
}

}  // namespace talus
