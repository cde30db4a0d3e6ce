#pragma once
// Red blood cells on many ranks (docs/rbc_ranks.md; MUPHY, seeds/004 secs. 3.3-3.5): what
// the ranks that share cells agree on at set-up, host only. Each step's traffic (migrants,
// ghosts, far velocity, ghost records) goes through comm::exchange_variable and
// Communicator::start_exchange in plugin.cpp over the peer list made here.
#include <cstdint>
#include <span>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/mesh/tile_maps.hpp"

namespace hemo::rbc {

/// The ranks this one shares cells with: the owners of its external tiles, and the ranks
/// that have one of this rank's tiles among theirs (a thin wall can hide a neighbour from
/// one side only), ascending. Symmetric over the ranks, as comm::exchange_variable needs.
/// Collective.
std::vector<int> symmetric_peers(comm::Communicator& comm, const std::vector<int>& owners_of_external);

/// The far velocity halo: the plasma's velocity at the fluid points of this rank's
/// external tiles, which other ranks own, for the kick of the cells whose support reaches
/// over (a cell's owner sums u~, Omega~ and E~ over its whole support, as on one rank).
/// Slots are numbered peer by peer (in `peers` order), then by tile coordinate, then by
/// the point's place in its tile; the owner sends the same points in the same order, so
/// no index goes over the wire (as the LB halo, core/mesh/sparse_mesh.hpp).
struct FarVelocityPlan {
  /// Per peer: this rank's nodes whose velocity the peer needs, in the peer's slot order,
  /// as one list; send_first[p] .. send_first[p + 1] are peer p's.
  std::vector<std::uint32_t> send_nodes, send_first;
  /// Per peer: the first of its slots here, and the end.
  std::vector<std::uint32_t> receive_first;
  std::uint32_t num_slots() const { return receive_first.empty() ? 0 : receive_first.back(); }
};

/// Builds the plan with `peers` (two rounds of comm::exchange_variable, tags tag .. tag + 3)
/// and writes each slot s into the external rows of tiles.nodes as -2 - s, where the other
/// rank's fluid lies (TileView::lattice_at). An external tile in which its owner (the
/// owner of its brick, SetupStage::voxel_owner, this rank included) has no fluid gets
/// tile_owner -1: a cell whose centre gets there has left the fluid. The maps
/// must have been built with an owner callback (rows for the external tiles). Collective
/// over the peers.
FarVelocityPlan plan_far_velocity(comm::Communicator& comm, mesh::TileMaps& tiles, std::span<const int> peers, int tag);

}  // namespace hemo::rbc
