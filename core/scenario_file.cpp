#include "core/scenario_file.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace talus {

namespace {

std::string format_number(double v) { return fmt::format("{:g}", v); }

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return fmt::format("the string \"{}\"", *node.value<std::string>());
    case toml::node_type::integer:
      return fmt::format("the integer {}", *node.value<std::int64_t>());
    case toml::node_type::floating_point: {
      // 8.0, not 8: where an integer is expected, "got the number 8" read as if 8 were wrong.
      const double v = *node.value<double>();
      return std::abs(v) < 1e15 && v == std::floor(v)
                 ? fmt::format("the number {:.1f}", v)
                 : fmt::format("the number {}", format_number(v));
    }
    case toml::node_type::boolean:
      return *node.value<bool>() ? "true" : "false";
    default:
      return "a date or time";
  }
}

}  // namespace

namespace {
// "a number > 0 [m]", or "a number > 0" for a unitless key (no stray space before the comma).
std::string with_unit(std::string expectation, const std::string& unit) {
  if (!unit.empty()) expectation += " " + unit;
  return expectation;
}
}  // namespace

NumberCheck positive(const std::string& unit) {
  return [unit](double v) { return v > 0 ? std::string() : with_unit("a number > 0", unit); };
}
NumberCheck non_negative(const std::string& unit) {
  return [unit](double v) { return v >= 0 ? std::string() : with_unit("a number >= 0", unit); };
}
NumberCheck in_open_range(double lo, double hi, const std::string& unit) {
  return [=](double v) {
    return (v > lo && v < hi) ? std::string()
                              : with_unit(fmt::format("a number in ({}, {})", format_number(lo),
                                                      format_number(hi)),
                                          unit);
  };
}
NumberCheck in_closed_range(double lo, double hi, const std::string& unit) {
  return [=](double v) {
    return (v >= lo && v <= hi) ? std::string()
                                : with_unit(fmt::format("a number in [{}, {}]", format_number(lo),
                                                        format_number(hi)),
                                            unit);
  };
}
NumberCheck any_finite(const std::string& unit) {
  // Values reaching a check are finite already; NaN is how callers ask for the expected form.
  return [unit](double v) {
    return std::isfinite(v) ? std::string() : with_unit("a finite number", unit);
  };
}

// ---------------------------------------------------------------------------------------------
ScenarioDocument::ScenarioDocument() = default;
ScenarioDocument::~ScenarioDocument() = default;

std::shared_ptr<const ScenarioDocument> ScenarioDocument::load(const std::filesystem::path& path,
                                                               const std::string& what) {
  // A folder, a device (/dev/zero never ends) or a pipe is refused before it is read; a regular
  // file larger than any scenario is refused by its size.
  constexpr std::uintmax_t kMaxBytes = 16u << 20;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) {
    throw ScenarioError(fmt::format("{}: is a folder; expected a {} (.toml)", path.string(), what));
  }
  if (!std::filesystem::exists(status)) {
    throw ScenarioError(
        fmt::format("{}: no such file (expected a {}, .toml)", path.string(), what));
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw ScenarioError(
        fmt::format("{}: is not a regular file (a device, pipe or socket); expected a {} (.toml)",
                    path.string(), what));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // Exists and is a file: a permission (or I/O) error; the system's reason says which.
    throw ScenarioError(
        fmt::format("{}: cannot open the {}: {}", path.string(), what, std::strerror(errno)));
  }
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (!ec && bytes > kMaxBytes) {
    throw ScenarioError(fmt::format(
        "{}: {} bytes; a scenario file is a TOML text of at most {} MiB (large data such as "
        "meshes, particle states and databases go in files the scenario names)",
        path.string(), bytes, kMaxBytes >> 20));
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

std::shared_ptr<const ScenarioDocument> ScenarioDocument::parse(const std::string& text,
                                                                const std::filesystem::path& name) {
  std::shared_ptr<ScenarioDocument> doc(new ScenarioDocument());
  doc->path_ = name;
  try {
    doc->root_ = std::make_unique<toml::table>(toml::parse(text, name.string()));
  } catch (const toml::parse_error& e) {
    throw ScenarioError(fmt::format("{}:{}:{}: TOML syntax error: {}", name.string(),
                                    e.source().begin.line, e.source().begin.column,
                                    e.description()));
  }
  return doc;
}

std::shared_ptr<const ScenarioDocument> ScenarioDocument::with_tier(const std::string& tier) const {
  // Only a [terrain] file describes physics several tiers share; any other file's keys belong to
  // its own tier, and read as another's they would only be refused one by one as unknown keys.
  const ScenarioTable head_table = root();
  if (!head_table.has("terrain") && head_table.has("scenario")) {
    const ScenarioTable head = head_table.table("scenario");
    if (head.has("tier")) {
      const std::string own = head.string("tier");
      if (own != tier) {
        head.fail("tier", fmt::format("this is a '{}' scenario and runs on that tier only; the "
                                      "tier '{}' can be chosen for a [terrain] file (one that "
                                      "shaping, scm and particles share)",
                                      own, tier));
      }
    }
  }
  std::shared_ptr<ScenarioDocument> doc = editable_copy();
  if (toml::table* head = doc->root_->get_as<toml::table>("scenario")) {
    head->insert_or_assign("tier", tier);
  }
  return doc;
}

namespace {

std::string source_of(const toml::node& value) {
  const toml::source_region& src = value.source();
  return fmt::format("{}:{}:{}", src.path ? *src.path : std::string("?"), src.begin.line,
                     src.begin.column);
}

// The index `key` names in `array`; `dotted` and `value` (the value being put in) for errors.
std::size_t array_index(const toml::array& array, const std::string& key, const std::string& dotted,
                        const toml::node& value) {
  std::size_t index = 0;
  const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), index);
  if (error != std::errc() || end != key.data() + key.size() || index >= array.size()) {
    throw ScenarioError(fmt::format(
        "{}: {}: '{}' is not an item of the scenario's array of {} (expected an index 0..{})",
        source_of(value), dotted, key, array.size(), array.empty() ? 0 : array.size() - 1));
  }
  return index;
}

