#pragma once
// A seeded pseudo-random generator for learning environments' episodes (splitmix64: Steele, Lea
// and Flood 2014): small, fast, the same sequence on every platform (std:: distributions are
// not), so a seed replays an episode bit for bit anywhere.

#include <cstdint>

namespace talus {

struct SplitMix64 {
  std::uint64_t state = 0;
  std::uint64_t next();
  /// Uniform in [0, n), n >= 1 (next() mod n: the bias is below n / 2^64).
  int below(int n);
  /// Uniform in [0, 1): the top 53 bits of next() as a double.
  double uniform();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
};

}  // namespace talus
