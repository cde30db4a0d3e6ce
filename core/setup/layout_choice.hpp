#pragma once
// lattice.layout = "auto": whether the populations go into 4^3 bricks or the node list.
// Bricks were measured faster on the GPU (with the warp's shared pull sources) at every
// fill timed, 0.815 to 0.931 on the patient aorta with fp32 (1.09x to 1.29x the node
// list) and fp16s (1.12x to 1.18x; docs/layout_fill.md), and at 1.0 (the box); on the
// CPU slower. So bricks on the GPU at a fill of at least the lowest timed, where
// their constraints allow; the node list otherwise.
#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "core/geometry/voxel_grid.hpp"

namespace hemo::setup {

/// The least fill (fluid voxels over 64 x the bricks holding fluid) at which "auto" takes
/// bricks: the lowest fill at which they were timed faster.
inline constexpr double bricks_least_fill = 0.81;

/// What keeps bricks out before any fill is counted, or "" where nothing does: the CPU
/// backend, a periodic axis whose voxel count is not a multiple of the brick edge, or
/// (more than one rank) a partition.brick that is not.
std::string bricks_excluded(bool cuda, const std::array<bool, 3>& periodic, const std::array<int, 3>& dims,
                            bool several_ranks, std::int64_t partition_brick);

/// Fluid voxels and the 4^3 bricks holding any, over the voxel window, counting only the
/// voxels `owned(i, j, k)` says this rank owns (each brick has one owner).
struct BrickFill {
  std::uint64_t fluid = 0, bricks = 0;
  double fill() const { return bricks ? double(fluid) / double(64 * bricks) : 0.0; }
};
BrickFill count_brick_fill(const geometry::VoxelGrid& voxels, const std::function<bool(int, int, int)>& owned);

/// Why a fill keeps the node list ("" where bricks are taken).
std::string fill_excludes_bricks(double fill);

}  // namespace hemo::setup
