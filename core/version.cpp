#include "core/version.hpp"

namespace talus {
const char* version() { return TALUS_VERSION; }
}  // namespace talus
