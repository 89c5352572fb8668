#include "core/splitmix.hpp"

namespace talus {

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int SplitMix64::below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }

double SplitMix64::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

}  // namespace talus
