// libFuzzer target: the wrench-space database loader (wrench/wrench_database, HDF5). Expected
// failures are DatabaseError (a std::runtime_error) naming the file and the field.

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "fuzz_file_input.hpp"
#include "wrench/wrench_database.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = talus::fuzz::write_input(data, size, ".h5");
  try {
    const talus::wrench::WrenchDatabase db = talus::wrench::load_database(file);
    (void)db;
  } catch (const std::runtime_error&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
