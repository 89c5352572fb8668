#pragma once
// How the ranks of a sweep talk: rank 0 hands out runs, the others ask for them. Over MPI when
// talus runs under mpirun (sweep_mpi.cpp), otherwise a single process that talks to nobody.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace talus::sweep {

/// A message between ranks: {kind, run index}. Results go through the shared folder.
using SweepMessage = std::array<int, 2>;

class SweepChannel {
 public:
  virtual ~SweepChannel() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Rank 0's `text` on every rank (collective).
  virtual void broadcast(std::string& text) = 0;
  /// Every rank's `mine`, in rank order, on rank 0; empty on the others (collective).
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  virtual void send(int to, const SweepMessage& message) = 0;
  /// The next message from any rank and its sender: waits for one when `wait`, otherwise
  /// returns nothing when none has arrived.
  virtual std::optional<std::pair<int, SweepMessage>> receive(bool wait) = 0;
  /// Ends every rank of the job at once with `code` (a rank that fails alone would leave the
  /// others waiting for it). Returns only on one process.
  virtual void abort(int code) = 0;
};

/// One process, no MPI.
class LocalChannel : public SweepChannel {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void broadcast(std::string&) override {}
  std::vector<std::string> gather(const std::string& mine) override { return {mine}; }
  void send(int, const SweepMessage&) override;
  std::optional<std::pair<int, SweepMessage>> receive(bool wait) override;
  void abort(int) override {}
};

/// Whether this process was started by mpirun (OpenMPI's or PMIx's environment is set).
bool launched_by_mpirun();

/// The MPI channel: initialises MPI (finalised when the channel goes). Throws std::runtime_error
/// when talus was built without MPI.
std::unique_ptr<SweepChannel> make_mpi_channel(int* argc, char*** argv);

/// Ranks of this job on this machine (OpenMPI's OMPI_COMM_WORLD_LOCAL_SIZE; 1 without mpirun).
int local_rank_count();

}  // namespace talus::sweep
