#pragma once
// Device-safe kernels of the red blood cell plugin (MUPHY paper, seeds/004, secs. 2-3),
// written once for CPU and GPU. Lattice units throughout: node (i, j, k) at the point
// (i, j, k), the LB time step dt = 1, plasma density 1.
//
// One step, in scheduler order (plugin.cpp):
//   particles  AssignTiles  (per cell)  tile of each centre -> sort keys; then sort, NGRID
//                                       (histogram) and its exclusive scan: GRIDMAT as
//                                       cells sorted by tile with each tile's first slot
//              CellForces   (per cell)  Gay-Berne over the 27 tiles (Algorithm 1) + walls
//              CellKick     (per cell)  u~, Omega~ over the support; the kick with drag;
//                                       the cell's record for the spreading
//   coupling   SpreadDrag   (per node)  the force density: the drag of every cell whose
//                                       support holds the node, gathered from the 27 tiles
//              CellDrift    (per cell)  the free motion to the next step
// Per-cell kernels run over the cells in tile order (slot p holds cell order[p]), so
// neighbouring threads read neighbouring cells; every sum runs in a fixed order (tiles,
// then slots), so CPU and GPU add the same numbers in the same order.
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

/// The membership test near one cell without a binary search: a cell reaches at most one
/// tile beyond its centre's (the tile size is chosen so), so the tile of a lattice point
/// it looks at is its own or a neighbour in CNEIGH, and IJKMAP gives the node.
struct NearCell {
  std::int32_t tile = -1;        // the centre's tile (mapped)
  std::int64_t at[3] = {0, 0, 0};  // its tile coordinates

  template <class Real>
  HEMO_HD static NearCell of(const mesh::TileView& v, const Vec3<Real>& x) {
    NearCell n;
    std::int64_t p[3];
    if (!mesh::TileView::voxel_of_point(x.x, x.y, x.z, p)) return n;
    for (int a = 0; a < 3; ++a) {
      if (!v.wrap_voxel(p[a], a)) return n;
      n.at[a] = p[a] / v.c;
    }
    n.tile = v.tile_at(n.at[0], n.at[1], n.at[2]);
    return n;
  }
  /// The owned node at voxel (i, j, k), -1 where none (as TileView::node_at).
  HEMO_HD std::int32_t node_at(const mesh::TileView& v, std::int64_t i, std::int64_t j, std::int64_t k) const {
    if (tile < 0 || std::uint32_t(tile) >= v.num_mapped()) return v.node_at(i, j, k);
    std::int64_t p[3] = {i, j, k}, t[3];
    int d[3];
    for (int a = 0; a < 3; ++a) {
      if (!v.wrap_voxel(p[a], a)) return -1;
      t[a] = p[a] / v.c;
      std::int64_t diff = t[a] - at[a];
      if (v.periodic[a]) {
        if (diff > 1) diff -= v.m[a];
        else if (diff < -1) diff += v.m[a];
      }
      if (diff < -1 || diff > 1) return v.node_at(i, j, k);
      d[a] = int(diff);
    }
    const std::int32_t tt = (d[0] | d[1] | d[2]) == 0
                                ? tile
                                : v.neighbours[std::int64_t(tile) * 26 + mesh::TileView::neighbour_slot(d[0], d[1], d[2])];
    if (tt < 0 || std::uint32_t(tt) >= v.num_mapped()) return -1;
    const std::int64_t lid = std::int64_t(v.c) * v.c * (p[2] - v.c * t[2]) + std::int64_t(v.c) * (p[1] - v.c * t[1]) +
                             (p[0] - v.c * t[0]);
    return v.nodes[std::int64_t(tt) * v.tile_volume() + lid];
  }
};

/// Sort key of each cell: its tile (centre's voxel); `invalid_tile` (= number of mapped
/// tiles) for a centre in no tile with fluid, which the plugin reports.
template <class Real>
struct AssignTiles {
  CellColumns<Real> cells;
  mesh::TileView tiles;
  std::uint32_t* key;    // per cell
  std::uint32_t* order;  // per cell: the cell's index, sorted along with the keys
  std::uint32_t invalid_tile;

  HEMO_HD void operator()(std::uint32_t i) const {
    const Vec3<Real> x = cells.get3(cells.position, i);
    const std::int32_t t = tiles.tile_of_point(x.x, x.y, x.z);
    key[i] = (t < 0 || std::uint32_t(t) >= tiles.num_mapped()) ? invalid_tile : std::uint32_t(t);
    order[i] = i;
  }
};

