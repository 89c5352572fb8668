#pragma once
namespace talus {
/// The library's version, "MAJOR.MINOR.PATCH", as set in CMakeLists.txt.
const char* version();
}  // namespace talus
