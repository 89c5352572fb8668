#pragma once
// Validated reading of TOML scenario files (toml++). Every value is read through a ScenarioTable,
// which knows the file and the dotted key path, so a bad value is reported as
//   scenarios/x.toml:12:17: heightmap.cell_size_m: expected a number > 0 [m], got -0.002
// and every key a section does not know is refused with the list of keys it does know.

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/pose.hpp"

namespace toml {
inline namespace v3 {
class table;
class node;
}  // namespace v3
}  // namespace toml

namespace talus {

/// A scenario file that cannot be run as written: message names file, line, key and expectation.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A range check for a number read from a scenario: returns an empty string when the value is
/// acceptable, otherwise the expectation ("a number > 0 [m]").
using NumberCheck = std::function<std::string(double)>;
NumberCheck positive(const std::string& unit);
NumberCheck non_negative(const std::string& unit);
NumberCheck in_open_range(double lo, double hi, const std::string& unit);
NumberCheck in_closed_range(double lo, double hi, const std::string& unit);
NumberCheck any_finite(const std::string& unit);

class ScenarioDocument;

/// One table of a scenario file (the root, a [section] or an inline table).
class ScenarioTable {
 public:
  ScenarioTable(std::shared_ptr<const ScenarioDocument> doc, const toml::table* table,
                std::string key_path);
  ~ScenarioTable();
  ScenarioTable(const ScenarioTable&);
  ScenarioTable& operator=(const ScenarioTable&) = delete;

  bool has(const std::string& key) const;
  double number(const std::string& key, const NumberCheck& check) const;
  double number_or(const std::string& key, double fallback, const NumberCheck& check) const;
  int integer(const std::string& key, long lo, long hi) const;
  int integer_or(const std::string& key, int fallback, long lo, long hi) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  std::string string(const std::string& key) const;
  std::string string_or(const std::string& key, const std::string& fallback) const;
  /// A string that must be one of `choices`.
  std::string choice(const std::string& key, const std::vector<std::string>& choices) const;
  std::string choice_or(const std::string& key, const std::string& fallback,
                        const std::vector<std::string>& choices) const;
  /// The entry of `entries` (a range of records with a `name` member, e.g. a dispatch table)
  /// that the string at `key` names; an unknown name is refused as choice() refuses it.
  template <class Entries>
  const auto& choice_entry(const std::string& key, const Entries& entries) const {
    std::vector<std::string> names;
    for (const auto& e : entries) names.emplace_back(e.name);
    const std::string picked = choice(key, names);
    for (const auto& e : entries) {
      if (picked == e.name) return e;
    }
    throw std::logic_error("choice() returned a name that is not in the table");
  }
  /// An array of exactly `n` numbers (n = 0: any length >= 1), each passing `check`.
  std::vector<double> numbers(const std::string& key, std::size_t n,
                              const NumberCheck& check) const;
  std::vector<std::string> strings(const std::string& key) const;
  Vec3 vec3(const std::string& key, const NumberCheck& check) const;
  Vec2 vec2(const std::string& key, const NumberCheck& check) const;
  /// An array of arrays of `n` numbers each ([[x, y, z], ...]).
  std::vector<std::vector<double>> number_rows(const std::string& key, std::size_t n,
                                               const NumberCheck& check) const;
  ScenarioTable table(const std::string& key) const;
  std::optional<ScenarioTable> optional_table(const std::string& key) const;
  /// [[key]] arrays of tables.
  std::vector<ScenarioTable> tables(const std::string& key) const;
  /// [[key]] arrays of tables that each have a `name` naming their output files: every name must
  /// be unique among them and a plain file name (letters, digits, '_', '-', '.', not starting
  /// with '.'), so that no two items write the same file and none writes outside its folder.
  std::vector<ScenarioTable> named_tables(const std::string& key) const;

  /// The keys this table holds, sorted (for tools that walk a whole file: the fuzzer).
  std::vector<std::string> keys() const;

  /// Refuses any key of this table that no getter asked for (call after reading the table).
  void refuse_unknown_keys() const;

  /// "file:line:col: key.path: message", pointing at `key` when present, else at this table.
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  /// A required `key` is missing (`expected`: what it takes). When a key of this table not read
  /// yet is one or two edits from it (a long key misspelt), points at that key and says so;
  /// else at this table: "missing key 'k': expected ...".
  [[noreturn]] void fail_missing(const std::string& key, const std::string& expected) const;
  /// "file:line:col: key.path", as fail() points at `key` (for warnings).
  std::string where(const std::string& key) const;
  const std::string& key_path() const { return key_path_; }
  const std::filesystem::path& file() const;

 private:
  const toml::node* find(const std::string& key) const;
  std::string full_key(const std::string& key) const;
  std::string location(const toml::node* node) const;

  std::shared_ptr<const ScenarioDocument> doc_;
  const toml::table* table_;
  std::string key_path_;
  mutable std::set<std::string> known_keys_;
};

/// A parsed scenario file; keeps the TOML tree alive for the tables that point into it.
class ScenarioDocument : public std::enable_shared_from_this<ScenarioDocument> {
 public:
  /// Parses `path`; a syntax error becomes a ScenarioError with file, line and column. `what`
  /// names the file in the errors of a path that is not a readable file ("scenario file",
  /// "sweep file").
  static std::shared_ptr<const ScenarioDocument> load(const std::filesystem::path& path,
                                                      const std::string& what = "scenario file");
  /// Parses TOML text; `name` stands for the file in messages.
  static std::shared_ptr<const ScenarioDocument> parse(const std::string& text,
                                                       const std::filesystem::path& name);
  ~ScenarioDocument();

  ScenarioTable root() const;
  const std::filesystem::path& path() const { return path_; }
  /// A copy whose [scenario] tier is `tier` (`talus run --tier`): a file whose physics several
  /// tiers share (a [terrain] file) runs on another tier without being edited. A file without a
  /// [scenario] table is copied as it is (its reader refuses it). Any other file whose
  /// [scenario] tier differs from `tier` is refused (ScenarioError at its tier line).
  std::shared_ptr<const ScenarioDocument> with_tier(const std::string& tier) const;
  /// A copy with the value at each dotted key path replaced (`talus sweep`). Each key path names
  /// tables by key and array items by index ("bodies.0.mass_kg"); missing tables on the way are
  /// made. A value keeps its own source (file, line), so that a reader refusing it points at the
  /// file the value came from. Throws ScenarioError (at the value's source) when a step of the
  /// path is not a table or array, or names an array item that does not exist.
  std::shared_ptr<const ScenarioDocument> with_values(
      const std::vector<std::pair<std::vector<std::string>, const toml::node*>>& values) const;
  /// The parsed TOML tree (for readers that walk keys they do not know in advance: a sweep's
  /// grid).
  const toml::table& toml_root() const { return *root_; }

 private:
  ScenarioDocument();
  std::shared_ptr<ScenarioDocument> editable_copy() const;
  void remember_sources(const toml::node& original, const toml::node& copy,
                        const ScenarioDocument* holder);
  void forget_sources(const toml::node& node);

  std::filesystem::path path_;
  std::unique_ptr<toml::table> root_;
  // Where the nodes of a copy (with_tier, with_values) came from: toml++ copies no source with a
  // node. Empty for a parsed document, whose nodes carry their own.
  struct ValueSource {
    std::string file;
    long line = 0;
    long column = 0;
  };
  std::map<const toml::node*, ValueSource> value_sources_;
  friend class ScenarioTable;
};

}  // namespace talus
