#pragma once
// CSV logs of simulation runs (time series of forces, heights, ...): a header line, then rows of
// numbers written so that reading them back gives the very same doubles.
//
// Format: fields separated by ',', lines ended by '\n'. Numbers are written in the shortest form
// that parses back to the identical double (std::to_chars), e.g. "0.1", "1e-300", "-0"; non-finite
// values as "nan", "inf", "-inf" (read by Python's float(), numpy and pandas). A text field is
// quoted as RFC 4180 says: enclosed in double quotes when it contains a comma, a double quote, a
// CR or an LF, or starts or ends with a space, with each double quote doubled.

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace talus {

/// A cell of a mixed row: a number or a text.
using CsvCell = std::variant<double, std::string>;

/// The shortest decimal text that reads back as exactly `value` ("nan", "inf", "-inf" if not
/// finite).
std::string format_csv_number(double value);

/// A text field as RFC 4180 wants it: unchanged when safe, otherwise quoted with quotes doubled.
std::string quote_csv_field(std::string_view text);

class CsvWriter {
 public:
  /// Creates (or truncates) the file and writes the header line. Throws std::runtime_error naming
  /// the path and the OS reason when the file cannot be opened or written, or when the header
  /// is empty.
  CsvWriter(std::filesystem::path path, std::vector<std::string> header);
  ~CsvWriter();  ///< closes the file; errors at this point are lost: call close() to see them
  CsvWriter(CsvWriter&&) noexcept;
  CsvWriter& operator=(CsvWriter&&) noexcept;
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  /// Writes one row of numbers. Throws std::runtime_error naming the path, the row number and
  /// both counts when the row does not have one value per header column, or when the file is
  /// closed or cannot be written.
  void write_row(std::span<const double> values);
  void write_row(std::initializer_list<double> values) {
    write_row(std::span<const double>(values.begin(), values.size()));
  }
  /// Writes one row of numbers and texts (texts quoted as needed); same errors as above.
  void write_row(const std::vector<CsvCell>& cells);

  /// Pushes buffered rows to the operating system. Throws naming the path on failure.
  void flush();
  /// Flushes and closes the file; later writes throw. Throws naming the path on failure.
  void close();

  const std::filesystem::path& path() const { return path_; }
  std::size_t column_count() const { return columns_; }
  std::size_t rows_written() const { return rows_; }  ///< data rows, header not counted

 private:
  struct FileCloser {
    void operator()(std::FILE* file) const;
  };
  void check_row(std::size_t cells);
  void put(std::string_view text);

  std::filesystem::path path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::size_t columns_ = 0;
  std::size_t rows_ = 0;
  std::string line_;  // the line being assembled
};

}  // namespace talus
