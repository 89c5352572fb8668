#include "particles/particle_io.hpp"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace talus::particles {

namespace {

static_assert(std::endian::native == std::endian::little,
              "particle state files are little-endian; add byte swapping for this platform");

constexpr std::array<char, 8> kMagic = {'T', 'A', 'L', 'U', 'S', 'P', 'S', '\0'};
constexpr std::uint32_t kArrays = 11;  // float_arrays(), in their order
static_assert(std::tuple_size_v<decltype(float_arrays(std::declval<ParticleState&>()))> == kArrays);
constexpr std::uint32_t kArraysVersion1 = 8;  // version 1: no angular velocities
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8 + 8;

std::uint64_t fnv1a(const char* data, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

template <class T>
void put(std::string& bytes, const T& value) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes.append(raw, sizeof(T));
}

template <class T>
T get(const std::string& bytes, std::size_t& at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  at += sizeof(T);
  return value;
}

}  // namespace

void save_particle_state(const ParticleState& state, const std::filesystem::path& path) {
  const std::size_t n = state.size();
  for (const auto* a : float_arrays(state)) {
    if (a->size() != n) {
      throw std::invalid_argument(
          fmt::format("{}: cannot save: the per-particle arrays differ in length", path.string()));
    }
  }
  if (!state.id.empty() && state.id.size() != n) {
    throw std::invalid_argument(fmt::format("{}: cannot save: id holds {} values for {} particles",
                                            path.string(), state.id.size(), n));
  }
  std::string bytes;
  bytes.reserve(kHeaderBytes + kArrays * n * sizeof(float) + 8);
  bytes.append(kMagic.data(), kMagic.size());
  put(bytes, kParticleFileVersion);
  put(bytes, kArrays);
  put(bytes, static_cast<std::uint64_t>(n));
  put(bytes, state.time_s);
  put(bytes, static_cast<std::int64_t>(state.step));
  // In creation order (ParticleState::id), so that a file's particle k is the same particle
  // whenever the step sorted the state: the loaded state's particles are at their own indices.
  ParticleState copy;
  for (const auto* a : float_arrays(creation_ordered(state, copy))) {
    bytes.append(reinterpret_cast<const char*>(a->data()), n * sizeof(float));
  }
  put(bytes, fnv1a(bytes.data(), bytes.size()));
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file)
    throw std::runtime_error(fmt::format("{}: cannot write the particle state", path.string()));
}

ParticleState load_particle_state(const std::filesystem::path& path) {
  return load_particle_state_with_version(path).state;
}

LoadedParticleState load_particle_state_with_version(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error(fmt::format("{}: cannot open the particle state file", name));
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.size() < kMagic.size() ||
      std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    throw std::runtime_error(
        fmt::format("{}: not a talus particle state file (wrong magic bytes)", name));
  }
  if (bytes.size() < kHeaderBytes) {
    throw std::runtime_error(fmt::format("{}: truncated: {} bytes, shorter than the {}-byte header",
                                         name, bytes.size(), kHeaderBytes));
  }
  std::size_t at = kMagic.size();
  const auto version = get<std::uint32_t>(bytes, at);
  if (version != kParticleFileVersion && version != 1) {
    throw std::runtime_error(
        fmt::format("{}: format version {} is not supported (this build reads versions 1 and {})",
                    name, version, kParticleFileVersion));
  }
  const auto arrays = get<std::uint32_t>(bytes, at);
  const std::uint32_t expected_arrays = version == 1 ? kArraysVersion1 : kArrays;
  if (arrays != expected_arrays) {
    throw std::runtime_error(fmt::format("{}: holds {} arrays per particle, expected {}", name,
                                         arrays, expected_arrays));
  }
  const auto n = get<std::uint64_t>(bytes, at);
  if (n > (bytes.size() / (arrays * sizeof(float))) + 1) {
    throw std::runtime_error(
        fmt::format("{}: truncated: header says {} particles but the file has "
                    "only {} bytes",
                    name, n, bytes.size()));
  }
  const std::size_t expected = kHeaderBytes + arrays * n * sizeof(float) + 8;
  if (bytes.size() != expected) {
    throw std::runtime_error(fmt::format("{}: {}: {} particles need {} bytes, the file has {}",
                                         name, bytes.size() < expected ? "truncated" : "too long",
                                         n, expected, bytes.size()));
  }
  std::size_t sum_at = expected - 8;
  const auto stored = get<std::uint64_t>(bytes, sum_at);
  if (stored != fnv1a(bytes.data(), expected - 8)) {
    throw std::runtime_error(fmt::format("{}: checksum mismatch: the file is corrupted", name));
  }
  LoadedParticleState loaded;
  loaded.version = version;
  ParticleState& state = loaded.state;
  state.time_s = get<double>(bytes, at);
  state.step = get<std::int64_t>(bytes, at);
  std::uint32_t read = 0;
  for (auto* a : float_arrays(state)) {
    a->resize(n, 0.0f);  // version 1's missing angular velocities stay zero
    // An empty vector's data() may be null, which memcpy must not get even for zero bytes.
    if (read++ < arrays && n > 0) {
      std::memcpy(a->data(), bytes.data() + at, n * sizeof(float));
      at += n * sizeof(float);
    }
  }
  try {
    validate(state);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(fmt::format("{}: {}", name, e.what()));
  }
  if (!std::isfinite(state.time_s) || state.step < 0) {
    throw std::runtime_error(
        fmt::format("{}: time_s = {} or step = {} is invalid", name, state.time_s, state.step));
  }
  return loaded;
}

}  // namespace talus::particles
