#include "core/csv_writer.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace talus {

std::string format_csv_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string quote_csv_field(std::string_view text) {
  const bool needs_quotes = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                            (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!needs_quotes) return std::string(text);
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('"');
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

void CsvWriter::FileCloser::operator()(std::FILE* file) const {
  if (file != nullptr) std::fclose(file);
}

CsvWriter::CsvWriter(std::filesystem::path path, std::vector<std::string> header)
    : path_(std::move(path)), columns_(header.size()) {
  if (header.empty()) {
    throw std::runtime_error(
        fmt::format("CsvWriter '{}': the header has no columns", path_.string()));
  }
  file_.reset(std::fopen(path_.c_str(), "wb"));
  if (!file_) {
    const int err = errno;
    throw std::runtime_error(fmt::format("CsvWriter: cannot open '{}' for writing: {}",
                                         path_.string(), std::strerror(err)));
  }
  line_.clear();
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (c > 0) line_.push_back(',');
    line_ += quote_csv_field(header[c]);
  }
  line_.push_back('\n');
  put(line_);
}

CsvWriter::~CsvWriter() = default;
CsvWriter::CsvWriter(CsvWriter&&) noexcept = default;
CsvWriter& CsvWriter::operator=(CsvWriter&&) noexcept = default;

void CsvWriter::check_row(std::size_t cells) {
  if (!file_) {
    throw std::runtime_error(fmt::format("CsvWriter '{}': write after close", path_.string()));
  }
  if (cells != columns_) {
    throw std::runtime_error(
        fmt::format("CsvWriter '{}': data row {} has {} values, the header has {}", path_.string(),
                    rows_ + 1, cells, columns_));
  }
}

void CsvWriter::put(std::string_view text) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), file_.get()) != text.size()) {
    const int err = errno;
    throw std::runtime_error(fmt::format("CsvWriter: cannot write '{}': {}", path_.string(),
                                         err != 0 ? std::strerror(err) : "write error"));
  }
}

void CsvWriter::write_row(std::span<const double> values) {
  check_row(values.size());
  line_.clear();
  for (std::size_t c = 0; c < values.size(); ++c) {
    if (c > 0) line_.push_back(',');
    line_ += format_csv_number(values[c]);
  }
  line_.push_back('\n');
  put(line_);
  ++rows_;
}

void CsvWriter::write_row(const std::vector<CsvCell>& cells) {
  check_row(cells.size());
  line_.clear();
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (c > 0) line_.push_back(',');
    if (const double* number = std::get_if<double>(&cells[c])) {
      line_ += format_csv_number(*number);
    } else {
      line_ += quote_csv_field(std::get<std::string>(cells[c]));
    }
  }
  line_.push_back('\n');
  put(line_);
  ++rows_;
}

void CsvWriter::flush() {
  if (!file_) return;
  if (std::fflush(file_.get()) != 0) {
    const int err = errno;
    throw std::runtime_error(
        fmt::format("CsvWriter: cannot write '{}': {}", path_.string(), std::strerror(err)));
  }
}

void CsvWriter::close() {
  if (!file_) return;
  std::FILE* file = file_.release();
  if (std::fclose(file) != 0) {
    const int err = errno;
    throw std::runtime_error(
        fmt::format("CsvWriter: cannot close '{}': {}", path_.string(), std::strerror(err)));
  }
}

}  // namespace talus
