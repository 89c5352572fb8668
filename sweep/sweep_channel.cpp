#include "sweep/sweep_channel.hpp"

#include <cstdlib>
#include <stdexcept>

namespace talus::sweep {

void LocalChannel::send(int, const SweepMessage&) {
  throw std::logic_error("a one-process sweep has nobody to send to");
}

std::optional<std::pair<int, SweepMessage>> LocalChannel::receive(bool wait) {
  if (wait) throw std::logic_error("a one-process sweep has nobody to wait for");
  return std::nullopt;
}

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
         std::getenv("PMI_RANK") != nullptr;
}

int local_rank_count() {
  const char* text = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (text == nullptr) return 1;
  const int n = std::atoi(text);
  return n > 0 ? n : 1;
}

}  // namespace talus::sweep