[[noreturn]] void not_a_table(const toml::node& value, const std::string& dotted,
                              const std::string& key) {
  throw ScenarioError(fmt::format("{}: {}: the scenario has a value, not a table, before '{}'",
                                  source_of(value), dotted, key));
}

// The node at `key` of `parent` (a table or an array) on the way to a swept value; a table
// without it gets an empty table (`created`).
toml::node* child_node(toml::node& parent, const std::string& key, const std::string& dotted,
                       const toml::node& value, bool& created) {
  created = false;
  if (toml::table* table = parent.as_table()) {
    if (toml::node* found = table->get(key)) return found;
    created = true;
    return &table->insert_or_assign(key, toml::table{}).first->second;
  }
  if (toml::array* array = parent.as_array()) {
    return array->get(array_index(*array, key, dotted, value));
  }
  not_a_table(value, dotted, key);
}

}  // namespace

// toml++ does not copy a node's source region with the node; the copy's sources are kept beside
// the tree, walking the original and the copy together. An original that is itself a copy has its
// source in `holder`'s map.
void ScenarioDocument::remember_sources(const toml::node& original, const toml::node& copy,
                                        const ScenarioDocument* holder) {
  const auto known = holder ? holder->value_sources_.find(&original) : value_sources_.end();
  if (holder && known != holder->value_sources_.end()) {
    value_sources_[&copy] = known->second;
  } else if (const toml::source_region& src = original.source(); src.begin.line > 0) {
    value_sources_[&copy] = {src.path ? *src.path : path_.string(), src.begin.line,
                             src.begin.column};
  }
  if (const toml::table* fields = original.as_table()) {
    const toml::table& to = *copy.as_table();
    for (const auto& [key, child] : *fields) {
      if (const toml::node* copied = to.get(key.str())) remember_sources(child, *copied, holder);
    }
  } else if (const toml::array* items = original.as_array()) {
    const toml::array& to = *copy.as_array();
    for (std::size_t i = 0; i < items->size() && i < to.size(); ++i) {
      remember_sources(*items->get(i), *to.get(i), holder);
    }
  }
}

// Drops the sources of a subtree about to be replaced (a later node at a freed address must not
// inherit them).
void ScenarioDocument::forget_sources(const toml::node& node) {
  value_sources_.erase(&node);
  if (const toml::table* fields = node.as_table()) {
    for (const auto& [key, child] : *fields) forget_sources(child);
  } else if (const toml::array* items = node.as_array()) {
    for (const toml::node& item : *items) forget_sources(item);
  }
}

// A copy to edit that keeps every line number: each node's source is remembered beside the tree.
std::shared_ptr<ScenarioDocument> ScenarioDocument::editable_copy() const {
  std::shared_ptr<ScenarioDocument> doc(new ScenarioDocument());
  doc->path_ = path_;
  doc->root_ = std::make_unique<toml::table>(*root_);
  doc->remember_sources(*root_, *doc->root_, this);
  return doc;
}

