#pragma once
// Device-safe kernels of the red blood cell plugin (MUPHY paper, seeds/004, secs. 2-3),
// written once for CPU and GPU. Lattice units throughout: node (i, j, k) at the point
// (i, j, k), the LB time step dt = 1, plasma density 1.
//
// One step, in scheduler order (plugin.cpp):
//   particles  AssignTiles  (per cell)  tile of each centre -> sort keys; then sort, NGRID
//                                       (histogram) and its exclusive scan, and the cells'
//                                       columns permuted into that order (GRIDMAT: the
//                                       cells of tile t are rows tile_first[t] ..
//                                       tile_first[t + 1] of the table)
//              CellForces   (per cell)  Gay-Berne over the 27 tiles (Algorithm 1) + walls
//              CellKick     (per cell)  u~, Omega~, E~ over the support; the kick with
//                                       drag; the cell's record for the spreading (drag
//                                       and stresslet), and the cell
//                                       entered in the list of every node it covers
//   coupling   SpreadDrag   (per node)  the force density: the drag of the cells in the
//                                       node's list, in ascending cell order
//              CellDrift    (per cell)  the free motion to the next step
// The table is kept in tile order, so neighbouring threads read neighbouring cells and a
// tile's cells are contiguous. Every sum runs in a fixed order (tiles, then cells; a
// node's cells sorted), so CPU and GPU add the same numbers in the same order: the node
// lists are filled with atomic increments in any order, and sorted before they are read.
#include <atomic>
#include <cstdint>

#include "core/mesh/tile_view.hpp"
#include "physics/cell_coupling.hpp"
#include "physics/cell_wall.hpp"
#include "physics/gay_berne.hpp"
#include "physics/rigid_body.hpp"

namespace hemo::rbc {

using phys::Quaternion;
using phys::Vec3;

/// The state columns of the cells (ParticleTable "cells"), as pointers: row c of a
/// column is at [c * stride, c * stride + size).
template <class Real>
struct CellColumns {
  Real* position;          // 3 rows, lattice units
  Real* orientation;       // 4 rows: w, x, y, z (body -> lab)
  Real* velocity;          // 3 rows, at the half step
  Real* angular_momentum;  // 3 rows, lab frame, at the half step
  Real* angular_velocity;  // 3 rows, I^-1 L after the drift (output)
  Real* force;             // 3 rows: Gay-Berne + walls at this step's configuration
  Real* torque;            // 3 rows
  Real* drag;              // 6 rows: drag force and torque applied this step (output)
  std::uint32_t stride;

  HEMO_HD Vec3<Real> get3(const Real* a, std::uint32_t i) const { return {a[i], a[stride + i], a[2 * stride + i]}; }
  HEMO_HD void set3(Real* a, std::uint32_t i, const Vec3<Real>& v) const {
    a[i] = v.x, a[stride + i] = v.y, a[2 * stride + i] = v.z;
  }
  HEMO_HD Quaternion<Real> quaternion(std::uint32_t i) const {
    return {orientation[i], orientation[stride + i], orientation[2 * stride + i], orientation[3 * stride + i]};
  }
  HEMO_HD void set_quaternion(std::uint32_t i, const Quaternion<Real>& q) const {
    orientation[i] = q.w, orientation[stride + i] = q.x, orientation[2 * stride + i] = q.y,
    orientation[3 * stride + i] = q.z;
  }
};

/// Cell shape and interaction parameters, lattice units.
template <class Real>
struct CellModel {
  phys::GayBerne<Real> pair;
  phys::CellWall<Real> wall;
  phys::CellSupport<Real> support;
  phys::RigidShape<Real> body;
  Real gamma_t = 0, gamma_r = 0;
  Real gamma_s = 0;      // stresslet per unit strain rate (physics/cell_coupling.hpp); 0: none
  Real pair_cutoff = 0;  // centre distance beyond which two cells never interact

