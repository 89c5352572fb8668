#include "core/npy.hpp"

#include <fmt/format.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <stdexcept>

namespace talus {

void write_npy(const std::filesystem::path& path, const std::vector<double>& data,
               const std::vector<std::size_t>& shape) {
  static_assert(std::endian::native == std::endian::little,
                "the .npy writer assumes little-endian");
  const std::size_t count =
      std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
  if (count != data.size()) {
    throw std::invalid_argument(fmt::format("write_npy({}): shape holds {} values, data {}",
                                            path.string(), count, data.size()));
  }
  std::string dims;
  for (const std::size_t d : shape) dims += fmt::format("{}, ", d);
  if (shape.size() > 1) dims.resize(dims.size() - 1);  // "(3, 4)" but "(3,)"
  std::string header =
      fmt::format("{{'descr': '<f8', 'fortran_order': False, 'shape': ({}), }}", dims);
  // Magic (6) + version (2) + header length (2) + header, padded with spaces and ending in a
  // newline so that the data starts at a multiple of 64 bytes.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');

  std::ofstream out(path, std::ios::binary);
  if (!out) {
    throw std::runtime_error(
        fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
  }
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.write(reinterpret_cast<const char*>(magic), 8);
  const auto len = static_cast<std::uint16_t>(header.size());
  const unsigned char len_bytes[2] = {static_cast<unsigned char>(len & 0xff),
                                      static_cast<unsigned char>(len >> 8)};
  out.write(reinterpret_cast<const char*>(len_bytes), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data.data()),
            static_cast<std::streamsize>(data.size() * sizeof(double)));
  if (!out) {
    throw std::runtime_error(
        fmt::format("{}: write failed: {}", path.string(), std::strerror(errno)));
  }
}

}  // namespace talus
