#pragma once
// The SCM step's per-node passes on a large block (gathering and scattering its nodes, filling
// the flow window, the height update of eq. 30) split into bands, one per OpenMP thread. Each pass
// writes every node from that node's own inputs only (copies, element-wise updates), so the split
// moves work between threads, never results: the outputs are the same bits for any thread count.

#include <omp.h>

#include <cstddef>
#include <limits>

namespace talus::scm {

/// Blocks of fewer nodes run their passes on the calling thread, where starting the team would
/// cost more than it shares. The bound is not tuned: it is chosen so that the flow fields'
/// windows at 1 cm (about 10,000 nodes around a wheel) and the rover's 2 cm window (about 6,000)
/// split, and the border path's windows (about 800 nodes at 2 cm, 2,300 at 1 cm; ScmWheelStep's
/// window_nodes) and the contact blocks do not (docs/soil_flow.md, Speed).
inline constexpr std::size_t kBandedPassMinNodes = 4096;
/// A bound no block reaches: every pass on the calling thread. The border path's windows take it
/// (scm_step.cpp, window_banding): a step of the border path runs nothing else on the team, whose
/// threads are then asleep, and waking them for a copy of a few thousand nodes cost more than it
/// shared (docs/scm.md, Speed).
inline constexpr std::size_t kNeverBanded = std::numeric_limits<std::size_t>::max();

/// Whether a pass may start a team of its own: no team is running already (a vector env steps its
/// instances on the threads itself) and the default team has more than one thread.
inline bool team_can_start() { return !omp_in_parallel() && omp_get_max_threads() > 1; }

/// Calls band(begin, end) over [0, count) cut into one contiguous band per thread of the OpenMP
/// team when the pass covers at least min_nodes nodes (`nodes`) and no team is running already (a
/// vector env steps its instances on the threads itself), else band(0, count) once. `band` must
/// not throw (an exception cannot leave an OpenMP region).
template <class Band>
void for_node_bands(std::size_t count, std::size_t nodes, std::size_t min_nodes, const Band& band) {
  if (nodes < min_nodes || !team_can_start()) {
    band(std::size_t{0}, count);
    return;
  }
#pragma omp parallel
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto team = static_cast<std::size_t>(omp_get_num_threads());
    band(count * t / team, count * (t + 1) / team);
  }
}

/// for_node_bands with the bound kBandedPassMinNodes.
template <class Band>
void for_node_bands(std::size_t count, std::size_t nodes, const Band& band) {
  for_node_bands(count, nodes, kBandedPassMinNodes, band);
}

}  // namespace talus::scm
