#pragma once
// How ranks talk (issue 11): the collectives the core needs (sums for mass, checksums and
// flow rates; a prefix sum to number owned nodes globally; a broadcast of the case) and
// the neighbour exchange of halos, behind one interface. Three implementations:
//  * serial(): one rank, no MPI call at all; messages to itself are copied (a periodic
//    domain wraps onto its own halo that way);
//  * in_process(k): k ranks as threads of one process, for tests (in_process.cpp);
//  * mpi (mpi.cpp): MPI_COMM_WORLD, chosen by world() only when an MPI launcher started
//    the process (mpirun, srun), so that a plain `hemoflow run` never initialises MPI.
// Everything here is host memory; GPU halos are staged through pinned buffers by the
// caller (or passed as device pointers to a CUDA-aware MPI, later).
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hemo::comm {

/// One message of a neighbour exchange: `bytes` to or from rank `peer`. A send and the
/// receive it feeds carry the same tag.
struct Message {
  int peer = 0;
  int tag = 0;
  std::span<unsigned char> bytes;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// "serial" or "MPI: 4 ranks (Open MPI v4.1.4, ...)".
  virtual std::string describe() const = 0;

  /// Element-wise sums over all ranks, in place, the same on every rank. Integers add
  /// modulo 2^64 (exact in any order). Doubles are added in rank order, so the result is
  /// reproducible for a given rank count (MPI_Allreduce promises neither).
  virtual void sum(std::span<std::uint64_t> values) = 0;
  virtual void sum(std::span<double> values) = 0;
  virtual void max(std::span<double> values) = 0;
  /// The sum of `value` over the ranks below this one (0 on rank 0): where this rank's
  /// items start in a global numbering.
  virtual std::uint64_t exclusive_prefix_sum(std::uint64_t value) = 0;
  /// Rank `root`'s bytes on every rank (resized to fit).
  virtual void broadcast(std::vector<unsigned char>& bytes, int root) = 0;
  virtual void barrier() = 0;
  /// Every rank's bytes concatenated in rank order on `root` (cleared elsewhere): how
  /// output from many ranks reaches the one rank that writes the file.
  virtual void gather(std::span<const unsigned char> mine, std::vector<unsigned char>& all, int root) = 0;
  /// The inverse of gather(): on `root`, `all` holds every rank's bytes in rank order and
  /// `counts[r]` says how many are rank r's (both ignored elsewhere); each rank gets its
  /// own in `mine` (resized to fit). How a checkpoint read on rank 0 reaches every rank.
  virtual void scatter(std::span<const unsigned char> all, std::span<const std::uint64_t> counts,
                       std::vector<unsigned char>& mine, int root) = 0;

  /// Starts a neighbour exchange: every receive is posted before any send, so the caller
  /// may compute while the messages fly and call finish_exchange() before reading the
  /// receive buffers or reusing the send buffers. One exchange at a time.
  void start_exchange(std::span<const Message> sends, std::span<const Message> receives) {
    for (const Message& s : sends)
      if (s.peer != rank()) bytes_sent_ += s.bytes.size();
    post_exchange(sends, receives);
  }
  virtual void finish_exchange() = 0;
  /// Drives the exchange on without blocking; true once every message of it is done (then
  /// finish_exchange() returns at once). For polling while a GPU computes.
  virtual bool test_exchange() = 0;

  /// Ends every rank's process with `code` after printing `message` (one rank's error
  /// must not leave the others waiting in a collective).
  [[noreturn]] virtual void abort(int code, const std::string& message) = 0;

  /// The bytes this rank has sent to other ranks by neighbour exchanges (start_exchange:
  /// halos staged through host memory, particles and their records, sizes, tokens) since
  /// it was made; collectives (sums, gathers for output) are not counted.
  std::uint64_t bytes_sent() const { return bytes_sent_; }

  double sum(double value) {
    sum(std::span<double>(&value, 1));
    return value;
  }
  std::uint64_t sum(std::uint64_t value) {
    sum(std::span<std::uint64_t>(&value, 1));
    return value;
  }
  /// gather() of typed values: every rank's values in rank order on `root`.
  template <class T>
  std::vector<T> gather(std::span<const T> mine, int root) {
    std::vector<unsigned char> bytes;
    gather({reinterpret_cast<const unsigned char*>(mine.data()), mine.size_bytes()}, bytes, root);
    std::vector<T> all(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(all.data(), bytes.data(), bytes.size());
    return all;
  }
  double max(double value) {
    max(std::span<double>(&value, 1));
    return value;
  }

 protected:
  /// start_exchange's work, in each implementation.
  virtual void post_exchange(std::span<const Message> sends, std::span<const Message> receives) = 0;

 private:
  std::uint64_t bytes_sent_ = 0;
};

/// A neighbour exchange of messages whose sizes the receivers do not know (particles
/// leaving for another rank, halo particles): rank r sends sends[i] to peers[i] and
/// receives one message from each of its peers, returned in `peers` order. Two rounds:
/// the sizes (8 bytes each way), then the bytes, empty messages skipped on both sides.
/// `peers` must be symmetric over the ranks (s in r's list iff r in s's) and hold no
/// rank twice; it may hold this rank (the message comes back to itself). Tags `tag` and
/// `tag + 1`. Blocking: every rank of the list must call it.
std::vector<std::vector<unsigned char>> exchange_variable(Communicator& comm, std::span<const int> peers,
                                                          std::span<const std::vector<unsigned char>> sends, int tag);

/// exchange_variable's second round left in flight, to compute while the bytes travel:
/// the sizes are exchanged (blocking), then the bytes posted together with `also_sends`
/// and `also_receives` (messages whose sizes both sides know, e.g. a halo) in one
/// start_exchange. The caller calls comm.finish_exchange() before reading the returned
/// buffers or any of `also_receives`, and keeps every send buffer alive until then.
std::vector<std::vector<unsigned char>> start_exchange_variable(Communicator& comm, std::span<const int> peers,
                                                                std::span<const std::vector<unsigned char>> sends, int tag,
                                                                std::span<const Message> also_sends = {},
                                                                std::span<const Message> also_receives = {});

/// start_exchange_variable with each message a span (slices of one pinned buffer, say)
/// and the bytes received into one buffer, peer after peer in `peers` order: once the
/// sizes are known, `inbox(total)` gives room for `total` bytes (kept alive by the caller
/// until finish_exchange). Returns where each peer's bytes start in it, then the end.
std::vector<std::size_t> start_exchange_variable(Communicator& comm, std::span<const int> peers,
                                                 std::span<const std::span<const unsigned char>> sends, int tag,
                                                 const std::function<unsigned char*(std::size_t)>& inbox,
                                                 std::span<const Message> also_sends = {},
                                                 std::span<const Message> also_receives = {});

/// One rank, no MPI.
std::unique_ptr<Communicator> serial();

/// `ranks` ranks in one process, one per thread, exchanging by copies through shared
/// memory (in_process.cpp): a many-rank run without MPI, for tests. Each thread uses its
/// own communicator; every collective must be called by all of them.
std::vector<std::unique_ptr<Communicator>> in_process(int ranks);

/// MPI_COMM_WORLD when an MPI launcher started this process and hemoflow was built with
/// MPI; otherwise serial(). Initialises MPI (finalised when the object is destroyed).
std::unique_ptr<Communicator> world(int& argc, char**& argv);

/// Whether an MPI launcher started this process (Open MPI, MPICH/Hydra, Slurm's PMI/PMIx).
bool launched_by_mpi();

/// Whether this build can talk MPI.
bool built_with_mpi();

}  // namespace hemo::comm