/// Gay-Berne between cells over the 27 tiles around each cell (the paper's Algorithm 1,
/// one thread per cell) and the wall sites within reach (lattice points with no node).
template <class Real>
struct CellForces {
  CellColumns<Real> cells;
  CellModel<Real> model;
  mesh::TileView tiles;
  const std::uint32_t* order;       // slot -> cell (cells sorted by tile)
  const std::uint32_t* tile_first;  // first slot of each mapped tile, and the end
  const std::uint32_t* key;         // tile of each slot (sorted keys)
  Real* energy;                     // per cell: its share of the potential energy

  HEMO_HD void operator()(std::uint32_t p) const {
    const std::uint32_t i = order[p];
    const std::int32_t t = std::int32_t(key[p]);
    const Vec3<Real> xi = cells.get3(cells.position, i);
    const Vec3<Real> ni = phys::symmetry_axis(cells.quaternion(i));
    Vec3<Real> F{}, T{};
    Real U = 0;
    const Real cut2 = model.pair_cutoff * model.pair_cutoff;
    for (int s = 0; s < 27; ++s) {
      const std::int32_t tt = search_tile(tiles, t, s);
      if (tt < 0 || std::uint32_t(tt) >= tiles.num_mapped()) continue;  // no cells in external tiles
      for (std::uint32_t q = tile_first[tt]; q < tile_first[tt + 1]; ++q) {
        const std::uint32_t j = order[q];
        if (j == i) continue;
        const Vec3<Real> r = nearest_image(cells.get3(cells.position, j) - xi, tiles);
        if (!(phys::dot(r, r) < cut2)) continue;
        const auto pair = phys::gay_berne(model.pair, r, ni, phys::symmetry_axis(cells.quaternion(j)));
        F = F - pair.force_on_j;
        T = T + pair.torque_i;
        U += Real(0.5) * pair.energy;
      }
    }
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
          if (near.node_at(tiles, a, j, k) >= 0) continue;
          const auto site = phys::cell_wall(model.wall, r, ni);
          F = F + site.force;
          T = T + site.torque;
          U += site.energy;
        }
    cells.set3(cells.force, i, F);
    cells.set3(cells.torque, i, T);
    energy[i] = U;
  }
};

/// What SpreadDrag needs of a cell, in slot order: where it is, its axis and its share.
template <class Real>
struct SpreadRecord {
  Vec3<Real> position, axis;
  phys::CellShare<Real> share;
};

/// u~ and Omega~ over the cell's support (velocity of the last step), then the kick with
/// the conservative force and the drag, then the cell's record for the spreading.
template <class Real>
struct CellKick {
  CellColumns<Real> cells;
  CellModel<Real> model;
  mesh::TileView tiles;
  const std::uint32_t* order;
  const Real* velocity;  // fluid, 3 rows of `fluid_stride`
  std::uint32_t fluid_stride;
  SpreadRecord<Real>* records;  // per slot

  HEMO_HD void operator()(std::uint32_t p) const {
    const std::uint32_t i = order[p];
    const Vec3<Real> X = cells.get3(cells.position, i);
    const Vec3<Real> n = phys::symmetry_axis(cells.quaternion(i));
    phys::SupportSums<Real> sums;
    const NearCell near = NearCell::of(tiles, X);
    const Real ext[3] = {model.support.half_extent(n.x), model.support.half_extent(n.y), model.support.half_extent(n.z)};
    const std::int64_t lo[3] = {std::int64_t(std::ceil(X.x - ext[0])), std::int64_t(std::ceil(X.y - ext[1])),
                                std::int64_t(std::ceil(X.z - ext[2]))};
    const std::int64_t hi[3] = {std::int64_t(std::floor(X.x + ext[0])), std::int64_t(std::floor(X.y + ext[1])),
                                std::int64_t(std::floor(X.z + ext[2]))};
    const std::size_t s = fluid_stride;
    for (std::int64_t k = lo[2]; k <= hi[2]; ++k)
      for (std::int64_t j = lo[1]; j <= hi[1]; ++j)
        for (std::int64_t a = lo[0]; a <= hi[0]; ++a) {
          const Vec3<Real> r{Real(a) - X.x, Real(j) - X.y, Real(k) - X.z};
          const Real w = model.support.weight(r, n);
          if (!(w > 0)) continue;
          const std::int32_t node = near.node_at(tiles, a, j, k);
          if (node < 0) continue;
          sums.add(w, r, Vec3<Real>{velocity[node], velocity[s + node], velocity[2 * s + node]});
        }
    const phys::CellFluid<Real> fluid = phys::cell_fluid(sums);
    const phys::Drag<Real> drag{fluid.velocity, fluid.rotation, fluid.W > 0 ? model.gamma_t : Real(0),
                                fluid.W > 0 ? model.gamma_r : Real(0)};
    Vec3<Real> V = cells.get3(cells.velocity, i), L = cells.get3(cells.angular_momentum, i);
    const auto applied = phys::kick(model.body, n, cells.get3(cells.force, i), cells.get3(cells.torque, i), drag,
                                    Real(1), V, L);
    cells.set3(cells.velocity, i, V);
    cells.set3(cells.angular_momentum, i, L);
    cells.set3(cells.drag, i, applied.force);
    cells.set3(cells.drag + 3 * std::size_t(cells.stride), i, applied.torque);
    records[p] = SpreadRecord<Real>{X, n, phys::cell_share(fluid, applied.force, applied.torque)};
  }
};

