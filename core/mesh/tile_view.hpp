#pragma once
// TileView: the device-safe view of the tile maps (core/mesh/tile_maps.hpp) that particle
// kernels use to go from a point in space to mesh nodes and neighbouring tiles (MUPHY's
// COO2CELL, CNEIGH and IJKMAP, seeds/004 sec. 3.1). Plain pointers and sizes only, so the
// same code runs on the host (over TileMaps' vectors, TileMaps::view()) and in CUDA
// kernels (over device copies of those vectors, filled in by whoever uploads them).
//
// Conventions. Positions are in lattice units: node (i, j, k) sits at the point (i, j, k)
// and voxel i spans [i - 1/2, i + 1/2). The box of dims voxels is cut into cubic tiles of
// c lattice spacings anchored at voxel (0, 0, 0): voxel v lies in tile t = floor(v / c),
// m_a = ceil(dims_a / c) tiles along axis a, and tile (tx, ty, tz) has the 1-D coordinate
// tx + m_x * (ty + m_y * tz). Along a periodic axis dims_a is a multiple of c, so tiles
// wrap as voxels do. Inside a tile, voxel (i, j, k) has the local index
// lid = c*c*kc + c*jc + ic with (ic, jc, kc) = (i, j, k) - c * (tx, ty, tz).
//
// Tile ids: [0, num_internal) internal tiles, [num_internal, num_mapped()) frontier tiles,
// then [num_mapped(), num_tiles) external tiles (no owned node; only in COO2CELL). Only
// internal and frontier tiles have rows in `neighbours` (26 per tile) and `nodes` (c^3 per
// tile).
#include <cmath>
#include <cstdint>

#include "physics/hd.hpp"

namespace hemo::mesh {

struct TileView {
  // COO2CELL: the 1-D coordinates of every tile (internal, frontier, external) in ascending
  // order, and the id of each.
  const std::uint64_t* coord = nullptr;
  const std::int32_t* id = nullptr;
  std::uint32_t num_tiles = 0;
  // CNEIGH: for tile id t < num_mapped(), entries [26 t, 26 t + 26): the ids of its
  // neighbours at offsets (dx, dy, dz), dz outermost then dy then dx, each over
  // {-1, 0, +1}, skipping (0, 0, 0) (neighbour_slot()); wrapped along periodic axes; -1
  // where the neighbour lies outside the box along a non-periodic axis.
  const std::int32_t* neighbours = nullptr;
  // IJKMAP: for tile id t < num_rows, entries [c^3 t, c^3 t + c^3): the owned mesh node
  // at each local index, -1 where there is none (solid, outside the box, not owned). Rows
  // of external tiles (t >= num_mapped(), only where num_rows says so) hold -1 or the
  // negative codes a particle plugin wrote there (rbc: -2 - slot, another rank's fluid).
  const std::int32_t* nodes = nullptr;
  std::uint32_t num_rows = 0;
  std::int32_t c = 1;
  std::int32_t dims[3] = {0, 0, 0};
  std::int32_t m[3] = {0, 0, 0};
  bool periodic[3] = {false, false, false};
  std::uint32_t num_internal = 0, num_frontier = 0;

  /// Tiles with rows in `neighbours` and `nodes`: internal and frontier.
  HEMO_HD std::uint32_t num_mapped() const { return num_internal + num_frontier; }
  /// Lattice points per tile, the row length of `nodes`.
  HEMO_HD std::int64_t tile_volume() const { return std::int64_t(c) * c * c; }
  /// Slot in a CNEIGH row of the neighbour at offset (dx, dy, dz), each in {-1, 0, 1},
  /// not all 0.
  HEMO_HD static int neighbour_slot(int dx, int dy, int dz) {
    const int s = (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1);
    return s < 13 ? s : s - 1;
  }

