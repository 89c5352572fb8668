#include "core/json_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

namespace talus {

void write_json(const std::filesystem::path& path, const nlohmann::json& value) {
  std::ofstream file(path);
  file << value.dump(2) << "\n";
  file.close();
  if (!file) throw std::runtime_error(fmt::format("{}: cannot write", path.string()));
}

}  // namespace talus
