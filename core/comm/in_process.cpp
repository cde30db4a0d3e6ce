// k ranks in one process, one thread each, talking through shared memory: the set-up and
// halo exchange of a many-rank run without MPI (issue 11: "prove it in one process
// first"). For tests (tests/mpi/parts_check.cpp); a run uses serial() or MPI.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "core/comm/communicator.hpp"
#include "core/common/text.hpp"

namespace hemo::comm {

namespace {

/// What the k ranks share: a barrier, one deposit slot per rank for the collectives, and
/// a mailbox for the neighbour exchange, keyed by (from, to, tag).
struct Hub {
  explicit Hub(int k) : size(k), slot(std::size_t(k)) {}
  const int size;
  std::mutex mutex;
  std::condition_variable changed;
  int arrived = 0;
  std::uint64_t generation = 0;
  std::vector<std::vector<unsigned char>> slot;
  /// Messages of one (from, to, tag) arrive in the order they were sent, as MPI's do.
  std::map<std::tuple<int, int, int>, std::deque<std::vector<unsigned char>>> mail;

  void barrier() {
    std::unique_lock lock(mutex);
    const std::uint64_t mine = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      changed.notify_all();
    } else {
      changed.wait(lock, [&] { return generation != mine; });
    }
  }
  /// Every rank's bytes, in rank order, on every rank.
  std::vector<std::vector<unsigned char>> all_gather(int rank, std::span<const unsigned char> mine) {
    {
      const std::lock_guard lock(mutex);
      slot[std::size_t(rank)].assign(mine.begin(), mine.end());
    }
    barrier();
    std::vector<std::vector<unsigned char>> all;
    {
      const std::lock_guard lock(mutex);
      all = slot;
    }
    barrier();  // nobody deposits the next collective's bytes before all have read
    return all;
  }
};

class InProcess final : public Communicator {
 public:
  InProcess(std::shared_ptr<Hub> hub, int rank) : hub_(std::move(hub)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return hub_->size; }
  std::string describe() const override { return str("in-process: ", hub_->size, " ranks (threads)"); }

  void sum(std::span<std::uint64_t> v) override { reduce(v, [](auto& a, auto b) { a += b; }); }
  void sum(std::span<double> v) override { reduce(v, [](auto& a, auto b) { a += b; }); }
  void max(std::span<double> v) override { reduce(v, [](auto& a, auto b) { a = a < b ? b : a; }); }
  std::uint64_t exclusive_prefix_sum(std::uint64_t value) override {
    const auto all = hub_->all_gather(rank_, bytes_of(value));
    std::uint64_t below = 0;
    for (int r = 0; r < rank_; ++r) below += value_of<std::uint64_t>(all[std::size_t(r)]);
    return below;
  }
  void broadcast(std::vector<unsigned char>& bytes, int root) override {
    check_peer(root);
    auto all = hub_->all_gather(rank_, rank_ == root ? std::span<const unsigned char>(bytes) : std::span<const unsigned char>());
    bytes = std::move(all[std::size_t(root)]);
  }
  void barrier() override { hub_->barrier(); }
  void gather(std::span<const unsigned char> mine, std::vector<unsigned char>& all, int root) override {
    check_peer(root);
    const auto each = hub_->all_gather(rank_, mine);
    all.clear();
    if (rank_ == root)
      for (const auto& e : each) all.insert(all.end(), e.begin(), e.end());
  }
  void scatter(std::span<const unsigned char> all, std::span<const std::uint64_t> counts,
               std::vector<unsigned char>& mine, int root) override {
    check_peer(root);
    std::vector<unsigned char> packed;  // root: the counts, then the bytes
    if (rank_ == root) {
      if (counts.size() != std::size_t(size())) throw std::logic_error("comm: scatter needs one count per rank");
      packed.resize(counts.size_bytes());
      std::memcpy(packed.data(), counts.data(), counts.size_bytes());
      packed.insert(packed.end(), all.begin(), all.end());
    }
    broadcast(packed, root);
    std::uint64_t offset = 0, n = 0;
    for (int r = 0; r <= rank_; ++r) {
      std::uint64_t c;
      std::memcpy(&c, packed.data() + std::size_t(r) * sizeof c, sizeof c);
      if (r < rank_) offset += c;
      else n = c;
    }
    const std::size_t base = std::size_t(size()) * sizeof(std::uint64_t) + std::size_t(offset);
    mine.assign(packed.begin() + std::ptrdiff_t(base), packed.begin() + std::ptrdiff_t(base + n));
  }

