#pragma once
// Tile maps: how particles go from a point in space to the nodes of the sparse mesh, which
// stores fluid nodes only (MUPHY, seeds/004 sec. 3.1 "Domain structures"). The box is cut
// into cubic tiles of c lattice spacings (conventions in core/mesh/tile_view.hpp) and,
// from this rank's OWNED nodes [0, num_nodes), three tables are built once on the host:
//   COO2CELL  the 1-D coordinates of all tiles in ascending order and the id of each (a
//             point's tile is found by binary search);
//   CNEIGH    for each internal and frontier tile, the ids of its 26 neighbours;
//   IJKMAP    for each internal and frontier tile, the owned node at each of its c^3
//             lattice points, -1 where there is none; with an `owner` callback (many
//             ranks) also a row for each external tile, all -1, which a particle plugin
//             fills with codes of its own (rbc: -2 - slot for another rank's fluid point).
// Tile kinds:
//   internal  holds at least one owned node, and neither it nor any of its 26
//             neighbours holds a fluid voxel owned by another rank;
//   frontier  holds at least one owned node, and it or one of its 26 neighbours holds a
//             fluid voxel owned by another rank (only with an `owner` callback);
//   external  holds no owned node and neighbours an internal or frontier tile (in the
//             box, or by wrapping along periodic axes).
// Ids: internal tiles first, then frontier, then external, each group in ascending 1-D
// coordinate.
//
// Memory (host, and the same on the device once uploaded), per tile:
//   every tile           12 B  (COO2CELL: 8 B coordinate + 4 B id; plus 8 B host-only
//                               coord_of_id and 4 B host-only tile_owner)
//   internal/frontier   104 B + 4 c^3 B  (CNEIGH 26 x 4 B, IJKMAP c^3 x 4 B)
// e.g. c = 4: 360 B per mapped tile, c = 8: 2152 B. IJKMAP dominates: about 4 B per
// lattice point of the mapped tiles, so 4 B / fluid fraction of the tiles per owned node.
//
// Cost: O(N + T log T) for N owned nodes and T tiles, with neighbour searches done as
// monotone sweeps over the sorted tile list (no dense array over the box); with an
// `owner` callback, at most c^3 owner calls per internal, frontier or external tile.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/mesh/sparse_mesh.hpp"
#include "core/mesh/tile_view.hpp"

namespace hemo::mesh {

enum class TileKind : std::uint8_t { internal, frontier, external };
const char* to_string(TileKind kind);

class TileMaps {
 public:
  int c = 1;                           // tile edge, lattice spacings
  std::array<int, 3> dims{0, 0, 0};    // the box, voxels (the mesh's)
  std::array<int, 3> m{0, 0, 0};       // tiles along each axis, ceil(dims / c)
  std::array<bool, 3> periodic{false, false, false};
  std::uint32_t num_internal = 0, num_frontier = 0, num_external = 0;

  std::vector<std::uint64_t> coord;        // COO2CELL[0]: 1-D coordinates of all tiles, ascending
  std::vector<std::int32_t> id;            // COO2CELL[1]: the id of each
  std::vector<std::uint64_t> coord_of_id;  // the 1-D coordinate of tile id t (host only; inverse of COO2CELL)
  std::vector<std::int32_t> neighbours;    // CNEIGH: 26 per internal/frontier tile, by id (TileView)
  std::vector<std::int32_t> nodes;         // IJKMAP: c^3 per tile with a row (num_rows()), by id (TileView)

  std::uint32_t num_tiles() const { return num_internal + num_frontier + num_external; }
  /// Internal and frontier tiles: those with rows in `neighbours` and `nodes`.
  std::uint32_t num_mapped() const { return num_internal + num_frontier; }
  std::int64_t tile_volume() const { return std::int64_t(c) * c * c; }
  /// Tiles with a row in IJKMAP: the mapped ones, and the external ones too where the maps
  /// were built with an `owner` callback.
  std::uint32_t num_rows() const { return static_cast<std::uint32_t>(nodes.size() / std::size_t(tile_volume())); }
  TileKind kind(std::int32_t tile) const {
    return std::uint32_t(tile) < num_internal ? TileKind::internal
           : std::uint32_t(tile) < num_mapped() ? TileKind::frontier
                                                : TileKind::external;
  }
  /// Tile coordinates (tx, ty, tz) of a 1-D tile coordinate, and of tile id t.
  std::array<std::int64_t, 3> tile_coords(std::uint64_t key) const;
  std::array<std::int64_t, 3> tile_coords_of(std::int32_t tile) const { return tile_coords(coord_of_id[std::size_t(tile)]); }
  /// Bytes of the tables a device copy needs (coord, id, neighbours, nodes).
  std::size_t bytes() const;
  /// A view over these vectors, for host code. Device code fills a TileView the same way
  /// with device copies of coord, id, neighbours and nodes.
  TileView view() const;
  /// Per internal/frontier tile id (filled by build_tile_maps): 1 where the tile or one of
  /// its 26 neighbours holds a lattice point with no owned node (IJKMAP -1: solid, outside
  /// the box, another rank's) or the neighbour is not mapped; 0 where all 27 tiles are
  /// full. A particle whose reach stays within those 27 tiles meets no gap from a tile
  /// marked 0 (red blood cells skip their wall search there).
  std::vector<std::uint8_t> near_gaps;
  /// Per tile id (filled by build_tile_maps): the rank whose fluid voxels the tile holds.
  /// This rank for internal and frontier tiles. For an external tile, from the `owner`
  /// callback: the one rank owning its fluid voxels, -1 where it holds none (or no
  /// callback was given), -2 where it holds fluid voxels of several ranks (partition
  /// bricks not aligned with the tiles).
  std::vector<std::int32_t> tile_owner;
  /// The ranks other than this one that own external tiles, ascending: those with which
  /// particles near this rank's surface are shared (before making it symmetric over
  /// the ranks: a thin wall between two ranks' fluid is seen from one side only).
  std::vector<int> peers(int rank) const;
};

/// Builds the tile maps of the mesh's owned nodes with tiles of c lattice spacings.
/// `owner(i, j, k)` returns the rank owning fluid voxel (i, j, k) of the box, or -1 for
/// a solid voxel; it decides which tiles are frontier (a voxel owned by a rank other
/// than mesh.rank). Empty on one rank: then no tile is frontier. It is called only for
/// voxels inside the box, serially.
/// Throws std::invalid_argument for c < 1 or c > 1024, for a periodic axis whose size is
/// not a multiple of c (the message names the tile sizes nearest c that divide it), and
/// where there would be more than 2^31 - 1 tiles.
TileMaps build_tile_maps(const SparseMesh& mesh, int c, const std::function<int(int, int, int)>& owner = {});

}  // namespace hemo::mesh
