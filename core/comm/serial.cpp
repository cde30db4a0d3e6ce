#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/comm/communicator.hpp"
#include "core/common/text.hpp"

namespace hemo::comm {

namespace {

class Serial final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string describe() const override { return "serial (one rank)"; }
  void sum(std::span<std::uint64_t>) override {}
  void sum(std::span<double>) override {}
  void max(std::span<double>) override {}
  std::uint64_t exclusive_prefix_sum(std::uint64_t) override { return 0; }
  void broadcast(std::vector<unsigned char>&, int root) override { check_peer(root); }
  void barrier() override {}
  void gather(std::span<const unsigned char> mine, std::vector<unsigned char>& all, int root) override {
    check_peer(root);
    all.assign(mine.begin(), mine.end());
  }
  void scatter(std::span<const unsigned char> all, std::span<const std::uint64_t> counts,
               std::vector<unsigned char>& mine, int root) override {
    check_peer(root);
    if (counts.size() != 1 || counts[0] != all.size())
      throw std::logic_error("comm: scatter on one rank needs one count equal to the bytes given");
    mine.assign(all.begin(), all.end());
  }

  void post_exchange(std::span<const Message> sends, std::span<const Message> receives) override {
    if (pending_) throw std::logic_error("comm: start_exchange while another exchange is in flight");
    // A message to itself: the receive with the same tag gets a copy.
    for (const Message& r : receives) {
      check_peer(r.peer);
      const Message* match = nullptr;
      for (const Message& s : sends)
        if (s.tag == r.tag) match = &s;
      if (!match || match->bytes.size() != r.bytes.size())
        throw std::logic_error(str("comm: no send of ", r.bytes.size(), " bytes with tag ", r.tag, " for a receive"));
      if (!r.bytes.empty()) std::memcpy(r.bytes.data(), match->bytes.data(), r.bytes.size());
    }
    for (const Message& s : sends) check_peer(s.peer);
    pending_ = true;
  }
  void finish_exchange() override { pending_ = false; }
  bool test_exchange() override { return true; }

  [[noreturn]] void abort(int code, const std::string& message) override {
    std::fprintf(stderr, "error: %s\n", message.c_str());
    std::fflush(nullptr);
    std::_Exit(code);
  }

 private:
  static void check_peer(int peer) {
    if (peer != 0) throw std::logic_error(str("comm: rank ", peer, " does not exist in a serial run"));
  }
  bool pending_ = false;
};

}  // namespace

std::unique_ptr<Communicator> serial() { return std::make_unique<Serial>(); }

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace hemo::comm
