#pragma once
// summary.json and friends: a JSON value written with two-space indentation.

#include <filesystem>
#include <nlohmann/json.hpp>

namespace talus {

/// Writes `value` to `path` (replacing it). Throws std::runtime_error naming the path when the
/// file cannot be written.
void write_json(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace talus
