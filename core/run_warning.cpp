#include "core/run_warning.hpp"

#include <iostream>

namespace talus {

void add_run_warning(nlohmann::json& summary, const std::string& warning) {
  std::cerr << "warning: " << warning << "\n";
  summary["warnings"].push_back(warning);
}

}  // namespace talus
