// The MPI channel of a sweep (OpenMPI from Debian). Only each rank's main thread calls MPI (the
// runs' OpenMP threads never do; sweep_runner.cpp checks): MPI_THREAD_FUNNELED.
#include <stdexcept>

#include "sweep/sweep_channel.hpp"

#ifdef TALUS_HAVE_MPI
#include <mpi.h>

namespace talus::sweep {

namespace {

constexpr int kTag = 7;

class MpiChannel : public SweepChannel {
 public:
  MpiChannel(int* argc, char*** argv) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiChannel() override { MPI_Finalize(); }
  MpiChannel(const MpiChannel&) = delete;
  MpiChannel& operator=(const MpiChannel&) = delete;

  void abort(int code) override { MPI_Abort(MPI_COMM_WORLD, code); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void broadcast(std::string& text) override {
    int length = static_cast<int>(text.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    text.resize(static_cast<std::size_t>(length));
    MPI_Bcast(text.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  }

  std::vector<std::string> gather(const std::string& mine) override {
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(size_));
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(static_cast<std::size_t>(size_), 0);
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[static_cast<std::size_t>(r)] = total;
      total += lengths[static_cast<std::size_t>(r)];
    }
    std::string all(static_cast<std::size_t>(rank_ == 0 ? total : 0), '\0');
    MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                0, MPI_COMM_WORLD);
    std::vector<std::string> texts;
    if (rank_ != 0) return texts;
    for (int r = 0; r < size_; ++r) {
      texts.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                 static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
    }
    return texts;
  }

  void send(int to, const SweepMessage& message) override {
    MPI_Send(message.data(), static_cast<int>(message.size()), MPI_INT, to, kTag, MPI_COMM_WORLD);
  }

  std::optional<std::pair<int, SweepMessage>> receive(bool wait) override {
    MPI_Status status;
    if (!wait) {
      int arrived = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &arrived, &status);
      if (!arrived) return std::nullopt;
    }
    SweepMessage message{};
    MPI_Recv(message.data(), static_cast<int>(message.size()), MPI_INT, MPI_ANY_SOURCE, kTag,
             MPI_COMM_WORLD, &status);
    return std::make_pair(status.MPI_SOURCE, message);
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

std::unique_ptr<SweepChannel> make_mpi_channel(int* argc, char*** argv) {
  return std::make_unique<MpiChannel>(argc, argv);
}

}  // namespace talus::sweep

#else

namespace talus::sweep {

std::unique_ptr<SweepChannel> make_mpi_channel(int*, char***) {
  throw std::runtime_error(
      "this talus was built without MPI (install libopenmpi-dev and rebuild): under mpirun "
      "every rank would run the whole sweep");
}

}  // namespace talus::sweep

#endif