  /// The same cells with their repulsion shapes (Gay-Berne contact, wall) scaled by
  /// `size`: cells placed smaller than they are grow to full size over the first steps.
  CellModel grown_to(Real size) const {
    CellModel m = *this;
    m.pair.sigma0 *= size;
    m.wall.across *= size;
    m.wall.along *= size;
    m.pair_cutoff = m.pair.cutoff_distance();
    return m;
  }
};

/// The shortest image of a displacement along the periodic axes (dims in lattice units).
template <class Real>
HEMO_HD Vec3<Real> nearest_image(Vec3<Real> r, const mesh::TileView& tiles) {
  Real* c[3] = {&r.x, &r.y, &r.z};
  for (int a = 0; a < 3; ++a) {
    if (!tiles.periodic[a]) continue;
    const Real L = Real(tiles.dims[a]);
    if (*c[a] > L / 2) *c[a] -= L;
    else if (*c[a] < -L / 2) *c[a] += L;
  }
  return r;
}

/// The tiles to search around tile t: t itself, then its 26 neighbours (-1: none).
HEMO_HD std::int32_t search_tile(const mesh::TileView& tiles, std::int32_t t, int s) {
  return s == 26 ? t : tiles.neighbours[std::int64_t(t) * 26 + s];
}

/// The membership test near one cell without a binary search or a division: a cell
/// reaches at most one tile beyond its centre's (the tile size is chosen so), so a
/// lattice point it looks at lies in its centre's tile or a neighbour in CNEIGH (which
/// wraps periodic axes), and IJKMAP gives the node. Points are given unwrapped, as offsets
/// from the centre's tile never larger than a tile.
struct NearCell {
  std::int32_t tile = -1;              // the centre's tile (mapped); -1: none
  std::int64_t origin[3] = {0, 0, 0};  // its first voxel along each axis

  template <class Real>
  HEMO_HD static NearCell of(const mesh::TileView& v, const Vec3<Real>& x) {
    NearCell n;
    std::int64_t q[3], p[3], at[3];
    if (!mesh::TileView::voxel_of_point(x.x, x.y, x.z, q)) return n;
    for (int a = 0; a < 3; ++a) {
      p[a] = q[a];
      if (!v.wrap_voxel(p[a], a)) return n;
      at[a] = p[a] / v.c;
    }
    const std::int32_t t = v.tile_at(at[0], at[1], at[2]);
    if (t < 0 || std::uint32_t(t) >= v.num_mapped()) return n;
    n.tile = t;
    // The unwrapped origin: the centre's voxel q, wrapped into the box as p, has its tile
    // at `at`; the points asked for are near the unwrapped centre, so shift back.
    for (int a = 0; a < 3; ++a) n.origin[a] = at[a] * v.c + (q[a] - p[a]);
    return n;
  }
  /// The owned node at voxel (i, j, k), -1 where none (as TileView::node_at).
  HEMO_HD std::int32_t node_at(const mesh::TileView& v, std::int64_t i, std::int64_t j, std::int64_t k) const {
    const std::int32_t code = lattice_at(v, i, j, k);
    return code >= 0 ? code : -1;
  }
  /// IJKMAP at voxel (i, j, k) (as TileView::lattice_at): an owned node, -2 - slot for a
  /// fluid point of another rank (far velocity slot), -1 for none.
  HEMO_HD std::int32_t lattice_at(const mesh::TileView& v, std::int64_t i, std::int64_t j, std::int64_t k) const {
    if (tile < 0) return v.lattice_at(i, j, k);
    const std::int64_t o[3] = {i - origin[0], j - origin[1], k - origin[2]};
    int d[3];
    std::int64_t l[3];
    for (int a = 0; a < 3; ++a) {
      if (o[a] < -v.c || o[a] >= 2 * std::int64_t(v.c)) return v.lattice_at(i, j, k);  // beyond the neighbours
      d[a] = o[a] < 0 ? -1 : (o[a] >= v.c ? 1 : 0);
      l[a] = o[a] - d[a] * std::int64_t(v.c);
    }
    const std::int32_t tt = (d[0] | d[1] | d[2]) == 0
                                ? tile
                                : v.neighbours[std::int64_t(tile) * 26 + mesh::TileView::neighbour_slot(d[0], d[1], d[2])];
    if (tt < 0 || std::uint32_t(tt) >= v.num_rows) return -1;
    return v.nodes[std::int64_t(tt) * v.tile_volume() + (std::int64_t(v.c) * l[2] + l[1]) * v.c + l[0]];
  }
};

/// The offset of voxel (i, j, k) (a node's, wrapped into the box) from a cell's centre X,
/// along periodic axes from the voxel's nearest image: the same numbers CellKick gets
/// from the unwrapped lattice point, bit for bit (an integer shift, then one subtraction).
template <class Real>
HEMO_HD Vec3<Real> offset_from(const mesh::TileView& v, std::int64_t i, std::int64_t j, std::int64_t k,
                               const Vec3<Real>& X) {
  std::int64_t p[3] = {i, j, k};
  const Real x[3] = {X.x, X.y, X.z};
  for (int a = 0; a < 3; ++a) {
    if (!v.periodic[a]) continue;
    const Real d = Real(p[a]) - x[a], half = Real(v.dims[a]) / 2;
    if (d > half) p[a] -= v.dims[a];
    else if (d < -half) p[a] += v.dims[a];
  }
  return {Real(p[0]) - X.x, Real(p[1]) - X.y, Real(p[2]) - X.z};
}

/// a += 1, returning the old value: atomic on both backends (the host runs kernels on
/// OpenMP threads).
HEMO_HD std::uint32_t fetch_increment(std::uint32_t* a) {
#ifdef __CUDA_ARCH__
  return atomicAdd(a, 1u);
#else
  return std::atomic_ref<std::uint32_t>(*a).fetch_add(1u, std::memory_order_relaxed);
#endif
}

/// The cells whose coupling support holds each node, as CellKick finds them: up to
/// `per_node` cell rows per node (rows [per_node n, per_node n + count[n])), in the order
/// the atomic increments came. A node covered by more cells keeps count[n] > per_node and
/// SpreadDrag gathers it from the tiles instead. SpreadDrag zeroes count for the next step.
struct NodeCells {
  std::uint32_t* count = nullptr;  // per node
  std::uint32_t* cells = nullptr;  // per_node per node
  std::uint32_t per_node = 0;

