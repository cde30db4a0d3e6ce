#pragma once
// DENSE reference for the performance comparison: the same D3Q19 BGK update as lb_bgk
// (physics/bgk.hpp), but on every voxel of the bounding box with direct addressing: the
// pull source of direction q is n - offset[q], and a flag per voxel says fluid or solid.
// This is the layout of the VLBM paper's DENSE algorithm (seeds/000, fig. 6a) and of
// dense-grid codes such as FluidX3D; the box carries a one-voxel solid shell so that
// n - offset[q] never leaves the array.
#include <cstdint>

#include "physics/collision.hpp"
#include "plugins/lb_bgk/kernels.hpp"

namespace hemo::bench {

namespace d3q19 = phys::d3q19;

template <class Real>
struct DenseCollideStream {
  const Real* HEMO_RESTRICT f_in;
  Real* HEMO_RESTRICT f_out;
  const std::uint8_t* HEMO_RESTRICT fluid;  // 1 fluid, 0 solid
  Real* HEMO_RESTRICT density;
  Real* HEMO_RESTRICT velocity;
  phys::Vec3<Real> acceleration;
  phys::BgkCollision<Real> collision;
  std::uint32_t stride;
  std::int64_t offset[d3q19::Q];  // index distance to the node at x - c_q
  bool write_moments;

  HEMO_HD void operator()(std::uint32_t n) const {
    if (!fluid[n]) return;
    const std::size_t s = stride;
    const Real* HEMO_RESTRICT in = f_in;
    // As in lb_bgk: the neighbours' flags first, then branch-free addresses, so all 19
    // population loads are in flight together.
    bool open[d3q19::Q];
    HEMO_UNROLL
    for (int q = 0; q < d3q19::Q; ++q) open[q] = fluid[std::size_t(std::int64_t(n) - offset[q])] != 0;
    Real h[d3q19::Q];
    HEMO_UNROLL
    for (int q = 0; q < d3q19::Q; ++q) {
      const std::size_t src = std::size_t(std::int64_t(n) - offset[q]);
      h[q] = in[open[q] ? std::size_t(q) * s + src : std::size_t(d3q19::opposite(q)) * s + n];
    }
    const phys::Moments<Real> m = phys::moments(h);
    const Real rho = Real(1) + m.drho;
    const phys::Vec3<Real> F{rho * acceleration.x, rho * acceleration.y, rho * acceleration.z};
    lb_bgk::relax_and_store(h, collision, F, n, s, f_out, write_moments, density, velocity);
  }
};

/// h = 0 (f = w) on every entry; Store: the populations' element type (the BRICK
/// prototype's 16-bit storages too).
template <class Store>
struct DenseInit {
  Store* HEMO_RESTRICT f;
  std::uint32_t stride;
  HEMO_HD void operator()(std::uint32_t n) const {
    HEMO_UNROLL
    for (int q = 0; q < d3q19::Q; ++q) f[std::size_t(q) * stride + n] = Store(0.0f);
  }
};

}  // namespace hemo::bench
