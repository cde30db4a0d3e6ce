#pragma once
// Private to core/geometry: what the shape builders share.
#include <array>
#include <cstdint>

#include "core/config/config.hpp"
#include "core/geometry/voxel_grid.hpp"

namespace hemo::geometry::detail {

/// Refuses (InputError on geometry.shape) a bounding box of more than max_voxels.
void check_voxel_budget(const config::Config& g, const std::array<int, 3>& dims, std::int64_t max_voxels);

/// shape = "tree": a symmetric bifurcating tree of cylinders (vessel_tree.cpp).
VoxelGrid build_vessel_tree(const config::Config& g, double dx, std::int64_t max_voxels);

}  // namespace hemo::geometry::detail