  HEMO_HD void enter(std::int32_t node, std::uint32_t cell) const {
    const std::uint32_t k = fetch_increment(count + node);
    if (k < per_node) cells[std::size_t(node) * per_node + k] = cell;
  }
};

/// Sort key of each cell: its tile (centre's voxel), a mapped tile or an external one that
/// another rank owns (the cell migrates there); `invalid_tile` (= the number of tiles) for
/// a centre in no tile with fluid, which the plugin reports; invalid_tile + 1 for a centre
/// at a lattice point of an iolet's sink (CellIolets), a cell that leaves. Sorted, the
/// rows come as the paper's fig. 5 splits them: staying (by tile), migrating (by tile),
/// escaped, leaving.
template <class Real>
struct AssignTiles {
  CellColumns<Real> cells;
  mesh::TileView tiles;
  const std::int32_t* tile_owner;  // per tile (TileMaps::tile_owner): >= 0 for a tile with fluid
  const std::uint8_t* sink;  // per lattice point of the mapped tiles (IJKMAP's layout); nullptr: no iolets
  std::uint32_t* key;        // per cell
  std::uint32_t* order;      // per cell: the cell's index, sorted along with the keys
  std::uint32_t invalid_tile;

  HEMO_HD void operator()(std::uint32_t i) const {
    const Vec3<Real> x = cells.get3(cells.position, i);
    const std::int32_t t = tiles.tile_of_point(x.x, x.y, x.z);
    std::uint32_t k = (t < 0 || tile_owner[t] < 0) ? invalid_tile : std::uint32_t(t);
    if (sink && k < tiles.num_mapped()) {
      std::int64_t v[3] = {0, 0, 0};  // set: a centre in a mapped tile has a voxel
      mesh::TileView::voxel_of_point(x.x, x.y, x.z, v);
      for (int a = 0; a < 3; ++a) tiles.wrap_voxel(v[a], a);
      if (sink[std::int64_t(k) * tiles.tile_volume() + tiles.local_index(v[0], v[1], v[2])]) k = invalid_tile + 1;
    }
    key[i] = k;
    order[i] = i;
  }
};

/// Sort key of each ghost row (another rank's cell appended after this rank's own, as it
/// came: rows peer_first[p] .. peer_first[p + 1] from peer p): its tile where that is an
/// external tile its sender owns (it is kept); `invalid_tile` + 1 where the centre is in
/// no tile of this rank (not near it: dropped); `invalid_tile` for a cell in a tile of
/// this rank or of a third rank (a fault, which the plugin reports).
template <class Real>
struct AssignGhostTiles {
  const Real* position;  // 3 rows of `stride`
  std::uint32_t stride;
  mesh::TileView tiles;
  const std::int32_t* tile_owner;   // per tile
  const std::uint32_t* peer_first;  // per peer, and the end
  const std::int32_t* peer_rank;    // per peer
  std::uint32_t peers;
  std::uint32_t* key;
  std::uint32_t* order;
  std::uint32_t invalid_tile;

