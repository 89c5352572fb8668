// Tests of all-or-nothing output folders and of which folders talus may write over (issue 16:
// talus removes only what talus wrote).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/output_dir.hpp"
#include "core/output_target.hpp"
#include "scratch_files.hpp"

namespace talus {
namespace {

using namespace testing_files;  // NOLINT: the scratch-file helpers

// A committed talus output at `dir` holding `files` (relative path -> text).
void make_talus_output(const fs::path& dir,
                       const std::vector<std::pair<std::string, std::string>>& files,
                       ExistingOutput existing = ExistingOutput::refuse) {
  OutputDir out(OutputTarget(dir, existing));
  for (const auto& [name, text] : files) write_text(out.path(name), text);
  out.commit();
}

template <typename Fn>
std::string target_error_of(Fn&& fn) {
  try {
    fn();
  } catch (const OutputTargetError& e) {
    return e.what();
  }
  return "(no OutputTargetError)";
}

// A pid that certainly ran and certainly no longer runs: a child that exited and was reaped.
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return static_cast<long>(child);
}

TEST(OutputDir, CommitCreatesTheFolderWithItsFilesAndAManifest) {
  ScratchDir scratch;
  const fs::path final_dir = scratch.path() / "run";
  {
    OutputDir out(final_dir);
    EXPECT_EQ(out.temp_path().parent_path(), scratch.path());
    EXPECT_EQ(out.temp_path().filename().string().rfind(".run.tmp-", 0), 0u);
    EXPECT_TRUE(fs::exists(out.temp_path() / kTempMarkerName));
    write_text(out.path("summary.json"), "{}");
    write_text(out.path("logs/deep/force.csv"), "t,f\n");
    EXPECT_FALSE(fs::exists(final_dir));  // nothing visible before commit
    out.commit();
    EXPECT_TRUE(out.committed());
    EXPECT_FALSE(fs::exists(out.temp_path()));
  }
  EXPECT_EQ(read_text(final_dir / "summary.json"), "{}");
  EXPECT_EQ(listing(scratch.path()),
            (std::vector<std::string>{"run", "run/.talus-output", "run/logs", "run/logs/deep",
                                      "run/logs/deep/force.csv", "run/summary.json"}));
  const auto manifest = nlohmann::json::parse(read_text(final_dir / kOutputManifestName));
  EXPECT_EQ(manifest["entries"],
            (nlohmann::json{"logs/", "logs/deep/", "logs/deep/force.csv", "summary.json"}));
  EXPECT_TRUE(entries_talus_did_not_write(final_dir).empty());
}

TEST(OutputDir, DestructionWithoutCommitRemovesTheTempAndKeepsTheEarlierOutput) {
  ScratchDir scratch;
  const fs::path final_dir = scratch.path() / "run";
  make_talus_output(final_dir, {{"old.txt", "previous run"}, {"sub/data.csv", "1,2\n"}});
  const auto before = listing(scratch.path());
  fs::path temp;
  {
    OutputDir out(OutputTarget(final_dir, ExistingOutput::replace));
    temp = out.temp_path();
    write_text(out.path("old.txt"), "half-written new run");
  }  // e.g. an exception unwound the run before commit()
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_EQ(listing(scratch.path()), before);
  EXPECT_EQ(read_text(final_dir / "old.txt"), "previous run");
}

TEST(OutputDir, ReplaceSwapsAnEarlierTalusOutputWhole) {
  ScratchDir scratch;
  const fs::path final_dir = scratch.path() / "run";
  make_talus_output(final_dir, {{"old.txt", "previous run"}, {"logs/a.csv", "1\n"}});
  {
    OutputDir out(OutputTarget(final_dir, ExistingOutput::replace));
    write_text(out.path("new.txt"), "this run");
    EXPECT_EQ(read_text(final_dir / "old.txt"), "previous run");  // untouched until commit
    out.commit();
  }
  EXPECT_EQ(listing(scratch.path()),
            (std::vector<std::string>{"run", "run/.talus-output", "run/new.txt"}));
}

// The case: `mkdir keep; echo x > keep/notes.txt; talus run ... --out keep` deleted it.
TEST(OutputDir, AFolderTalusDidNotWriteIsRefusedWhateverThePolicy) {
  ScratchDir scratch;
  const fs::path keep = scratch.path() / "keep";
  fs::create_directories(keep);
  write_text(keep / "notes.txt", "x");
  for (const ExistingOutput policy : {ExistingOutput::refuse, ExistingOutput::replace}) {
    const std::string message = target_error_of([&] { OutputDir out(OutputTarget(keep, policy)); });
    EXPECT_NE(message.find(keep.string()), std::string::npos) << message;
    EXPECT_NE(message.find("not a talus output"), std::string::npos) << message;
  }
  EXPECT_EQ(listing(scratch.path()), (std::vector<std::string>{"keep", "keep/notes.txt"}));
  EXPECT_EQ(read_text(keep / "notes.txt"), "x");
}

TEST(OutputDir, AnEarlierTalusOutputIsReplacedOnlyWhenAskedAndOnlyIfAllOfItIsTalus) {
  ScratchDir scratch;
  const fs::path run = scratch.path() / "run";
  make_talus_output(run, {{"summary.json", "{}"}});
  std::string message = target_error_of([&] { OutputDir out(run); });
  EXPECT_NE(message.find("--replace"), std::string::npos) << message;

  write_text(run / "my_notes.txt", "the user's own");  // added after the run
  fs::create_directories(run / "analysis");
  message = target_error_of([&] { OutputDir out(OutputTarget(run, ExistingOutput::replace)); });
  EXPECT_NE(message.find("'analysis/'"), std::string::npos) << message;
  EXPECT_NE(message.find("'my_notes.txt'"), std::string::npos) << message;
  EXPECT_EQ(read_text(run / "my_notes.txt"), "the user's own");
  EXPECT_EQ(read_text(run / "summary.json"), "{}");
}

TEST(OutputDir, AnEmptyFolderIsUsedAndAFileOrALinkIsRefusedBeforeAnythingIsWritten) {
  ScratchDir scratch;
  const fs::path empty = scratch.path() / "empty";
  fs::create_directories(empty);
  make_talus_output(empty, {{"a.txt", "a"}});
  EXPECT_EQ(read_text(empty / "a.txt"), "a");

  const fs::path file = scratch.path() / "results";
  write_text(file, "a file, not a folder");
  std::string message = target_error_of([&] { OutputDir out(file); });
  EXPECT_NE(message.find("not a folder"), std::string::npos) << message;

  const fs::path target = scratch.path() / "elsewhere";
  make_talus_output(target, {{"a.txt", "a"}});
  const fs::path link = scratch.path() / "link";
  fs::create_directory_symlink(target, link);
  for (const ExistingOutput policy : {ExistingOutput::refuse, ExistingOutput::replace}) {
    message = target_error_of([&] { OutputDir out(OutputTarget(link, policy)); });
    EXPECT_NE(message.find("symbolic link"), std::string::npos) << message;
  }
  const fs::path dangling = scratch.path() / "dangling";
  fs::create_symlink(scratch.path() / "nowhere", dangling);
  message = target_error_of([&] { OutputDir out(dangling); });
  EXPECT_NE(message.find("symbolic link"), std::string::npos) << message;

  EXPECT_EQ(read_text(file), "a file, not a folder");
  EXPECT_EQ(read_text(target / "a.txt"), "a");
  EXPECT_EQ(listing(scratch.path()),
            (std::vector<std::string>{"dangling", "elsewhere", "elsewhere/.talus-output",
                                      "elsewhere/a.txt", "empty", "empty/.talus-output",
                                      "empty/a.txt", "link", "results"}));
}

// Something talus may not write over appears under the final name during the run: the run's
// complete outputs are kept beside it, named in the error, and the user's file is untouched.
TEST(OutputDir, ATargetThatChangesDuringTheRunKeepsBothTheUsersFilesAndTheResults) {
  ScratchDir scratch;
  const fs::path run = scratch.path() / "run";
  OutputDir out(run);
  write_text(out.path("summary.json"), "{\"new\": 1}");
  fs::create_directories(run);
  write_text(run / "notes.txt", "the user's");
  const std::string message = target_error_of([&] { out.commit(); });
  EXPECT_NE(message.find("not a talus output"), std::string::npos) << message;
  EXPECT_NE(message.find("kept in"), std::string::npos) << message;
  EXPECT_EQ(read_text(run / "notes.txt"), "the user's");
  std::vector<std::string> kept;
  for (const auto& e : fs::directory_iterator(scratch.path())) {
    if (e.path().filename().string().rfind("run.kept-", 0) == 0) kept.push_back(e.path());
  }
  ASSERT_EQ(kept.size(), 1u) << message;
  EXPECT_EQ(read_text(fs::path(kept[0]) / "summary.json"), "{\"new\": 1}");
  EXPECT_TRUE(entries_talus_did_not_write(kept[0]).empty());
}

TEST(OutputDir, FailedCommitLeavesTheEarlierOutputAsItWas) {
  ScratchDir scratch;
  const fs::path final_dir = scratch.path() / "run";
  make_talus_output(final_dir, {{"old.txt", "previous run"}});
  OutputDir out(OutputTarget(final_dir, ExistingOutput::replace));
  // The manifest cannot be written into a temporary folder that is gone.
  fs::remove_all(out.temp_path());
  const std::string message = runtime_error_of([&] { out.commit(); });
  EXPECT_NE(message.find(out.temp_path().string()), std::string::npos) << message;
  EXPECT_FALSE(out.committed());
  EXPECT_EQ(listing(scratch.path()),
            (std::vector<std::string>{"run", "run/.talus-output", "run/old.txt"}));
}

TEST(OutputDir, RefusesMisuse) {
  ScratchDir scratch;
  OutputDir out(scratch.path() / "run");
  EXPECT_THROW(out.path(""), std::runtime_error);
  EXPECT_THROW(out.path("/etc/passwd"), std::runtime_error);
  EXPECT_THROW(out.path("../escape.txt"), std::runtime_error);
  EXPECT_THROW(out.path("a/../../escape.txt"), std::runtime_error);
  EXPECT_EQ(out.path("a/../b.txt"), out.temp_path() / "b.txt");
  out.commit();
  EXPECT_THROW(out.commit(), std::runtime_error);
  EXPECT_THROW(out.path("late.txt"), std::runtime_error);
  EXPECT_THROW(OutputDir(fs::path("/")), std::runtime_error);
  EXPECT_THROW(OutputDir(fs::path("")), std::runtime_error);
}

TEST(OutputDir, TemporaryNamesAreUniqueAndTheParentIsCreated) {
  ScratchDir scratch;
  const fs::path final_dir = scratch.path() / "a" / "b" / "run/";
  OutputDir first(OutputTarget(final_dir, ExistingOutput::replace));
  OutputDir second(OutputTarget(final_dir, ExistingOutput::replace));
  EXPECT_NE(first.temp_path(), second.temp_path());
  EXPECT_EQ(first.final_path(), scratch.path() / "a" / "b" / "run");
  write_text(first.path("x.txt"), "first");
  write_text(second.path("x.txt"), "second");
  first.commit();
  second.commit();  // the later commit wins, whole
  EXPECT_EQ(read_text(scratch.path() / "a/b/run/x.txt"), "second");
  EXPECT_EQ(listing(scratch.path() / "a/b"),
            (std::vector<std::string>{"run", "run/.talus-output", "run/x.txt"}));
}

// A killed run (SIGKILL, a power cut) leaves its temporary folder; the next run beside it removes
// it, and nothing that is not certainly a dead talus process's temporary.
TEST(OutputDir, TheNextRunRemovesTemporariesOfDeadProcessesAndNothingElse) {
  ScratchDir scratch;
  const fs::path parent = scratch.path();
  const long dead = dead_pid();
  const auto temp_named = [&](const std::string& name, const std::string& marker) {
    fs::create_directories(parent / name / "logs");
    write_text(parent / name / "logs/partial.csv", "t\n0\n");
    if (!marker.empty()) write_text(parent / name / kTempMarkerName, marker);
  };
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  const std::string ours = std::string("host ") + host + "\npid " + std::to_string(dead) + "\n";
  temp_named(".run.tmp-" + std::to_string(dead) + "-0", ours);                // removed
  temp_named(".other.tmp-" + std::to_string(dead) + "-3", ours);              // removed
  temp_named(".run.tmp-" + std::to_string(dead) + "-1", "");                  // no marker: kept
  temp_named(".run.tmp-" + std::to_string(dead) + "-2", "host elsewhere\n");  // kept
  temp_named(".run.tmp-" + std::to_string(::getppid()) + "-0", ours);         // alive: kept
  temp_named(".run.tmp-x-0", ours);                                           // not a pid: kept
  // A set-aside earlier output of a dead process: its listed entries go, a user's file stays.
  const fs::path old_dir = parent / ("run.src");
  make_talus_output(old_dir, {{"summary.json", "{}"}});
  const fs::path set_aside = parent / (".run.old-" + std::to_string(dead) + "-0");
  fs::rename(old_dir, set_aside);
  const fs::path set_aside_user = parent / (".run.old-" + std::to_string(dead) + "-1");
  make_talus_output(old_dir, {{"summary.json", "{}"}});
  write_text(old_dir / "mine.txt", "user");
  fs::rename(old_dir, set_aside_user);

  OutputDir out(parent / "run");
  out.commit();
  std::vector<std::string> top;
  for (const auto& e : fs::directory_iterator(parent)) top.push_back(e.path().filename());
  std::sort(top.begin(), top.end());
  std::vector<std::string> expected = {".run.old-" + std::to_string(dead) + "-1",
                                       ".run.tmp-" + std::to_string(::getppid()) + "-0",
                                       ".run.tmp-" + std::to_string(dead) + "-1",
                                       ".run.tmp-" + std::to_string(dead) + "-2",
                                       ".run.tmp-x-0",
                                       "run"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(top, expected);
  // The manifest stays with what is left, so that the folder is still known for what it was.
  EXPECT_EQ(listing(set_aside_user), (std::vector<std::string>{".talus-output", "mine.txt"}));
}

// A rank killed under mpirun stays a zombie until its new parent reaps it, which can be after
// the sweep has been started again: its temporary must count as a dead process's.
TEST(OutputDir, TheNextRunRemovesTheTemporaryOfAZombieProcess) {
  ScratchDir scratch;
  const pid_t zombie = ::fork();
  if (zombie == 0) ::_exit(0);
  // Not reaped yet: wait until /proc shows it exited.
  const fs::path stat_file = fs::path("/proc") / std::to_string(zombie) / "stat";
  std::string state;
  for (int attempt = 0; attempt < 500 && state != "Z"; ++attempt) {
    const std::string stat = read_text(stat_file);
    state = stat.substr(stat.rfind(')') + 2, 1);
    if (state != "Z") ::usleep(10'000);
  }
  ASSERT_EQ(state, "Z");
  ASSERT_EQ(::kill(zombie, 0), 0);  // what made the zombie look alive
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  const fs::path temp = scratch.path() / (".run.tmp-" + std::to_string(zombie) + "-0");
  fs::create_directories(temp);
  write_text(temp / kTempMarkerName,
             std::string("host ") + host + "\npid " + std::to_string(zombie) + "\n");

  const std::vector<fs::path> removed = remove_stale_temporaries(scratch.path());
  int status = 0;
  ::waitpid(zombie, &status, 0);
  EXPECT_EQ(removed, std::vector<fs::path>{temp});
  EXPECT_FALSE(fs::exists(temp));
}

}  // namespace
}  // namespace talus