std::shared_ptr<const ScenarioDocument> ScenarioDocument::with_values(
    const std::vector<std::pair<std::vector<std::string>, const toml::node*>>& values) const {
  std::shared_ptr<ScenarioDocument> doc = editable_copy();
  for (const auto& [path, value] : values) {
    if (path.empty() || value == nullptr) throw std::logic_error("with_values: empty key path");
    std::string dotted;
    for (const std::string& k : path) dotted += (dotted.empty() ? "" : ".") + k;
    toml::node* parent = doc->root_.get();
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      bool created = false;
      parent = child_node(*parent, path[i], dotted, *value, created);
      // A table made for the value is located where the value is: a reader refusing the table
      // (a misspelt section) then names the sweep file's line, not the base scenario.
      if (created) doc->remember_sources(*value, *parent, nullptr);
    }
    const toml::node* put = nullptr;
    if (toml::table* table = parent->as_table()) {
      if (const toml::node* old = table->get(path.back())) doc->forget_sources(*old);
      put = &table->insert_or_assign(path.back(), *value).first->second;
    } else if (toml::array* array = parent->as_array()) {
      const std::size_t index = array_index(*array, path.back(), dotted, *value);
      doc->forget_sources(*array->get(index));
      put = &*array->replace(array->cbegin() + static_cast<std::ptrdiff_t>(index), *value);
    } else {
      not_a_table(*value, dotted, path.back());
    }
    doc->remember_sources(*value, *put, nullptr);
  }
  return doc;
}

ScenarioTable ScenarioDocument::root() const {
  return ScenarioTable(shared_from_this(), root_.get(), "");
}

// ---------------------------------------------------------------------------------------------
ScenarioTable::ScenarioTable(std::shared_ptr<const ScenarioDocument> doc, const toml::table* table,
                             std::string key_path)
    : doc_(std::move(doc)), table_(table), key_path_(std::move(key_path)) {}
ScenarioTable::~ScenarioTable() = default;
ScenarioTable::ScenarioTable(const ScenarioTable& other)
    : doc_(other.doc_),
      table_(other.table_),
      key_path_(other.key_path_),
      known_keys_(other.known_keys_) {}

const std::filesystem::path& ScenarioTable::file() const { return doc_->path(); }

std::string ScenarioTable::full_key(const std::string& key) const {
  if (key.empty()) return key_path_.empty() ? "(top level)" : key_path_;
  return key_path_.empty() ? key : key_path_ + "." + key;
}

std::string ScenarioTable::location(const toml::node* node) const {
  const toml::node* at = node ? node : table_;
  // A value put in by with_values() names the file it came from (a sweep file), not this one.
  const auto put = doc_->value_sources_.find(at);
  if (put != doc_->value_sources_.end() && put->second.line > 0) {
    return fmt::format("{}:{}:{}", put->second.file, put->second.line, put->second.column);
  }
  const toml::source_region& src = at->source();
  if (src.begin.line == 0) return doc_->path().string();
  return fmt::format("{}:{}:{}", doc_->path().string(), src.begin.line, src.begin.column);
}

void ScenarioTable::fail(const std::string& key, const std::string& message) const {
  throw ScenarioError(fmt::format("{}: {}", where(key), message));
}