  HEMO_HD void operator()(std::uint32_t i) const {
    const std::size_t s = stride;
    const std::int32_t t = tiles.tile_of_point(position[i], position[s + i], position[2 * s + i]);
    std::uint32_t p = 0;
    while (p + 1 < peers && i >= peer_first[p + 1]) ++p;
    std::uint32_t k = invalid_tile + 1;
    if (t >= 0)
      k = std::uint32_t(t) >= tiles.num_mapped() && tile_owner[t] == peer_rank[p] ? std::uint32_t(t) : invalid_tile;
    key[i] = k;
    order[i] = i;
  }
};

/// to[i] = from[i] + add: the ghosts' tile ranges (counted from the first ghost) as rows.
struct ShiftedCopy {
  const std::uint32_t* from;
  std::uint32_t* to;
  std::uint32_t add;
  HEMO_HD void operator()(std::uint32_t i) const { to[i] = from[i] + add; }
};

/// The rows of each tile in ascending cell id: `order` holds the rows sorted by tile
/// (tile t at [tile_first[t], tile_first[t + 1])), and each tile's few rows are insertion
/// sorted by id, so that a tile's cells come in the same order whatever order they
/// arrived in (from another rank, or in another step).
struct OrderTilesById {
  const std::uint32_t* tile_first;
  const std::uint32_t* id;  // per row of the unsorted table
  std::uint32_t* order;

  HEMO_HD void operator()(std::uint32_t t) const {
    const std::uint32_t first = tile_first[t], end = tile_first[t + 1];
    for (std::uint32_t a = first + 1; a < end; ++a) {
      const std::uint32_t row = order[a], key = id[row];
      std::uint32_t b = a;
      for (; b > first && id[order[b - 1]] > key; --b) order[b] = order[b - 1];
      order[b] = row;
    }
  }
};

/// Gay-Berne between cells over the 27 tiles around each cell (the paper's Algorithm 1,
/// one thread per cell; other ranks' cells in the external tiles as ghost rows) and the
/// wall sites within reach (lattice points with no fluid, this rank's or another's),
/// looked for only from tiles near a gap.
template <class Real>
struct CellForces {
  // At most 64 registers (exec::launch_cuda): 0.88 against 1.17 ms at MUPHY's size with
  // the compiler's 110 (H100, same machine, 2026-11-25; docs/rbc.md). The kick got slower
  // under any cap (3.47 ms at 64 registers, 2.03 at 80, 1.38 free), so it has none.
  static constexpr int min_blocks_per_sm = 4;
  CellColumns<Real> cells;  // in tile order
  CellModel<Real> model;
  mesh::TileView tiles;
  const std::uint32_t* tile_first;  // first row of each mapped tile, and the end
  const std::uint32_t* key;         // tile of each cell (the sorted keys)
  const std::uint8_t* near_wall;    // per mapped tile: a lattice point with no node lies in it or a neighbour
  Real* energy;                     // per cell: its share of the potential energy

