#include "sweep/sweep_results.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/csv_writer.hpp"
#include "core/hdf5_handle.hpp"
#include "core/version.hpp"
#include "sweep/hdf5_write.hpp"
#include "sweep/run_arrays.hpp"
#include "sweep/sweep_plot.hpp"

namespace talus::sweep {

namespace fs = std::filesystem;

namespace {

constexpr const char* kResultMarker = "talus_sweep_result";
constexpr const char* kSweepMarker = "talus_sweep";
constexpr const char* kFormat = "1";
constexpr const char* kTableHeadStart = "run,status,exit_code,";

std::string without_extension(const std::string& relative_path) {
  return fs::path(relative_path).replace_extension().generic_string();
}

void write_logs(hid_t run_group, const std::vector<LogTable>& logs,
                const std::vector<LoggedArray>& arrays, const std::string& where) {
  for (const LogTable& log : logs) {
    const Hdf5Handle group(
        create_group(run_group, "logs/" + without_extension(log.relative_path), where), H5Gclose);
    nlohmann::json names = nlohmann::json::array();
    for (const LogColumn& column : log.columns) {
      names.push_back(column.name);
      if (column.numeric) {
        write_doubles(group.get(), column.name, column.numbers, {column.numbers.size()}, where);
      } else {
        write_strings(group.get(), column.name, column.texts, where);
      }
    }
    write_attribute(group.get(), "columns", names.dump(), where);
    write_attribute(group.get(), "file", log.relative_path, where);
  }
  for (const LoggedArray& array : arrays) {
    const std::string name = "arrays/" + without_extension(array.relative_path);
    const fs::path parent = fs::path(name).parent_path();
    const Hdf5Handle group(create_group(run_group, parent.generic_string(), where), H5Gclose);
    write_doubles(group.get(), fs::path(name).filename().string(), array.data, array.shape, where);
  }
}

// A new HDF5 file carrying talus's `marker` (the format) and the sweep's fingerprint.
hid_t create_marked_file(const fs::path& temp, const char* marker, const std::string& fingerprint,
                         const std::string& where) {
  const hid_t h5 = H5Fcreate(temp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
  if (h5 < 0) throw std::runtime_error(fmt::format("{}: cannot be created", temp.string()));
  try {
    write_attribute(h5, marker, std::string(kFormat), where);
    write_attribute(h5, "fingerprint", fingerprint, where);
  } catch (...) {
    H5Fclose(h5);
    throw;
  }
  return h5;
}

// Opens an existing HDF5 file read-only, or throws SweepFolderError naming it.
hid_t open_for_check(const fs::path& file, const char* what) {
  const SilenceHdf5Errors silence;
  const hid_t id = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) {
    throw SweepFolderError(fmt::format(
        "{}: cannot be read as HDF5 (damaged, or not an HDF5 file); talus does not overwrite a "
        "file it cannot recognise as its own {}: move it away and run the sweep again",
        file.string(), what));
  }
  return id;
}

void check_marker(hid_t object, const fs::path& file, const char* marker,
                  const std::string& fingerprint, const char* what) {
  std::string format;
  std::string found;
  if (!read_string_attribute(object, marker, format) ||
      !read_string_attribute(object, "fingerprint", found)) {
    throw SweepFolderError(fmt::format(
        "{}: not a talus {} (no '{}' attribute): talus did not write it and will not overwrite "
        "it; move it away or choose another --out",
        file.string(), what, marker));
  }
  if (format != kFormat) {
    throw SweepFolderError(fmt::format("{}: a talus {} of format {}, expected {}", file.string(),
                                       what, format, kFormat));
  }
  if (fingerprint != kAnySweep && found != fingerprint) {
    throw SweepFolderError(fmt::format(
        "{}: holds another sweep's results (fingerprint {}, this sweep's {}): the sweep file or "
        "its base scenario changed since; choose another --out",
        file.string(), found, fingerprint));
  }
}

std::string required_attribute(hid_t object, const fs::path& file, const char* name) {
  std::string value;
  if (!read_string_attribute(object, name, value)) {
    throw SweepFolderError(
        fmt::format("{}: run: attribute '{}' missing or not a string", file.string(), name));
  }
  return value;
}

// The summary's scalars by dotted name: objects walked into, and arrays of objects by element
// (summary_element_name: a foot_drop's cases.<case name>...); arrays of numbers left out.
void flatten_scalars(const nlohmann::json& value, const std::string& prefix,
                     std::map<std::string, nlohmann::json>& out) {
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      flatten_scalars(member, prefix.empty() ? key : prefix + "." + key, out);
    }
  } else if (is_array_of_objects(value)) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::string name = summary_element_name(value[i], i);
      flatten_scalars(value[i], prefix.empty() ? name : prefix + "." + name, out);
    }
  } else if (value.is_primitive() && !value.is_null() && !prefix.empty()) {
    out[prefix] = value;
  }
}

