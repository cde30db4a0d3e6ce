// Set-up of the cells' traffic between ranks (ranks.hpp).
#include "plugins/rbc/ranks.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/common/text.hpp"

namespace hemo::rbc {

namespace {

template <class T>
std::vector<unsigned char> as_bytes(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
std::vector<T> from_bytes(const std::vector<unsigned char>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace

std::vector<int> symmetric_peers(comm::Communicator& comm, const std::vector<int>& owners_of_external) {
  // Rank r's row of a ranks x ranks matrix, gathered on rank 0 and broadcast: s is a peer
  // of r if either row names the other.
  const int n = comm.size(), me = comm.rank();
  std::vector<unsigned char> row(std::size_t(n), 0), all;
  for (int r : owners_of_external) row[std::size_t(r)] = 1;
  comm.gather(row, all, 0);
  comm.broadcast(all, 0);
  std::vector<int> peers;
  for (int s = 0; s < n; ++s)
    if (s != me && (all[std::size_t(me) * n + s] || all[std::size_t(s) * n + me])) peers.push_back(s);
  return peers;
}

FarVelocityPlan plan_far_velocity(comm::Communicator& comm, mesh::TileMaps& tiles, std::span<const int> peers, int tag) {
  const std::int64_t volume = tiles.tile_volume();
  if (tiles.num_rows() != tiles.num_tiles())
    throw std::logic_error("plan_far_velocity: the tile maps have no rows for external tiles (built without owners)");
  // An external tile of this rank's own brick holds none of its fluid (else it would be
  // mapped): no owner.
  for (std::uint32_t t = tiles.num_mapped(); t < tiles.num_tiles(); ++t)
    if (tiles.tile_owner[t] == comm.rank()) tiles.tile_owner[t] = -1;
  // 1. Ask each peer for the external tiles it owns here, by coordinate (ascending: ids of
  //    external tiles ascend with their coordinates).
  std::vector<std::vector<std::int32_t>> asked(peers.size());
  std::vector<std::vector<unsigned char>> sends(peers.size());
  for (std::size_t p = 0; p < peers.size(); ++p) {
    std::vector<std::uint64_t> coords;
    for (std::uint32_t t = tiles.num_mapped(); t < tiles.num_tiles(); ++t)
      if (tiles.tile_owner[t] == peers[p]) {
        asked[p].push_back(std::int32_t(t));
        coords.push_back(tiles.coord_of_id[t]);
      }
    sends[p] = as_bytes(coords);
  }
  const auto requests = comm::exchange_variable(comm, peers, sends, tag);
  // 2. Answer with the fluid points of each tile asked for (one byte per lattice point),
  //    and note the nodes to send each step, in the same order.
  FarVelocityPlan plan;
  plan.send_first.push_back(0);
  const mesh::TileView view = tiles.view();
  for (std::size_t p = 0; p < peers.size(); ++p) {
    const auto coords = from_bytes<std::uint64_t>(requests[p]);
    std::vector<unsigned char> fluid(coords.size() * std::size_t(volume), 0);
    for (std::size_t a = 0; a < coords.size(); ++a) {
      // A tile of this rank's brick without fluid is not mapped here: no points.
      const std::int32_t t = view.find_coord(coords[a]);
      if (t < 0 || std::uint32_t(t) >= tiles.num_mapped()) continue;
      for (std::int64_t l = 0; l < volume; ++l) {
        const std::int32_t node = tiles.nodes[std::size_t(std::int64_t(t) * volume + l)];
        if (node < 0) continue;
        fluid[a * std::size_t(volume) + std::size_t(l)] = 1;
        plan.send_nodes.push_back(std::uint32_t(node));
      }
    }
    plan.send_first.push_back(std::uint32_t(plan.send_nodes.size()));
    sends[p] = std::move(fluid);
  }
  const auto answers = comm::exchange_variable(comm, peers, sends, tag + 2);
  // 3. Number the slots and write their codes into the external rows.
  plan.receive_first.push_back(0);
  std::uint32_t slot = 0;
  for (std::size_t p = 0; p < peers.size(); ++p) {
    if (answers[p].size() != asked[p].size() * std::size_t(volume))
      throw std::logic_error(str("rbc: rank ", peers[p], " answered ", answers[p].size(), " bytes for ", asked[p].size(),
                                 " tiles of ", volume, " points"));
    for (std::size_t a = 0; a < asked[p].size(); ++a) {
      bool fluid = false;
      for (std::int64_t l = 0; l < volume; ++l)
        if (answers[p][a * std::size_t(volume) + std::size_t(l)]) {
          tiles.nodes[std::size_t(std::int64_t(asked[p][a]) * volume + l)] = -2 - std::int32_t(slot++);
          fluid = true;
        }
      // The owner of a brick owns its solid voxels too; a tile of it without fluid has no
      // owner (a cell whose centre gets there has left the fluid).
      if (!fluid) tiles.tile_owner[std::size_t(asked[p][a])] = -1;
    }
    plan.receive_first.push_back(slot);
  }
  return plan;
}

}  // namespace hemo::rbc