  HEMO_HD void operator()(std::uint32_t i) const {
    const std::int32_t t = std::int32_t(key[i]);
    const Vec3<Real> xi = cells.get3(cells.position, i);
    const Vec3<Real> ni = phys::symmetry_axis(cells.quaternion(i));
    Vec3<Real> F{}, T{};
    Real U = 0;
    const Real cut2 = model.pair_cutoff * model.pair_cutoff;
    for (int s = 0; s < 27; ++s) {
      const std::int32_t tt = search_tile(tiles, t, s);
      if (tt < 0) continue;
      for (std::uint32_t j = tile_first[tt]; j < tile_first[tt + 1]; ++j) {
        if (j == i) continue;
        const Vec3<Real> r = nearest_image(cells.get3(cells.position, j) - xi, tiles);
        if (!(phys::dot(r, r) < cut2)) continue;
        const auto pair = phys::gay_berne(model.pair, r, ni, phys::symmetry_axis(cells.quaternion(j)));
        F = F - pair.force_on_j;
        T = T + pair.torque_i;
        U += Real(0.5) * pair.energy;
      }
    }
    if (near_wall[t]) {
      // Wall sites: lattice points within the wall's reach that hold no node.
      const NearCell near = NearCell::of(tiles, xi);
      const Real reach = model.wall.reach();
      const std::int64_t lo[3] = {std::int64_t(std::ceil(xi.x - reach)), std::int64_t(std::ceil(xi.y - reach)),
                                  std::int64_t(std::ceil(xi.z - reach))};
      const std::int64_t hi[3] = {std::int64_t(std::floor(xi.x + reach)), std::int64_t(std::floor(xi.y + reach)),
                                  std::int64_t(std::floor(xi.z + reach))};
      for (std::int64_t k = lo[2]; k <= hi[2]; ++k)
        for (std::int64_t j = lo[1]; j <= hi[1]; ++j)
          for (std::int64_t a = lo[0]; a <= hi[0]; ++a) {
            const Vec3<Real> r{Real(a) - xi.x, Real(j) - xi.y, Real(k) - xi.z};
            if (!(phys::dot(r, r) < reach * reach)) continue;
            if (near.lattice_at(tiles, a, j, k) != -1) continue;  // fluid
            const auto site = phys::cell_wall(model.wall, r, ni);
            F = F + site.force;
            T = T + site.torque;
            U += site.energy;
          }
    }
    cells.set3(cells.force, i, F);
    cells.set3(cells.torque, i, T);
    energy[i] = U;
  }
};

/// What SpreadDrag needs of a cell, by row: where it is, its axis and its share.
template <class Real>
struct SpreadRecord {
  Vec3<Real> position, axis;
  phys::CellShare<Real> share;
};

/// The support's lattice points along x in row (j, k): the weight is positive where
/// d^2 = r^T M r < 1, M = 1/A^2 + (1/C^2 - 1/A^2) n n^T (phys::CellSupport::weight), a
/// quadratic in r_x; the interval is widened by `pad` lattice spacings against rounding
/// (the weight itself still decides), and empty where the row misses the support.
template <class Real>
struct SupportRows {
  Real mxx, mxy, mxz, myy, myz, mzz;
  static constexpr Real pad = Real(1e-3);

