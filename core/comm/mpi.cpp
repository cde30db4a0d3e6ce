// The MPI communicator (communicator.hpp). Errors come back as exceptions with MPI's own
// message (MPI_ERRORS_RETURN on a duplicate of MPI_COMM_WORLD), never as a silent hang.
// The C API only: without these, Open MPI and MPICH pull in their C++ bindings.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <stdexcept>

#include "core/comm/communicator.hpp"
#include "core/common/text.hpp"

namespace hemo::comm {

namespace {

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(str("MPI: ", what, " failed: ", std::string(text, std::size_t(length))));
}

int count_of(std::size_t n, const char* what) {
  if (n > std::size_t(INT_MAX)) throw std::runtime_error(str("MPI: ", what, " of ", n, " elements is too large for one call"));
  return int(n);
}

class Mpi final : public Communicator {
 public:
  Mpi(int& argc, char**& argv) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      // Only the main thread calls MPI; OpenMP threads never do.
      int provided = 0;
      MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
      owns_mpi_ = true;
    }
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  }
  ~Mpi() override {
    if (!requests_.empty()) MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    MPI_Comm_free(&comm_);
    if (owns_mpi_) MPI_Finalize();
  }
  Mpi(const Mpi&) = delete;
  Mpi& operator=(const Mpi&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string describe() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string v(version, std::size_t(length));
    if (const auto eol = v.find_first_of("\n,"); eol != std::string::npos) v.resize(eol);
    return str("MPI, ", size_, size_ == 1 ? " rank (" : " ranks (", v, ")");
  }

  void sum(std::span<std::uint64_t> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), count_of(values.size(), "sum"), MPI_UINT64_T, MPI_SUM, comm_),
          "MPI_Allreduce (sum)");
  }
  void sum(std::span<double> values) override {
    // Gathered, then added in rank order on every rank: reproducible and identical.
    std::vector<double> all(values.size() * std::size_t(size_));
    const int n = count_of(values.size(), "sum");
    check(MPI_Allgather(values.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, comm_), "MPI_Allgather (sum)");
    for (std::size_t i = 0; i < values.size(); ++i) {
      double s = 0.0;
      for (int r = 0; r < size_; ++r) s += all[std::size_t(r) * values.size() + i];
      values[i] = s;
    }
  }
  void max(std::span<double> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), count_of(values.size(), "max"), MPI_DOUBLE, MPI_MAX, comm_),
          "MPI_Allreduce (max)");
  }
  std::uint64_t exclusive_prefix_sum(std::uint64_t value) override {
    std::uint64_t below = 0;
    check(MPI_Exscan(&value, &below, 1, MPI_UINT64_T, MPI_SUM, comm_), "MPI_Exscan");
    return rank_ == 0 ? 0 : below;  // undefined on rank 0
  }
  void broadcast(std::vector<unsigned char>& bytes, int root) override {
    std::uint64_t n = bytes.size();
    check(MPI_Bcast(&n, 1, MPI_UINT64_T, root, comm_), "MPI_Bcast (size)");
    bytes.resize(n);
    for (std::uint64_t at = 0; at < n; at += std::uint64_t(INT_MAX)) {
      const int chunk = int(std::min<std::uint64_t>(n - at, std::uint64_t(INT_MAX)));
      check(MPI_Bcast(bytes.data() + at, chunk, MPI_BYTE, root, comm_), "MPI_Bcast");
    }
  }
  void barrier() override { check(MPI_Barrier(comm_), "MPI_Barrier"); }
  void gather(std::span<const unsigned char> mine, std::vector<unsigned char>& all, int root) override {
    const int n = count_of(mine.size(), "gather");
    std::vector<int> counts(rank_ == root ? std::size_t(size_) : 0), offsets(counts.size());
    check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm_), "MPI_Gather (sizes)");
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = count_of(total, "gathered output (2 GiB per call at most)");
      total += std::size_t(counts[r]);
    }
    count_of(total, "gathered output (2 GiB per call at most)");
    all.assign(total, 0);
    check(MPI_Gatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, root, comm_),
          "MPI_Gatherv");
  }
  void scatter(std::span<const unsigned char> all, std::span<const std::uint64_t> counts,
               std::vector<unsigned char>& mine, int root) override {
    std::vector<int> sizes, offsets;
    if (rank_ == root) {
      if (counts.size() != std::size_t(size_)) throw std::logic_error("comm: scatter needs one count per rank");
      std::size_t total = 0;
      for (const std::uint64_t c : counts) {
        sizes.push_back(count_of(c, "scatter"));
        offsets.push_back(count_of(total, "scattered data (2 GiB per call at most)"));
        total += c;
      }
      if (total != all.size()) throw std::logic_error("comm: scatter counts do not add up to the bytes given");
    }
    int n = 0;
    check(MPI_Scatter(sizes.data(), 1, MPI_INT, &n, 1, MPI_INT, root, comm_), "MPI_Scatter (sizes)");
    mine.assign(std::size_t(n), 0);
    check(MPI_Scatterv(all.data(), sizes.data(), offsets.data(), MPI_BYTE, mine.data(), n, MPI_BYTE, root, comm_),
          "MPI_Scatterv");
  }

  void post_exchange(std::span<const Message> sends, std::span<const Message> receives) override {
    if (!requests_.empty()) throw std::logic_error("comm: start_exchange while another exchange is in flight");
    requests_.resize(sends.size() + receives.size());
    std::size_t k = 0;
    for (const Message& r : receives)
      check(MPI_Irecv(r.bytes.data(), count_of(r.bytes.size(), "receive"), MPI_BYTE, r.peer, r.tag, comm_,
                      &requests_[k++]),
            "MPI_Irecv");
    for (const Message& s : sends)
      check(MPI_Isend(s.bytes.data(), count_of(s.bytes.size(), "send"), MPI_BYTE, s.peer, s.tag, comm_,
                      &requests_[k++]),
            "MPI_Isend");
  }
  void finish_exchange() override {
    if (requests_.empty()) return;
    const int code = MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    check(code, "MPI_Waitall (halo exchange)");
  }

  bool test_exchange() override {
    if (requests_.empty()) return true;
    int done = 0;
    check(MPI_Testall(int(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall (halo exchange)");
    if (done) requests_.clear();
    return done != 0;
  }

  [[noreturn]] void abort(int code, const std::string& message) override {
    std::fprintf(stderr, "error (rank %d of %d): %s\n", rank_, size_, message.c_str());
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // MPI_Abort does not return; this keeps [[noreturn]] honest
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  bool owns_mpi_ = false;
  std::vector<MPI_Request> requests_;
};

}  // namespace

bool built_with_mpi() { return true; }

std::unique_ptr<Communicator> world(int& argc, char**& argv) {
  if (!launched_by_mpi()) return serial();
  return std::make_unique<Mpi>(argc, argv);
}

}  // namespace hemo::comm
