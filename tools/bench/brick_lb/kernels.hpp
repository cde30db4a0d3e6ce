#pragma once
// BRICK prototype for issue 16 (docs/bytes_per_update.md, section 4; the solver has had
// the brick layout since 2026-11-26, lattice.layout, and this prototype now addresses its
// bricks through the solver's BrickView; docs/bricks.md's numbers are from before): the same D3Q19
// update as lb_bgk (pull, collision operator, Guo force, 16-bit storage), on a brick-sparse
// layout, to measure what the layout gives before the mesh and every plugin move to it.
//   - The box is cut into bricks of 4^3 voxels; only bricks with fluid are stored, each as
//     64 slots (slot = x + 4 y + 16 z inside the brick), so node n = brick * 64 + slot and
//     populations are SoA rows over all slots: h_q(n) = f[q * stride + n].
//   - Neighbours inside a brick are implicit; across bricks one table of 27 brick ids per
//     brick (its 26 neighbours and, at entry 13, itself; `no_brick` where none is stored).
//   - Which slots are fluid: one 64-bit mask per brick. A pull from a solid slot, or from
//     a brick that is not stored, is halfway bounce-back (physics/bounce_back.hpp).
// Per fluid-node update it reads and writes the 19 populations and, per brick, the mask
// and the table (8 + 108 B shared by the brick's fluid slots): no per-node index at all.
#include <cstdint>

#include "core/mesh/lattice_view.hpp"
#include "physics/collision.hpp"
#include "plugins/lb_bgk/kernels.hpp"

namespace hemo::bench {

namespace d3q19 = phys::d3q19;

using mesh::no_brick;

/// The solver's brick addressing (core/mesh/lattice_view.hpp, BrickView) on the
/// prototype's table and masks: the node at x - c_q of slot n, or no_brick where that
/// voxel is not fluid or its brick not stored. No coded links here.
HEMO_HD std::uint32_t upstream_of(int q, std::uint32_t n, const std::uint64_t* fluid_mask, const std::uint32_t* brick_table) {
  const mesh::BrickView view{brick_table, fluid_mask, nullptr, nullptr, nullptr};
  return view.displaced(n, -d3q19::cx(q), -d3q19::cy(q), -d3q19::cz(q));
}

template <class Real, class Store = Real>
struct BrickCollideStream {
  const Store* HEMO_RESTRICT f_in;
  Store* HEMO_RESTRICT f_out;
  const std::uint64_t* HEMO_RESTRICT fluid_mask;  // per brick: bit s set where slot s is fluid
  const std::uint32_t* HEMO_RESTRICT brick_table;  // 27 per brick: (dx+1) + 3 (dy+1) + 9 (dz+1)
  Real* HEMO_RESTRICT density;
  Real* HEMO_RESTRICT velocity;
  phys::Vec3<Real> acceleration;
  phys::BgkCollision<Real> collision;
  std::uint32_t stride;
  bool write_moments;

  HEMO_HD void operator()(std::uint32_t n) const {
    const std::uint32_t b = n >> 6, s = n & 63u;
    const std::uint64_t own = fluid_mask[b];
    if (!(own >> s & 1u)) return;
    // The 18 source slots first (table and masks come from cache: every slot of the brick
    // reads the same ones), then 19 branch-free population loads, as in lb_bgk's pull.
    std::uint32_t src[d3q19::Q];
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q) src[q] = upstream_of(q, n, fluid_mask, brick_table);
    Real h[d3q19::Q];
    const std::size_t st = stride;
    h[0] = Real(f_in[n]);
    // Row pointers and 32-bit offsets: one wide multiply-add per address instead of 64-bit
    // index arithmetic (the kernel is close to the instruction-issue limit).
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q) {
      const bool fluid = src[q] != no_brick;
      const Store* row = f_in + std::size_t(fluid ? q : d3q19::opposite(q)) * st;
      h[q] = Real(row[fluid ? src[q] : n]);
    }
    const phys::Moments<Real> m = phys::moments(h);
    const Real rho = Real(1) + m.drho;
    const phys::Vec3<Real> F{rho * acceleration.x, rho * acceleration.y, rho * acceleration.z};
    lb_bgk::relax_and_store(h, collision, F, n, st, f_out, write_moments, density, velocity);
  }
};

/// In-place streaming (the AA pattern: Bailey et al., ICPP 2009): one population array.
/// Even steps read the node's own 19 populations and write the post-collision ones back
/// into the opposite slots; odd steps read from the neighbours' opposite slots (where the
/// even step left them) and write each post-collision population into the slot of the
/// node it streams to. A solid neighbour turns both into the node's own slot: halfway
/// bounce-back. Each node reads and writes the same 19 locations, so no two nodes touch
/// one location in a step. State after an even step: f*_q(x) at slot opp(q) of x.
template <class Real, class Store = Real>
struct BrickCollideStreamAA {
  Store* HEMO_RESTRICT f;
  const std::uint64_t* HEMO_RESTRICT fluid_mask;
  const std::uint32_t* HEMO_RESTRICT brick_table;
  Real* HEMO_RESTRICT density;
  Real* HEMO_RESTRICT velocity;
  phys::Vec3<Real> acceleration;
  phys::BgkCollision<Real> collision;
  std::uint32_t stride;
  bool odd, write_moments;

  HEMO_HD void operator()(std::uint32_t n) const {
    const std::uint32_t b = n >> 6, s = n & 63u;
    const std::uint64_t own = fluid_mask[b];
    if (!(own >> s & 1u)) return;
    const std::size_t st = stride;
    // at[q]: where this step reads the population arriving in direction q, which is also
    // where it writes the post-collision population of direction opp(q).
    std::size_t at[d3q19::Q];
    at[0] = n;
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q) {
      if (!odd) {
        at[q] = std::size_t(q) * st + n;
      } else {
        const std::uint32_t src = upstream_of(q, n, fluid_mask, brick_table);
        at[q] = src != no_brick ? std::size_t(d3q19::opposite(q)) * st + src : std::size_t(q) * st + n;
      }
    }
    Real h[d3q19::Q];
    HEMO_UNROLL
    for (int q = 0; q < d3q19::Q; ++q) h[q] = Real(f[at[q]]);
    const phys::Moments<Real> m = phys::moments(h);
    const Real rho = Real(1) + m.drho;
    const phys::Vec3<Real> F{rho * acceleration.x, rho * acceleration.y, rho * acceleration.z};
    const phys::NodeState<Real> state = collision(h, F);
    // f*_q goes where direction opp(q) was read from: even steps, slot opp(q) of n; odd
    // steps, slot q of x + c_q (or, against a wall, slot opp(q) of n: bounce-back).
    HEMO_UNROLL
    for (int q = 0; q < d3q19::Q; ++q) f[at[d3q19::opposite(q)]] = Store(h[q]);
    if (write_moments) lb_bgk::store_moments(state, n, st, density, velocity);
  }
};

}  // namespace hemo::bench
