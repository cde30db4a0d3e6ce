// exchange_variable (communicator.hpp): the sizes first, then the bytes.
#include <stdexcept>
#include <string>

#include "core/comm/communicator.hpp"

namespace hemo::comm {

std::vector<std::vector<unsigned char>> start_exchange_variable(Communicator& comm, std::span<const int> peers,
                                                                std::span<const std::vector<unsigned char>> sends, int tag,
                                                                std::span<const Message> also_sends,
                                                                std::span<const Message> also_receives) {
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

  std::vector<std::vector<unsigned char>> received(n);
  out.assign(also_sends.begin(), also_sends.end());
  in.assign(also_receives.begin(), also_receives.end());
  for (std::size_t i = 0; i < n; ++i) {
    received[i].resize(in_sizes[i]);
    // The exchange only reads what it sends; Message's span is mutable for receives.
    if (!sends[i].empty())
      out.push_back({peers[i], tag + 1, {const_cast<unsigned char*>(sends[i].data()), sends[i].size()}});
    if (in_sizes[i] > 0) in.push_back({peers[i], tag + 1, received[i]});
  }
  comm.start_exchange(out, in);
  return received;
}

std::vector<std::vector<unsigned char>> exchange_variable(Communicator& comm, std::span<const int> peers,
                                                          std::span<const std::vector<unsigned char>> sends, int tag) {
  auto received = start_exchange_variable(comm, peers, sends, tag);
  comm.finish_exchange();
  return received;
}

}  // namespace hemo::comm
