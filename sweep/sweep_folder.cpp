#include "sweep/sweep_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "core/atomic_file.hpp"
#include "core/json_file.hpp"
#include "core/output_target.hpp"
#include "core/version.hpp"
#include "sweep/sweep_combine.hpp"

namespace talus::sweep {

namespace fs = std::filesystem;

namespace {

constexpr const char* kIdentityName = ".talus-sweep.json";

[[noreturn]] void refuse(const fs::path& entry, const std::string& why) {
  throw SweepFolderError(fmt::format("{}: {}", entry.string(), why));
}

bool is_link_or_not_folder(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  return fs::is_symlink(status) || (fs::exists(status) && !fs::is_directory(status));
}

// The identity file of an earlier start.
nlohmann::json read_identity(const fs::path& file) {
  nlohmann::json identity;
  try {
    std::ifstream in(file);
    identity = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    refuse(file,
           fmt::format("damaged ({}); move the folder away or choose another --out", e.what()));
  }
  if (!identity.is_object() || identity.value("format", "") != "talus-sweep 1") {
    refuse(file, "not a talus sweep folder's identity file");
  }
  return identity;
}

// The files besides results a sweep wrote in its folder (pictures, a combined database), as
// its identity file lists them. Plain names only: nothing outside the folder is ever named.
std::vector<std::string> extra_files(const nlohmann::json& identity) {
  std::vector<std::string> names;
  if (identity.contains("extra_files") && identity["extra_files"].is_array()) {
    for (const auto& name : identity["extra_files"]) {
      if (!name.is_string()) continue;
      const std::string text = name.get<std::string>();
      if (!text.empty() && text[0] != '.' && text.find('/') == std::string::npos) {
        names.push_back(text);
      }
    }
  }
  return names;
}

}  // namespace

SweepFolder::SweepFolder(fs::path dir, const SweepPlan& plan, bool replace)
    : SweepPaths{std::move(dir)} {
  if (root.empty()) throw SweepFolderError("--out: an empty path");
  if (is_link_or_not_folder(root)) {
    refuse(root,
           "not a folder (a file or a symbolic link); --out must name a new folder, an "
           "empty one, or an earlier output of this sweep");
  }
  if (!fs::exists(root)) {
    std::error_code error;
    fs::create_directories(root, error);
    if (error) refuse(root, fmt::format("cannot be created: {}", error.message()));
    made_ = true;
  }
  lock_.fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock_.fd < 0) refuse(root, fmt::format("cannot be opened: {}", std::strerror(errno)));
  if (::flock(lock_.fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    // The lock ends with the process that holds it, so a sweep just killed holds it until it
    // has exited (a second or two, longer for mpirun's ranks).
    refuse(root, error == EWOULDBLOCK
                     ? "another talus sweep is writing this folder now (a sweep just stopped "
                       "holds it until its process has exited: wait for that, then run again)"
                     : fmt::format("cannot be locked: {}", std::strerror(error)));
  }
  fresh_ = fs::is_empty(root);
  nlohmann::json earlier;  // the identity of an earlier start of this sweep, resumed
  if (!fresh_) {
    // An earlier start of a sweep: nothing in it but what a sweep writes.
    const fs::path identity_file = root / kIdentityName;
    if (!fs::is_regular_file(identity_file) || fs::is_symlink(identity_file)) {
      refuse(root, fmt::format("holds files that are not a talus sweep's (no {}); talus writes "
                               "over nothing it did not write: choose a new or empty --out",
                               kIdentityName));
    }
    const nlohmann::json identity = read_identity(identity_file);
    if (replace) {
      clear(identity);
      fresh_ = true;
    } else if (identity.value("fingerprint", "") != plan.fingerprint) {
      refuse(root,
             fmt::format("holds the results of another sweep ('{}' from {}, fingerprint {}; "
                         "this sweep's is {}): the sweep file or its base scenario changed "
                         "since. Choose another --out, or --replace to start this sweep afresh "
                         "there",
                         identity.value("name", "?"), identity.value("sweep_file", "?"),
                         identity.value("fingerprint", "?"), plan.fingerprint));
    } else {
      earlier = identity;
    }
  }
  fs::create_directories(root / "runs");
  fs::create_directories(root / "results");
  if (!fresh_) resume(plan, earlier);
}

// This sweep's earlier start: nothing in the folder but what the sweep writes; its results read.
void SweepFolder::resume(const SweepPlan& plan, const nlohmann::json& identity) {
  check_sweep_entries(identity);
  check_sweep_hdf5(hdf5_file(), plan.fingerprint);
  check_sweep_table(table_file());
  std::set<std::string> ids;
  for (const SweepRun& run : plan.runs) ids.insert(run.id);
  for (const auto& entry : fs::directory_iterator(root / "results")) {
    const std::string id = entry.path().stem().string();
    if (ids.count(id) == 0) {
      refuse(entry.path(), "not a result file of this sweep; move it out of the sweep's folder");
    }
    RunRecord record = read_run_record(entry.path(), plan.fingerprint);
    if (record.id != id) refuse(entry.path(), fmt::format("holds run {}'s result", record.id));
    finished_.emplace(id, std::move(record));
  }
  for (const auto& entry : fs::directory_iterator(root / "runs")) {
    const std::string name = entry.path().filename().string();
    // Hidden names are OutputDir's temporaries and set-aside folders: it clears its own.
    if (name[0] == '.') continue;
    if (ids.count(name) == 0) {
      refuse(entry.path(), "not a run folder of this sweep; move it out of the sweep's folder");
    }
    // A run folder holding a file of the user's would fail its run ("not empty") only when the
    // run starts, replacing a failed run's own error in the table: refused before any run.
    check_run_folder(entry.path());
  }
}

// A run folder is a folder holding only what talus wrote (its manifest says what that is).
void SweepFolder::check_run_folder(const fs::path& run) const {
  if (is_link_or_not_folder(run)) {
    refuse(run, "not a run folder talus wrote; move it out of the sweep's folder");
  }
  const std::vector<std::string> foreign = entries_talus_did_not_write(run);
  if (!foreign.empty()) {
    refuse(run,
           fmt::format("holds {} talus did not write ('{}'{}); move {} out of the sweep's "
                       "folder",
                       foreign.size() == 1 ? "a file" : "files", foreign.front(),
                       foreign.size() > 1 ? ", ..." : "", foreign.size() == 1 ? "it" : "them"));
  }
}

// Refuses any entry a sweep does not write (the folder's own names, results/<id>.h5, runs/<id>/);
// removes the temporaries a killed start left (the lock says that no sweep is writing them now).
void SweepFolder::check_sweep_entries(const nlohmann::json& identity) const {
  std::set<std::string> known = {kIdentityName, "runs",      "results",
                                 "sweep.h5",    "sweep.csv", ".talus-sweep-probe"};
  for (const std::string& file : extra_files(identity)) known.insert(file);
  const auto temporary = [&](const fs::path& path) {
    if (!is_atomic_temporary_name(path.filename().string()) &&
        path.filename().string().rfind(".probe-", 0) != 0) {
      return false;
    }
    fs::remove(path);
    return true;
  };
  for (const auto& entry : fs::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (!temporary(entry.path()) && known.count(name) == 0) {
      refuse(entry.path(),
             "not written by talus sweep; talus writes over nothing it did not "
             "write: move it out of the sweep's folder");
    }
  }
  for (const char* sub : {"runs", "results"}) {
    if (is_link_or_not_folder(root / sub)) refuse(root / sub, "expected a folder talus wrote");
  }
  if (fs::is_directory(root / "results")) {
    for (const auto& entry : fs::directory_iterator(root / "results")) {
      if (temporary(entry.path())) continue;
      if (entry.path().extension() != ".h5" || !entry.is_regular_file() || entry.is_symlink()) {
        refuse(entry.path(), "not a result file talus wrote; move it out of the sweep's folder");
      }
    }
  }
}

// --replace: everything a sweep wrote goes, once all of it is found to be a sweep's.
void SweepFolder::clear(const nlohmann::json& identity) {
  check_sweep_entries(identity);
  check_sweep_hdf5(hdf5_file(), kAnySweep);
  check_sweep_table(table_file());
  std::vector<fs::path> results;
  if (fs::is_directory(root / "results")) {
    for (const auto& entry : fs::directory_iterator(root / "results")) {
      check_run_result_file(entry.path(), kAnySweep);
      results.push_back(entry.path());
    }
  }
  std::vector<fs::path> runs;
  if (fs::is_directory(root / "runs")) {
    remove_stale_temporaries(root / "runs");
    for (const auto& entry : fs::directory_iterator(root / "runs")) {
      check_run_folder(entry.path());
      runs.push_back(entry.path());
    }
  }
  for (const fs::path& run : runs) {
    if (!remove_talus_output(run)) refuse(run, "could not be removed entirely");
  }
  std::error_code error;
  for (const fs::path& file : results) fs::remove(file);
  for (const std::string& name : {std::string("runs"), std::string("results"),
                                  std::string("sweep.h5"), std::string("sweep.csv")}) {
    fs::remove(root / name, error);
  }
  for (const std::string& file : extra_files(identity)) fs::remove(root / file, error);
  fs::remove(root / kIdentityName);
  if (!fs::is_empty(root)) refuse(root, "could not be emptied entirely");
}

SweepFolder::Lock::~Lock() {
  if (fd >= 0) ::close(fd);
}

void SweepFolder::write_identity(const SweepPlan& plan) {
  // Files of earlier starts stay listed: a plot taken out of the sweep file leaves its picture,
  // which is still the sweep's.
  std::set<std::string> names;
  if (fs::is_regular_file(root / kIdentityName)) {
    for (const std::string& file : extra_files(read_identity(root / kIdentityName))) {
      names.insert(file);
    }
  }
  for (const SweepPlot& plot : plan.plots) names.insert(plot.name + ".png");
  for (const std::string& file : combined_files(plan.combine)) names.insert(file);
  const nlohmann::json extra = names;
  fs::create_directories(root / "runs");  // an earlier start that a kill stopped early
  fs::create_directories(root / "results");
  const nlohmann::json identity = {{"format", "talus-sweep 1"},
                                   {"fingerprint", plan.fingerprint},
                                   {"name", plan.name},
                                   {"sweep_file", plan.sweep_file.string()},
                                   {"scenario_file", plan.scenario_file.string()},
                                   {"runs_planned", plan.runs.size()},
                                   {"extra_files", extra},
                                   {"talus_version", version()}};
  replace_file_atomically(root / kIdentityName,
                          [&](const fs::path& temp) { talus::write_json(temp, identity); });
}

void SweepFolder::remove_if_fresh() {
  std::error_code ignored;
  fs::remove(probe_file(), ignored);
  if (!fresh_) return;
  for (const char* sub : {"runs", "results"}) fs::remove(root / sub, ignored);  // empty only
  fs::remove(root / kIdentityName, ignored);
  if (made_) fs::remove(root, ignored);
}

}  // namespace talus::sweep
