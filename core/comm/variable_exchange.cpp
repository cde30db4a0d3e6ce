// exchange_variable (communicator.hpp): the sizes first, then the bytes.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/comm/communicator.hpp"

namespace hemo::comm {

namespace {
/// The first round: every peer's message size, in `peers` order (blocking).
std::vector<std::uint64_t> exchange_sizes(Communicator& comm, std::span<const int> peers,
                                          std::span<const std::span<const unsigned char>> sends, int tag) {
  if (peers.size() != sends.size())
    throw std::logic_error("exchange_variable: " + std::to_string(peers.size()) + " peers but " +
                           std::to_string(sends.size()) + " messages");
  const std::size_t n = peers.size();
  std::vector<std::uint64_t> out_sizes(n), in_sizes(n);
  std::vector<Message> out(n), in(n);
  for (std::size_t i = 0; i < n; ++i) {
    out_sizes[i] = sends[i].size();
    out[i] = {peers[i], tag, {reinterpret_cast<unsigned char*>(&out_sizes[i]), sizeof(std::uint64_t)}};
    in[i] = {peers[i], tag, {reinterpret_cast<unsigned char*>(&in_sizes[i]), sizeof(std::uint64_t)}};
  }
  comm.start_exchange(out, in);
  comm.finish_exchange();
  return in_sizes;
}

/// The second round posted: sends[i] to peers[i], peer i's bytes into `into[i]`.
void post_bytes(Communicator& comm, std::span<const int> peers, std::span<const std::span<const unsigned char>> sends,
                std::span<const std::span<unsigned char>> into, int tag, std::span<const Message> also_sends,
                std::span<const Message> also_receives) {
  std::vector<Message> out(also_sends.begin(), also_sends.end()), in(also_receives.begin(), also_receives.end());
  for (std::size_t i = 0; i < peers.size(); ++i) {
    // The exchange only reads what it sends; Message's span is mutable for receives.
    if (!sends[i].empty())
      out.push_back({peers[i], tag + 1, {const_cast<unsigned char*>(sends[i].data()), sends[i].size()}});
    if (!into[i].empty()) in.push_back({peers[i], tag + 1, into[i]});
  }
  comm.start_exchange(out, in);
}

std::vector<std::span<const unsigned char>> spans(std::span<const std::vector<unsigned char>> buffers) {
  return {buffers.begin(), buffers.end()};
}
}  // namespace

std::vector<std::vector<unsigned char>> start_exchange_variable(Communicator& comm, std::span<const int> peers,
                                                                std::span<const std::vector<unsigned char>> sends, int tag,
                                                                std::span<const Message> also_sends,
                                                                std::span<const Message> also_receives) {
  const auto out = spans(sends);
  const std::vector<std::uint64_t> sizes = exchange_sizes(comm, peers, out, tag);
  std::vector<std::vector<unsigned char>> received(peers.size());
  std::vector<std::span<unsigned char>> into(peers.size());
  for (std::size_t i = 0; i < peers.size(); ++i) {
    received[i].resize(sizes[i]);
    into[i] = received[i];
  }
  post_bytes(comm, peers, out, into, tag, also_sends, also_receives);
  return received;
}

std::vector<std::size_t> start_exchange_variable(Communicator& comm, std::span<const int> peers,
                                                 std::span<const std::span<const unsigned char>> sends, int tag,
                                                 const std::function<unsigned char*(std::size_t)>& inbox,
                                                 std::span<const Message> also_sends,
                                                 std::span<const Message> also_receives) {
  const std::vector<std::uint64_t> sizes = exchange_sizes(comm, peers, sends, tag);
  std::vector<std::size_t> first(peers.size() + 1, 0);
  for (std::size_t i = 0; i < peers.size(); ++i) first[i + 1] = first[i] + sizes[i];
  unsigned char* room = inbox(first.back());
  std::vector<std::span<unsigned char>> into(peers.size());
  for (std::size_t i = 0; i < peers.size(); ++i) into[i] = {room + first[i], sizes[i]};
  post_bytes(comm, peers, sends, into, tag, also_sends, also_receives);
  return first;
}

std::vector<std::vector<unsigned char>> exchange_variable(Communicator& comm, std::span<const int> peers,
                                                          std::span<const std::vector<unsigned char>> sends, int tag) {
  auto received = start_exchange_variable(comm, peers, sends, tag);
  comm.finish_exchange();
  return received;
}

}  // namespace hemo::comm