namespace {

// Levenshtein distance of two short key names (a dozen operations per character; no library for
// one loop).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

void ScenarioTable::fail_missing(const std::string& key, const std::string& expected) const {
  // Short keys (x_m, lo_m) lie a letter or two from their siblings: no guess for them.
  constexpr std::size_t kShortestGuessed = 6;
  if (key.size() >= kShortestGuessed) {
    for (const auto& [name, node] : *table_) {
      const std::string other(name.str());
      if (other != key && known_keys_.count(other) == 0 && edit_distance(other, key) <= 2) {
        fail(other, fmt::format("not a key here, and '{}' ({}) is missing: is this it, misspelt?",
                                key, expected));
      }
    }
  }
  fail("", fmt::format("missing key '{}': expected {}", key, expected));
}

std::string ScenarioTable::where(const std::string& key) const {
  const toml::node* node = key.empty() ? nullptr : table_->get(key);
  return fmt::format("{}: {}", location(node), full_key(key));
}

const toml::node* ScenarioTable::find(const std::string& key) const {
  known_keys_.insert(key);
  return table_->get(key);
}

bool ScenarioTable::has(const std::string& key) const { return find(key) != nullptr; }

std::vector<std::string> ScenarioTable::keys() const {
  std::vector<std::string> names;
  for (const auto& [key, node] : *table_) names.emplace_back(key.str());
  return names;
}

namespace {

// Reads a number node (integer or float) or explains what it is instead.
std::optional<double> as_number(const toml::node& node) {
  if (node.is_integer()) return static_cast<double>(*node.value<std::int64_t>());
  if (node.is_floating_point()) return *node.value<double>();
  return std::nullopt;
}

}  // namespace

double ScenarioTable::number(const std::string& key, const NumberCheck& check) const {
  const toml::node* node = find(key);
  if (!node) fail_missing(key, check(std::nan("")));
  const std::optional<double> v = as_number(*node);
  const std::string expectation = check(std::nan(""));
  if (!v) fail(key, fmt::format("expected {}, got {}", expectation, type_name(*node)));
  if (!std::isfinite(*v)) fail(key, fmt::format("expected a finite number, got {}", *v));
  const std::string problem = check(*v);
  if (!problem.empty()) fail(key, fmt::format("expected {}, got {}", problem, format_number(*v)));
  return *v;
}

double ScenarioTable::number_or(const std::string& key, double fallback,
                                const NumberCheck& check) const {
  return find(key) ? number(key, check) : fallback;
}

int ScenarioTable::integer(const std::string& key, long lo, long hi) const {
  const toml::node* node = find(key);
  const std::string expected = fmt::format("an integer in [{}, {}]", lo, hi);
  if (!node) fail_missing(key, expected);
  if (!node->is_integer())
    fail(key, fmt::format("expected {}, got {}", expected, type_name(*node)));
  const std::int64_t v = *node->value<std::int64_t>();
  if (v < lo || v > hi) fail(key, fmt::format("expected {}, got {}", expected, v));
  return static_cast<int>(v);
}

int ScenarioTable::integer_or(const std::string& key, int fallback, long lo, long hi) const {
  return find(key) ? integer(key, lo, hi) : fallback;
}

bool ScenarioTable::boolean_or(const std::string& key, bool fallback) const {
  const toml::node* node = find(key);
  if (!node) return fallback;
  if (!node->is_boolean())
    fail(key, fmt::format("expected true or false, got {}", type_name(*node)));
  return *node->value<bool>();
}

std::string ScenarioTable::string(const std::string& key) const {
  const toml::node* node = find(key);
  if (!node) fail_missing(key, "a string");
  if (!node->is_string()) fail(key, fmt::format("expected a string, got {}", type_name(*node)));
  return *node->value<std::string>();
}

std::string ScenarioTable::string_or(const std::string& key, const std::string& fallback) const {
  return find(key) ? string(key) : fallback;
}

std::string ScenarioTable::choice(const std::string& key,
                                  const std::vector<std::string>& choices) const {
  const std::string v = string(key);
  for (const auto& c : choices) {
    if (v == c) return v;
  }
  fail(key, fmt::format("expected one of \"{}\", got \"{}\"", fmt::join(choices, "\", \""), v));
}

std::string ScenarioTable::choice_or(const std::string& key, const std::string& fallback,
                                     const std::vector<std::string>& choices) const {
  return find(key) ? choice(key, choices) : fallback;
}

std::vector<double> ScenarioTable::numbers(const std::string& key, std::size_t n,
                                           const NumberCheck& check) const {
  const toml::node* node = find(key);
  const std::string what =
      n ? fmt::format("an array of {} numbers", n) : std::string("an array of numbers");
  if (!node) fail_missing(key, what);
  const toml::array* arr = node->as_array();
  if (!arr) fail(key, fmt::format("expected {}, got {}", what, type_name(*node)));
  if ((n && arr->size() != n) || arr->empty()) {
    fail(key, fmt::format("expected {}, got {} element(s)", what, arr->size()));
  }
  std::vector<double> out;
  for (std::size_t k = 0; k < arr->size(); ++k) {
    const std::optional<double> v = as_number(*arr->get(k));
    if (!v || !std::isfinite(*v)) {
      fail(key,
           fmt::format("element {}: expected a finite number, got {}", k, type_name(*arr->get(k))));
    }
    const std::string problem = check(*v);
    if (!problem.empty()) {
      fail(key, fmt::format("element {}: expected {}, got {}", k, problem, format_number(*v)));
    }
    out.push_back(*v);
  }
  return out;
}

std::vector<std::string> ScenarioTable::strings(const std::string& key) const {
  const toml::node* node = find(key);
  if (!node) fail_missing(key, "an array of strings");
  const toml::array* arr = node->as_array();
  if (!arr || arr->empty()) {
    fail(key, fmt::format("expected a non-empty array of strings, got {}", type_name(*node)));
  }
  std::vector<std::string> out;
  for (std::size_t k = 0; k < arr->size(); ++k) {
    const toml::node* e = arr->get(k);
    if (!e->is_string()) {
      fail(key, fmt::format("element {}: expected a string, got {}", k, type_name(*e)));
    }
    out.push_back(*e->value<std::string>());
  }
  return out;
}

Vec3 ScenarioTable::vec3(const std::string& key, const NumberCheck& check) const {
  const std::vector<double> v = numbers(key, 3, check);
  return Vec3(v[0], v[1], v[2]);
}

Vec2 ScenarioTable::vec2(const std::string& key, const NumberCheck& check) const {
  const std::vector<double> v = numbers(key, 2, check);
  return Vec2(v[0], v[1]);
}

std::vector<std::vector<double>> ScenarioTable::number_rows(const std::string& key, std::size_t n,
                                                            const NumberCheck& check) const {
  const toml::node* node = find(key);
  const std::string what = fmt::format("an array of [{} numbers] arrays", n);
  if (!node) fail_missing(key, what);
  const toml::array* arr = node->as_array();
  if (!arr || arr->empty()) fail(key, fmt::format("expected {}, got {}", what, type_name(*node)));
  std::vector<std::vector<double>> rows;
  for (std::size_t r = 0; r < arr->size(); ++r) {
    const toml::array* row = arr->get(r)->as_array();
    if (!row || row->size() != n) {
      fail(key, fmt::format("element {}: expected an array of {} numbers", r, n));
    }
    std::vector<double> values;
    for (std::size_t k = 0; k < n; ++k) {
      const std::optional<double> v = as_number(*row->get(k));
      if (!v || !std::isfinite(*v)) {
        fail(key, fmt::format("element {}[{}]: expected a finite number, got {}", r, k,
                              type_name(*row->get(k))));
      }
      const std::string problem = check(*v);
      if (!problem.empty()) {
        fail(key,
             fmt::format("element {}[{}]: expected {}, got {}", r, k, problem, format_number(*v)));
      }
      values.push_back(*v);
    }
    rows.push_back(std::move(values));
  }
  return rows;
}

ScenarioTable ScenarioTable::table(const std::string& key) const {
  const toml::node* node = find(key);
  if (!node) fail("", fmt::format("missing table [{}]", full_key(key)));
  const toml::table* t = node->as_table();
  if (!t) fail(key, fmt::format("expected a table, got {}", type_name(*node)));
  return ScenarioTable(doc_, t, full_key(key));
}

std::optional<ScenarioTable> ScenarioTable::optional_table(const std::string& key) const {
  if (!find(key)) return std::nullopt;
  return table(key);
}

std::vector<ScenarioTable> ScenarioTable::named_tables(const std::string& key) const {
  std::vector<ScenarioTable> items = tables(key);
  std::map<std::string, std::size_t> first_index;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::string name = items[k].string("name");
    const bool plain = !name.empty() && name.front() != '.' && name.size() <= 100 &&
                       std::all_of(name.begin(), name.end(), [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ||
                                c == '-' || c == '.';
                       });
    if (!plain) {
      items[k].fail("name", fmt::format("expected a plain file name (letters, digits, '_', '-', "
                                        "'.'; not starting with '.'), got '{}'",
                                        name));
    }
    const auto [it, inserted] = first_index.emplace(name, k);
    if (!inserted) {
      items[k].fail("name", fmt::format("'{}' is already the name of {}[{}]; each [[{}]] writes "
                                        "files named after it, so names must be unique",
                                        name, full_key(key), it->second, key));
    }
  }
  return items;
}

std::vector<ScenarioTable> ScenarioTable::tables(const std::string& key) const {
  const toml::node* node = find(key);
  std::vector<ScenarioTable> out;
  if (!node) return out;
  const toml::array* arr = node->as_array();
  if (!arr)
    fail(key, fmt::format("expected an array of tables [[{}]], got {}", key, type_name(*node)));
  for (std::size_t k = 0; k < arr->size(); ++k) {
    const toml::table* t = arr->get(k)->as_table();
    if (!t) fail(key, fmt::format("element {}: expected a table", k));
    out.emplace_back(doc_, t, fmt::format("{}[{}]", full_key(key), k));
  }
  return out;
}

void ScenarioTable::refuse_unknown_keys() const {
  for (auto&& [k, v] : *table_) {
    const std::string name(k.str());
    if (!known_keys_.count(name)) {
      std::vector<std::string> known(known_keys_.begin(), known_keys_.end());
      throw ScenarioError(fmt::format("{}: {}: unknown key; expected one of: {}", location(&v),
                                      full_key(name), fmt::join(known, ", ")));
    }
  }
}

}  // namespace talus
