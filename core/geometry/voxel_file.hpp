#pragma once
// The voxel geometry file: a VoxelGrid with its solid fraction P (VLBM, seeds/000 sec.
// 2.2) in HDF5, so that an STL is voxelized once (`hemoflow mesh`) and reused by runs.
//
// Layout (format_version 2; version 1 is read too, the same without /wall_cuts):
//   /solid_fraction   float32 (nz, ny, nx): P per voxel, x fastest (VoxelGrid::index
//                     order); chunked, gzip level 4 (mostly 0 and 1: it compresses well)
//   attributes of /:  format_version (int32, 2), dims (int32[3], nx ny nz),
//                     origin (float64[3], m), dx (float64, m),
//                     characteristic_length (float64, m), description (string)
//   /signed_distance  float32 (nz, ny, nx), optional (hemoflow mesh writes it for an STL):
//                     m, + inside, - outside, clamped to +-band beyond a band of the wall
//   /wall_cuts        group, where the grid has wall cuts (VoxelGrid::has_wall_cuts; the
//                     file has none: has_wall_cuts = false), n cuts sorted by (voxel, direction):
//     voxel           int64 (n): VoxelGrid::voxel_index of the inside voxel
//     direction       uint8 (n): D3Q19 direction 1..18
//     fraction        float32 (n): in [0, 1]
//     layer_first     int64 (nz + 1): the first cut whose voxel lies in layer k (n at nz),
//                     so that a window reads the cuts of its layers only
// The fluid flags are not stored: a voxel is fluid iff P < 1.
#include <string>
#include <vector>

#include "core/geometry/voxel_grid.hpp"

namespace hemo::geometry {

/// Writes `grid` to `path` (through path + ".tmp" and a rename, so a crash never leaves
/// a half-written file under the name). An empty solid_fraction is written as 0 for
/// fluid and 1 for solid; the wall cuts where grid.has_wall_cuts. std::runtime_error
/// when writing fails; std::invalid_argument for a grid that is not the whole box or
/// cuts that are not sorted or out of range.
/// With `signed_distance` (one value per voxel, m, + inside; voxelize.hpp), also writes
/// it as /signed_distance (float32, same shape), for inspection.
void write_voxel_file(const std::string& path, const VoxelGrid& grid,
                      const std::vector<float>* signed_distance = nullptr);

/// Reads a file written by write_voxel_file and rebuilds fluid from P < 1. InputError
/// naming the file and the problem: not there, not HDF5, a missing or malformed dataset
/// or attribute, a shape that disagrees with dims, P outside [0, 1], wall cuts whose
/// datasets differ in size, are unsorted, or hold a direction outside 1..18 or a
/// fraction outside [0, 1].
VoxelGrid read_voxel_file(const std::string& path);

/// The same checks, and the box (dims, origin, dx, characteristic length, description)
/// without reading any voxel.
VoxelGrid read_voxel_file_header(const std::string& path);

/// P, the fluid flags and the wall cuts of grid.window only (HDF5 hyperslabs: the cuts
/// of the window's layers, of which those of its voxels are kept), into grid, whose box
/// must be the file's: a rank reads its part of a large geometry, never the whole.
void read_voxel_file_window(const std::string& path, VoxelGrid& grid);

}  // namespace hemo::geometry
