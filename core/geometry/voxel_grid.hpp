#pragma once
// The voxel classification of a case: a box of nx * ny * nz voxels of edge dx, each
// fluid or solid. Voxel (i, j, k) is centred at origin + (i + 1/2, j + 1/2, k + 1/2) dx.
// Anything outside the box is solid too; the boundaries plugin decides which of those
// solid places are plain walls, moving walls or (later) iolets, and which box faces are
// periodic.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hemo::geometry {

struct VoxelGrid {
  std::array<int, 3> dims{0, 0, 0};
  std::array<double, 3> origin{0.0, 0.0, 0.0};  // m: corner of voxel (0,0,0)
  double dx = 0.0;                              // m
  std::vector<std::uint8_t> fluid;              // 1 fluid, 0 solid; index i + nx (j + ny k)
  std::vector<float> solid_fraction;  // P per voxel in [0, 1] (VLBM); empty: 0 for fluid voxels, 1 for solid

  /// Length that characterises the geometry (pipe diameter, smallest box edge), m.
  double characteristic_length = 0.0;
  std::string description;  // "pipe R = 8 mm, L = 64 mm along (1,0,0)"

  std::int64_t voxel_count() const { return std::int64_t(dims[0]) * dims[1] * dims[2]; }
  std::int64_t index(int i, int j, int k) const { return i + std::int64_t(dims[0]) * (j + std::int64_t(dims[1]) * k); }
  bool inside_box(int i, int j, int k) const {
    return i >= 0 && j >= 0 && k >= 0 && i < dims[0] && j < dims[1] && k < dims[2];
  }
  bool is_fluid(int i, int j, int k) const { return inside_box(i, j, k) && fluid[index(i, j, k)] != 0; }
  std::array<double, 3> centre(int i, int j, int k) const {
    return {origin[0] + (i + 0.5) * dx, origin[1] + (j + 0.5) * dx, origin[2] + (k + 0.5) * dx};
  }
  std::int64_t fluid_count() const;
};

}  // namespace hemo::geometry
