#pragma once
// The arrays a run logs, read back from its output folder for a sweep's HDF5 file: every CSV log
// (one column per header field) and every .npy array talus wrote.

#include <filesystem>
#include <string>
#include <vector>

namespace talus::sweep {

/// One column of a CSV log: numbers when every cell reads as one, otherwise the texts.
struct LogColumn {
  std::string name;
  bool numeric = true;
  std::vector<double> numbers;
  std::vector<std::string> texts;
};

/// A CSV log: its path relative to the run folder, and its columns in header order.
struct LogTable {
  std::string relative_path;
  std::vector<LogColumn> columns;
};

/// A .npy array talus wrote (float64, C order).
struct LoggedArray {
  std::string relative_path;
  std::vector<std::size_t> shape;
  std::vector<double> data;
};

/// Reads a CSV file as talus writes it (core/csv_writer.hpp: RFC 4180 quoting, "nan"/"inf"
/// numbers). Throws std::runtime_error naming the file and line when a row's field count differs
/// from the header's or a quote is not closed.
LogTable read_csv_log(const std::filesystem::path& file, const std::string& relative_path);

/// Reads a version-1.0 .npy file of little-endian float64 in C order (what core/npy.hpp writes).
/// Throws std::runtime_error naming the file for anything else.
LoggedArray read_npy(const std::filesystem::path& file, const std::string& relative_path);

/// Every CSV log and .npy array under `run_dir`, sorted by relative path.
void read_run_arrays(const std::filesystem::path& run_dir, std::vector<LogTable>& logs,
                     std::vector<LoggedArray>& arrays);

}  // namespace talus::sweep
