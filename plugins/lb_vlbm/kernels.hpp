#pragma once
// Device-safe kernel of the lb_vlbm plugin: the generalized streaming of the volumetric
// lattice Boltzmann method (VLBM paper, seeds/000, eqs. 5-6) as link values.
//
// The paper streams particle numbers n = (1 - P) f, P the cell's solid fraction. Written
// for f (the density per fluid volume, which lb_bgk stores and collides: eqs. 3-4 are BGK
// in f), with x = y - c_q the cell a population leaves and y the cell it enters:
//   P(y) >= P(x) (G = 1): n_q(y) = (1 - P_y)/(1 - P_x) n*_q(x)   <=>  f_q(y) = f*_q(x),
//   P(y) <  P(x) (G = 0): n_q(y) = n*_q(x) + (P_x - P_y)/(1 - P_y) n*_opp(y)
//                         <=>  f_q(y) = (1 - phi) f*_q(x) + phi f*_opp(y),
//                               phi = (P_x - P_y) / (1 - P_y).
// So a pull from a more solid cell is a plain pull mixed with a bounce-back; P_x = 1 (a
// solid cell, not stored) gives phi = 1, halfway bounce-back. The mixed pulls are coded
// links: the fused kernel computes h_q(y) = h*_opp(y) + link_value[k], so
//   link_value[k] = (1 - phi) (h*_q(x) - h*_opp(y)),
// formed from the post-collision populations of the last step (what "f" holds at
// begin_step), and shift-invariant because w_q = w_opp(q). Mass: the part of n*_q(x) that
// y does not take comes back to x through the opposite link (the G = 0 case seen from
// x), so sum (1 - P) sum_q f is conserved exactly.
#include <cstdint>

#include "physics/d3q19.hpp"

namespace hemo::vlbm {

namespace d3q19 = phys::d3q19;

// Store: the populations' storage (Real or a 16-bit format, physics/storage16.hpp), read
// as Real(f[i]).
template <class Real, class Store = Real>
struct PartialVolumeLinks {
  Real* HEMO_RESTRICT link_value;
  const std::uint32_t* HEMO_RESTRICT link;    // link index k
  const std::uint32_t* HEMO_RESTRICT from;    // x: the more solid cell the population leaves
  const std::uint32_t* HEMO_RESTRICT to;      // y: the cell it enters
  const std::uint8_t* HEMO_RESTRICT direction;
  const Real* HEMO_RESTRICT keep;             // 1 - phi
  const Store* HEMO_RESTRICT f;               // post-collision populations of the last step
  std::uint32_t stride;
  HEMO_HD void operator()(std::uint32_t i) const {
    const int q = direction[i];
    const std::size_t s = stride;
    const Real pulled = Real(f[std::size_t(q) * s + from[i]]);
    const Real reflected = Real(f[std::size_t(d3q19::opposite(q)) * s + to[i]]);
    link_value[link[i]] = keep[i] * (pulled - reflected);
  }
};

/// The particle number of each cell, (1 - P) sum_q f = (1 - P)(1 + sum_q h): VLBM
/// conserves its sum over the domain (not the sum of the densities).
template <class Real, class Store = Real>
struct CellParticles {
  Real* HEMO_RESTRICT out;
  const Real* HEMO_RESTRICT fluid_share;  // 1 - P per node
  const Store* HEMO_RESTRICT f;
  std::uint32_t stride;
  HEMO_HD void operator()(std::uint32_t n) const {
    Real sum = Real(1);
    HEMO_UNROLL
    for (int q = 0; q < d3q19::Q; ++q) sum += Real(f[std::size_t(q) * stride + n]);
    out[n] = fluid_share[n] * sum;
  }
};

}  // namespace hemo::vlbm
