#include "sweep/run_arrays.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace talus::sweep {

namespace {

// RFC 4180 records. Hand-written: the one Debian C++ CSV library (libcsv) is GPL-2, and talus's
// logs need only quoted fields and doubled quotes. Returns false at the end of the text.
bool next_record(const std::string& text, std::size_t& at, std::vector<std::string>& fields,
                 const std::filesystem::path& file, long line) {
  fields.clear();
  if (at >= text.size()) return false;
  std::string field;
  bool quoted = false;
  while (true) {
    if (at >= text.size()) {
      if (quoted) {
        throw std::runtime_error(
            fmt::format("{}:{}: a quoted field is not closed", file.string(), line));
      }
      fields.push_back(field);
      return true;
    }
    const char c = text[at++];
    if (quoted) {
      if (c == '"') {
        if (at < text.size() && text[at] == '"') {
          field += '"';
          ++at;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      fields.push_back(std::move(field));
      return true;
    } else if (c != '\r') {
      field += c;
    }
  }
}

bool parse_number(const std::string& text, double& value) {
  if (text == "nan" || text == "-nan") {
    value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (text == "inf" || text == "-inf") {
    value = text[0] == '-' ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::infinity();
    return true;
  }
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

std::string read_all(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot be read", file.string()));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

LogTable read_csv_log(const std::filesystem::path& file, const std::string& relative_path) {
  const std::string text = read_all(file);
  LogTable table;
  table.relative_path = relative_path;
  std::size_t at = 0;
  long line = 1;
  std::vector<std::string> fields;
  if (!next_record(text, at, fields, file, line)) {
    throw std::runtime_error(fmt::format("{}: empty, expected a header line", file.string()));
  }
  for (const std::string& name : fields) table.columns.push_back(LogColumn{name, true, {}, {}});
  std::vector<std::vector<std::string>> rows;
  while (next_record(text, at, fields, file, ++line)) {
    if (fields.size() != table.columns.size()) {
      throw std::runtime_error(fmt::format("{}:{}: {} fields, the header has {}", file.string(),
                                           line, fields.size(), table.columns.size()));
    }
    for (std::size_t c = 0; c < fields.size(); ++c) {
      LogColumn& column = table.columns[c];
      column.texts.push_back(fields[c]);
      double value = 0;
      if (column.numeric && parse_number(fields[c], value)) {
        column.numbers.push_back(value);
      } else {
        column.numeric = false;
      }
    }
  }
  for (LogColumn& column : table.columns) {
    if (column.numeric) {
      column.texts.clear();
    } else {
      column.numbers.clear();
    }
  }
  return table;
}

LoggedArray read_npy(const std::filesystem::path& file, const std::string& relative_path) {
  const std::string bytes = read_all(file);
  const auto refuse = [&](const std::string& why) -> LoggedArray {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), why));
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0 || bytes[6] != 1) {
    return refuse("not a version-1 .npy file");
  }
  const std::size_t header_length =
      static_cast<unsigned char>(bytes[8]) |
      (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  if (10 + header_length > bytes.size()) return refuse("truncated header");
  const std::string header = bytes.substr(10, header_length);
  std::smatch match;
  if (header.find("'descr': '<f8'") == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos ||
      !std::regex_search(header, match, std::regex(R"('shape': \(([0-9, ]*)\))"))) {
    return refuse("expected little-endian float64 in C order ('<f8')");
  }
  LoggedArray array;
  array.relative_path = relative_path;
  std::size_t count = 1;
  std::stringstream dims(match[1].str());
  for (std::string dim; std::getline(dims, dim, ',');) {
    dim.erase(std::remove(dim.begin(), dim.end(), ' '), dim.end());
    if (dim.empty()) continue;
    array.shape.push_back(std::stoul(dim));
    count *= array.shape.back();
  }
  const std::size_t data_at = 10 + header_length;
  if (bytes.size() - data_at != count * sizeof(double)) {
    return refuse(fmt::format("{} bytes of data, the shape needs {}", bytes.size() - data_at,
                              count * sizeof(double)));
  }
  array.data.resize(count);
  std::memcpy(array.data.data(), bytes.data() + data_at, count * sizeof(double));
  return array;
}

void read_run_arrays(const std::filesystem::path& run_dir, std::vector<LogTable>& logs,
                     std::vector<LoggedArray>& arrays) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(run_dir)) {
    if (entry.is_regular_file() && !entry.is_symlink()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& file : files) {
    const std::string relative = std::filesystem::relative(file, run_dir).generic_string();
    if (file.extension() == ".csv") logs.push_back(read_csv_log(file, relative));
    if (file.extension() == ".npy") arrays.push_back(read_npy(file, relative));
  }
}

}  // namespace talus::sweep
