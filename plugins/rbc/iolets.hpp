#pragma once
// Cells entering and leaving through the iolets (issue 12, must-have 5), host side.
//
// An iolet is an open face of the vessel: the mesh marks the links that cross it with the
// boundaries plugin's link class "iolet:<name>"; the solid voxels those links point at
// are the iolet's open face. From them each iolet gets an outward normal n (the mean of
// the crossing links' -c_q, exact for an axis-aligned cut), a centre (the face voxels'
// mean) and a radius (their largest distance from the centre across n). For a node x,
//   depth(x) = (centre - x) . n + 1/2
// is its distance inside the fluid from the face (the halfway plane beyond the last
// fluid layer), and lateral(x) its distance from the centre across n.
//
//  - Sink: a cell whose centre's voxel lies within `reach` of a face (depth < reach + 1,
//    the 1 for faces cut at a slant, lateral < radius + reach; fluid or not, so that a cell pressed into the rim's
//    corner leaves too) is taken out and counted for that iolet, before the face's
//    solid voxels could push it back as a wall would. So cells leave at outlets, and
//    cells flowing back out of an inlet leave too.
//  - Feed: at an inflow iolet (rbc.inflow), every rbc.inflow_every steps, cells are
//    added at random (no overlap, clear of walls) in the slab reach + 1 <= depth < reach
//    + 1 + rbc.inflow_length, lateral < radius, until the slab holds the inflow
//    haematocrit.
// Lattice units. On many ranks every rank builds the same faces from all ranks' face
// voxels (gathered); the feed slabs' nodes are listed over the placement mesh (every
// fluid voxel, plugin.cpp), where rank 0 places new cells.
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "core/mesh/tile_maps.hpp"
#include "plugins/rbc/seeding.hpp"

namespace hemo::rbc {

struct IoletFace {
  std::string name;
  std::array<double, 3> centre{}, normal{};  // lattice units; normal points out of the fluid
  double radius = 0;
  std::size_t face_voxels = 0;

  double depth(const std::array<double, 3>& x) const;
  double lateral(const std::array<double, 3>& x) const;
};

class CellIolets {
 public:
  CellIolets() = default;
  /// The iolets of the mesh (none: an empty set, nothing happens), from the face voxels
  /// of every rank's part (a collective). `inflow` names the iolets that feed cells; an
  /// unknown name is an InputError listing the iolets. The feeds' nodes are empty until
  /// list_feed_nodes.
  CellIolets(const mesh::SparseMesh& mesh, comm::Communicator& comm, double reach, const std::vector<std::string>& inflow,
             double inflow_length);
  /// Each feed's nodes: those of `mesh` in its slab (rank 0's placement mesh).
  void list_feed_nodes(const mesh::SparseMesh& mesh);

  bool empty() const { return faces_.empty(); }
  const std::vector<IoletFace>& faces() const { return faces_; }
  /// The iolet (index) whose sink holds voxel v, -1 if none.
  int sink_at(const std::array<std::int64_t, 3>& v) const;
  /// The same for the voxel holding point x (lattice units).
  int sink_of(const std::array<double, 3>& x) const;
  /// Per lattice point of the mapped tiles (IJKMAP's layout): 0, or 1 + sink_at.
  std::vector<std::uint8_t> sink_map(const mesh::TileMaps& tiles) const;

  /// The feed slab of each inflow iolet.
  struct Feed {
    int iolet = -1;
    std::vector<std::uint32_t> nodes;  // fluid nodes in the slab
  };
  const std::vector<Feed>& feeds() const { return feeds_; }
  /// Whether point x lies in feed f's slab, or (margin > 0) within `margin` of it.
  bool in_feed(const Feed& f, const std::array<double, 3>& x, double margin = 0) const;

 private:
  std::vector<IoletFace> faces_;
  std::vector<Feed> feeds_;
  double reach_ = 0, inflow_length_ = 0;
};

/// New cells for one feed slab: random sequential addition (add_at_random) at the slab's
/// nodes among the `existing` cells, kept only inside the slab, until `wanted` more stand
/// or `give_up_after` draws failed in a row.
std::vector<CellPlacement> place_in_feed(const mesh::SparseMesh& mesh, const mesh::TileMaps& tiles,
                                         const CellModel<double>& model, const CellIolets& iolets,
                                         const CellIolets::Feed& feed, const std::vector<CellPlacement>& existing,
                                         std::size_t wanted, std::mt19937_64& rng, std::uint64_t give_up_after);

}  // namespace hemo::rbc