/// The force density on node n: the share of every cell whose support holds it, over
/// the cells of the node's tile and its 26 neighbours, in slot order.
template <class Real>
struct SpreadDrag {
  CellModel<Real> model;
  mesh::TileView tiles;
  const std::int32_t* node_tile;       // per node
  const std::int32_t* node_voxel;      // 3 rows of `stride`: i, j, k
  const std::uint32_t* tile_first;
  const SpreadRecord<Real>* records;
  Real* force;                         // 3 rows of `stride`, overwritten
  std::uint32_t stride;

  HEMO_HD void operator()(std::uint32_t n) const {
    const Vec3<Real> x{Real(node_voxel[n]), Real(node_voxel[stride + n]), Real(node_voxel[2 * std::size_t(stride) + n])};
    const std::int32_t t = node_tile[n];
    // Only the neighbour tiles a support can reach from: a centre in the tile below along
    // axis a is at least (local coordinate + 1/2) away, one in the tile above at least
    // (c - local coordinate - 1/2). Tiles left out hold no cell with weight here, so the
    // sum is the same, bit for bit.
    const Real reach = model.support.across > model.support.along ? model.support.across : model.support.along;
    bool skip[27];
    {
      bool low[3], high[3];
      const Real local[3] = {x.x, x.y, x.z};
      for (int a = 0; a < 3; ++a) {
        const Real l = local[a] - Real(tiles.c) * std::floor(local[a] / Real(tiles.c));
        low[a] = l + Real(0.5) >= reach;
        high[a] = Real(tiles.c) - l - Real(0.5) >= reach;
      }
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const bool out = (dx < 0 && low[0]) || (dx > 0 && high[0]) || (dy < 0 && low[1]) || (dy > 0 && high[1]) ||
                             (dz < 0 && low[2]) || (dz > 0 && high[2]);
            skip[(dx | dy | dz) == 0 ? 26 : mesh::TileView::neighbour_slot(dx, dy, dz)] = out;
          }
    }
    Vec3<Real> g{};
    for (int s = 0; s < 27; ++s) {
      if (skip[s]) continue;
      const std::int32_t tt = search_tile(tiles, t, s);
      if (tt < 0 || std::uint32_t(tt) >= tiles.num_mapped()) continue;
      for (std::uint32_t q = tile_first[tt]; q < tile_first[tt + 1]; ++q) {
        const SpreadRecord<Real>& rec = records[q];
        const Vec3<Real> r = nearest_image(x - rec.position, tiles);
        const Real w = model.support.weight(r, rec.axis);
        if (w > 0) g = g + phys::node_share(rec.share, w, r);
      }
    }
    force[n] = g.x;
    force[stride + n] = g.y;
    force[2 * std::size_t(stride) + n] = g.z;
  }
};

/// The free motion to the next step; positions wrapped into the box along periodic axes.
template <class Real>
struct CellDrift {
  CellColumns<Real> cells;
  CellModel<Real> model;
  mesh::TileView tiles;

  HEMO_HD void operator()(std::uint32_t i) const {
    Vec3<Real> X = cells.get3(cells.position, i);
    Quaternion<Real> q = cells.quaternion(i);
    const Vec3<Real> L = cells.get3(cells.angular_momentum, i);
    phys::drift(model.body, cells.get3(cells.velocity, i), L, Real(1), X, q);
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
