#pragma once
// Where the cells start: placed at random at a target haematocrit, or read from an HDF5
// file, and checked either way (no two cells' contact ellipsoids overlap, no cell's
// surface closer to a wall site than the wall's range, every centre in the fluid).
// On many ranks the placement runs on rank 0 over every fluid voxel (placement_mesh) and
// the result is broadcast (broadcast_seed). Host only; lattice units (node (i, j, k) at
// the point (i, j, k)).
#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/config/config.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "core/mesh/tile_maps.hpp"
#include "plugins/rbc/kernels.hpp"

namespace hemo::rbc {

struct CellPlacement {
  std::array<double, 3> position{};     // lattice units
  std::array<double, 4> orientation{1, 0, 0, 0};  // w, x, y, z
};

/// Which candidates a placement may keep besides the overlap and wall tests, and where
/// candidates are drawn.
using NodeDraw = std::function<std::uint32_t(std::mt19937_64&)>;
using PlacementTest = std::function<bool(const CellPlacement&)>;

/// Random sequential addition: a uniformly random fluid voxel, a uniform offset inside
/// it and a uniformly random orientation (Shoemake, Graphics Gems III (1992) 124), kept
/// when it overlaps neither a cell placed before nor a wall, until `count` cells stand,
/// `tries` candidates were drawn or the last `give_up_after` all failed (then fewer are
/// returned; the caller reports it). `allowed`, if given, must accept a cell too.
std::vector<CellPlacement> place_at_random(const mesh::SparseMesh& mesh, const mesh::TileMaps& tiles,
                                           const CellModel<double>& model, std::size_t count, std::uint64_t seed,
                                           std::uint64_t tries, std::uint64_t give_up_after,
                                           const PlacementTest& allowed = {});

/// Random sequential addition by tile colours (rbc.placement = "tiles"; docs/rbc_ranks.md
/// 4.6): the mapped tiles fall into colour classes by their coordinates mod 3 (so that two
/// tiles of a class are two or more tiles apart and their cells cannot touch); in rounds,
/// class after class, every tile of the class draws candidates centred in itself (a
/// uniformly random fluid node of the tile, a uniform offset and orientation), four per
/// cell its share of the fluid holds, from a generator of its own seeded by (seed, tile,
/// round), and keeps those that overlap no cell and no wall, as place_at_random does. The
/// tiles of a class run on as many threads as OpenMP gives, with the same result on any
/// number. Ends at `count` cells (the last class's surplus dropped from its highest tiles
/// down), after a round that kept fewer than one candidate in `give_up_after` (where
/// place_at_random's give_up_after failures in a row become likely), or after `tries`
/// candidates; returns the cells by tile. Not the sequence place_at_random draws: another placement of the same
/// statistics.
std::vector<CellPlacement> place_by_tiles(const mesh::SparseMesh& mesh, const mesh::TileMaps& tiles,
                                          const CellModel<double>& model, std::size_t count, std::uint64_t seed,
                                          std::uint64_t tries, std::uint64_t give_up_after,
                                          const PlacementTest& allowed = {});

/// The general form: `count` more cells among `existing` (which stay as they are),
/// candidates at nodes from `draw_node`, kept only where `allowed` (if given) says so too.
/// Returns the new cells only.
std::vector<CellPlacement> add_at_random(const mesh::SparseMesh& mesh, const mesh::TileMaps& tiles,
                                         const CellModel<double>& model, const std::vector<CellPlacement>& existing,
                                         std::size_t count, std::mt19937_64& rng, const NodeDraw& draw_node,
                                         const PlacementTest& allowed, std::uint64_t tries, std::uint64_t give_up_after);

/// A point in lattice units (node (i, j, k) at (i, j, k)) in the case's coordinates, m.
inline std::array<double, 3> to_metres(const mesh::SparseMesh& mesh, double x, double y, double z) {
  return {mesh.origin[0] + (x + 0.5) * mesh.dx, mesh.origin[1] + (y + 0.5) * mesh.dx, mesh.origin[2] + (z + 0.5) * mesh.dx};
}
/// "(x, y, z) m", for messages.
std::string describe_point(const mesh::SparseMesh& mesh, double x, double y, double z);

/// Everything wrong with a set of placements, one line each (at most `limit` lines, then
/// a count of the rest): overlapping pairs, centres outside the fluid, walls too close.
std::vector<std::string> placement_problems(const std::vector<CellPlacement>& cells, const mesh::SparseMesh& mesh,
                                            const mesh::TileMaps& tiles, const CellModel<double>& model,
                                            std::size_t limit = 10);

/// Every fluid voxel of the vessel in ascending voxel index, as a mesh of coordinates only
/// (no neighbour table), on rank 0, gathered from every rank's owned nodes (empty
/// elsewhere; a collective): where the cells are placed, so that the placement is the
/// same on any rank count and for any node order.
mesh::SparseMesh placement_mesh(comm::Communicator& comm, const mesh::SparseMesh& mesh);

/// Rank 0's cells, start size and seed velocities (3 per cell, or none) on every rank
/// (a collective).
void broadcast_seed(comm::Communicator& comm, std::vector<CellPlacement>& cells, double& start_size,
                    std::vector<double>& velocities);

/// The cells of a seed file: /position (N x 3, m) and /orientation (N x 4, w x y z) or
/// /axis (N x 3) (else the symmetry axis along z); /velocity (N x 3, m/s) into
/// `velocities` where given. A malformed file fails rbc.seed_file naming the dataset.
std::vector<CellPlacement> read_seed_file(const config::Config& config, const mesh::SparseMesh& pm, const std::string& file,
                                          std::vector<double>& velocities);

}  // namespace hemo::rbc
