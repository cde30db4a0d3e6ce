// migrate (particle_exchange.hpp): pack per destination, exchange, keep the stayers,
// append the arrivals.
#include "core/fields/particle_exchange.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "core/exec/device_array.hpp"

namespace hemo {

Migration migrate(comm::Communicator& comm, ParticleTable& table, std::span<const int> destination,
                  std::span<const int> peers, int tag) {
  const std::size_t n = table.size();
  if (destination.size() != n)
    throw std::logic_error("migrate: " + std::to_string(destination.size()) + " destinations for " + std::to_string(n) +
                           " particles of table '" + table.name() + "'");
  const int me = comm.rank();
  std::vector<std::uint32_t> stay;
  std::vector<std::vector<std::uint32_t>> leave(peers.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (destination[i] == me) {
      stay.push_back(std::uint32_t(i));
      continue;
    }
    std::size_t p = 0;
    while (p < peers.size() && peers[p] != destination[i]) ++p;
    if (p == peers.size())
      throw std::logic_error("migrate: particle " + std::to_string(i) + " of table '" + table.name() + "' on rank " +
                             std::to_string(me) + " is bound for rank " + std::to_string(destination[i]) +
                             ", which is not among this rank's peers");
    leave[p].push_back(std::uint32_t(i));
  }
  Migration m;
  std::vector<std::vector<unsigned char>> sends(peers.size());
  for (std::size_t p = 0; p < peers.size(); ++p) {
    if (leave[p].empty()) continue;
    const auto rows = exec::to_device(table.space(), leave[p]);
    sends[p] = table.pack(rows.data(), leave[p].size());
    m.sent += leave[p].size();
  }
  const auto received = comm::exchange_variable(comm, peers, sends, tag);
  if (stay.size() < n) {
    const auto rows = exec::to_device(table.space(), stay);
    table.permute(rows.data(), stay.size());
  }
  for (const auto& bytes : received) m.received += table.append(bytes);
  return m;
}

}  // namespace hemo
