// Import of force/torque-sensor measurements from CSV into a WrenchDatabase.

// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "wrench/wrench_database.hpp"

namespace talus::wrench {

namespace {

const std::vector<std::string> kPlanarHeader = {"depth_m", "tilt_rad", "v_x", "v_z",
                                                "omega_y", "f_x",      "f_z", "tau_y"};
const std::vector<std::string> kSpatialHeader = {"depth_m", "tilt_rad", "v_x",     "v_y",  "v_z",
                                                 "omega_x", "omega_y",  "omega_z", "f_x",  "f_y",
                                                 "f_z",     "tau_x",    "tau_y",   "tau_z"};

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const auto end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, ',')) fields.push_back(trim(field));
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

}  // namespace

WrenchDatabase import_csv(const std::filesystem::path& path, const MediumDescription& medium,
                          const Eigen::VectorXd& velocity_scale,
                          const Eigen::Vector3d& reference_point_m) {
  const std::string file = path.string();
  std::ifstream in(path);
  if (!in) throw DatabaseError(fmt::format("{}: cannot open", file));

  struct Row {
    int line;
    Eigen::Vector2d theta;
    Eigen::VectorXd direction;
    Eigen::VectorXd wrench;
  };
  std::vector<Row> rows;
  std::vector<std::string> header;
  int D = 0;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    const std::string trimmed = trim(text);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    const std::vector<std::string> fields = split(trimmed);
    if (header.empty()) {
      header = fields;
      if (header == kPlanarHeader) {
        D = 3;
      } else if (header == kSpatialHeader) {
        D = 6;
      } else {
        throw DatabaseError(fmt::format("{}:{}: header must be\n  {}\nor\n  {}\ngot\n  {}", file,
                                        line, join(kPlanarHeader), join(kSpatialHeader),
                                        join(header)));
      }
      continue;
    }
    if (fields.size() != header.size()) {
      throw DatabaseError(fmt::format("{}:{}: {} fields, the header has {}", file, line,
                                      fields.size(), header.size()));
    }
    std::vector<double> values;
    for (size_t k = 0; k < fields.size(); ++k) {
      char* end = nullptr;
      const double v = std::strtod(fields[k].c_str(), &end);
      if (fields[k].empty() || end == fields[k].c_str() || *end != '\0' || !std::isfinite(v)) {
        throw DatabaseError(fmt::format("{}:{}: {}: expected a finite number, got '{}'", file, line,
                                        header[k], fields[k]));
      }
      values.push_back(v);
    }
    Row row{line, Eigen::Vector2d(values[0], values[1]),
            Eigen::Map<const Eigen::VectorXd>(values.data() + 2, D),
            Eigen::Map<const Eigen::VectorXd>(values.data() + 2 + D, D)};
    if (row.theta[0] > 0.0) {
      throw DatabaseError(
          fmt::format("{}:{}: depth_m: {} > 0; depths are <= 0", file, line, row.theta[0]));
    }
    const double norm = row.direction.norm();
    if (std::abs(norm - 1.0) > 1e-3) {
      throw DatabaseError(
          fmt::format("{}:{}: the velocity columns have norm {:.6g}; expected a unit direction",
                      file, line, norm));
    }
    row.direction /= norm;
    rows.push_back(std::move(row));
  }
  if (header.empty()) throw DatabaseError(fmt::format("{}: empty file (no header)", file));
  if (rows.empty()) throw DatabaseError(fmt::format("{}: no measurements after the header", file));

  // Group by configuration (first-appearance order); directions from the first configuration.
  WrenchDatabase db;
  std::vector<Eigen::Vector2d> configurations;
  std::vector<std::vector<const Row*>> groups;
  for (const Row& row : rows) {
    size_t g = 0;
    while (g < configurations.size() && (configurations[g] - row.theta).norm() > 1e-12) ++g;
    if (g == configurations.size()) {
      configurations.push_back(row.theta);
      groups.emplace_back();
    }
    groups[g].push_back(&row);
  }
  const auto& first = groups.front();
  const auto m = static_cast<Eigen::Index>(first.size());
  db.velocity_directions.resize(m, D);
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index k = 0; k < i; ++k) {
      if ((db.velocity_directions.row(k).transpose() - first[static_cast<size_t>(i)]->direction)
              .norm() < 1e-6) {
        throw DatabaseError(
            fmt::format("{}:{}: direction repeats line {} for the same configuration", file,
                        first[static_cast<size_t>(i)]->line, first[static_cast<size_t>(k)]->line));
      }
    }
    db.velocity_directions.row(i) = first[static_cast<size_t>(i)]->direction.transpose();
  }
  db.configurations.resize(static_cast<Eigen::Index>(configurations.size()), 2);
  for (size_t g = 0; g < groups.size(); ++g) {
    db.configurations.row(static_cast<Eigen::Index>(g)) = configurations[g].transpose();
    Eigen::MatrixXd w(m, D);
    std::vector<int> seen(static_cast<size_t>(m), 0);
    for (const Row* row : groups[g]) {
      Eigen::Index i = 0;
      while (i < m && (db.velocity_directions.row(i).transpose() - row->direction).norm() > 1e-6)
        ++i;
      if (i == m) {
        throw DatabaseError(fmt::format(
            "{}:{}: direction not measured at the first configuration (d = {}, phi = {})", file,
            row->line, configurations[0][0], configurations[0][1]));
      }
      if (seen[static_cast<size_t>(i)]) {
        throw DatabaseError(
            fmt::format("{}:{}: direction repeats line {} for the same configuration", file,
                        row->line, seen[static_cast<size_t>(i)]));
      }
      seen[static_cast<size_t>(i)] = row->line;
      w.row(i) = row->wrench.transpose();
    }
    for (Eigen::Index i = 0; i < m; ++i) {
      if (!seen[static_cast<size_t>(i)]) {
        throw DatabaseError(fmt::format(
            "{}: configuration (d = {}, phi = {}) first seen at line {} lacks direction {} of line "
            "{}",
            file, configurations[g][0], configurations[g][1], groups[g].front()->line, i,
            first[static_cast<size_t>(i)]->line));
      }
    }
    db.wrenches.push_back(std::move(w));
  }
  db.velocity_scale = velocity_scale;
  db.reference_point_m = reference_point_m;
  db.medium = medium;
  db.validate(file);
  return db;
}

}  // namespace talus::wrench
