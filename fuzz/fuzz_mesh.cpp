// libFuzzer target: the triangle-mesh loader (core/mesh, through assimp). The first byte picks
// the file extension the loader sees (STL, OBJ, PLY, OFF); the rest is the file. Expected
// failures are std::runtime_error / std::invalid_argument naming the file.

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "core/mesh.hpp"
#include "fuzz_file_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static const char* const kExtensions[] = {".stl", ".obj", ".ply", ".off"};
  const auto file = talus::fuzz::write_input(data + 1, size - 1, kExtensions[data[0] % 4]);
  try {
    const talus::TriangleMesh mesh = talus::load_mesh(file);
    (void)mesh;
  } catch (const std::runtime_error&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
