#pragma once
// Test helper: the message of the std::invalid_argument a callable throws ("" if none).

#include <stdexcept>
#include <string>

namespace talus::test_support {

template <class F>
std::string invalid_argument_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace talus::test_support
