// libFuzzer target: the particle state loader (particles/particle_io, the .tps format). Expected
// failures are std::runtime_error naming the file and what is wrong.

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "fuzz_file_input.hpp"
#include "particles/particle_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = talus::fuzz::write_input(data, size, ".tps");
  try {
    const talus::particles::ParticleState state = talus::particles::load_particle_state(file);
    (void)state;
  } catch (const std::runtime_error&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
