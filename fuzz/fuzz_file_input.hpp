#pragma once
// The fuzz targets' loaders read files: each input is written to one scratch file per process
// (in /dev/shm when it exists, so that no disc is worn) and the loader reads it from there.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace talus::fuzz {

inline std::filesystem::path write_input(const std::uint8_t* data, std::size_t size,
                                         const std::string& extension) {
  const std::filesystem::path dir =
      std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  const std::filesystem::path file = dir / ("talus_fuzz_" + std::to_string(::getpid()) + extension);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return file;
}

}  // namespace talus::fuzz