  /// Id of the tile with 1-D coordinate `key` (binary search in COO2CELL), -1 if absent.
  HEMO_HD std::int32_t find_coord(std::uint64_t key) const {
    std::uint32_t lo = 0, hi = num_tiles;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (coord[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return (lo < num_tiles && coord[lo] == key) ? id[lo] : -1;
  }

  /// Tile coordinate `t` along axis a brought into [0, m_a) (wrapping a periodic axis);
  /// false if it lies outside the box along a non-periodic axis.
  HEMO_HD bool wrap_tile(std::int64_t& t, int a) const {
    if (periodic[a]) {
      t %= m[a];
      if (t < 0) t += m[a];
      return true;
    }
    return t >= 0 && t < m[a];
  }
  /// The same for a voxel coordinate and [0, dims_a).
  HEMO_HD bool wrap_voxel(std::int64_t& v, int a) const {
    if (periodic[a]) {
      v %= dims[a];
      if (v < 0) v += dims[a];
      return true;
    }
    return v >= 0 && v < dims[a];
  }

  /// Id of tile (tx, ty, tz), wrapped along periodic axes; -1 outside the box or where
  /// there is no tile (neither internal, frontier nor external).
  HEMO_HD std::int32_t tile_at(std::int64_t tx, std::int64_t ty, std::int64_t tz) const {
    if (!wrap_tile(tx, 0) || !wrap_tile(ty, 1) || !wrap_tile(tz, 2)) return -1;
    return find_coord(std::uint64_t(tx) + std::uint64_t(m[0]) * (std::uint64_t(ty) + std::uint64_t(m[1]) * std::uint64_t(tz)));
  }

  /// Id of the tile holding voxel (i, j, k), wrapped along periodic axes; -1 outside the
  /// box (a voxel beyond dims along a non-periodic axis is outside even where the last
  /// tile overhangs the box) or where there is no tile.
  HEMO_HD std::int32_t tile_of_voxel(std::int64_t i, std::int64_t j, std::int64_t k) const {
    if (!wrap_voxel(i, 0) || !wrap_voxel(j, 1) || !wrap_voxel(k, 2)) return -1;
    return tile_at(i / c, j / c, k / c);
  }

  /// The voxel holding point p (lattice units): floor(p + 1/2) per axis. False for a
  /// coordinate that is not finite or too large for 64-bit voxels.
  template <class Real>
  HEMO_HD static bool voxel_of_point(Real x, Real y, Real z, std::int64_t v[3]) {
    const Real p[3] = {x, y, z};
    for (int a = 0; a < 3; ++a) {
      const Real f = std::floor(p[a] + Real(0.5));
      if (!(f > Real(-4.0e18) && f < Real(4.0e18))) return false;  // also NaN
      v[a] = static_cast<std::int64_t>(f);
    }
    return true;
  }

  /// Id of the tile holding point (x, y, z), lattice units; -1 as for tile_of_voxel.
  template <class Real>
  HEMO_HD std::int32_t tile_of_point(Real x, Real y, Real z) const {
    std::int64_t v[3];
    if (!voxel_of_point(x, y, z, v)) return -1;
    return tile_of_voxel(v[0], v[1], v[2]);
  }

  /// The membership test: the owned mesh node at voxel (i, j, k), wrapped along periodic
  /// axes; -1 where there is none (outside the box, solid, or owned by another rank).
  HEMO_HD std::int32_t node_at(std::int64_t i, std::int64_t j, std::int64_t k) const {
    if (!wrap_voxel(i, 0) || !wrap_voxel(j, 1) || !wrap_voxel(k, 2)) return -1;
    const std::int64_t tx = i / c, ty = j / c, tz = k / c;
    const std::int32_t t = find_coord(std::uint64_t(tx) + std::uint64_t(m[0]) * (std::uint64_t(ty) + std::uint64_t(m[1]) * std::uint64_t(tz)));
    if (t < 0 || std::uint32_t(t) >= num_mapped()) return -1;
    return nodes[std::int64_t(t) * tile_volume() + local_index(i, j, k)];
  }

  /// IJKMAP at voxel (i, j, k), wrapped along periodic axes, for any tile with a row: an
  /// owned node (>= 0), a plugin's code in an external tile (<= -2), or -1 (nothing there:
  /// solid, outside the box, or a tile without a row).
  HEMO_HD std::int32_t lattice_at(std::int64_t i, std::int64_t j, std::int64_t k) const {
    if (!wrap_voxel(i, 0) || !wrap_voxel(j, 1) || !wrap_voxel(k, 2)) return -1;
    const std::int32_t t = tile_at(i / c, j / c, k / c);
    if (t < 0 || std::uint32_t(t) >= num_rows) return -1;
    return nodes[std::int64_t(t) * tile_volume() + local_index(i, j, k)];
  }

  /// Where voxel (i, j, k) of the box (wrapped, non-negative) lies in its tile's row of
  /// IJKMAP (and of any table in that layout): (c (k mod c) + j mod c) c + i mod c.
  HEMO_HD std::int64_t local_index(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return (std::int64_t(c) * (k % c) + j % c) * c + i % c;
  }

  /// The owned mesh node nearest to point (x, y, z) (lattice units), i.e. at voxel
  /// floor(p + 1/2): the paper's membership test for a particle. -1 as for node_at.
  template <class Real>
  HEMO_HD std::int32_t node_of_point(Real x, Real y, Real z) const {
    std::int64_t v[3];
    if (!voxel_of_point(x, y, z, v)) return -1;
    return node_at(v[0], v[1], v[2]);
  }
};

}  // namespace hemo::mesh
