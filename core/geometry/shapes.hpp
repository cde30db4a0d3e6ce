#pragma once
// Analytic geometries from the [geometry] section: a box (channel), a pipe along any
// direction, with sphere obstacles cut out of either.
#include "core/config/config.hpp"
#include "core/config/schema.hpp"
#include "core/geometry/voxel_grid.hpp"

namespace hemo::geometry {

/// Declares [geometry] and [[geometry.obstacle]].
void declare_schema(config::Schema& schema);

/// Voxelizes the [geometry] section at spacing dx (m). InputError for shapes that give
/// no fluid, fewer than 2 voxels across, or more voxels than `max_voxels`.
VoxelGrid build(const config::Config& geometry_section, double dx, std::int64_t max_voxels);

/// geometry.file of an "stl" or "voxels" shape, resolved against the case file and a
/// leading $HEMO_DATA_DIR/; InputError when it is missing.
std::string geometry_file(const config::Config& geometry_section);

}  // namespace hemo::geometry