  HEMO_HD static SupportRows of(const phys::CellSupport<Real>& s, const Vec3<Real>& n) {
    const Real ia = 1 / (s.across * s.across), k = 1 / (s.along * s.along) - ia;
    return {ia + k * n.x * n.x, k * n.x * n.y, k * n.x * n.z, ia + k * n.y * n.y, k * n.y * n.z, ia + k * n.z * n.z};
  }
  /// [lo, hi] of r_x in the row at (ry, rz) from the centre; false where there is none.
  HEMO_HD bool range(Real ry, Real rz, Real& lo, Real& hi) const {
    const Real b = mxy * ry + mxz * rz, c = myy * ry * ry + 2 * myz * ry * rz + mzz * rz * rz - 1;
    const Real disc = b * b - mxx * c;
    if (disc < 0) return false;
    const Real h = std::sqrt(disc) / mxx, mid = -b / mxx;
    lo = mid - h - pad;
    hi = mid + h + pad;
    return true;
  }
};

/// Visits every lattice point of a cell's coupling support with a positive weight, in a
/// fixed order (k, then j, then i ascending, unwrapped around the centre X):
/// visit(i, j, k, r, w) with r the point's offset from X and w its weight. The kick and
/// the ghosts' cover (GhostCover) go through this one loop, so a cell covers the same
/// points on every rank.
template <class Real, class Visit>
HEMO_HD void for_each_support_point(const phys::CellSupport<Real>& support, const Vec3<Real>& X, const Vec3<Real>& n,
                                    Visit& visit) {
  const SupportRows<Real> rows = SupportRows<Real>::of(support, n);
  const Real ext[3] = {support.half_extent(n.x), support.half_extent(n.y), support.half_extent(n.z)};
  const std::int64_t lo[3] = {std::int64_t(std::ceil(X.x - ext[0])), std::int64_t(std::ceil(X.y - ext[1])),
                              std::int64_t(std::ceil(X.z - ext[2]))};
  const std::int64_t hi[3] = {std::int64_t(std::floor(X.x + ext[0])), std::int64_t(std::floor(X.y + ext[1])),
                              std::int64_t(std::floor(X.z + ext[2]))};
  for (std::int64_t k = lo[2]; k <= hi[2]; ++k)
    for (std::int64_t j = lo[1]; j <= hi[1]; ++j) {
      const Real ry = Real(j) - X.y, rz = Real(k) - X.z;
      Real from, to;
      if (!rows.range(ry, rz, from, to)) continue;
      const std::int64_t a0 = std::int64_t(std::ceil(X.x + from)), a1 = std::int64_t(std::floor(X.x + to));
      for (std::int64_t a = a0 > lo[0] ? a0 : lo[0]; a <= (a1 < hi[0] ? a1 : hi[0]); ++a) {
        const Vec3<Real> r{Real(a) - X.x, ry, rz};
        const Real w = support.weight(r, n);
        if (w > 0) visit(a, j, k, r, w);
      }
    }
}

/// u~ and Omega~ over the cell's support (the plasma's velocity at the start of this step,
/// lb_bgk's "streamed_velocity", at this rank's nodes, and at other ranks' fluid points
/// from the far velocity halo), then the kick with the conservative force and the drag,
/// then the cell's record for the spreading; the cell enters the list of every owned
/// node of its support (NodeCells).
template <class Real>
struct CellKick {
  CellColumns<Real> cells;  // in tile order
  CellModel<Real> model;
  mesh::TileView tiles;
  const Real* velocity;  // the plasma's streamed velocity, 3 rows of `fluid_stride`
  std::uint32_t fluid_stride;
  const Real* far_velocity;  // at other ranks' fluid points: 3 values per slot (GatherVelocity)
  SpreadRecord<Real>* records;  // per cell
  NodeCells node_cells;

  struct Gather {
    const CellKick& k;
    const NearCell& near;
    std::uint32_t cell;
    phys::SupportSums<Real> sums;
    HEMO_HD void operator()(std::int64_t a, std::int64_t j, std::int64_t kk, const Vec3<Real>& r, Real w) {
      const std::int32_t code = near.lattice_at(k.tiles, a, j, kk);
      if (code >= 0) {
        const std::size_t s = k.fluid_stride;
        sums.add(w, r, Vec3<Real>{k.velocity[code], k.velocity[s + code], k.velocity[2 * s + code]});
        k.node_cells.enter(code, cell);
      } else if (code <= -2) {
        const Real* u = k.far_velocity + 3 * std::size_t(-2 - code);
        sums.add(w, r, Vec3<Real>{u[0], u[1], u[2]});
      }
    }
  };

