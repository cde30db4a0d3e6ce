#pragma once
// Device-safe kernel of the kinetic_energy example plugin: plain pointers and values, one
// node per index, compiled for the host (cpu.cpp) and the GPU (cuda.cu).
#include <cstdint>

#include "physics/hd.hpp"

namespace hemo::kinetic_energy {

/// e(n) = rho |u|^2 / 2 at node n, lattice units, from lb_bgk's fields (rows of `stride`).
template <class Real>
struct EnergyDensity {
  const Real* HEMO_RESTRICT density;   // 1 row
  const Real* HEMO_RESTRICT velocity;  // 3 rows
  std::uint32_t stride;
  Real* HEMO_RESTRICT energy;          // 1 row

  HEMO_HD void operator()(std::uint32_t n) const {
    const Real ux = velocity[n], uy = velocity[stride + n], uz = velocity[2 * stride + n];
    energy[n] = Real(0.5) * density[n] * (ux * ux + uy * uy + uz * uz);
  }
};

}  // namespace hemo::kinetic_energy
