// Thread counts on a busy machine (core/threads.hpp): the rule, the measurement of other
// processes' load, and the user's explicit choices.

#include <gtest/gtest.h>
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/scenario_file.hpp"
#include "core/threads.hpp"

namespace talus {
namespace {

TEST(Threads, TheTeamFitsTheCoresOtherProcessesLeaveFree) {
  EXPECT_EQ(threads_for_load(2, 2, 0.0), 2);
  EXPECT_EQ(threads_for_load(2, 2, 0.3), 2);   // a little background work: both cores
  EXPECT_EQ(threads_for_load(2, 2, 0.97), 1);  // one busy process
  EXPECT_EQ(threads_for_load(2, 2, 2.0), 1);   // never fewer than one
  EXPECT_EQ(threads_for_load(8, 16, 3.2), 8);  // never more than asked
  EXPECT_EQ(threads_for_load(16, 16, 3.6), 12);
}

TEST(Threads, OtherBusyCoresSubtractsThisProcess) {
  CpuSnapshot a{10.0, 20.0, 1.0}, b{12.0, 22.0, 2.0};  // 2 s elapsed on 1 core-equivalent
  // The machine was busy 2 of 2 s of CPU time, 1 s of it this process: others used half.
  EXPECT_DOUBLE_EQ(other_busy_cores(a, b, 1), 0.5);
  EXPECT_DOUBLE_EQ(other_busy_cores(a, b, 4), 2.0);
  EXPECT_DOUBLE_EQ(other_busy_cores(b, b, 2), 0.0);  // no time passed
}

// A child process spinning on one core shows up as about one busy core of another process.
TEST(Threads, ABusyChildProcessIsMeasuredAsOtherLoad) {
  const pid_t child = ::fork();
  if (child == 0) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    volatile unsigned long spin = 0;
    while (std::chrono::steady_clock::now() < end) spin = spin + 1;
    ::_exit(0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const CpuSnapshot before = CpuSnapshot::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  const CpuSnapshot after = CpuSnapshot::now();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_GT(after.machine_total_s, before.machine_total_s) << "/proc/stat not readable";
  const int cores = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_GT(other_busy_cores(before, after, cores), 0.6);
}

TEST(Threads, ARunsThreadsAreItsOwnAndOpenMPsDefaultComesBack) {
  // talus.run_scenario runs many scenarios in one process: each run's choice ends with it.
  const int before = omp_get_max_threads();
  {
    RunThreads run(1);
    EXPECT_EQ(omp_get_max_threads(), 1);
    run.update();  // fixed by the caller: nothing adapts
    EXPECT_EQ(omp_get_max_threads(), 1);
  }
  EXPECT_EQ(omp_get_max_threads(), before);
  {
    const RestoreOmpThreads restore;
    omp_set_num_threads(before + 3);
  }
  EXPECT_EQ(omp_get_max_threads(), before);
}

TEST(Threads, ExplicitChoicesAreFixedAndBadOnesRefused) {
  ::unsetenv("TALUS_THREADS");
  const char* omp = std::getenv("OMP_NUM_THREADS");
  EXPECT_TRUE(threads_fixed_by_user(3));
  if (omp == nullptr) {
    EXPECT_FALSE(threads_fixed_by_user(0));
  }
  const int before = omp_get_max_threads();
  ::setenv("TALUS_THREADS", "1", 1);
  EXPECT_TRUE(threads_fixed_by_user(0));
  EXPECT_EQ(configure_threads(0), 1);
  ::setenv("TALUS_THREADS", "lots", 1);
  EXPECT_THROW(configure_threads(0), ScenarioError);
  ::unsetenv("TALUS_THREADS");
  // OMP_NUM_THREADS, the fallback, is checked too (OpenMP itself only warns); restored after.
  const std::string omp_saved = omp != nullptr ? omp : "";
  for (const char* bad : {"-3", "0", "two", ""}) {
    ::setenv("OMP_NUM_THREADS", bad, 1);
    if (*bad != 0) {
      EXPECT_THROW(configure_threads(0), ScenarioError) << bad;
      EXPECT_NO_THROW(configure_threads(1)) << bad;  // an explicit choice does not read it
    } else {
      EXPECT_NO_THROW(configure_threads(0));  // empty: unset
    }
  }
  for (const char* good : {"2", "4,2"}) {
    ::setenv("OMP_NUM_THREADS", good, 1);
    EXPECT_NO_THROW(configure_threads(0)) << good;
  }
  if (omp != nullptr) {
    ::setenv("OMP_NUM_THREADS", omp_saved.c_str(), 1);
  } else {
    ::unsetenv("OMP_NUM_THREADS");
  }
  omp_set_num_threads(before);  // the other tests of this process keep their team
}

}  // namespace
}  // namespace talus