  void post_exchange(std::span<const Message> sends, std::span<const Message> receives) override {
    if (!receives_.empty()) throw std::logic_error("comm: start_exchange while another exchange is in flight");
    {
      const std::lock_guard lock(hub_->mutex);
      for (const Message& s : sends) {
        check_peer(s.peer);
        hub_->mail[{rank_, s.peer, s.tag}].emplace_back(s.bytes.begin(), s.bytes.end());
      }
      hub_->changed.notify_all();
    }
    receives_.assign(receives.begin(), receives.end());
    for (const Message& r : receives_) check_peer(r.peer);
  }
  void finish_exchange() override {
    std::unique_lock lock(hub_->mutex);
    for (const Message& r : receives_) {
      const auto key = std::make_tuple(r.peer, rank_, r.tag);
      hub_->changed.wait(lock, [&] { return hub_->mail.count(key) != 0 && !hub_->mail[key].empty(); });
      deliver(r, key);
    }
    receives_.clear();
  }
  bool test_exchange() override {
    const std::lock_guard lock(hub_->mutex);
    // Two receives of one key need two messages waiting.
    std::map<std::tuple<int, int, int>, std::size_t> needed;
    for (const Message& r : receives_) ++needed[{r.peer, rank_, r.tag}];
    for (const auto& [key, n] : needed) {
      const auto it = hub_->mail.find(key);
      if (it == hub_->mail.end() || it->second.size() < n) return false;
    }
    for (const Message& r : receives_) deliver(r, {r.peer, rank_, r.tag});
    receives_.clear();
    return true;
  }

  [[noreturn]] void abort(int code, const std::string& message) override {
    std::fprintf(stderr, "error (in-process rank %d): %s\n", rank_, message.c_str());
    std::fflush(nullptr);
    std::_Exit(code);
  }

 private:
  template <class T>
  static std::span<const unsigned char> bytes_of(const T& v) {
    return {reinterpret_cast<const unsigned char*>(&v), sizeof v};
  }
  template <class T>
  static T value_of(const std::vector<unsigned char>& b) {
    T v;
    std::memcpy(&v, b.data(), sizeof v);
    return v;
  }
  /// Combines every rank's values in rank order (the same result on every rank).
  template <class T, class Op>
  void reduce(std::span<T> v, Op op) {
    const auto all = hub_->all_gather(rank_, {reinterpret_cast<const unsigned char*>(v.data()), v.size_bytes()});
    std::vector<T> acc(v.size());
    for (int r = 0; r < size(); ++r) {
      const auto& b = all[std::size_t(r)];
      if (b.size() != v.size_bytes()) throw std::logic_error("comm: ranks reduce different lengths");
      for (std::size_t i = 0; i < v.size(); ++i) {
        T x;
        std::memcpy(&x, b.data() + i * sizeof(T), sizeof(T));
        if (r == 0) acc[i] = x;
        else op(acc[i], x);
      }
    }
    std::copy(acc.begin(), acc.end(), v.begin());
  }
  /// With the hub's mutex held.
  void deliver(const Message& r, const std::tuple<int, int, int>& key) {
    auto it = hub_->mail.find(key);
    const std::vector<unsigned char>& m = it->second.front();
    if (m.size() != r.bytes.size())
      throw std::logic_error(str("comm: rank ", r.peer, " sent ", m.size(), " bytes with tag ", r.tag, ", rank ", rank_,
                                 " expected ", r.bytes.size()));
    if (!r.bytes.empty()) std::memcpy(r.bytes.data(), m.data(), r.bytes.size());
    it->second.pop_front();
    if (it->second.empty()) hub_->mail.erase(it);
  }
  void check_peer(int peer) const {
    if (peer < 0 || peer >= size()) throw std::logic_error(str("comm: rank ", peer, " does not exist"));
  }

  std::shared_ptr<Hub> hub_;
  int rank_;
  std::vector<Message> receives_;
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> in_process(int ranks) {
  if (ranks < 1) throw std::invalid_argument("comm::in_process: at least one rank");
  auto hub = std::make_shared<Hub>(ranks);
  std::vector<std::unique_ptr<Communicator>> out;
  for (int r = 0; r < ranks; ++r) out.push_back(std::make_unique<InProcess>(hub, r));
  return out;
}

}  // namespace hemo::comm