  HEMO_HD void operator()(std::uint32_t i) const {
    const Vec3<Real> X = cells.get3(cells.position, i);
    const Vec3<Real> n = phys::symmetry_axis(cells.quaternion(i));
    const NearCell near = NearCell::of(tiles, X);
    Gather gather{*this, near, i, {}};
    for_each_support_point(model.support, X, n, gather);
    const phys::CellFluid<Real> fluid = phys::cell_fluid(gather.sums);
    const phys::Drag<Real> drag{fluid.velocity, fluid.rotation, fluid.W > 0 ? model.gamma_t : Real(0),
                                fluid.W > 0 ? model.gamma_r : Real(0)};
    Vec3<Real> V = cells.get3(cells.velocity, i), L = cells.get3(cells.angular_momentum, i);
    const auto applied = phys::kick(model.body, n, cells.get3(cells.force, i), cells.get3(cells.torque, i), drag,
                                    Real(1), V, L);
    cells.set3(cells.velocity, i, V);
    cells.set3(cells.angular_momentum, i, L);
    cells.set3(cells.drag, i, applied.force);
    cells.set3(cells.drag + 3 * std::size_t(cells.stride), i, applied.torque);
    records[i] = SpreadRecord<Real>{X, n, phys::cell_share(fluid, applied.force, applied.torque, model.gamma_s)};
  }
};

/// Another rank's cell near this rank (a ghost row) enters the list of every node of this
/// rank that its support covers, as the kick enters a cell of this rank's own: the
/// spreading then adds its share (its owner's record, sent after the kick).
template <class Real>
struct GhostCover {
  const Real* position;     // 3 rows of `stride`
  const Real* orientation;  // 4 rows of `stride`
  std::uint32_t stride;
  phys::CellSupport<Real> support;
  mesh::TileView tiles;
  NodeCells node_cells;

  struct Enter {
    const GhostCover& g;
    const NearCell& near;
    std::uint32_t cell;
    HEMO_HD void operator()(std::int64_t a, std::int64_t j, std::int64_t k, const Vec3<Real>&, Real) const {
      const std::int32_t node = near.node_at(g.tiles, a, j, k);
      if (node >= 0) g.node_cells.enter(node, cell);
    }
  };

  HEMO_HD void operator()(std::uint32_t i) const {
    const std::size_t s = stride;
    const Vec3<Real> X{position[i], position[s + i], position[2 * s + i]};
    const Quaternion<Real> q{orientation[i], orientation[s + i], orientation[2 * s + i], orientation[3 * s + i]};
    const NearCell near = NearCell::of(tiles, X);
    Enter enter{*this, near, i};
    for_each_support_point(support, X, phys::symmetry_axis(q), enter);
  }
};

/// The force density on node n: the share of every cell whose support holds it (this
/// rank's and other ranks' cells alike). The cells come from the node's list (NodeCells),
/// sorted so that they add in ascending cell id whatever order the increments came in and
/// whichever rank holds them; a node with more cells than a list holds gathers them from
/// the 27 tiles around it instead (tiles in CNEIGH order, then rows, which a tile keeps in
/// id order: also the same on any rank count). Zeroes the node's count for the next step.
template <class Real>
struct SpreadDrag {
  static constexpr std::uint32_t max_per_node = 16;  // NodeCells::per_node must not exceed it
  CellModel<Real> model;
  mesh::TileView tiles;
  const std::int32_t* node_tile;       // per node
  const std::int32_t* node_voxel;      // 3 rows of `stride`: i, j, k
  const std::uint32_t* tile_first;
  const SpreadRecord<Real>* records;   // per cell
  const std::uint32_t* id;             // per cell
  NodeCells node_cells;
  Real* force;                         // 3 rows of `stride`, overwritten
  std::uint32_t stride;

  HEMO_HD Vec3<Real> share_of(std::uint32_t cell, std::int64_t i, std::int64_t j, std::int64_t k) const {
    const SpreadRecord<Real>& rec = records[cell];
    const Vec3<Real> r = offset_from(tiles, i, j, k, rec.position);
    const Real w = model.support.weight(r, rec.axis);
    return w > 0 ? phys::node_share(rec.share, w, r) : Vec3<Real>{};
  }

