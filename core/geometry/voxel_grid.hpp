#pragma once
// The voxel classification of a case: a box of nx * ny * nz voxels of edge dx, each
// fluid or solid. Voxel (i, j, k) is centred at origin + (i + 1/2, j + 1/2, k + 1/2) dx.
// Anything outside the box is solid too; the boundaries plugin decides which of those
// solid places are plain walls, moving walls or (later) iolets, and which box faces are
// periodic. Where the shape knows its surface, the grid also says where the wall cuts each
// link from a fluid voxel to a solid one (WallCut), for interpolated bounce-back.
//
// A grid holds the voxels of a window of the box (docs/architecture.md, "Many ranks"):
// the whole box on one rank, and on many ranks the bounding box of the rank's bricks with
// one layer around, so that no rank holds the whole box. Voxel coordinates are always
// those of the box; index() addresses the held arrays.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hemo::geometry {

/// Where the wall surface cuts a lattice link (interpolated bounce-back): the link from
/// the centre of `voxel` (inside the fluid region) to the centre of its neighbour
/// voxel + c_d (outside it) crosses the surface first at centre + fraction * c_d (in voxel units).
struct WallCut {
  std::int64_t voxel;      // global voxel index (VoxelGrid::voxel_index) of the inside voxel
  std::uint8_t direction;  // D3Q19 direction d, 1..18 (physics/d3q19.hpp: cx/cy/cz(d))
  float fraction;          // in [0, 1]
};

/// A sub-box of the voxel box: voxels lo .. lo + extent - 1 along each axis.
struct VoxelWindow {
  std::array<int, 3> lo{0, 0, 0};
  std::array<int, 3> extent{0, 0, 0};

  std::int64_t count() const { return std::int64_t(extent[0]) * extent[1] * extent[2]; }
  bool contains(int i, int j, int k) const {
    return i >= lo[0] && j >= lo[1] && k >= lo[2] && i - lo[0] < extent[0] && j - lo[1] < extent[1] &&
           k - lo[2] < extent[2];
  }
  /// Position of voxel (i, j, k) in arrays over the window, x fastest.
  std::int64_t offset(int i, int j, int k) const {
    return (i - lo[0]) + std::int64_t(extent[0]) * ((j - lo[1]) + std::int64_t(extent[1]) * (k - lo[2]));
  }
  /// The whole box of `dims` voxels.
  static VoxelWindow whole(const std::array<int, 3>& dims) { return {{0, 0, 0}, dims}; }
};

/// The cut of link (voxel, d) in a list sorted by (voxel, direction) (VoxelGrid::wall_cuts,
/// or a copy a plugin keeps past the mesh's set-up), or a negative value where none is.
float find_wall_cut(const std::vector<WallCut>& cuts, std::int64_t voxel, int direction);

struct VoxelGrid {
  std::array<int, 3> dims{0, 0, 0};             // the whole box
  std::array<double, 3> origin{0.0, 0.0, 0.0};  // m: corner of voxel (0,0,0)
  double dx = 0.0;                              // m
  VoxelWindow window;                           // the voxels held (fluid, solid_fraction)
  std::vector<std::uint8_t> fluid;              // 1 fluid, 0 solid; per held voxel, at index(i, j, k)
  std::vector<float> solid_fraction;  // P per held voxel in [0, 1] (VLBM); empty: 0 for fluid voxels, 1 for solid
  /// Wall cuts of the held voxels (the window), sorted by (voxel, direction); filled by
  /// shapes that know their surface (pipe, tree, stl, a voxel file that stores them, sphere obstacles).
  /// They follow the centre classification (a voxel is inside when its centre is), also
  /// when the fluid flags follow P < 1: a user of the cuts decides what to do there.
  std::vector<WallCut> wall_cuts;
  bool has_wall_cuts = false;  // the shape gives them (false for a plain box without obstacles, and for version-1 voxel files)

  /// Length that characterises the geometry (pipe diameter, smallest box edge), m.
  double characteristic_length = 0.0;
  std::string description;  // "pipe R = 8 mm, L = 64 mm along (1,0,0)"

  /// Voxels of the whole box.
  std::int64_t voxel_count() const { return std::int64_t(dims[0]) * dims[1] * dims[2]; }
  /// Voxels held (the window).
  std::int64_t held_count() const { return window.count(); }
  bool holds_whole_box() const { return window.lo == std::array<int, 3>{0, 0, 0} && window.extent == dims; }
  /// Position of held voxel (i, j, k) in fluid and solid_fraction.
  std::int64_t index(int i, int j, int k) const { return window.offset(i, j, k); }
  /// Lexicographic index of voxel (i, j, k) in the whole box (the same on every rank).
  std::int64_t voxel_index(int i, int j, int k) const {
    return i + std::int64_t(dims[0]) * (j + std::int64_t(dims[1]) * k);
  }
  bool inside_box(int i, int j, int k) const {
    return i >= 0 && j >= 0 && k >= 0 && i < dims[0] && j < dims[1] && k < dims[2];
  }
  bool holds(int i, int j, int k) const { return window.contains(i, j, k); }
  /// False outside the box. Inside the box, the voxel must be held: asking for one that
  /// is not is a bug of the caller (std::logic_error), never a silent "solid".
  bool is_fluid(int i, int j, int k) const;
  std::array<double, 3> centre(int i, int j, int k) const {
    return {origin[0] + (i + 0.5) * dx, origin[1] + (j + 0.5) * dx, origin[2] + (k + 0.5) * dx};
  }
  /// Fluid voxels held.
  std::int64_t fluid_count() const;
  /// The cut of link (voxel, d), or a negative value where none is stored.
  float wall_cut(std::int64_t voxel, int direction) const { return find_wall_cut(wall_cuts, voxel, direction); }
  /// Sets the window and allocates the fluid flags for it (all `fill`); no solid
  /// fractions and no wall cuts.
  void hold(const VoxelWindow& w, std::uint8_t fill = 0);
};

}  // namespace hemo::geometry
