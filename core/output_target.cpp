#include "core/output_target.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "core/json_file.hpp"
#include "core/version.hpp"

namespace talus {
namespace fs = std::filesystem;

namespace {

// Every entry under `dir` (not following links), relative, folders with a trailing '/', sorted,
// without the manifest itself. Sorted order puts a folder before its contents, so the reverse
// order removes children first.
std::vector<std::string> entries_under(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path rel = it->path().lexically_relative(dir);
    if (rel == kOutputManifestName) continue;
    const bool is_folder = it->is_directory(ec) && !it->is_symlink(ec);
    names.push_back(rel.generic_string() + (is_folder ? "/" : ""));
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Adds the entries `dir`'s manifest lists to `listed`; false when it has no readable manifest.
bool read_manifest(const fs::path& dir, std::set<std::string>* listed) {
  std::ifstream in(dir / kOutputManifestName);
  if (!in) return false;
  try {
    const nlohmann::json manifest = nlohmann::json::parse(in);
    for (const auto& e : manifest.at("entries")) listed->insert(e.get<std::string>());
    return true;
  } catch (const std::exception&) {
    return false;  // unreadable or not ours: treated as no manifest
  }
}

// Entries under `dir` that `listed` (its manifest) does not name.
std::vector<std::string> unlisted_entries(const fs::path& dir,
                                          const std::set<std::string>& listed) {
  std::vector<std::string> foreign;
  for (std::string& e : entries_under(dir)) {
    if (listed.count(e) == 0) foreign.push_back(std::move(e));
  }
  return foreign;
}

// True when /proc says `pid` has exited and only waits to be reaped (state Z or X). A killed
// MPI rank stays a zombie until its new parent reaps it, which in a container whose first process
// is not an init can be long after mpirun has returned: kill(pid, 0) still succeeds on it.
bool is_zombie(long pid) {
  std::ifstream stat_file(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  std::getline(stat_file, stat);
  // "pid (comm) state ...": comm may hold spaces and parentheses, so the last ')' ends it.
  const std::size_t comm_end = stat.rfind(')');
  if (comm_end == std::string::npos || comm_end + 2 >= stat.size()) return false;  // cannot tell
  const char state = stat[comm_end + 2];
  return state == 'Z' || state == 'X';
}

bool process_is_alive(long pid) {
  if (pid <= 0) return true;  // not a pid we could have written: leave the folder alone
  const bool exists = ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
  return exists && !is_zombie(pid);
}

// "<anything>.tmp-<pid>-<n>" or ".old-": the kind ("tmp"/"old") and pid; false otherwise.
bool parse_sibling_name(const std::string& name, std::string* kind, long* pid) {
  if (name.size() < 2 || name[0] != '.') return false;
  for (const char* tag : {".tmp-", ".old-"}) {
    const std::size_t at = name.rfind(tag);
    if (at == std::string::npos || at == 0) continue;
    const std::string rest = name.substr(at + 5);  // "<pid>-<n>"
    const std::size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == rest.size()) continue;
    if (!std::all_of(rest.begin(), rest.end(), [](char c) {
          return c == '-' || std::isdigit(static_cast<unsigned char>(c)) != 0;
        }))
      continue;
    const auto [ptr, err] = std::from_chars(rest.data(), rest.data() + dash, *pid);
    if (err != std::errc() || ptr != rest.data() + dash) continue;
    *kind = std::string(tag + 1, 3);
    return true;
  }
  return false;
}

std::string list_some(const std::vector<std::string>& names) {
  std::string text;
  const std::size_t shown = std::min<std::size_t>(names.size(), 3);
  for (std::size_t k = 0; k < shown; ++k) text += (k ? ", '" : "'") + names[k] + "'";
  if (names.size() > shown) text += fmt::format(" and {} more", names.size() - shown);
  return text;
}

}  // namespace

void check_output_target(const fs::path& final_dir, ExistingOutput policy) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(final_dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    throw OutputTargetError(
        fmt::format("output folder '{}': cannot inspect it: {}", final_dir.string(), ec.message()));
  }
  if (!fs::exists(status)) return;
  if (fs::is_symlink(status)) {
    throw OutputTargetError(fmt::format(
        "output folder '{}' is a symbolic link; talus does not write through links: name a new "
        "folder",
        final_dir.string()));
  }
  if (!fs::is_directory(status)) {
    throw OutputTargetError(fmt::format(
        "output folder '{}' exists and is not a folder; talus does not replace it: name a new "
        "folder",
        final_dir.string()));
  }
  if (fs::is_empty(final_dir, ec) && !ec) return;
  std::set<std::string> listed;
  if (!read_manifest(final_dir, &listed)) {
    throw OutputTargetError(fmt::format(
        "output folder '{}' is not empty and is not a talus output (it has no {} manifest); talus "
        "never writes over files it did not write: name a new or empty folder",
        final_dir.string(), kOutputManifestName));
  }
  const std::vector<std::string> foreign = unlisted_entries(final_dir, listed);
  if (!foreign.empty()) {
    throw OutputTargetError(fmt::format(
        "output folder '{}' is a talus output but also holds {} entr{} talus did not write ({}); "
        "move them out or name another folder",
        final_dir.string(), foreign.size(), foreign.size() == 1 ? "y" : "ies", list_some(foreign)));
  }
  if (policy == ExistingOutput::refuse) {
    throw OutputTargetError(fmt::format(
        "output folder '{}' holds an earlier talus run; ask to replace it (talus run --replace, "
        "or replace=True in Python) or name another folder",
        final_dir.string()));
  }
}

void write_output_manifest(const fs::path& dir) {
  write_json(dir / kOutputManifestName,
             {{"written_by", fmt::format("talus {}", version())}, {"entries", entries_under(dir)}});
}

std::vector<std::string> entries_talus_did_not_write(const fs::path& dir) {
  std::set<std::string> listed;
  return read_manifest(dir, &listed) ? unlisted_entries(dir, listed) : entries_under(dir);
}

bool remove_talus_output(const fs::path& dir) {
  std::set<std::string> listed;
  if (!read_manifest(dir, &listed)) return false;
  std::error_code ec;
  // Reverse sorted order: a folder's contents before the folder. fs::remove never recurses, so a
  // listed folder that now holds something unlisted stays.
  for (auto it = listed.rbegin(); it != listed.rend(); ++it) {
    std::string rel = *it;
    if (rel.empty() || rel.front() == '/' || rel.find("..") != std::string::npos) continue;
    if (rel.back() == '/') rel.pop_back();
    fs::remove(dir / rel, ec);
  }
  if (!entries_under(dir).empty()) return false;
  fs::remove(dir / kOutputManifestName, ec);
  return fs::remove(dir, ec) && !ec;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "?";
  return name;
}

void write_temp_marker(const fs::path& temp_dir) {
  std::ofstream out(temp_dir / kTempMarkerName);
  out << "host " << host_name() << "\npid " << static_cast<long>(::getpid()) << "\n";
  if (!out.flush()) {
    throw std::runtime_error(
        fmt::format("cannot write '{}'", (temp_dir / kTempMarkerName).string()));
  }
}

std::vector<fs::path> remove_stale_temporaries(const fs::path& parent) {
  std::vector<fs::path> removed;
  std::error_code ec;
  const std::string marker_host = "host " + host_name();
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    std::string kind;
    long pid = 0;
    const fs::path folder = it->path();
    std::error_code status_ec;
    if (!parse_sibling_name(folder.filename().string(), &kind, &pid)) continue;
    if (it->is_symlink(status_ec) || !it->is_directory(status_ec)) continue;
    if (pid == static_cast<long>(::getpid()) || process_is_alive(pid)) continue;
    if (kind == "tmp") {
      std::ifstream marker(folder / kTempMarkerName);
      std::string first_line;
      if (!std::getline(marker, first_line) || first_line != marker_host) continue;
      std::error_code remove_ec;
      fs::remove_all(folder, remove_ec);
      if (!remove_ec) removed.push_back(folder);
    } else if (remove_talus_output(folder)) {
      removed.push_back(folder);
    }
  }
  return removed;
}

}  // namespace talus
