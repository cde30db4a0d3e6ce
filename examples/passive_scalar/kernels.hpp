#pragma once
// Device-safe kernels of the passive scalar, written once for the host and the GPU
// (cpu.cpp and cuda.cu instantiate them). Plain pointers and values; each writes only its
// own node, so results are bitwise the same for any thread count, device or rank count.
#include <cstdint>

#include "advection_diffusion.hpp"
#include "core/mesh/lattice_view.hpp"

namespace hemo::passive_scalar {

/// The fluid's velocity at node n. Every field is SoA, rows of `stride` entries: the
/// populations g_i(n) = g[i * stride + n], velocity component a at velocity[a * stride + n].
template <class Real>
HEMO_HD phys::Vec3<Real> velocity_at(const Real* HEMO_RESTRICT velocity, std::size_t s, std::uint32_t n) {
  return {velocity[n], velocity[s + n], velocity[2 * s + n]};
}

/// One step on node n, fused as lb_bgk's (pull, then collide):
///   1. stream: g_i from the node at x - c_i, the post-collision value of the last step;
///      where x - c_i is not fluid (a wall, an iolet), halfway bounce-back, g_i = g*_opp(i)
///      of this node: what left towards the wall comes back, no flux through it;
///   2. C = sum_i g_i, written to the concentration field;
///   3. BGK towards g^eq(C, u) with the fluid's velocity at this node, this step.
/// View: the mesh layout (core/mesh/lattice_view.hpp); a brick's holes are skipped.
template <class Real, class View>
struct AdvectDiffuse {
  const Real* HEMO_RESTRICT g_in;      // 7 rows: post-collision populations of the last step
  Real* HEMO_RESTRICT g_out;           // 7 rows: this step's
  Real* HEMO_RESTRICT concentration;   // 1 row
  const Real* HEMO_RESTRICT velocity;  // 3 rows, lattice units (lb_bgk's "velocity")
  View lattice;
  std::uint32_t stride;
  Real omega;  // 1 / tau

  HEMO_HD void operator()(std::uint32_t n) const {
    if (!lattice.is_fluid(n)) return;
    const std::size_t s = stride;
    // The pull codes of D3Q19's 18 directions; D3Q7 reads the first six (the axes).
    std::uint32_t src[phys::d3q19::Q];
    lattice.sources(n, src);
    Real g[d3q7::Q];
    g[0] = g_in[n];
    HEMO_UNROLL
    for (int q = 1; q < d3q7::Q; ++q) {
      // A node, the source of a pull between fluid cells (lb_vlbm), or wall_link.
      const std::uint32_t from = lattice.pull_node(src[q]);
      g[q] = from != mesh::wall_link ? g_in[std::size_t(q) * s + from] : g_in[std::size_t(d3q7::opposite(q)) * s + n];
    }
    const Real C = d3q7::concentration(g);
    d3q7::collide(g, C, velocity_at(velocity, s, n), omega);
    HEMO_UNROLL
    for (int q = 0; q < d3q7::Q; ++q) g_out[std::size_t(q) * s + n] = g[q];
    concentration[n] = C;
  }
};

/// Initial state: the populations at equilibrium with the concentration field and the
/// fluid's velocity (both set before), as after a collision.
template <class Real, class View>
struct InitEquilibrium {
  Real* HEMO_RESTRICT g;                     // 7 rows
  const Real* HEMO_RESTRICT concentration;   // 1 row
  const Real* HEMO_RESTRICT velocity;        // 3 rows, lattice units
  View lattice;
  std::uint32_t stride;

  HEMO_HD void operator()(std::uint32_t n) const {
    if (!lattice.is_fluid(n)) return;
    const phys::Vec3<Real> u = velocity_at(velocity, stride, n);
    HEMO_UNROLL
    for (int q = 0; q < d3q7::Q; ++q) g[std::size_t(q) * stride + n] = d3q7::equilibrium(q, concentration[n], u);
  }
};

}  // namespace hemo::passive_scalar