CsvCell cell_of(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_boolean()) return value.get<bool>() ? 1.0 : 0.0;
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return std::string();
  return value.dump();
}

}  // namespace

void write_run_result(const fs::path& file, const SweepPlan& plan, const SweepRun& run,
                      const RunOutcome& outcome, const fs::path& run_dir) {
  nlohmann::json summary;
  std::vector<LogTable> logs;
  std::vector<LoggedArray> arrays;
  if (fs::is_directory(run_dir)) {
    if (fs::is_regular_file(run_dir / "summary.json")) {
      std::ifstream in(run_dir / "summary.json");
      summary = nlohmann::json::parse(in);
    }
    read_run_arrays(run_dir, logs, arrays);
  }
  const SilenceHdf5Errors silence;
  replace_file_atomically(file, [&](const fs::path& temp) {
    const std::string where = file.string();
    const Hdf5Handle h5(create_marked_file(temp, kResultMarker, plan.fingerprint, where), H5Fclose);
    const Hdf5Handle group(create_group(h5.get(), "run", where), H5Gclose);
    const hid_t g = group.get();
    write_attribute(g, "id", run.id, where);
    write_attribute(g, "index", static_cast<long long>(run.index), where);
    write_attribute(g, "label", run.label(), where);
    write_attribute(g, "status", outcome.status, where);
    write_attribute(g, "error", outcome.error, where);
    write_attribute(g, "exit_code", static_cast<long long>(outcome.exit_code), where);
    write_attribute(g, "wall_s", outcome.wall_s, where);
    write_attribute(g, "rank", static_cast<long long>(outcome.rank), where);
    write_attribute(g, "host", outcome.host, where);
    write_attribute(g, "parameters_json", run.parameters().dump(), where);
    write_attribute(g, "summary_json", summary.dump(), where);
    write_json(g, "parameters", run.parameters(), where);
    if (summary.is_object()) write_json(g, "summary", summary, where);
    write_logs(g, logs, arrays, where);
  });
}

RunRecord read_run_record(const fs::path& file, const std::string& fingerprint) {
  const SilenceHdf5Errors silence;
  const Hdf5Handle h5(open_for_check(file, "run result"), H5Fclose);
  check_marker(h5.get(), file, kResultMarker, fingerprint, "sweep run result");
  const Hdf5Handle group(
      H5Lexists(h5.get(), "run", H5P_DEFAULT) > 0 ? H5Gopen2(h5.get(), "run", H5P_DEFAULT) : -1,
      H5Gclose);
  if (!group.ok()) throw SweepFolderError(fmt::format("{}: no group 'run'", file.string()));
  const hid_t g = group.get();
  RunRecord record;
  record.id = required_attribute(g, file, "id");
  record.outcome.status = required_attribute(g, file, "status");
  record.outcome.error = required_attribute(g, file, "error");
  record.outcome.host = required_attribute(g, file, "host");
  try {
    record.parameters = nlohmann::json::parse(required_attribute(g, file, "parameters_json"));
    record.summary = nlohmann::json::parse(required_attribute(g, file, "summary_json"));
  } catch (const nlohmann::json::parse_error& e) {
    throw SweepFolderError(
        fmt::format("{}: run: damaged JSON attribute: {}", file.string(), e.what()));
  }
  const auto number = [&](const char* name, hid_t memory_type, void* value) {
    const Hdf5Handle attr(H5Aexists(g, name) > 0 ? H5Aopen(g, name, H5P_DEFAULT) : -1, H5Aclose);
    if (!attr.ok() || H5Aread(attr.get(), memory_type, value) < 0) {
      throw SweepFolderError(fmt::format("{}: run: attribute '{}' missing", file.string(), name));
    }
  };
  long long index = 0;
  long long exit_code = 0;
  long long rank = 0;
  number("index", H5T_NATIVE_LLONG, &index);
  number("exit_code", H5T_NATIVE_LLONG, &exit_code);
  number("rank", H5T_NATIVE_LLONG, &rank);
  number("wall_s", H5T_NATIVE_DOUBLE, &record.outcome.wall_s);
  record.index = static_cast<int>(index);
  record.outcome.exit_code = static_cast<int>(exit_code);
  record.outcome.rank = static_cast<int>(rank);
  if (record.outcome.status != "ok" && record.outcome.status != "failed") {
    throw SweepFolderError(fmt::format("{}: run: status '{}', expected ok or failed", file.string(),
                                       record.outcome.status));
  }
  return record;
}

void check_run_result_file(const fs::path& file, const std::string& fingerprint) {
  const SilenceHdf5Errors silence;
  const Hdf5Handle h5(open_for_check(file, "run result"), H5Fclose);
  check_marker(h5.get(), file, kResultMarker, fingerprint, "sweep run result");
}