  HEMO_HD void operator()(std::uint32_t n) const {
    const std::int64_t i = node_voxel[n], j = node_voxel[stride + n], k = node_voxel[2 * std::size_t(stride) + n];
    const std::uint32_t count = node_cells.count[n];
    node_cells.count[n] = 0;
    Vec3<Real> g{};
    if (count <= node_cells.per_node) {
      std::uint32_t list[max_per_node];
      for (std::uint32_t a = 0; a < count; ++a) {  // insertion sort: a handful of rows
        const std::uint32_t c = node_cells.cells[std::size_t(n) * node_cells.per_node + a];
        std::uint32_t b = a;
        for (; b > 0 && id[list[b - 1]] > id[c]; --b) list[b] = list[b - 1];
        list[b] = c;
      }
      for (std::uint32_t a = 0; a < count; ++a) g = g + share_of(list[a], i, j, k);
    } else {
      const std::int32_t t = node_tile[n];
      for (int s = 0; s < 27; ++s) {
        const std::int32_t tt = search_tile(tiles, t, s);
        if (tt < 0) continue;
        for (std::uint32_t c = tile_first[tt]; c < tile_first[tt + 1]; ++c) g = g + share_of(c, i, j, k);
      }
    }
    force[n] = g.x;
    force[stride + n] = g.y;
    force[2 * std::size_t(stride) + n] = g.z;
  }
};

/// Each ghost row's spreading record, from its owner's records as they came (in the
/// order the ghosts were appended): row i (i >= owned) was appended as row order[i].
template <class Real>
struct GatherGhostRecords {
  const SpreadRecord<Real>* arrived;  // per appended ghost, in arrival order
  const std::uint32_t* order;
  SpreadRecord<Real>* records;
  std::uint32_t owned;
  HEMO_HD void operator()(std::uint32_t i) const { records[i] = arrived[order[i] - owned]; }
};

/// The plasma's velocity at chosen nodes, three values per node one after another: what
/// another rank's cells need of this rank's fluid (the far velocity halo, plugins/rbc/
/// ranks.hpp), packed so that each peer's part is one contiguous message.
template <class Real>
struct GatherVelocity {
  const Real* velocity;  // 3 rows of `stride`
  std::uint32_t stride;
  const std::uint32_t* nodes;
  Real* out;  // 3 per node

  HEMO_HD void operator()(std::uint32_t i) const {
    const std::uint32_t n = nodes[i];
    for (int a = 0; a < 3; ++a) out[3 * std::size_t(i) + a] = velocity[std::size_t(a) * stride + n];
  }
};

/// The free motion to the next step; positions wrapped into the box along periodic axes.
/// A cell that moves a tile or more along an axis in one step could pass the cells and
/// ranks that its tile's neighbours hold: it raises `too_fast`, which the plugin reports.
template <class Real>
struct CellDrift {
  CellColumns<Real> cells;
  CellModel<Real> model;
  mesh::TileView tiles;
  std::uint32_t* too_fast;  // set to 1 by any cell moving c or more along an axis

  HEMO_HD void operator()(std::uint32_t i) const {
    const Vec3<Real> V = cells.get3(cells.velocity, i);
    if (!(std::fabs(V.x) < Real(tiles.c) && std::fabs(V.y) < Real(tiles.c) && std::fabs(V.z) < Real(tiles.c)))
      *too_fast = 1;
    Vec3<Real> X = cells.get3(cells.position, i);
    Quaternion<Real> q = cells.quaternion(i);
    const Vec3<Real> L = cells.get3(cells.angular_momentum, i);
    phys::drift(model.body, V, L, Real(1), X, q);
    Real* c[3] = {&X.x, &X.y, &X.z};
    for (int a = 0; a < 3; ++a) {
      if (!tiles.periodic[a]) continue;
      const Real dims = Real(tiles.dims[a]);
      if (*c[a] >= dims - Real(0.5)) *c[a] -= dims;
      else if (*c[a] < Real(-0.5)) *c[a] += dims;
    }
    cells.set3(cells.position, i, X);
    cells.set_quaternion(i, q);
    cells.set3(cells.angular_velocity, i, phys::angular_velocity(model.body, L, phys::symmetry_axis(q)));
  }
};

}  // namespace hemo::rbc
