#pragma once
// Who owns which part of the vessel (issue 11, step 2 of docs/architecture.md "Many
// ranks"): the voxel box is cut into bricks of edge^3 voxels, each brick weighted by its
// fluid nodes, and SCOTCH partitions the graph of bricks with fluid (neighbours: the 18
// bricks a D3Q19 link can reach, faces and edges) into one part per rank. A graph of
// bricks instead of nodes keeps the partitioning cheap: 10^8 fluid nodes are about 2*10^5
// bricks of 8^3. A rank then owns whole bricks, so its nodes are found from its bricks.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/geometry/shapes.hpp"
#include "core/geometry/voxel_grid.hpp"

namespace hemo::partition {

/// The bricks of a voxel box and the fluid nodes in each.
struct BrickGrid {
  int edge = 8;                       // voxels per brick edge
  std::array<int, 3> dims{0, 0, 0};   // bricks along x, y, z (the last ones may be cut short)
  std::vector<std::uint32_t> fluid;   // fluid nodes per brick; index i + nx (j + ny k)

  std::int64_t count() const { return std::int64_t(dims[0]) * dims[1] * dims[2]; }
  std::int64_t index(int i, int j, int k) const { return i + std::int64_t(dims[0]) * (j + std::int64_t(dims[1]) * k); }
  /// The brick holding voxel (i, j, k).
  std::int64_t brick_of_voxel(int i, int j, int k) const { return index(i / edge, j / edge, k / edge); }
};

/// The bricks of `edge` voxels covering a box of `dims` voxels, none counted yet;
/// InputError for an edge below 1.
BrickGrid empty_bricks(std::array<int, 3> dims, int edge);

/// Adds the fluid voxels a grid holds (its window) to the bricks' counts: windows that
/// cover the box once, voxelized one after the other, count it without ever holding it.
void count_fluid(BrickGrid& bricks, const geometry::VoxelGrid& voxels);

/// Pass 1 of a many-rank set-up (docs/architecture.md, "Many ranks"): voxelizes the
/// layers of bricks first .. last - 1 (along z) one at a time, adding their fluid voxels to
/// `bricks` and what only the whole geometry can judge to `tally`. Each rank takes its
/// share of the layers; the sums over the ranks are the whole box's, which no rank held.
void count_layers(const geometry::Geometry& geometry, int first, int last, BrickGrid& bricks,
                  geometry::VoxelTally& tally);

/// Counts the fluid nodes of every brick of `edge` voxels in a box of `dims` voxels, from
/// the nodes' voxel coordinates (i, j, k).
BrickGrid make_bricks(std::array<int, 3> dims, std::span<const std::int32_t> i, std::span<const std::int32_t> j,
                      std::span<const std::int32_t> k, int edge);

struct Partition {
  int parts = 1;
  std::vector<std::int32_t> owner;          // per brick: its part, or -1 for a brick without fluid
  std::vector<std::uint64_t> part_fluid;    // fluid nodes per part
  std::vector<std::uint32_t> part_bricks;   // bricks per part

  /// Largest part over the mean part (1 = perfect balance).
  double imbalance() const;
  /// One line per part: bricks, fluid nodes, share of the mean.
  std::string describe() const;
};

/// The voxels each of `parts` parts needs (pass 2), in one pass over the bricks: the
/// bounding box of its bricks and one layer around, every voxel its nodes pull from,
/// within the box of `dims` voxels. Along a periodic axis a part at a face pulls across
/// it, from the opposite face: its window then spans the axis. An empty window for a part
/// without bricks.
std::vector<geometry::VoxelWindow> windows_of_parts(const BrickGrid& bricks, std::span<const std::int32_t> owner,
                                                    int parts, const std::array<int, 3>& dims,
                                                    std::array<bool, 3> periodic);

/// Partitions the bricks with fluid into `parts` parts of about equal fluid with SCOTCH
/// (deterministic, fixed seed: the same input gives the same parts, in any process). Periodic axes join the bricks at
/// opposite faces. Throws InputError when there are fewer bricks with fluid than parts.
Partition partition_bricks(const BrickGrid& bricks, int parts, std::array<bool, 3> periodic = {false, false, false});

}  // namespace hemo::partition