void check_sweep_hdf5(const fs::path& file, const std::string& fingerprint) {
  std::error_code error;
  if (!fs::exists(fs::symlink_status(file, error))) return;
  if (fs::is_symlink(fs::symlink_status(file)) || !fs::is_regular_file(file)) {
    throw SweepFolderError(fmt::format(
        "{}: not a regular file talus wrote (a link or a folder); move it away", file.string()));
  }
  const SilenceHdf5Errors silence;
  const Hdf5Handle h5(open_for_check(file, "sweep file"), H5Fclose);
  check_marker(h5.get(), file, kSweepMarker, fingerprint, "sweep file");
}

void write_sweep_hdf5(const fs::path& file, const SweepPlan& plan,
                      const std::vector<fs::path>& result_files) {
  check_sweep_hdf5(file, plan.fingerprint);
  const SilenceHdf5Errors silence;
  replace_file_atomically(file, [&](const fs::path& temp) {
    const std::string where = file.string();
    const Hdf5Handle h5(create_marked_file(temp, kSweepMarker, plan.fingerprint, where), H5Fclose);
    write_attribute(h5.get(), "name", plan.name, where);
    write_attribute(h5.get(), "description", plan.description, where);
    write_attribute(h5.get(), "sweep_file", plan.sweep_file.string(), where);
    write_attribute(h5.get(), "scenario_file", plan.scenario_file.string(), where);
    write_attribute(h5.get(), "talus_version", std::string(version()), where);
    write_attribute(h5.get(), "runs_planned", static_cast<long long>(plan.runs.size()), where);
    write_attribute(h5.get(), "runs_finished", static_cast<long long>(result_files.size()), where);
    nlohmann::json keys = plan.keys;
    write_attribute(h5.get(), "swept_keys", keys.dump(), where);
    std::vector<std::string> ids;
    for (const SweepRun& run : plan.runs) ids.push_back(run.id);
    write_strings(h5.get(), "planned_runs", ids, where);
    const Hdf5Handle runs(create_group(h5.get(), "runs", where), H5Gclose);
    for (const fs::path& result : result_files) {
      const Hdf5Handle source(H5Fopen(result.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
      const std::string id = result.stem().string();
      if (!source.ok() ||
          H5Ocopy(source.get(), "run", runs.get(), id.c_str(), H5P_DEFAULT, H5P_DEFAULT) < 0) {
        throw std::runtime_error(
            fmt::format("{}: cannot copy {}'s group 'run' into it", where, result.string()));
      }
    }
  });
}

void check_sweep_table(const fs::path& file) {
  std::error_code error;
  if (!fs::exists(fs::symlink_status(file, error))) return;
  std::ifstream in(file);
  std::string head;
  if (fs::is_symlink(fs::symlink_status(file)) || !fs::is_regular_file(file) ||
      !std::getline(in, head) || head.rfind(kTableHeadStart, 0) != 0) {
    throw SweepFolderError(fmt::format(
        "{}: not a sweep table talus wrote (its first line does not start with '{}'): talus will "
        "not overwrite it; move it away or choose another --out",
        file.string(), kTableHeadStart));
  }
}

void write_sweep_table(const fs::path& file, const SweepPlan& plan,
                       const std::vector<RunRecord>& records) {
  check_sweep_table(file);
  std::vector<std::map<std::string, nlohmann::json>> scalars(records.size());
  std::set<std::string> summary_keys;
  for (std::size_t i = 0; i < records.size(); ++i) {
    flatten_scalars(records[i].summary, "", scalars[i]);
    for (const auto& [key, value] : scalars[i]) summary_keys.insert(key);
  }
  std::vector<std::string> header = {"run", "status", "exit_code", "wall_s", "rank", "host"};
  for (const std::string& key : plan.keys) header.push_back(key);
  for (const std::string& key : summary_keys) header.push_back("summary." + key);
  header.push_back("error");
  replace_file_atomically(file, [&](const fs::path& temp) {
    CsvWriter table(temp, header);
    for (std::size_t i = 0; i < records.size(); ++i) {
      const RunRecord& r = records[i];
      std::vector<CsvCell> row = {r.id,
                                  r.outcome.status,
                                  static_cast<double>(r.outcome.exit_code),
                                  r.outcome.wall_s,
                                  static_cast<double>(r.outcome.rank),
                                  r.outcome.host};
      for (const std::string& key : plan.keys) {
        row.push_back(r.parameters.contains(key) ? cell_of(r.parameters[key]) : std::string());
      }
      for (const std::string& key : summary_keys) {
        const auto found = scalars[i].find(key);
        row.push_back(found != scalars[i].end() ? cell_of(found->second) : std::string());
      }
      row.push_back(r.outcome.error);
      table.write_row(row);
    }
    table.close();
  });
}

}  // namespace talus::sweep
